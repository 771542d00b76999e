/* keys.c: the named actions, the default key table with its contexts, key maps, and key
 * names and scripts (see keys.h). */
#include "ui/keys.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/xalloc.h"

/* clang-format off */
static const struct {
	const char *name, *text, *group;
} actions[A__COUNT] = {
	[A_NONE] = { "none", "nothing", "General" },
	[A_ZOOM_IN] = { "zoom-in", "zoom in around the cursor", "Zoom and pan" },
	[A_ZOOM_OUT] = { "zoom-out", "zoom out around the cursor", "Zoom and pan" },
	[A_ZOOM_IN_BIG] = { "zoom-in-big", "zoom in fast", "Zoom and pan" },
	[A_ZOOM_OUT_BIG] = { "zoom-out-big", "zoom out fast", "Zoom and pan" },
	[A_PAN_LEFT] = { "pan-left", "pan left", "Zoom and pan" },
	[A_PAN_RIGHT] = { "pan-right", "pan right", "Zoom and pan" },
	[A_PAN_LEFT_BIG] = { "pan-left-big", "pan left by half a screen", "Zoom and pan" },
	[A_PAN_RIGHT_BIG] = { "pan-right-big", "pan right by half a screen", "Zoom and pan" },
	[A_CURSOR_LEFT] = { "cursor-left", "move the time cursor left", "Move" },
	[A_CURSOR_RIGHT] = { "cursor-right", "move the time cursor right", "Move" },
	[A_CURSOR_LEFT_BIG] = { "cursor-left-big", "move the time cursor 10 columns left", "Move" },
	[A_CURSOR_RIGHT_BIG] = { "cursor-right-big", "move the time cursor 10 columns right", "Move" },
	[A_ROW_UP] = { "row-up", "select the row above", "Move" },
	[A_ROW_DOWN] = { "row-down", "select the row below", "Move" },
	[A_PAGE_UP] = { "page-up", "scroll a page up", "Move" },
	[A_PAGE_DOWN] = { "page-down", "scroll a page down", "Move" },
	[A_HOME] = { "home", "go to the start of the trace", "Move" },
	[A_END] = { "end", "go to the end of the trace", "Move" },
	[A_SELECT] = { "select", "select the slice under the cursor", "Select and mark" },
	[A_FIT] = { "fit", "fit the selection, the mark or the whole trace", "Zoom and pan" },
	[A_FIT_ALL] = { "fit-all", "fit the whole trace, whatever is selected", "Zoom and pan" },
	[A_MARK] = { "mark", "mark the selected slice or range", "Select and mark" },
	[A_CLEAR_MARKS] = { "clear-marks", "clear the mark", "Select and mark" },
	[A_RANGE] = { "range", "start or end a range selection at the cursor", "Select and mark" },
	[A_SEARCH] = { "search", "search slice names", "Search" },
	[A_NEXT_MATCH] = { "next-match", "next match", "Search" },
	[A_PREV_MATCH] = { "prev-match", "previous match", "Search" },
	[A_NEXT_SLICE] = { "next-slice", "next slice on the row", "Select and mark" },
	[A_PREV_SLICE] = { "prev-slice", "previous slice on the row", "Select and mark" },
	[A_FLOW_FORWARD] = { "flow-forward", "the GPU work the slice or a slice in it launched (again: the next one); else a flow forward", "Follow and go back" },
	[A_FLOW_BACK] = { "flow-back", "from GPU work, its launch; again: up the slices it nests in; else a flow back", "Follow and go back" },
	[A_PARENT] = { "parent", "select the slice the selected one nests in (from GPU work: its launch)", "Follow and go back" },
	[A_FIRST_CHILD] = { "first-child", "select the first slice nested in the selected one", "Follow and go back" },
	[A_BACK] = { "back", "go back to where the last jump (flow, search, gap, list, bookmark) left", "Follow and go back" },
	[A_FORWARD] = { "forward", "go forward again after going back", "Follow and go back" },
	[A_BOOKMARK] = { "bookmark", "bookmark the window and the selection (a name is asked)", "Follow and go back" },
	[A_CROP] = { "crop", "write the marked range (else the window) of the selection's rank as a trace file of its own (ttrace crop)", "Follow and go back" },
	[A_EDIT_SOURCE] = { "edit-source", "open the Python source of the selection (or the row) in $EDITOR at its line", "Follow and go back" },
	[A_BOOKMARK_LIST] = { "bookmarks", "the bookmarks (Enter jumps)", "Views" },
	[A_DIFF_VIEW] = { "diff", "diff: the rank in focus (B) against the first (A), per step: figures, kernels, operators", "Views" },
	[A_TOGGLE_GROUP] = { "toggle-group", "collapse or expand the group", "Tracks and time" },
	[A_ABS_TIME] = { "absolute-time", "show the window in absolute time (UTC) or from the trace start", "Tracks and time" },
	[A_FOLD_ROWS] = { "fold-rows", "fold deep CPU threads to a few rows so the GPU shows, or unfold them", "Tracks and time" },
	[A_DETAILS_MORE] = { "details-more", "enlarge the details panel; again: its next page of args; after the last: back", "Tracks and time" },
	[A_LAYOUT] = { "layout", "ranks: tracks by rank or by role", "Ranks" },
	[A_ALIGN_NEXT] = { "align-next", "ranks: next alignment: raw, step, collective", "Ranks" },
	[A_SHIFT_EARLIER] = { "shift-earlier", "ranks: shift the selected rank earlier", "Ranks" },
	[A_SHIFT_LATER] = { "shift-later", "ranks: shift the selected rank later", "Ranks" },
	[A_OVERVIEW] = { "overview", "the overview: GPU utilization, SM efficiency, occupancy, Tensor Cores; the steps", "Views" },
	[A_OP_VIEW] = { "operators", "the operators: CPU and device time, self and total (Enter jumps)", "Views" },
	[A_KERNEL_VIEW] = { "kernels", "the kernels: time, launch shape, occupancy, Tensor Cores (Enter jumps)", "Views" },
	[A_MEMORY_VIEW] = { "memory", "memory: allocated and reserved over time, peaks, operators by bytes (Enter jumps)", "Views" },
	[A_QUALITY_VIEW] = { "data-quality", "data quality: what --check finds, with examples (Enter jumps)", "Views" },
	[A_ADVICE_VIEW] = { "advice", "advice: findings worst first, with cause, fix and instances (Enter shows one)", "Views" },
	[A_DIST_VIEW] = { "distributed", "the distributed view: ranks and collectives (Enter jumps)", "Views" },
	[A_NEXT_GAP] = { "next-gap", "next GPU gap in time", "Gaps" },
	[A_PREV_GAP] = { "prev-gap", "previous GPU gap in time", "Gaps" },
	[A_BIGGEST_GAP] = { "biggest-gap", "the next gap by size, longest first", "Gaps" },
	[A_GAP_LIST] = { "gap-list", "the gap list: every GPU gap (Enter jumps)", "Views" },
	[A_GAP_MIN_UP] = { "gap-min-up", "double the minimum gap length", "Gaps" },
	[A_GAP_MIN_DOWN] = { "gap-min-down", "halve the minimum gap length", "Gaps" },
	[A_HELP] = { "help", "the keys of the panel on top (this help)", "Views" },
	[A_QUIT] = { "quit", "quit", "General" },
	[A_CANCEL] = { "cancel", "cancel: the range being made, else the selection, else the mark, else the search (the window stays)", "General" },
	[A_JUMP] = { "jump", "show the selected row in the timeline", "Rows" },
	[A_SORT_NEXT] = { "sort-next", "sort by the next column", "Sort and filter" },
	[A_SORT_PREV] = { "sort-prev", "sort by the previous column", "Sort and filter" },
	[A_SORT_REVERSE] = { "sort-reverse", "reverse the order", "Sort and filter" },
	[A_FILTER] = { "filter", "show only rows holding a text (empty: all)", "Sort and filter" },
	[A_CLOSE] = { "close", "close this panel", "General" },
	[A_COLS_LEFT] = { "columns-left", "show the columns to the left (the first stays)", "Columns" },
	[A_COLS_RIGHT] = { "columns-right", "show the columns to the right (the first stays)", "Columns" },
	[A_GAP_ORDER] = { "gap-order", "gap list: longest first or in time order", "Gap list" },
	[A_GAP_CAUSE] = { "gap-cause", "gap list: only the next cause (then every cause)", "Gap list" },
	[A_GAP_DEVICE] = { "gap-device", "gap list: only the next GPU (then every GPU)", "Gap list" },
	[A_GROUP_NEXT] = { "group-next", "group the rows the next way (operators: name, shapes, source, tree; kernels: name, launch shape, operator; distributed: ranks, communication)", "Rows" },
	[A_SHORT_NAMES] = { "short-names", "fold template arguments and parameters of names (<…> (…))", "Rows" },
	[A_TREE_EXPAND] = { "tree-expand", "tree: expand the selected row", "Tree" },
	[A_TREE_COLLAPSE] = { "tree-collapse", "tree: collapse the selected row; on a collapsed row or a leaf, select its parent", "Tree" },
	[A_TREE_EXPAND_ALL] = { "tree-expand-all", "tree: expand the selected row and every row below it", "Tree" },
	[A_TREE_COLLAPSE_ALL] = { "tree-collapse-all", "tree: collapse every row (the roots stay)", "Tree" },
	[A_DELETE] = { "delete", "bookmarks: delete the selected bookmark", "Rows" },
	[A_ACCEPT] = { "accept", "accept the text", "Prompt" },
	[A_ERASE] = { "erase", "erase the last character", "Prompt" },
};
/* clang-format on */

const char *action_name(enum action a) { return a < A__COUNT && actions[a].name ? actions[a].name : "?"; }
const char *action_text(enum action a) { return a < A__COUNT && actions[a].text ? actions[a].text : "?"; }
const char *action_group(enum action a) { return a < A__COUNT && actions[a].group ? actions[a].group : "General"; }

static const char *const context_names[CTX__COUNT] = {
	[CTX_GLOBAL] = "global", [CTX_TIMELINE] = "timeline", [CTX_TABLE] = "table",
	[CTX_HELP] = "help",     [CTX_PROMPT] = "prompt",
};

const char *context_name(enum key_context c) { return c < CTX__COUNT ? context_names[c] : "?"; }

/* clang-format off */
#define G CTX_GLOBAL
#define T CTX_TIMELINE
#define L CTX_TABLE
#define H CTX_HELP
#define P CTX_PROMPT
static const struct binding default_bindings[] = {
	/* global: the views and quitting, wherever the keyboard is */
	{ '?', A_HELP, G }, { 'o', A_GAP_LIST, G }, { 'p', A_DIST_VIEW, G }, { 'O', A_OP_VIEW, G }, { 'K', A_KERNEL_VIEW, G },
	{ 'V', A_OVERVIEW, G },
	{ 'U', A_MEMORY_VIEW, G },       { '\'', A_BOOKMARK_LIST, G },
	{ 'Q', A_QUALITY_VIEW, G },
	{ '!', A_ADVICE_VIEW, G },       { 'X', A_DIFF_VIEW, G },
	{ 'q', A_QUIT, G },
	/* the timeline: Perfetto's keys, arrows and vi keys */
	{ 'w', A_ZOOM_IN, T },           { 's', A_ZOOM_OUT, T },         { 'W', A_ZOOM_IN_BIG, T },
	{ 'S', A_ZOOM_OUT_BIG, T },      { 'a', A_PAN_LEFT, T },         { 'd', A_PAN_RIGHT, T },
	{ 'A', A_PAN_LEFT_BIG, T },      { 'D', A_PAN_RIGHT_BIG, T },    { TT_KEY_LEFT, A_CURSOR_LEFT, T },
	{ 'h', A_CURSOR_LEFT, T },       { TT_KEY_RIGHT, A_CURSOR_RIGHT, T }, { 'l', A_CURSOR_RIGHT, T },
	{ TT_KEY_S_LEFT, A_CURSOR_LEFT_BIG, T }, { 'H', A_CURSOR_LEFT_BIG, T }, { TT_KEY_S_RIGHT, A_CURSOR_RIGHT_BIG, T },
	{ 'L', A_CURSOR_RIGHT_BIG, T },  { TT_KEY_UP, A_ROW_UP, T },     { 'k', A_ROW_UP, T },
	{ TT_KEY_DOWN, A_ROW_DOWN, T },  { 'j', A_ROW_DOWN, T },         { TT_KEY_PGUP, A_PAGE_UP, T },
	{ TT_KEY_PGDN, A_PAGE_DOWN, T }, { TT_KEY_HOME, A_HOME, T },     { TT_KEY_END, A_END, T },
	{ TT_KEY_ENTER, A_SELECT, T },   { 'f', A_FIT, T },              { 'F', A_FIT_ALL, T },
	{ 'm', A_MARK, T },              { 'M', A_MARK, T },             { 'x', A_CLEAR_MARKS, T },
	{ 'v', A_RANGE, T },             { '/', A_SEARCH, T },           { 'n', A_NEXT_MATCH, T },
	{ 'N', A_PREV_MATCH, T },        { TT_KEY_S_ENTER, A_PREV_MATCH, T }, { '.', A_NEXT_SLICE, T },
	{ ',', A_PREV_SLICE, T },        { ']', A_FLOW_FORWARD, T },     { '[', A_FLOW_BACK, T },
	{ TT_KEY_TAB, A_TOGGLE_GROUP, T }, { 't', A_ABS_TIME, T },       { 'I', A_DETAILS_MORE, T },    { 'z', A_FOLD_ROWS, T },       { 'R', A_LAYOUT, T },
	{ 'y', A_ALIGN_NEXT, T },        { '{', A_SHIFT_EARLIER, T },    { '}', A_SHIFT_LATER, T },
	{ 'g', A_NEXT_GAP, T },          { 'G', A_PREV_GAP, T },         { 'b', A_BIGGEST_GAP, T },
	{ '>', A_GAP_MIN_UP, T },        { '<', A_GAP_MIN_DOWN, T },     { TT_KEY_ESC, A_CANCEL, T },
	{ 'u', A_PARENT, T },            { 'i', A_FIRST_CHILD, T },      { '(', A_BACK, T },
	{ TT_KEY_BACKSPACE, A_BACK, T }, { ')', A_FORWARD, T },          { 'B', A_BOOKMARK, T },
	{ 'e', A_EDIT_SOURCE, T },       { 'C', A_CROP, T },
	/* tables */
	{ TT_KEY_UP, A_ROW_UP, L },      { 'k', A_ROW_UP, L },           { TT_KEY_DOWN, A_ROW_DOWN, L },
	{ 'j', A_ROW_DOWN, L },          { TT_KEY_PGUP, A_PAGE_UP, L },  { TT_KEY_PGDN, A_PAGE_DOWN, L },
	{ TT_KEY_HOME, A_HOME, L },      { TT_KEY_END, A_END, L },       { TT_KEY_ENTER, A_JUMP, L },
	{ 's', A_SORT_NEXT, L },         { 'S', A_SORT_PREV, L },        { 'r', A_SORT_REVERSE, L },
	{ '/', A_FILTER, L },            { TT_KEY_ESC, A_CLOSE, L },     { 'q', A_CLOSE, L },
	{ TT_KEY_LEFT, A_COLS_LEFT, L }, { 'h', A_COLS_LEFT, L },        { TT_KEY_RIGHT, A_COLS_RIGHT, L },
	{ 'l', A_COLS_RIGHT, L },
	{ 't', A_GAP_ORDER, L },         { 'c', A_GAP_CAUSE, L },        { 'd', A_GAP_DEVICE, L },
	{ 'g', A_GROUP_NEXT, L },        { 'T', A_SHORT_NAMES, L },      { 'x', A_DELETE, L },
	{ 'e', A_EDIT_SOURCE, L },
	/* a tree (the Operators view's): htop's keys; Left and Right scroll the columns */
	{ '+', A_TREE_EXPAND, L },       { '=', A_TREE_EXPAND, L },      { '-', A_TREE_COLLAPSE, L },
	{ '*', A_TREE_EXPAND_ALL, L },   { '_', A_TREE_COLLAPSE_ALL, L },
	/* help */
	{ TT_KEY_UP, A_ROW_UP, H },      { 'k', A_ROW_UP, H },           { TT_KEY_DOWN, A_ROW_DOWN, H },
	{ 'j', A_ROW_DOWN, H },          { TT_KEY_PGUP, A_PAGE_UP, H },  { TT_KEY_PGDN, A_PAGE_DOWN, H },
	{ ' ', A_PAGE_DOWN, H },         { TT_KEY_HOME, A_HOME, H },     { TT_KEY_END, A_END, H },
	{ TT_KEY_ESC, A_CLOSE, H },      { 'q', A_CLOSE, H },
	/* a prompt (search, filter): other keys are its text */
	{ TT_KEY_ENTER, A_ACCEPT, P },   { TT_KEY_ESC, A_CANCEL, P },    { TT_KEY_BACKSPACE, A_ERASE, P },
};
/* clang-format on */
#undef G
#undef T
#undef L
#undef H
#undef P

const struct binding *keymap_defaults(int *n)
{
	*n = (int)(sizeof default_bindings / sizeof *default_bindings);
	return default_bindings;
}

void keymap_init(struct keymap *km)
{
	km->n = 0;
	for (size_t i = 0; i < sizeof default_bindings / sizeof *default_bindings && km->n + 1 < KEYMAP_MAX; i++)
		km->b[km->n++] = default_bindings[i];
	km->b[km->n] = (struct binding){ 0, A_NONE, CTX_GLOBAL };
}

static enum action lookup(const struct keymap *km, enum key_context ctx, int key)
{
	for (int i = 0; i < km->n; i++)
		if (km->b[i].key == key && km->b[i].ctx == ctx)
			return km->b[i].action;
	return A_NONE;
}

enum action keymap_action(const struct keymap *km, enum key_context ctx, int key)
{
	enum action a = lookup(km, ctx, key);
	return a != A_NONE || ctx == CTX_GLOBAL ? a : lookup(km, CTX_GLOBAL, key);
}

char *keymap_keys_for(const struct keymap *km, enum key_context ctx, enum action a, char *buf, size_t n)
{
	size_t len = 0;
	if (n == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < km->n; i++) {
		if (km->b[i].action != a || km->b[i].ctx != ctx)
			continue;
		/* a key shadowed by an earlier binding of the same context does nothing */
		if (lookup(km, ctx, km->b[i].key) != a)
			continue;
		int w = snprintf(buf + len, n - len, "%s%s", len ? " " : "", key_label(km->b[i].key));
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
	return buf;
}

const char *keymap_key_for(const struct keymap *km, enum key_context ctx, enum action a)
{
	for (int pass = 0; pass < 2; pass++) {
		enum key_context c = pass == 0 ? ctx : CTX_GLOBAL;
		for (int i = 0; i < km->n; i++)
			if (km->b[i].action == a && km->b[i].ctx == c && keymap_action(km, ctx, km->b[i].key) == a)
				return key_label(km->b[i].key);
	}
	return "?";
}

/* Binds KEY to A in CTX, replacing what KEY did there. */
static void bind(struct keymap *km, enum key_context ctx, int key, enum action a)
{
	for (int i = 0; i < km->n; i++)
		if (km->b[i].key == key && km->b[i].ctx == ctx) {
			km->b[i].action = a;
			return;
		}
	if (km->n + 1 >= KEYMAP_MAX)
		return;
	/* first, so that it wins over nothing else (keys are unique per context) */
	km->b[km->n++] = (struct binding){ key, a, ctx };
	km->b[km->n] = (struct binding){ 0, A_NONE, CTX_GLOBAL };
}

/* Whether A has a default key in CTX: where "KEY ACTION" binds it. */
static bool default_in(enum action a, enum key_context ctx)
{
	for (size_t i = 0; i < sizeof default_bindings / sizeof *default_bindings; i++)
		if (default_bindings[i].action == a && default_bindings[i].ctx == ctx)
			return true;
	return false;
}

/* Appends "PATH:LINE: WHAT" to the messages *MSGS (a line each). */
static void skipped(char **msgs, const char *path, int line, const char *what, const char *word)
{
	char *m = xasprintf("%s%s%s:%d: %s%s%s%s (line skipped)", *msgs ? *msgs : "", *msgs ? "\n" : "", path, line,
	                    what, word ? " '" : "", word ? word : "", word ? "'" : "");
	free(*msgs);
	*msgs = m;
}

int keymap_load(struct keymap *km, const char *path, char **cause)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int lineno = 0, bad = 0;
	*cause = NULL;
	if (f == NULL) {
		*cause = xasprintf("cannot open key map %s", path);
		return -1;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		char w1[64], w2[64], w3[64];
		int *keys = NULL, nk, nw;
		char *err = NULL;
		lineno++;
		if (line[0] == '#' || (nw = sscanf(line, "%63s %63s %63s", w1, w2, w3)) < 2)
			continue;
		if (strcmp(w1, "source-root") == 0 || strcmp(w1, "source-map") == 0) {
			/* a setting: the rest of the line (blanks around it aside) is its value */
			bool root = w1[7] == 'r';
			char *v = line + strspn(line, " \t") + strlen(w1);
			v += strspn(v, " \t");
			size_t len = strcspn(v, "\r\n");
			while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
				len--;
			size_t cap = root ? sizeof km->source_root : sizeof km->source_map;
			if (len >= cap || (!root && (memchr(v, '=', len) == NULL || v[0] == '='))) {
				skipped(cause, path, lineno,
				        root ? "source-root: too long:" : "source-map: not FROM=TO:", w2);
				bad++;
				continue;
			}
			memcpy(root ? km->source_root : km->source_map, v, len);
			(root ? km->source_root : km->source_map)[len] = '\0';
			continue;
		}
		int ctx = -1;
		if (nw == 3)
			for (int c = 0; c < CTX__COUNT; c++)
				if (strcmp(context_names[c], w1) == 0)
					ctx = c;
		/* "KEY ACTION anything": the words after the action are a comment, as they were */
		const char *key = ctx >= 0 ? w2 : w1, *act = ctx >= 0 ? w3 : w2;
		nk = keys_parse(key, &keys, &err);
		enum action a = A__COUNT;
		for (int i = 1; i < A__COUNT; i++)
			if (actions[i].name != NULL && strcmp(actions[i].name, act) == 0)
				a = (enum action)i;
		if (strcmp(act, "none") == 0)
			a = A_NONE;
		if (nk != 1 || a == A__COUNT) {
			/* said and skipped: the rest of the map still applies */
			bool w3_action = false; /* "CONTEXT KEY ACTION" with a context that is none */
			for (int i = 1; i < A__COUNT && nw == 3 && ctx < 0; i++)
				w3_action |= actions[i].name != NULL && strcmp(actions[i].name, w3) == 0;
			if (w3_action)
				skipped(cause, path, lineno, "unknown context", w1);
			else if (a == A__COUNT)
				skipped(cause, path, lineno, "unknown action", act);
			else
				skipped(cause, path, lineno, nk > 1 ? "more than one key" : "not a key", key);
			bad++;
			free(err);
			free(keys);
			continue;
		}
		if (ctx >= 0) {
			bind(km, (enum key_context)ctx, keys[0], a);
		} else {
			bool any = false;
			for (int c = 0; c < CTX__COUNT; c++)
				if (a != A_NONE && default_in(a, (enum key_context)c)) {
					bind(km, (enum key_context)c, keys[0], a);
					any = true;
				}
			if (!any)
				bind(km, a == A_NONE ? CTX_TIMELINE : CTX_GLOBAL, keys[0], a);
		}
		free(keys);
	}
	fclose(f);
	return bad;
}

/* clang-format off */
static const struct {
	int key;
	const char *name;
} key_names[] = {
	{ TT_KEY_ENTER, "Enter" }, { TT_KEY_S_ENTER, "S-Enter" }, { TT_KEY_ESC, "Esc" },
	{ TT_KEY_UP, "Up" },       { TT_KEY_DOWN, "Down" },       { TT_KEY_LEFT, "Left" },
	{ TT_KEY_RIGHT, "Right" }, { TT_KEY_S_LEFT, "S-Left" },   { TT_KEY_S_RIGHT, "S-Right" },
	{ TT_KEY_PGUP, "PgUp" },   { TT_KEY_PGDN, "PgDn" },       { TT_KEY_HOME, "Home" },
	{ TT_KEY_END, "End" },     { TT_KEY_TAB, "Tab" },         { TT_KEY_BACKSPACE, "BS" },
	{ TT_KEY_RESIZE, "Resize" }, { '<', "lt" },                { ' ', "Space" },
};
/* clang-format on */

const char *key_label(int key)
{
	static char buf[8];
	for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
		if (key_names[i].key == key && key != '<' && key != ' ')
			return key_names[i].name;
	if (key == ' ')
		return "Space";
	if (key > 0x20 && key < 0x7f) {
		buf[0] = (char)key;
		buf[1] = '\0';
		return buf;
	}
	snprintf(buf, sizeof buf, "#%d", key);
	return buf;
}

static int key_from_name(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
		if (strlen(key_names[i].name) == n && strncasecmp(key_names[i].name, name, n) == 0)
			return key_names[i].key;
	return -1;
}

/* "<Click:40,5>" and the like: a mouse event at a screen position. */
static int mouse_from_name(const char *name, size_t n)
{
	static const struct {
		const char *word;
		enum mouse_kind kind;
	} words[] = { { "Click:", TT_CLICK },
		      { "Press:", TT_PRESS },
		      { "Release:", TT_RELEASE },
		      { "WheelUp:", TT_WHEEL_UP },
		      { "WheelDown:", TT_WHEEL_DOWN } };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t wl = strlen(words[i].word);
		int x, y;
		char tail;
		if (n > wl && strncasecmp(name, words[i].word, wl) == 0 &&
		    sscanf(name + wl, "%d,%d%c", &x, &y, &tail) == 3 && tail == '>' && x >= 0 && y >= 0 && x < 4096 &&
		    y < 4096)
			return TT_MOUSE(words[i].kind, x, y);
	}
	return -1;
}

int keys_parse(const char *script, int **keys, char **cause)
{
	size_t n = strlen(script), k = 0;
	int *out = xmalloc((n + 1) * sizeof *out);
	for (size_t i = 0; i < n;) {
		if (script[i] == '<') {
			const char *e = strchr(script + i, '>');
			int key = -1;
			if (e != NULL)
				key = key_from_name(script + i + 1, (size_t)(e - script - i - 1));
			if (e != NULL && key < 0)
				key = mouse_from_name(script + i + 1, (size_t)(e - script - i));
			if (e == NULL || key < 0) {
				*cause = xasprintf("unknown key at offset %zu of the key script: %.20s", i, script + i);
				free(out);
				return -1;
			}
			out[k++] = key;
			i = (size_t)(e - script) + 1;
		} else {
			out[k++] = (unsigned char)script[i++];
		}
	}
	*keys = out;
	return (int)k;
}
