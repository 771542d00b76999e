/* test_history.c: the timeline's position history: back and forward as a browser's
 * (a jump after going back forgets the places forward), bounded, and what counts as the
 * same place. */
#include <string.h>

#include "ui/history.h"
#include "tests/unit/tap.h"

/* A place told apart by its window start. */
static struct view_pos at(int64_t t0)
{
	struct view_pos p;
	memset(&p, 0, sizeof p);
	p.t0 = t0;
	p.t1 = t0 + 10;
	p.sel.track = p.sel.idx = TT_NONE;
	return p;
}

int main(void)
{
	struct history h;
	struct view_pos to, now;
	memset(&h, 0, sizeof h);

	now = at(1);
	ok(!history_back(&h, &now, &to), "an empty history has nothing back");
	ok(!history_forward(&h, &now, &to), "nor forward");

	/* at 1, jump to 2, jump to 3 */
	history_record(&h, &now);
	history_record(&h, &(struct view_pos){ .t0 = 2, .t1 = 12 });
	is_int(history_back_count(&h), 2, "two jumps: two places back");
	is_int(history_forward_count(&h), 0, "none forward");
	now = at(3);
	ok(history_back(&h, &now, &to) && to.t0 == 2, "back from 3 returns to 2");
	is_int(history_forward_count(&h), 1, "then 3 lies forward");
	now = to;
	ok(history_back(&h, &now, &to) && to.t0 == 1, "back again returns to 1");
	now = to;
	ok(!history_back(&h, &now, &to), "nothing before the first place");
	ok(history_forward(&h, &now, &to) && to.t0 == 2, "forward returns to 2");
	now = to;
	now.cursor = 5; /* the user moved the cursor at 2 */
	ok(history_forward(&h, &now, &to) && to.t0 == 3, "forward again returns to 3");
	now = to;
	ok(!history_forward(&h, &now, &to), "nothing after the last place");
	ok(history_back(&h, &now, &to) && to.t0 == 2 && to.cursor == 5, "back to 2 as the user left it");

	/* a jump from 2 (after going back) forgets 3 */
	now = to;
	history_record(&h, &now);
	is_int(history_forward_count(&h), 0, "a jump after going back forgets the places forward");
	now = at(4);
	ok(history_back(&h, &now, &to) && to.t0 == 2, "back from the jump returns to 2");
	now = to;
	ok(history_back(&h, &now, &to) && to.t0 == 1, "then to 1: 3 is gone");

	/* bounded: the oldest go */
	memset(&h, 0, sizeof h);
	for (int i = 0; i < HISTORY_MAX + 10; i++) {
		now = at(100 + i);
		history_record(&h, &now);
	}
	is_int(h.n, HISTORY_MAX, "the history keeps at most HISTORY_MAX places");
	now = at(1000);
	int back = 0;
	int64_t last = 0;
	while (history_back(&h, &now, &to)) {
		back++;
		last = to.t0;
		now = to;
	}
	is_int(back, HISTORY_MAX - 1, "back walks every place kept but the one just added for forward");
	is_int(last, 100 + 10 + 1, "the oldest places went first");
	int fwd = 0;
	while (history_forward(&h, &now, &to)) {
		fwd++;
		now = to;
	}
	is_int(fwd, HISTORY_MAX - 1, "forward walks them all again");
	is_int(now.t0, 1000, "to where back began");

	struct view_pos a = at(7), b = at(7);
	ok(view_pos_same(&a, &b), "equal places are the same");
	b.sel.track = 3;
	b.sel.idx = 0;
	ok(!view_pos_same(&a, &b), "another selection is another place");
	b = a;
	b.cursor = 9;
	ok(!view_pos_same(&a, &b), "so is another cursor");
	return done_testing();
}
