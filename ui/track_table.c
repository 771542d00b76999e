/* track_table.c: the track table (see track_table.h). */
#include "ui/track_table.h"

#include <stdlib.h>

#include "ui/names.h"

enum {
	T_KIND,
	T_PID,
	T_TID,
	T_NAME,
	T_PROCESS,
	T_DEVICE,
	T_STREAM,
	T_EVENTS,
	T_SLICES,
	T_ROWS,
	T_BUSY,
	T_LABEL,
	T__COUNT
};
static const struct column cols[T__COUNT] = {
	[T_KIND] = { "kind", "kind", COL_TEXT, 0, 0 },
	[T_PID] = { "pid", "pid", COL_INT, 0, COL_JSON_ONLY }, /* a number, or the string the trace gave */
	[T_TID] = { "tid", "tid", COL_INT, 0, COL_JSON_ONLY },
	[T_NAME] = { "name", "name", COL_TEXT, 1, COL_JSON_ONLY },
	[T_PROCESS] = { "process", "process", COL_TEXT, 1, COL_JSON_ONLY },
	[T_DEVICE] = { "device", "GPU", COL_INT, 0, COL_JSON_ONLY | COL_OMIT_NULL }, /* GPU streams only */
	[T_STREAM] = { "stream", "stream", COL_INT, 0, COL_JSON_ONLY | COL_OMIT_NULL },
	[T_EVENTS] = { "events", "events", COL_COUNT, 0, 0 },
	[T_SLICES] = { "slices", "slices", COL_COUNT, 0, COL_JSON_ONLY },
	[T_ROWS] = { "rows", "rows", COL_COUNT, 0, 0 },
	[T_BUSY] = { "busy_ns", "busy", COL_DUR, 0, 0 },
	[T_LABEL] = { "label", "track", COL_TEXT, 1, COL_TEXT_ONLY }, /* process, pid and name together */
};

void track_table_init(struct table *tb, const struct trace *t)
{
	table_init(tb, cols, T__COUNT);
	uint32_t *order = trace_track_order(t);
	for (uint32_t k = 0; k < t->ntracks; k++) {
		const struct track *tr = &t->tracks[order[k]];
		char label[400];
		uint32_t r = table_add_row(tb, order[k]);
		table_set_str(tb, r, T_KIND, track_kind_name(tr->kind));
		if (tr->pid_is_str)
			table_set_trace_str(tb, r, T_PID, t, (uint32_t)tr->pid);
		else
			table_set_int(tb, r, T_PID, tr->pid);
		if (tr->tid_is_str)
			table_set_trace_str(tb, r, T_TID, t, (uint32_t)tr->tid);
		else
			table_set_int(tb, r, T_TID, tr->tid);
		table_set_trace_str(tb, r, T_NAME, t, tr->name);
		table_set_str(tb, r, T_PROCESS, track_process_name(t, tr));
		if (tr->kind == TRACK_GPU_COMPUTE || tr->kind == TRACK_GPU_COMM) {
			table_set_int(tb, r, T_DEVICE, tr->device);
			table_set_int(tb, r, T_STREAM, tr->stream);
		}
		table_set_int(tb, r, T_EVENTS, tr->events);
		table_set_int(tb, r, T_SLICES, tr->nslices);
		table_set_int(tb, r, T_ROWS, tr->nrows);
		table_set_int(tb, r, T_BUSY, tr->busy_total);
		track_label(t, tr, label, sizeof label);
		table_set_str(tb, r, T_LABEL, label);
	}
	free(order);
}
