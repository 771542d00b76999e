/* sel_args.c: the args of the selected slice, read when the selection changes (not while
 * a frame is drawn: ui/render.c draws v->args_text) and escaped a line at a time. */
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "parsers/args_text.h"
#include "lib/escape.h"
#include "ui/view_state.h"

void view_prepare_details(struct view *v)
{
	if (v->sel.track == TT_NONE) {
		v->args_for = v->sel;
		free(v->args_text);
		v->args_text = NULL;
		return;
	}
	if (v->args_for.track == v->sel.track && v->args_for.idx == v->sel.idx && v->args_text != NULL)
		return;
	const struct track *tr = view_track(v, v->sel.track);
	const struct trace *t = v->ts[view_rank_of(v->sel.track)];
	char *cause = NULL, *raw;
	free(v->args_text);
	v->args_text = NULL;
	v->args_for = v->sel;
	v->details_page = 0;
	if ((raw = args_lines(t, slice_args(tr, &tr->slices[v->sel.idx]), &cause)) != NULL) {
		size_t n = strlen(raw), cap = n * 4 + 8, k = 0;
		v->args_text = xmalloc(cap);
		v->args_text[0] = '\0';
		for (char *p = raw, *nl; *p != '\0'; p = nl + 1) {
			nl = strchr(p, '\n');
			if (nl == NULL)
				nl = p + strlen(p) - 1; /* args_lines ends every line; a guard */
			escape_term_buf(p, (size_t)(nl - p) + (*nl == '\n' ? 0 : 1), v->args_text + k, cap - k - 1);
			k += strlen(v->args_text + k);
			v->args_text[k++] = '\n';
			v->args_text[k] = '\0';
		}
		if (k == 0) {
			free(v->args_text);
			v->args_text = xstrdup("(no args)\n");
		}
		free(raw);
	} else {
		v->args_text = xasprintf("(%s)\n", cause ? cause : "no args");
		free(cause);
	}
}
