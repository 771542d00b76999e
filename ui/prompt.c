/* prompt.c: the one-line prompt panel (see prompt.h). */
#include "ui/prompt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "ui/app.h"
#include "lib/escape.h"

struct prompt {
	struct panel base;
	char label[128];
	char text[128];
	prompt_fn done, change;
	void *ctx;
};

static bool prompt_act(struct panel *p, struct app *app, enum action a, int key)
{
	struct prompt *pr = (struct prompt *)p;
	size_t n = strlen(pr->text);
	if (a == A_ACCEPT || a == A_CANCEL) {
		prompt_fn done = pr->done;
		void *ctx = pr->ctx;
		char text[sizeof pr->text];
		memcpy(text, pr->text, sizeof text);
		app_pop(app); /* frees the prompt: keep what the callback needs */
		done(ctx, app, text, a == A_ACCEPT);
		return true;
	}
	if (a == A_ERASE) {
		if (n > 0)
			pr->text[n - 1] = '\0';
	} else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof pr->text) {
		/* any printable key is text, whatever it is bound to elsewhere */
		pr->text[n] = (char)key;
		pr->text[n + 1] = '\0';
	} else {
		return true; /* other keys do nothing while typing */
	}
	if (pr->change != NULL)
		pr->change(pr->ctx, app, pr->text, false);
	return true;
}

static void prompt_draw(struct panel *p, struct app *app, struct grid *g, const struct render_opts *o)
{
	struct prompt *pr = (struct prompt *)p;
	char line[400], q[256];
	(void)app;
	panel_clear(g, p->r, CS_STATUS);
	escape_term_buf(pr->text, strlen(pr->text), q, sizeof q);
	snprintf(line, sizeof line, "%s%s", pr->label, q);
	int x = grid_text(g, p->r.x, p->r.y, p->r.x + p->r.w, line, CS_STATUS, 0);
	grid_set(g, x, p->r.y, o->ascii ? '_' : 0x2588, CS_STATUS, 0);
}

static void prompt_layout(struct panel *p, struct app *app) { p->r = (struct rect){ 0, app->h - 1, app->w, 1 }; }

static void prompt_free(struct panel *p) { free(p); }

static const struct panel_ops prompt_ops = {
	.name = "prompt",
	.ctx = CTX_PROMPT,
	.act = prompt_act,
	.draw = prompt_draw,
	.layout = prompt_layout,
	.free = prompt_free,
};

struct panel *prompt_new_live(const char *label, const char *initial, prompt_fn done, prompt_fn change, void *ctx)
{
	struct prompt *pr = xcalloc(1, sizeof *pr);
	pr->base.ops = &prompt_ops;
	snprintf(pr->label, sizeof pr->label, "%s", label);
	snprintf(pr->text, sizeof pr->text, "%s", initial);
	pr->done = done;
	pr->change = change;
	pr->ctx = ctx;
	return &pr->base;
}

struct panel *prompt_new(const char *label, const char *initial, prompt_fn done, void *ctx)
{
	return prompt_new_live(label, initial, done, NULL, ctx);
}
