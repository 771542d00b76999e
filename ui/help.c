/* help.c: the help panel (see help.h).
 *
 * It lists every action that has a key in the context of the panel below it, then the
 * global ones, grouped as keys.c groups them, with every key bound to each. Lines longer
 * than the screen wrap rather than being cut; the list scrolls. */
#include "ui/help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "ui/app.h"

struct help_line {
	char *text;
	bool heading;
};

struct help {
	struct panel base;
	enum key_context ctx; /* whose keys */
	struct help_line *lines;
	int n, cap, top;
	int built_w; /* the width the lines were wrapped for */
};

static void add(struct help *h, const char *text, bool heading)
{
	if (h->n == h->cap)
		h->lines = xreallocarray(h->lines, (size_t)(h->cap = h->cap ? h->cap * 2 : 64), sizeof *h->lines);
	h->lines[h->n++] = (struct help_line){ xstrdup(text), heading };
}

static void clear_lines(struct help *h)
{
	for (int i = 0; i < h->n; i++)
		free(h->lines[i].text);
	h->n = 0;
}

/* The entry "KEYS  TEXT", wrapped at W columns with the text's column kept. */
static void add_entry(struct help *h, const char *keys, const char *text, int w)
{
	char line[512];
	int kw = 14, room = w - 3 - kw;
	if (room < 20)
		room = 20;
	size_t tl = strlen(text), at = 0;
	bool first = true;
	while (at < tl || first) {
		size_t take = tl - at;
		if ((int)take > room) {
			take = (size_t)room;
			while (take > 0 && text[at + take] != ' ')
				take--;
			if (take == 0)
				take = (size_t)room;
		}
		snprintf(line, sizeof line, " %-*s %.*s", kw, first ? keys : "", (int)take, text + at);
		add(h, line, false);
		at += take;
		while (at < tl && text[at] == ' ')
			at++;
		first = false;
	}
}

static void build(struct help *h, const struct app *app, int w)
{
	const struct keymap *km = &app->keys;
	clear_lines(h);
	h->built_w = w;
	/* the groups in the order their first action comes */
	const char *groups[A__COUNT];
	int ng = 0;
	for (int a = 1; a < A__COUNT; a++) {
		const char *g = action_group((enum action)a);
		bool seen = false;
		for (int i = 0; i < ng && !seen; i++)
			seen = strcmp(groups[i], g) == 0;
		if (!seen)
			groups[ng++] = g;
	}
	enum key_context ctxs[2] = { h->ctx, CTX_GLOBAL };
	for (int gi = 0; gi < ng; gi++) {
		bool headed = false;
		for (int ci = 0; ci < (h->ctx == CTX_GLOBAL ? 1 : 2); ci++)
			for (int a = 1; a < A__COUNT; a++) {
				char keys[64];
				if (strcmp(action_group((enum action)a), groups[gi]) != 0)
					continue;
				if (ci == 0) {
					keymap_keys_for(km, ctxs[0], (enum action)a, keys, sizeof keys);
				} else {
					/* a global key reaches its action only when the context leaves it unbound */
					size_t kl = 0;
					keys[0] = '\0';
					for (int i = 0; i < km->n; i++)
						if (km->b[i].ctx == CTX_GLOBAL && km->b[i].action == (enum action)a &&
						    keymap_action(km, h->ctx, km->b[i].key) == (enum action)a &&
						    kl < sizeof keys)
							kl += (size_t)snprintf(keys + kl, sizeof keys - kl, "%s%s",
							                       kl ? " " : "", key_label(km->b[i].key));
				}
				if (!keys[0])
					continue;
				if (!headed) {
					add(h, groups[gi], true);
					headed = true;
				}
				add_entry(h, keys, action_text((enum action)a), w);
			}
	}
}

static int page(const struct help *h) { return h->base.r.h - 1 > 1 ? h->base.r.h - 1 : 1; }

static void clamp(struct help *h)
{
	if (h->top > h->n - page(h))
		h->top = h->n - page(h);
	if (h->top < 0)
		h->top = 0;
}

static bool help_act(struct panel *p, struct app *app, enum action a, int key)
{
	struct help *h = (struct help *)p;
	(void)key;
	switch (a) {
	case A_ROW_UP: h->top--; break;
	case A_ROW_DOWN: h->top++; break;
	case A_PAGE_UP: h->top -= page(h); break;
	case A_PAGE_DOWN: h->top += page(h); break;
	case A_HOME: h->top = 0; break;
	case A_END: h->top = h->n; break;
	case A_HELP:
	case A_CLOSE:
	case A_QUIT: return false; /* the app closes it (or quits) */
	default:
		app_pop(app); /* any other key closes the help, and does nothing else */
		return true;
	}
	clamp(h);
	return true;
}

static void help_mouse(struct panel *p, struct app *app, enum mouse_kind kind, int x, int y)
{
	struct help *h = (struct help *)p;
	(void)app;
	(void)x;
	(void)y;
	if (kind == TT_WHEEL_UP || kind == TT_WHEEL_DOWN) {
		h->top += kind == TT_WHEEL_UP ? -3 : 3;
		clamp(h);
	}
}

static void help_draw(struct panel *p, struct app *app, struct grid *g, const struct render_opts *o)
{
	struct help *h = (struct help *)p;
	struct rect r = p->r;
	char title[200];
	(void)o;
	if (h->built_w != r.w) {
		build(h, app, r.w);
		clamp(h);
	}
	panel_clear(g, r, CS_DETAILS);
	int last = h->top + page(h) < h->n ? h->top + page(h) : h->n;
	snprintf(title, sizeof title, "Keys: %s (%s/%s scroll, %s closes)  %d-%d of %d", context_name(h->ctx),
	         keymap_key_for(&app->keys, CTX_HELP, A_ROW_DOWN), keymap_key_for(&app->keys, CTX_HELP, A_ROW_UP),
	         keymap_key_for(&app->keys, CTX_HELP, A_CLOSE), h->n ? h->top + 1 : 0, last, h->n);
	grid_text(g, r.x + 1, r.y, r.x + r.w, title, CS_HILITE, 0);
	for (int i = 0; i < page(h) && h->top + i < h->n; i++) {
		const struct help_line *l = &h->lines[h->top + i];
		grid_text(g, r.x + 1, r.y + 1 + i, r.x + r.w, l->text, l->heading ? CS_GROUP : CS_DETAILS, 0);
	}
}

static void help_layout(struct panel *p, struct app *app)
{
	/* everything between the ruler and the status line */
	p->r = (struct rect){ 0, 2, app->w, app->h - 3 };
	clamp((struct help *)p);
}

static void help_hints(struct panel *p, struct app *app, char *buf, size_t n)
{
	(void)p;
	snprintf(buf, n, "%s/%s scroll  %s page  %s close", keymap_key_for(&app->keys, CTX_HELP, A_ROW_DOWN),
	         keymap_key_for(&app->keys, CTX_HELP, A_ROW_UP), keymap_key_for(&app->keys, CTX_HELP, A_PAGE_DOWN),
	         keymap_key_for(&app->keys, CTX_HELP, A_CLOSE));
}

static void help_free(struct panel *p)
{
	struct help *h = (struct help *)p;
	clear_lines(h);
	free(h->lines);
	free(h);
}

static const struct panel_ops help_ops = {
	.name = "help",
	.ctx = CTX_HELP,
	.act = help_act,
	.mouse = help_mouse,
	.draw = help_draw,
	.hints = help_hints,
	.layout = help_layout,
	.free = help_free,
};

struct panel *help_open(struct app *app)
{
	struct help *h = xcalloc(1, sizeof *h);
	h->base.ops = &help_ops;
	h->ctx = app_top(app)->ops->ctx;
	h->built_w = -1;
	return &h->base;
}
