/* merge.c: the merge subcommand (see merge.h): the ranks loaded and aligned as the
 * timeline aligns them, then each rank's file read once, its events rewritten where they
 * must be (a walk over each event's top-level members, the rest copied as it is). */
#include "cmd/merge.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/scan_file.h"
#include "parsers/scan_keys.h"
#include "cmd/trace_out.h"
#include "cmd/trace_paths.h"
#include "lib/escape.h"
#include "lib/xalloc.h"
#include "parsers/chrome_scan.h"
#include "parsers/load.h"
#include "parsers/merged_file.h"
#include "lib/tmath.h"
#include "record/map64.h"
#include "src/ranks.h"

#define MERGE_ID_SHIFT 40 /* ids and correlations: the rank position above these bits */

static void usage(FILE *f)
{
	fputs("Usage: ttrace merge [OPTIONS] DIR|FILE... -o OUT\n"
	      "Write the traces of a job's ranks as one trace, the ranks lined up by ttrace's alignment\n"
	      "(as the timeline shows them), each rank's processes named \"rank R: ...\" and grouped, for\n"
	      "Perfetto. OUT is plain JSON, gzip or zstd by its name (- for standard output); ttrace\n"
	      "opens it as the ranks again (--merged-as-one: as one trace).\n"
	      "\n"
	      "  --align=MODE       raw, step or collective (default), as ttrace --align\n"
	      "  -o, --output=OUT   the file to write\n"
	      "  -f, --force        replace OUT when it exists (never an input)\n"
	      "  -q, --quiet        say nothing on success\n"
	      "  -h, --help         show this help and exit\n"
	      "Exit status: 0 when OUT was written, 1 when not, 2 on a usage error.\n",
	      f);
}

/* ---- a JSON value's extent --------------------------------------------------------- */

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The end of the value at P (a string, a container, or a scalar up to its delimiter). */
static const char *skip_value(const char *p, const char *end)
{
	if (p >= end)
		return end;
	if (*p == '"') {
		for (p++; p < end && *p != '"'; p++)
			if (*p == '\\')
				p++;
		return p < end ? p + 1 : end;
	}
	if (*p == '{' || *p == '[') {
		int depth = 0;
		while (p < end) {
			if (*p == '"') {
				p = skip_value(p, end);
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if ((*p == '}' || *p == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return end;
	}
	while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
		p++;
	return p;
}

/* One member of an object: its key (between the quotes, escapes as written) and value. */
struct member {
	const char *key, *val, *val_end;
	size_t klen;
};

/* The next member of the object whose text is [*P, END) after its '{' or a ','; false at
 * its end. */
static bool next_member(const char **pp, const char *end, struct member *m)
{
	const char *p = skip_ws(*pp, end);
	if (p < end && *p == ',')
		p = skip_ws(p + 1, end);
	if (p >= end || *p != '"')
		return false;
	const char *k = p + 1, *ke = skip_value(p, end) - 1;
	if (ke < k)
		return false;
	p = skip_ws(ke + 1, end);
	if (p >= end || *p != ':')
		return false;
	p = skip_ws(p + 1, end);
	m->key = k;
	m->klen = (size_t)(ke - k);
	m->val = p;
	m->val_end = skip_value(p, end);
	*pp = m->val_end;
	return true;
}

static bool key_is(const struct member *m, const char *k)
{
	return m->klen == strlen(k) && memcmp(m->key, k, m->klen) == 0;
}

/* ---- the merge ----------------------------------------------------------------------- */

struct proc {
	int pos;      /* the rank's position */
	uint32_t k;   /* its place among the rank's processes */
	char *name;   /* from its process_name, or NULL */
	char pid[64]; /* the pid as the file writes it, for the name */
};

struct merge {
	struct trace_out *out;
	int pos;           /* the rank being copied */
	int64_t offset;    /* its offset, ns */
	struct map64 pids; /* (position, pid) -> 1 + index into procs */
	struct proc *procs;
	uint32_t nprocs, nk; /* nk: processes of the rank being copied */
	uint64_t events;
	char *buf; /* the event being rewritten */
	size_t blen, bcap;
};

static void put(struct merge *g, const char *p, size_t n)
{
	if (g->blen + n > g->bcap) {
		while (g->blen + n > g->bcap)
			g->bcap = g->bcap ? g->bcap * 2 : 4096;
		g->buf = xrealloc(g->buf, g->bcap);
	}
	memcpy(g->buf + g->blen, p, n);
	g->blen += n;
}

static void putf(struct merge *g, const char *fmt, long long v)
{
	char s[40];
	int n = snprintf(s, sizeof s, fmt, v);
	put(g, s, (size_t)n);
}

/* The process of EV's pid in the rank being copied (made when new). */
static struct proc *proc_of(struct merge *g, const struct scan_event *ev)
{
	uint64_t key = key_id(key_mix(0x50, (uint64_t)g->pos), &ev->pid);
	key = key ? key : 1;
	uintptr_t at = (uintptr_t)map64_get(&g->pids, key);
	if (at == 0) {
		g->procs = xreallocarray(g->procs, g->nprocs + 1, sizeof *g->procs);
		struct proc *p = &g->procs[g->nprocs];
		*p = (struct proc){ .pos = g->pos, .k = g->nk++ };
		if (!ev->pid.present)
			snprintf(p->pid, sizeof p->pid, "none");
		else if (ev->pid.is_str)
			snprintf(p->pid, sizeof p->pid, "%.*s", (int)(ev->pid.str.len < 60 ? ev->pid.str.len : 60),
			         ev->pid.str.p);
		else
			snprintf(p->pid, sizeof p->pid, "%lld", (long long)ev->pid.num);
		at = ++g->nprocs;
		map64_put(&g->pids, key, (void *)at);
	}
	return &g->procs[at - 1];
}

static long long new_pid(const struct proc *p) { return (long long)(p->pos + 1) * MERGED_PID_STRIDE + p->k; }

/* Writes the id or count at [V, VE) moved into the rank's range: a whole number plus the
 * rank position above MERGE_ID_SHIFT, a string prefixed "rN:"; anything else as it is. */
static void put_id(struct merge *g, const char *v, const char *ve)
{
	char num[32];
	size_t n = (size_t)(ve - v);
	if (n > 0 && n < sizeof num && *v != '"') {
		memcpy(num, v, n);
		num[n] = '\0';
		char *end;
		long long x = strtoll(num, &end, 10);
		if (*end == '\0' && x >= 0 && x < (1LL << MERGE_ID_SHIFT)) {
			putf(g, "%lld", x + ((long long)(g->pos + 1) << MERGE_ID_SHIFT));
			return;
		}
	} else if (n >= 2 && *v == '"') {
		putf(g, "\"r%lld:", g->pos);
		put(g, v + 1, n - 1);
		return;
	}
	put(g, v, n);
}

/* Writes NS (the new time) as microseconds with nanosecond decimals. */
static void put_ts(struct merge *g, int64_t ns)
{
	char s[48];
	unsigned long long a = ns < 0 ? 0ull - (unsigned long long)ns : (unsigned long long)ns;
	int n = snprintf(s, sizeof s, "%s%llu.%03llu", ns < 0 ? "-" : "", a / 1000, a % 1000);
	put(g, s, (size_t)n);
}

/* The args object [P, END): correlation and External id moved, the rest as it is. */
static void put_args(struct merge *g, const char *p, const char *end)
{
	const char *at = p + 1, *copied = p;
	struct member m;
	while (next_member(&at, end, &m)) {
		if (key_is(&m, "correlation") || key_is(&m, "External id")) {
			put(g, copied, (size_t)(m.val - copied));
			put_id(g, m.val, m.val_end);
			copied = m.val_end;
		}
	}
	put(g, copied, (size_t)(end - copied));
}

static void copy_event(void *ctx, const struct scan_event *ev)
{
	struct merge *g = ctx;
	if (ev->ph == 'M' && ev->name.len >= 8 && memcmp(ev->name.p, "process_", 8) == 0) {
		/* the rank's own process names and order are written at the end */
		struct proc *p = proc_of(g, ev);
		if (ev->name.len == 12 && memcmp(ev->name.p, "process_name", 12) == 0 && (ev->have & SA_M_NAME) &&
		    p->name == NULL)
			p->name = xstrndup(ev->m_name.p, ev->m_name.len);
		return;
	}
	const char *t = ev->text, *end = ev->text + ev->text_len, *at = t + 1, *copied = t;
	struct proc *p = ev->pid.present ? proc_of(g, ev) : NULL;
	struct member m;
	g->blen = 0;
	while (next_member(&at, end, &m)) {
		if (key_is(&m, "pid") && p != NULL) {
			put(g, copied, (size_t)(m.val - copied));
			putf(g, "%lld", new_pid(p));
		} else if (key_is(&m, "ts") && ev->has_ts && !ev->ts_nonfinite) {
			put(g, copied, (size_t)(m.val - copied));
			put_ts(g, ev->ts + g->offset);
		} else if ((key_is(&m, "id") || key_is(&m, "bind_id")) && ev->has_id) {
			put(g, copied, (size_t)(m.val - copied));
			put_id(g, m.val, m.val_end);
		} else if (key_is(&m, "args") && *m.val == '{') {
			put(g, copied, (size_t)(m.val - copied));
			put_args(g, m.val, m.val_end);
		} else {
			continue;
		}
		copied = m.val_end;
	}
	put(g, copied, (size_t)(end - copied));
	if (g->events++ > 0)
		trace_out_write(g->out, ",\n", 2);
	trace_out_write(g->out, g->buf, g->blen);
}

static void ignore_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	(void)ctx, (void)key, (void)keylen, (void)json, (void)len;
}

struct headers {
	struct trace_out *out;
	int n;
};

/* The first rank's header keys, but its distributedInfo and ttrace's own keys. */
static void write_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct headers *h = ctx;
	static const char *const skip[] = { "distributedInfo", "ttraceCrop", "ttraceMerge" };
	for (size_t k = 0; k < sizeof skip / sizeof *skip; k++)
		if (keylen == strlen(skip[k]) && memcmp(key, skip[k], keylen) == 0)
			return;
	if (json == NULL)
		return; /* over SCAN_HEADER_MAX: the scanner did not keep it */
	trace_out_write(h->out, ",\n", 2);
	trace_out_json_string(h->out, key, keylen);
	trace_out_write(h->out, ": ", 2);
	trace_out_write(h->out, json, len);
	h->n++;
}

static void noop_event(void *ctx, const struct scan_event *ev) { (void)ctx, (void)ev; }

static int64_t base_of(const struct trace *t) { return t->has_base ? t->base_ns : 0; }

/* What is added to the times of rank I: its offset, and the difference of its base time and
 * the first rank's (the header's), so that its times are on that base, lined up. */
static int64_t shift_of(struct trace **ts, const struct rank_report *rr, int i)
{
	return tt_add(tt_sub(base_of(ts[i]), base_of(ts[0])), rr->ranks[i].offset);
}

/* The first key, before the events, so that ttrace finds it reading the beginning alone
 * (parsers/merged_file.h): the alignment, and each rank's number, offset, pids, file and
 * distributedInfo. */
static void write_key(struct trace_out *out, struct trace **ts, int nt, enum align_mode mode,
                      const struct rank_report *rr)
{
	char line[240];
	int ln =
		snprintf(line, sizeof line, "{\"ttraceMerge\": {\"align\": \"%s\", \"residual_ns\": %lld, \"ranks\": [",
	                 align_mode_name(mode), (long long)rr->residual);
	trace_out_write(out, line, (size_t)ln);
	for (int i = 0; i < nt; i++) {
		ln = snprintf(line, sizeof line,
		              "%s\n  {\"rank\": %d, \"world_size\": %d, \"offset_ns\": %lld, \"shift_ns\": %lld, "
		              "\"pid_base\": %lld, ",
		              i ? "," : "", rr->ranks[i].rank, ts[i]->world_size, (long long)rr->ranks[i].offset,
		              (long long)shift_of(ts, rr, i), (long long)(i + 1) * MERGED_PID_STRIDE);
		trace_out_write(out, line, (size_t)ln);
		if (ts[i]->has_base) {
			/* a string: epoch-sized, more digits than a double holds */
			ln = snprintf(line, sizeof line, "\"base_ns\": \"%lld\", ", (long long)ts[i]->base_ns);
			trace_out_write(out, line, (size_t)ln);
		}
		trace_out_write(out, "\"source\": ", 10);
		const char *base = strrchr(ts[i]->path, '/');
		base = base != NULL ? base + 1 : ts[i]->path;
		trace_out_json_string(out, base, strlen(base));
		if (ts[i]->backend != 0) {
			const char *b = strtab_get(&ts[i]->strings, ts[i]->backend);
			trace_out_write(out, ", \"backend\": ", 13);
			trace_out_json_string(out, b, strlen(b));
		}
		trace_out_write(out, "}", 1);
	}
	trace_out_write(out, "]}", 2);
}

static int rank_cmp(const void *a, const void *b)
{
	const struct trace *x = *(struct trace *const *)a, *y = *(struct trace *const *)b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Merges the NT traces TS (loaded) into OUTP. Returns the exit status. */
static int write_merge(struct trace **ts, int nt, enum align_mode mode, const char *outp, bool force, bool quiet)
{
	int status = 0;
	/* by rank (distributedInfo.rank; files without one keep their place after) */
	bool ranked = true;
	for (int i = 0; i < nt; i++)
		ranked &= ts[i]->rank >= 0;
	if (ranked)
		qsort(ts, (size_t)nt, sizeof *ts, rank_cmp);
	struct rank_report rr;
	ranks_analyse(ts, nt, mode, NULL, &rr);
	struct out_avoid *avoid = xcalloc((size_t)nt, sizeof *avoid);
	for (int i = 0; i < nt; i++)
		avoid[i] = (struct out_avoid){ ts[i]->file_dev, ts[i]->file_ino };
	char *cause = NULL;
	struct merge g = { 0 };
	g.out = trace_out_open(outp, force, avoid, nt, &cause);
	free(avoid);
	bool ok = g.out != NULL;
	if (ok) {
		write_key(g.out, ts, nt, mode, &rr);
		trace_out_write(g.out, ",\n\"traceEvents\": [\n", 19);
		for (int i = 0; i < nt && ok; i++) {
			g.pos = i;
			g.offset = shift_of(ts, &rr, i);
			g.nk = 0;
			struct scan_sink sink = { .ctx = &g, .event = copy_event, .header = ignore_header };
			ok = scan_file(ts[i]->path, SCAN_FILE_ANY, "merge", NULL, NULL, &sink, NULL, NULL, &cause);
		}
	}
	if (ok) {
		/* each rank's processes: named by rank, in rank order */
		for (uint32_t k = 0; k < g.nprocs; k++) {
			const struct proc *p = &g.procs[k];
			char head[160], name[400];
			int hn = snprintf(
				head, sizeof head,
				"%s{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %lld, \"args\": {\"name\": ",
				g.events++ > 0 ? ",\n" : "", new_pid(p));
			trace_out_write(g.out, head, (size_t)hn);
			snprintf(name, sizeof name, "rank %d: %s", rr.ranks[p->pos].rank,
			         p->name != NULL ? p->name : p->pid);
			trace_out_json_string(g.out, name, strlen(name));
			hn = snprintf(head, sizeof head,
			              "}},\n{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %lld, \"args\": "
			              "{\"sort_index\": %lld}}",
			              new_pid(p), new_pid(p));
			trace_out_write(g.out, head, (size_t)hn);
			g.events++;
		}
		trace_out_write(g.out, "\n]", 2);
		struct headers h = { g.out, 0 };
		struct scan_sink sink = { .ctx = &h, .event = noop_event, .header = write_header };
		ok = scan_file(ts[0]->path, SCAN_FILE_ANY, "merge", NULL, NULL, &sink, NULL, NULL, &cause);
	}
	if (ok) {
		trace_out_write(g.out, "}\n", 2);
		if (trace_out_close(g.out, &cause) != 0)
			ok = false;
		g.out = NULL;
	}
	if (!ok) {
		escape_say(stderr, "ttrace merge: %s", cause != NULL ? cause : "failed");
		free(cause);
		trace_out_abort(g.out);
		status = 1;
	} else if (!quiet) {
		escape_say(stderr, "ttrace merge: %s: %d ranks, %llu events, aligned by %s (residual %lld ns)", outp,
		           nt, (unsigned long long)g.events, align_mode_name(mode), (long long)rr.residual);
	}
	for (uint32_t k = 0; k < g.nprocs; k++)
		free(g.procs[k].name);
	free(g.procs);
	free(g.pids.slot);
	free(g.buf);
	ranks_free(&rr);
	return status;
}

int merge_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "align", required_argument, NULL, 'a' }, { "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },       { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 },
	};
	enum align_mode mode = ALIGN_COLLECTIVE;
	bool force = false, quiet = false;
	const char *outp = NULL;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:fqh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a': {
			int m = align_mode_parse(optarg);
			if (m < 0 || m == ALIGN_MANUAL) {
				escape_say(stderr, "ttrace merge: --align is raw, step or collective (got '%s')",
				           optarg);
				return 2;
			}
			mode = (enum align_mode)m;
			break;
		}
		case 'o': outp = optarg; break;
		case 'f': force = true; break;
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc || outp == NULL) {
		fputs(optind >= argc ? "ttrace merge: give the ranks' traces (files or a directory)\n"
		                     : "ttrace merge: give -o OUT\n",
		      stderr);
		usage(stderr);
		return 2;
	}
	int n = 0;
	char **files = trace_paths_expand(argv + optind, argc - optind, &n);
	for (int i = 0; i < n; i++)
		if (strcmp(files[i], "-") == 0) {
			fputs("ttrace merge: standard input cannot be read a second time: give files\n", stderr);
			for (int k = 0; k < n; k++)
				free(files[k]);
			free(files);
			return 2;
		}
	for (int i = 0; i < n; i++) {
		struct merged_file mf;
		char *cause = NULL;
		int rc = merged_file_read(files[i], &mf, &cause);
		free(cause);
		if (rc != 0) {
			if (rc == 1)
				merged_file_release(&mf);
			escape_say(stderr, "ttrace merge: %s was written by ttrace merge: give the ranks' own files",
			           files[i]);
			for (int k = 0; k < n; k++)
				free(files[k]);
			free(files);
			return 1;
		}
	}
	struct trace **ts = xcalloc((size_t)n + 1, sizeof *ts);
	struct load_options lo = { 0 };
	lo.quiet = true;
	if (n > 0)
		load_traces(files, n, &lo, ts);
	int nt = 0, status = 0;
	for (int i = 0; i < n; i++) {
		if (ts[i]->status == LOAD_FAILED) {
			escape_say(stderr, "ttrace merge: %s", ts[i]->error != NULL ? ts[i]->error : files[i]);
			trace_free(ts[i]);
			status = 1;
		} else {
			ts[nt++] = ts[i];
		}
	}
	if (status == 0 && nt == 0) {
		fputs("ttrace merge: no trace file found\n", stderr);
		status = 1;
	}
	if (status == 0)
		status = write_merge(ts, nt, mode, outp, force, quiet);
	for (int i = 0; i < nt; i++)
		trace_free(ts[i]);
	for (int k = 0; k < n; k++)
		free(files[k]);
	free(files);
	free(ts);
	return status;
}
