/* crop_key.c: C in the timeline: the marked range, else the window, of the selection's
 * rank written as a trace of its own by `ttrace crop`'s engine (cmd/crop.h), to a file the
 * user names (empty: TRACE-crop.json.zst in the current directory). The file is read twice
 * meanwhile: on a big trace the screen waits for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/crop.h"
#include "lib/escape.h"
#include "lib/timefmt.h"
#include "lib/tmath.h"
#include "ui/app.h"
#include "ui/prompt.h"
#include "ui/view_state.h"

/* The rank the crop is of: the selection's, else the first. */
static int crop_rank(const struct view *v)
{
	return v->sel.track != TT_NONE ? (int)(v->sel.track >> VIEW_RANK_SHIFT) : 0;
}

/* The default output: the trace's name without its extensions, "-crop.json.zst". */
static void default_name(const char *path, char *buf, size_t n)
{
	const char *base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	size_t len = strlen(base);
	static const char *const exts[] = { ".json.gz", ".json.zst", ".json", ".gz", ".zst" };
	for (size_t k = 0; k < sizeof exts / sizeof *exts; k++) {
		size_t e = strlen(exts[k]);
		if (len > e && strcmp(base + len - e, exts[k]) == 0) {
			len -= e;
			break;
		}
	}
	snprintf(buf, n, "%.*s-crop.json.zst", (int)(len < 200 ? len : 200), base);
}

static void crop_done(void *ctx, struct app *app, const char *text, bool accepted)
{
	struct view *v = ctx;
	(void)app;
	if (!accepted) {
		view_status(v, "nothing written");
		return;
	}
	int r = crop_rank(v);
	const struct trace *t = v->ts[r];
	char out[256];
	if (text[0])
		snprintf(out, sizeof out, "%s", text);
	else
		default_name(t->path, out, sizeof out);
	int64_t a = v->t0, b = v->t1;
	if (v->has_mark && v->mark0 != v->mark1) {
		a = v->mark0 < v->mark1 ? v->mark0 : v->mark1;
		b = v->mark0 < v->mark1 ? v->mark1 : v->mark0;
	}
	a = tt_sub(a, v->shift[r]); /* the rank's own file time */
	b = tt_sub(b, v->shift[r]);
	/* one rank of a merged trace: the window of the merged file, every rank in it (its map
	 * of events holds only the rank's, moved back) */
	int64_t moved = t->merged ? t->merged_shift : 0;
	uint64_t kept, total;
	char *cause = NULL, da[48], db[48], shown[300];
	escape_term_buf(out, strlen(out), shown, sizeof shown);
	if (crop_file(t->path, t->merged ? NULL : t, tt_add(a, moved), tt_add(b, moved), out, false, &kept, &total,
	              &cause) != 0) {
		char why[400];
		escape_term_buf(cause, strlen(cause), why, sizeof why);
		view_status(v, "crop: %s", why);
		free(cause);
		return;
	}
	view_status(v, "wrote %s: %llu of %llu events, %s to %s from the start", shown, (unsigned long long)kept,
	            (unsigned long long)total, timefmt_offset(tt_sub(tt_add(a, v->shift[r]), v->start), da, sizeof da),
	            timefmt_offset(tt_sub(tt_add(b, v->shift[r]), v->start), db, sizeof db));
}

bool crop_key_act(struct view *v, enum action a)
{
	if (a != A_CROP)
		return false;
	const struct trace *t = v->ts[crop_rank(v)];
	if (v->app->fe == NULL) { /* a headless app (tests/fuzz/fuzz_keys.c): no file is written */
		view_status(v, "crop: no frontend to write files from");
		return true;
	}
	if (v->partial || strcmp(t->path, "-") == 0) {
		view_status(v, v->partial ? "crop: the trace is still loading"
		                          : "crop: standard input cannot be read again");
		return true;
	}
	char label[400], def[256], shown[300];
	default_name(t->path, def, sizeof def);
	escape_term_buf(def, strlen(def), shown, sizeof shown);
	snprintf(label, sizeof label, "crop the %s to [%s]: ", v->has_mark && v->mark0 != v->mark1 ? "range" : "window",
	         shown);
	app_push(v->app, prompt_new(label, "", crop_done, v));
	return true;
}
