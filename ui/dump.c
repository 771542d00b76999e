/* dump.c: the golden text dump of a model. One line per fact, stable order. */
#include "ui/dump.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ui/reports.h"
#include "lib/escape.h"

static void name(FILE *f, const struct trace *t, uint32_t id)
{
	char buf[1024];
	uint32_t n = strtab_len(&t->strings, id);
	fputc('"', f);
	escape_term_buf(strtab_get(&t->strings, id), n, buf, n > 200 ? 201 : sizeof buf);
	fputs(buf, f);
	if (n > 200)
		fprintf(f, "...(%u bytes)", n);
	fputc('"', f);
}

static const char *cls_name(uint8_t c)
{
	static const char *const names[SC__COUNT] = { "other",          "cpu_op", "user_annotation", "python",
		                                      "runtime",        "kernel", "memcpy",          "memset",
		                                      "gpu_annotation", "sync",   "profiler_range" };
	return c < SC__COUNT ? names[c] : "?";
}

static void ref(FILE *f, const struct trace *t, struct slice_ref r)
{
	if (r.track == TT_NONE) {
		fputs("-", f);
		return;
	}
	const struct slice *s = &t->tracks[r.track].slices[r.idx];
	fprintf(f, "t%u@%" PRId64 ":", r.track, s->ts);
	name(f, t, slice_name(t, s));
}

void dump_model(FILE *f, const struct trace *t)
{
	fprintf(f, "file ");
	escape_term(f, trace_name(t), strlen(trace_name(t)));
	fprintf(f, "\ncodec %s\nstatus %s\n", t->codec,
	        t->status == LOAD_OK          ? "ok"
	        : t->status == LOAD_TRUNCATED ? "truncated"
	                                      : "failed");
	if (t->error) {
		fputs("error ", f);
		escape_term(f, t->error, strlen(t->error));
		fputc('\n', f);
	}
	fprintf(f, "bytes %" PRIu64 "\nevents %" PRIu64 "\n", t->bytes, t->events);
	for (int c = 0; c < 128; c++)
		if (t->count_by_ph[c])
			fprintf(f, "ph %c %" PRIu64 "\n", c > 0x20 && c < 0x7f ? c : '?', t->count_by_ph[c]);
	if (t->has_base)
		fprintf(f, "base_ns %" PRId64 "\n", t->base_ns);
	else
		fprintf(f, "base_ns none\n");
	if (t->clock != 0) {
		fprintf(f, "clock ");
		name(f, t, t->clock);
		fputc('\n', f);
	}
	fprintf(f, "span %" PRId64 " %" PRId64 "\nrank %d world %d legacy %d schema %d\n", t->start, t->end, t->rank,
	        t->world_size, t->legacy, t->schema_version);
	for (uint32_t i = 0; i < t->ndevices; i++) {
		const struct device_props *d = &t->devices[i];
		fprintf(f, "device %d ", d->id);
		name(f, t, d->name);
		fprintf(f, " sms %d mem %" PRId64 " cc %d.%d\n", d->num_sms, d->total_global_mem, d->compute_major,
		        d->compute_minor);
	}
	for (uint32_t i = 0; i < t->nprocesses; i++) {
		const struct process *p = &t->processes[i];
		fprintf(f, "process ");
		if (p->pid_is_str)
			name(f, t, (uint32_t)p->pid);
		else
			fprintf(f, "%" PRId64, p->pid);
		fprintf(f, " name ");
		name(f, t, p->name);
		fprintf(f, " labels ");
		name(f, t, p->labels);
		if (p->sort_index != INT64_MIN)
			fprintf(f, " sort %" PRId64, p->sort_index);
		fputc('\n', f);
	}
	for (uint32_t ti = 0; ti < t->ntracks; ti++) {
		const struct track *tr = &t->tracks[ti];
		char pid[64], tid[64];
		fprintf(f, "track t%u %s pid ", ti, track_kind_name(tr->kind));
		if (tr->pid_is_str)
			name(f, t, (uint32_t)tr->pid);
		else
			fputs(track_pid_text(t, tr, pid, sizeof pid), f);
		fputs(" tid ", f);
		if (tr->tid_is_str)
			name(f, t, (uint32_t)tr->tid);
		else
			fputs(track_tid_text(t, tr, tid, sizeof tid), f);
		fputs(" name ", f);
		name(f, t, tr->name);
		fprintf(f, " device %d stream %" PRId64 " events %u slices %u rows %u busy %" PRId64 "\n", tr->device,
		        tr->stream, tr->events, tr->nslices, tr->nrows, tr->busy_total);
		for (uint16_t r = 0; r < tr->nrows; r++) {
			const struct row *row = &tr->rows[r];
			fprintf(f, "  row %u n %u\n", r, row->n);
			for (uint32_t i = 0; i < row->n; i++) {
				const struct slice *s = &tr->slices[row_idx(row, i)];
				fprintf(f, "    %" PRId64 " +%" PRId64 " %s%s%s%s ", s->ts, slice_dur(tr, s),
				        cls_name(slice_cls(t, s)), slice_flags(t, s) & SF_FROM_BE ? " BE" : "",
				        slice_flags(t, s) & SF_UNCLOSED ? " unclosed" : "",
				        slice_flags(t, s) & SF_PARTIAL ? " partial" : "");
				name(f, t, slice_name(t, s));
				if (slice_cat(t, s)) {
					fputs(" cat ", f);
					name(f, t, slice_cat(t, s));
				}
				if (slice_gpu(tr, s) != TT_NONE) {
					const struct gpu_info *g = &t->gpu[slice_gpu(tr, s)];
					fprintf(f, " corr %" PRId64, gpu_correlation(t, g));
					if (gpu_external_id(t, g) >= 0)
						fprintf(f, " ext %" PRId64, gpu_external_id(t, g));
					const struct kernel_launch *kl = gpu_launch(t, g);
					if (kl->grid[0])
						fprintf(f, " grid %d,%d,%d block %d,%d,%d", kl->grid[0], kl->grid[1],
						        kl->grid[2], kl->block[0], kl->block[1], kl->block[2]);
					if (!isnan(kl->occupancy))
						fprintf(f, " occ %g", kl->occupancy);
					if (kl->regs >= 0)
						fprintf(f, " regs %d", kl->regs);
					if (kl->smem >= 0)
						fprintf(f, " smem %d", kl->smem);
					if (gpu_bytes(t, g) >= 0)
						fprintf(f, " bytes %" PRId64, gpu_bytes(t, g));
					fputs(" peer ", f);
					ref(f, t, g->peer);
				}
				fputc('\n', f);
			}
		}
	}
	for (uint32_t i = 0; i < t->naside; i++) {
		fprintf(f, "aside %" PRId64 " +%" PRId64 " ", t->aside[i].ts, t->aside[i].dur);
		name(f, t, t->aside[i].name);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < t->nflows; i++) {
		const struct flow *fl = &t->flows[i];
		fprintf(f, "flow ");
		name(f, t, fl->cat);
		fprintf(f, " id %" PRIu64 " %" PRId64 " -> %" PRId64 " from ", flow_id(t, fl), fl->ts_from, fl->ts_to);
		ref(f, t, fl->from);
		fputs(" to ", f);
		ref(f, t, fl->to);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < t->ninstants; i++) {
		const struct instant *in = &t->instants[i];
		fprintf(f, "instant %" PRId64 " scope %c track ", in->ts, in->scope ? in->scope : '-');
		if (in->track == TT_NONE)
			fputs("-", f);
		else
			fprintf(f, "t%u", in->track);
		fputc(' ', f);
		name(f, t, in->name);
		fputc('\n', f);
	}
	for (uint32_t i = 0, hint = 0; i < t->nmem; i++) {
		const struct mem_sample ms = mem_sample_near(t, i, &hint), *m = &ms;
		fprintf(f, "memory %" PRId64 " alloc %" PRId64 " reserved %" PRId64 " bytes %" PRId64 " dev %d:%d\n",
		        m->ts, m->total_allocated, m->total_reserved, m->bytes, m->device_type, m->device_id);
	}
	for (uint32_t i = 0; i < t->ncounters; i++) {
		const struct counter *c = &t->counters[i];
		fprintf(f, "counter ");
		if (c->pid_is_str)
			name(f, t, (uint32_t)c->pid);
		else
			fprintf(f, "%" PRId64, c->pid);
		fputc(' ', f);
		name(f, t, c->name);
		fputc('.', f);
		name(f, t, c->key);
		fprintf(f, " n %u:", c->n);
		for (uint32_t k = 0; k < c->n; k++)
			fprintf(f, " %" PRId64 "=%g", c->ts[k], c->value[k]);
		fputc('\n', f);
	}
	for (uint32_t i = 0; i < t->nsteps; i++)
		fprintf(f, "step %s %" PRId64 " %" PRId64 " +%" PRId64 "\n", t->steps[i].gpu ? "gpu" : "cpu",
		        t->steps[i].number, t->steps[i].ts, t->steps[i].dur);
	fprintf(f, "async %" PRIu64 "\n", t->async_events);
	for (int q = 0; q < Q__COUNT; q++)
		if (t->quality.count[q])
			fprintf(f, "quality %s %" PRIu64 "\n", quality_key(q), t->quality.count[q]);
	for (uint32_t i = 0; i < t->nwarnings; i++) {
		fputs("warning ", f);
		escape_term(f, t->warnings[i], strlen(t->warnings[i]));
		fputc('\n', f);
	}
}

static int write_dump(FILE *f, struct trace *const *ts, int n, const struct report_opts *o)
{
	(void)o;
	for (int i = 0; i < n; i++)
		if (ts[i]->status != LOAD_FAILED)
			dump_model(f, ts[i]);
	return 0;
}

/* --dump-model (ui/reports.h) */
const struct report_kind report_dump_kind = { .name = "dump-model", .write = write_dump };
