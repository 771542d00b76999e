/* search.c: the timeline's search: every slice whose name holds the query (ASCII case
 * ignored), over every rank, in time order; n and N step through them. */
#define _GNU_SOURCE 1
#include <stdlib.h>
#include <string.h>

#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "ui/view_state.h"

static void free_name_matches(struct view *v)
{
	for (int r = 0; r < v->nts; r++) {
		free(v->name_matches[r]);
		v->name_matches[r] = NULL;
	}
}

static int match_cmp(const void *a, const void *b, void *arg)
{
	const struct view *v = arg;
	const struct slice_ref *x = a, *y = b;
	int64_t tx = tt_add(view_track(v, x->track)->slices[x->idx].ts, view_shift_of(v, x->track));
	int64_t ty = tt_add(view_track(v, y->track)->slices[y->idx].ts, view_shift_of(v, y->track));
	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void search_run(struct view *v)
{
	uint32_t cap = 0;
	size_t qn = strlen(v->query);
	free(v->matches);
	v->matches = NULL;
	v->nmatches = v->match = 0;
	free_name_matches(v);
	if (qn == 0)
		return;
	for (int r = 0; r < v->nts; r++) {
		const struct trace *t = v->ts[r];
		uint8_t *nm = v->name_matches[r] = xcalloc(t->strings.n ? t->strings.n : 1, 1);
		for (uint32_t id = 0; id < t->strings.n; id++)
			if (strcasestr(strtab_get(&t->strings, id), v->query) != NULL)
				nm[id] = 1;
		for (uint32_t ti = 0; ti < t->ntracks; ti++) {
			const struct track *tr = &t->tracks[ti];
			for (uint32_t i = 0; i < tr->nslices; i++) {
				if (!nm[slice_name(t, &tr->slices[i])])
					continue;
				if (v->nmatches == cap)
					v->matches =
						xreallocarray(v->matches, cap = cap ? cap * 2 : 64, sizeof *v->matches);
				v->matches[v->nmatches++] = (struct slice_ref){ view_id(r, ti), i };
			}
		}
	}
	if (v->nmatches > 1) /* qsort wants a non-NULL array even for no elements */
		qsort_r(v->matches, v->nmatches, sizeof *v->matches, match_cmp, v);

	if (v->nmatches == 0) {
		view_status(v, "no slice name contains \"%s\"", v->query);
		return;
	}
	/* the first match at or after the cursor */
	v->match = 1;
	for (uint32_t i = 0; i < v->nmatches; i++)
		if (tt_add(view_track(v, v->matches[i].track)->slices[v->matches[i].idx].ts,
		           view_shift_of(v, v->matches[i].track)) >= v->cursor) {
			v->match = i + 1;
			break;
		}
	view_go_to(v, v->matches[v->match - 1]);
	view_status(v, "%u/%u", v->match, v->nmatches);
}

void search_step(struct view *v, int dir)
{
	if (v->nmatches == 0) {
		view_status(v, v->query[0] ? "no matches" : "no search (/ starts one)");
		return;
	}
	if (dir > 0)
		v->match = v->match >= v->nmatches ? 1 : v->match + 1;
	else
		v->match = v->match <= 1 ? v->nmatches : v->match - 1;
	view_go_to(v, v->matches[v->match - 1]);
	view_status(v, "%u/%u", v->match, v->nmatches);
}

void search_free(struct view *v)
{
	free(v->matches);
	v->matches = NULL;
	v->nmatches = v->match = 0;
	free_name_matches(v);
	free(v->name_matches);
	v->name_matches = NULL;
}
