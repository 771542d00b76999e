/* source.c: jump to source (see source.h). */
#include "ui/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lib/escape.h"
#include "src/index.h"
#include "src/pyframe.h"
#include "ui/app.h"
#include "ui/view.h"

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Tries CAND: true when it is a file (copied to PATH); else it is added to TRIED. */
static bool try_path(const char *cand, char *path, size_t n, char *tried, size_t tn)
{
	if (is_file(cand) && strlen(cand) < n) {
		snprintf(path, n, "%s", cand);
		return true;
	}
	size_t k = strlen(tried);
	if (k + 1 < tn)
		snprintf(tried + k, tn - k, "%s%s", k > 0 ? "; " : "", cand);
	return false;
}

bool source_resolve(const struct source_opts *o, const char *file, char *path, size_t n, char *tried, size_t tn)
{
	char cand[4096];
	tried[0] = '\0';
	if (o->map != NULL) {
		const char *eq = strchr(o->map, '=');
		size_t fl = eq != NULL ? (size_t)(eq - o->map) : 0;
		if (fl > 0 && strncmp(file, o->map, fl) == 0) {
			snprintf(cand, sizeof cand, "%s%s", eq + 1, file + fl);
			if (try_path(cand, path, n, tried, tn))
				return true;
		}
	}
	if (try_path(file, path, n, tried, tn))
		return true;
	if (o->root != NULL) {
		/* under the root: the path as is when relative, else its trailing parts, longest
		 * first (/home/u/proj/train.py: ROOT/home/u/proj/train.py, ROOT/u/proj/train.py...) */
		for (const char *p = file; p != NULL; p = strchr(p + 1, '/')) {
			const char *rest = p + (*p == '/');
			if (*rest == '\0')
				break;
			snprintf(cand, sizeof cand, "%s/%s", o->root, rest);
			if (try_path(cand, path, n, tried, tn))
				return true;
		}
	}
	return false;
}

/* Appends the words of S (split at blanks) to ARGV from *K, their text copied into BUF
 * from *AT, with %f, %l and %% replaced when TEMPLATE. False when they do not fit. */
static bool add_words(const char *s, bool template, const char *path, int line, char **argv, int max, int *k, char *buf,
                      size_t n, size_t *at)
{
	const char *p = s;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			return true;
		if (*k >= max - 1)
			return false;
		argv[(*k)++] = buf + *at;
		for (; *p != '\0' && *p != ' ' && *p != '\t'; p++) {
			char num[16];
			const char *add = NULL;
			if (template && p[0] == '%' && (p[1] == 'f' || p[1] == 'l' || p[1] == '%')) {
				snprintf(num, sizeof num, "%d", line);
				add = p[1] == 'f' ? path : p[1] == 'l' ? num : "%";
				p++;
			}
			size_t len = add != NULL ? strlen(add) : 1;
			if (*at + len + 1 >= n)
				return false;
			memcpy(buf + *at, add != NULL ? add : p, len);
			*at += len;
		}
		buf[(*at)++] = '\0';
	}
}

int source_editor_argv(const char *path, int line, char **argv, int max, char *buf, size_t n)
{
	int k = 0;
	size_t at = 0;
	const char *tmpl = getenv("TTRACE_EDITOR");
	if (tmpl != NULL && *tmpl != '\0') {
		if (!add_words(tmpl, true, path, line, argv, max, &k, buf, n, &at) || k == 0)
			return 0;
	} else {
		const char *ed = getenv("VISUAL");
		if (ed == NULL || *ed == '\0')
			ed = getenv("EDITOR");
		if (ed == NULL || *ed == '\0')
			ed = "vi";
		char plus[24];
		snprintf(plus, sizeof plus, "+%d", line);
		if (!add_words(ed, false, path, line, argv, max, &k, buf, n, &at) || k == 0 || k + 2 >= max ||
		    at + strlen(plus) + strlen(path) + 2 >= n)
			return 0;
		argv[k++] = strcpy(buf + at, plus);
		at += strlen(plus) + 1;
		argv[k++] = strcpy(buf + at, path);
	}
	argv[k] = NULL;
	return k;
}

static struct source_opts opts; /* --source-root, --source-map */

void source_set_opts(const char *root, const char *map)
{
	opts.root = root;
	opts.map = map;
}

void source_open_frame(struct app *app, const char *frame, const char *what)
{
	char file[2048], path[4096], tried[1024], shown[1200], buf[8192];
	char *argv[32];
	int line;
	if (!pyframe_parse(frame, file, sizeof file, &line)) {
		escape_term_buf(frame, strlen(frame), shown, 200);
		app_status(app, "%s is not a Python frame with a file and line (FILE(LINE): NAME): %s", what, shown);
		return;
	}
	/* the command line's, else the key map file's (ui/keys.h) */
	struct source_opts o = opts;
	if (o.root == NULL && app->keys.source_root[0])
		o.root = app->keys.source_root;
	if (o.map == NULL && app->keys.source_map[0])
		o.map = app->keys.source_map;
	if (!source_resolve(&o, file, path, sizeof path, tried, sizeof tried)) {
		escape_term_buf(tried, strlen(tried), shown, sizeof shown);
		app_status(app, "source not found on this machine: tried %s (--source-root, --source-map)", shown);
		return;
	}
	if (source_editor_argv(path, line, argv, 32, buf, sizeof buf) == 0) {
		app_status(app, "TTRACE_EDITOR, VISUAL or EDITOR is too long to run");
		return;
	}
	if (app->fe == NULL || app->fe->run == NULL) {
		app_status(app, "no terminal to run the editor in");
		return;
	}
	int st = app->fe->run(app->fe, argv);
	escape_term_buf(path, strlen(path), shown, sizeof shown);
	char ed[200];
	escape_term_buf(argv[0], strlen(argv[0]), ed, sizeof ed);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 127)
		app_status(app, "%s could not open %s:%d", ed, shown, line);
	else
		app_status(app, "%s:%d opened in %s", shown, line, ed);
}

void source_open_selected(struct app *app)
{
	const struct trace *t;
	const struct track *tr;
	uint32_t idx;
	if (!view_selection(app->tl, &t, &tr, &idx)) {
		app_status(app, "select a slice first: e opens the Python source around it");
		return;
	}
	/* GPU work: the frames around its launch */
	enum slice_class cls = slice_cls(t, &tr->slices[idx]);
	uint32_t g = cls == SC_KERNEL || cls == SC_MEMCPY || cls == SC_MEMSET ? track_gpu_at(tr, idx) : TT_NONE;
	if (g < t->ngpu && t->gpu[g].peer.track < t->ntracks &&
	    t->gpu[g].peer.idx < t->tracks[t->gpu[g].peer.track].nslices) {
		tr = &t->tracks[t->gpu[g].peer.track];
		idx = t->gpu[g].peer.idx;
	}
	/* the innermost frame with a file: "<built-in method bmm ...>" frames are skipped */
	bool any = false;
	for (uint32_t i = idx; i != TT_NONE; i = index_parent(t, tr, i)) {
		if (slice_cls(t, &tr->slices[i]) != SC_PYTHON)
			continue;
		any = true;
		const char *frame = strtab_get(&t->strings, slice_name(t, &tr->slices[i]));
		if (pyframe_parse(frame, NULL, 0, NULL)) {
			source_open_frame(app, frame, "the selected slice's frame");
			return;
		}
	}
	app_status(app, any ? "no Python frame with a file and line at or above this slice"
	                    : "no Python frame at or above this slice (record with with_stack=True)");
}
