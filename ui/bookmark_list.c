/* bookmark_list.c: the bookmark list panel (see bookmark_list.h). */
#include "ui/bookmark_list.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/tmath.h"
#include "lib/xalloc.h"
#include "ui/app.h"
#include "ui/names.h"
#include "ui/table_panel.h"
#include "ui/view.h"

enum { B_N, B_NAME, B_START, B_WIDTH, B_SEL, B_ON, B__COUNT };

static const struct column columns[B__COUNT] = {
	[B_N] = { "n", "#", COL_INT, 0, 0 },
	[B_NAME] = { "name", "name", COL_TEXT, 2, 0 },
	[B_START] = { "start_ns", "window start", COL_TIME, 0, 0 },
	[B_WIDTH] = { "width_ns", "width", COL_DUR, 0, 0 },
	[B_SEL] = { "selection", "selection", COL_TEXT, 2, 0 },
	[B_ON] = { "track", "on", COL_TEXT, 1, 0 },
};

struct bookmark_list {
	struct table t;
	struct view *v;
	uint32_t version; /* the view's bookmarks_version the table was built from */
};

static void build(struct table_panel *tp)
{
	struct bookmark_list *bl = tp->owner;
	struct view *v = bl->v;
	table_clear(&bl->t);
	bl->t.origin = view_origin(v);
	uint32_t n = view_bookmarks(v, &bl->version);
	for (uint32_t i = 0; i < n; i++) {
		const struct bookmark *b = view_bookmark(v, i);
		uint32_t r = table_add_row(&bl->t, i);
		table_set_int(&bl->t, r, B_N, i + 1);
		table_set_str(&bl->t, r, B_NAME, b->name);
		table_set_int(&bl->t, r, B_START, b->pos.t0);
		table_set_int(&bl->t, r, B_WIDTH, tt_sub(b->pos.t1, b->pos.t0));
		if (b->pos.sel.track != TT_NONE) {
			const struct trace *t = view_rank_trace(v, view_rank_of(b->pos.sel.track));
			const struct track *tr = &t->tracks[b->pos.sel.track & VIEW_TRACK_MASK];
			table_set_trace_str(&bl->t, r, B_SEL, t, slice_name(t, &tr->slices[b->pos.sel.idx]));
			table_set_trace_str(&bl->t, r, B_ON, t, tr->name);
		}
	}
	table_panel_refresh(tp);
}

static void update(struct table_panel *tp, struct app *app)
{
	struct bookmark_list *bl = tp->owner;
	(void)app;
	uint32_t version;
	view_bookmarks(bl->v, &version);
	if (bl->version != version)
		build(tp);
}

static void title(struct table_panel *tp, struct app *app, char *buf, size_t n)
{
	struct bookmark_list *bl = tp->owner;
	char del[16];
	snprintf(del, sizeof del, "%s", keymap_key_for(&app->keys, CTX_TABLE, A_DELETE));
	snprintf(buf, n, "%u bookmark%s: Enter shows one, %s deletes it, %s in the timeline makes one", bl->t.nrows,
	         bl->t.nrows == 1 ? "" : "s", del, keymap_key_for(&app->keys, CTX_TIMELINE, A_BOOKMARK));
}

static void jump(struct table_panel *tp, struct app *app, uint64_t tag)
{
	struct view *v = ((struct bookmark_list *)tp->owner)->v;
	app_pop(app);
	if (tag < view_bookmarks(v, NULL)) {
		view_bookmark_show(v, (uint32_t)tag);
		view_status(v, "bookmark \"%s\": %s goes back", view_bookmark(v, (uint32_t)tag)->name,
		            keymap_key_for(&app->keys, CTX_TIMELINE, A_BACK));
	}
}

static bool act(struct table_panel *tp, struct app *app, enum action a)
{
	struct bookmark_list *bl = tp->owner;
	uint64_t tag;
	if (a != A_DELETE)
		return false;
	if (table_panel_selected(tp, &tag) && tag < view_bookmarks(bl->v, NULL)) {
		app_status(app, "deleted bookmark \"%s\"", view_bookmark(bl->v, (uint32_t)tag)->name);
		view_bookmark_delete(bl->v, (uint32_t)tag);
		build(tp);
	}
	return true;
}

static void owner_free(struct table_panel *tp)
{
	struct bookmark_list *bl = tp->owner;
	table_free(&bl->t);
	free(bl);
}

static const struct table_owner bookmark_list_owner = {
	.name = "bookmarks",
	.title = title,
	.jump = jump,
	.act = act,
	.update = update,
	.free = owner_free,
};

struct panel *bookmark_list_open(struct app *app)
{
	if (view_bookmarks(app->tl, NULL) == 0) {
		app_status(app, "no bookmarks yet: %s in the timeline bookmarks the window and the selection",
		           keymap_key_for(&app->keys, CTX_TIMELINE, A_BOOKMARK));
		return NULL;
	}
	struct bookmark_list *bl = xcalloc(1, sizeof *bl);
	bl->v = app->tl;
	table_init(&bl->t, columns, B__COUNT);
	struct panel *p = table_panel_new(&bl->t, &bookmark_list_owner, bl);
	build((struct table_panel *)p);
	return p;
}
