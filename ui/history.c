/* history.c: the bounded history of timeline places (see history.h). */
#include "ui/history.h"

#include <string.h>

bool view_pos_same(const struct view_pos *a, const struct view_pos *b)
{
	return a->t0 == b->t0 && a->t1 == b->t1 && a->cursor == b->cursor && a->sel.track == b->sel.track &&
	       a->sel.idx == b->sel.idx && a->sel_line == b->sel_line && a->gap_shown == b->gap_shown;
}

/* Appends P, the oldest place going when the history is full; cur follows its place. */
static void append(struct history *h, const struct view_pos *p)
{
	if (h->n == HISTORY_MAX) {
		memmove(&h->e[0], &h->e[1], (HISTORY_MAX - 1) * sizeof *h->e);
		h->n--;
		if (h->cur > 0)
			h->cur--;
	}
	h->e[h->n++] = *p;
}

void history_record(struct history *h, const struct view_pos *now)
{
	h->n = h->cur; /* where the user came back to is NOW, as it is now; forward goes */
	append(h, now);
	h->cur = h->n;
}

bool history_back(struct history *h, const struct view_pos *now, struct view_pos *to)
{
	if (h->cur == 0)
		return false;
	if (h->cur == h->n) {
		append(h, now); /* so that forward comes back here */
		h->cur = h->n - 1;
	} else {
		h->e[h->cur] = *now;
	}
	*to = h->e[--h->cur];
	return true;
}

bool history_forward(struct history *h, const struct view_pos *now, struct view_pos *to)
{
	if (h->cur + 1 >= h->n)
		return false;
	h->e[h->cur] = *now;
	*to = h->e[++h->cur];
	return true;
}

int history_back_count(const struct history *h) { return h->cur; }

int history_forward_count(const struct history *h) { return h->cur < h->n ? h->n - h->cur - 1 : 0; }
