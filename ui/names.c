/* names.c: a trace's strings as the ui shows them (see names.h). */
#include "ui/names.h"

#include <stdio.h>
#include <string.h>

#include "lib/escape.h"

void trace_str_escaped(const struct trace *t, uint32_t id, char *buf, size_t n)
{
	escape_term_buf(trace_str(t, id), strtab_len(&t->strings, id), buf, n);
}

void track_label(const struct trace *t, const struct track *tr, char *buf, size_t n)
{
	char pid[64], epid[96], name[160], proc[96];
	trace_str_escaped(t, tr->name, name, sizeof name);
	const char *pn = track_process_name(t, tr);
	escape_term_buf(pn, strlen(pn), proc, sizeof proc);
	if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM) {
		/* an accelerator that is not a GPU names itself: Kineto's "MTIA 9" */
		if (strncmp(pn, "MTIA", 4) == 0)
			snprintf(buf, n, "%s %s", proc, name);
		else
			snprintf(buf, n, "GPU %d %s", tr->device, name);
		return;
	}
	track_pid_text(t, tr, pid, sizeof pid);
	escape_term_buf(pid, strlen(pid), epid, sizeof epid);
	if (proc[0])
		snprintf(buf, n, "%s [pid %s] %s", proc, epid, name);
	else
		snprintf(buf, n, "[pid %s] %s", epid, name);
}

void table_set_trace_str(struct table *tb, uint32_t row, int col, const struct trace *t, uint32_t id)
{
	table_set_text(tb, row, col, trace_str(t, id), strtab_len(&t->strings, id));
}
