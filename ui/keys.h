/* keys.h: key codes, named actions, and the one key table that maps keys to actions.
 *
 * Every binding belongs to a context: the panel on top of the stack (ui/panel.h) looks its
 * keys up in its own context first, then in the global one. Every action has a stable name
 * ("zoom-in"), a line of help and a group for the help panel; a key map file rebinds any
 * key of any context. The terminal (ui/tty.c) and the headless key script
 * (--dump-screen --keys) produce the same key codes. */
#ifndef TT_KEYS_H
#define TT_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* Key codes: printable ASCII as themselves, the rest here (not curses' values). */
enum {
	TT_KEY_ENTER = 0x100,
	TT_KEY_S_ENTER,
	TT_KEY_ESC,
	TT_KEY_UP,
	TT_KEY_DOWN,
	TT_KEY_LEFT,
	TT_KEY_RIGHT,
	TT_KEY_S_LEFT,
	TT_KEY_S_RIGHT,
	TT_KEY_PGUP,
	TT_KEY_PGDN,
	TT_KEY_HOME,
	TT_KEY_END,
	TT_KEY_TAB,
	TT_KEY_BACKSPACE,
	TT_KEY_RESIZE,
};

/* Mouse events travel as key codes too, so that key scripts can replay them:
 * TT_MOUSE(kind, x, y) with screen coordinates below 4096. */
enum mouse_kind { TT_CLICK = 1, TT_PRESS, TT_RELEASE, TT_WHEEL_UP, TT_WHEEL_DOWN };
#define TT_MOUSE_BASE 0x40000000
#define TT_MOUSE(kind, x, y) (TT_MOUSE_BASE | (int)(kind) << 24 | ((y)&0xfff) << 12 | ((x)&0xfff))
#define TT_IS_MOUSE(k) ((k) >= TT_MOUSE_BASE)
#define TT_MOUSE_KIND(k) ((enum mouse_kind)(((k) >> 24) & 0x7))
#define TT_MOUSE_X(k) ((k)&0xfff)
#define TT_MOUSE_Y(k) (((k) >> 12) & 0xfff)

/* Where a binding applies. A panel's keys are looked up in its context, then in global. */
enum key_context { CTX_GLOBAL, CTX_TIMELINE, CTX_TABLE, CTX_HELP, CTX_PROMPT, CTX__COUNT };

/* clang-format off */
enum action {
	A_NONE,
	/* timeline */
	A_ZOOM_IN, A_ZOOM_OUT, A_ZOOM_IN_BIG, A_ZOOM_OUT_BIG,
	A_PAN_LEFT, A_PAN_RIGHT, A_PAN_LEFT_BIG, A_PAN_RIGHT_BIG,
	A_CURSOR_LEFT, A_CURSOR_RIGHT, A_CURSOR_LEFT_BIG, A_CURSOR_RIGHT_BIG,
	A_ROW_UP, A_ROW_DOWN, A_PAGE_UP, A_PAGE_DOWN, A_HOME, A_END,
	A_SELECT, A_FIT, A_FIT_ALL, A_MARK, A_CLEAR_MARKS, A_RANGE,
	A_SEARCH, A_NEXT_MATCH, A_PREV_MATCH,
	A_NEXT_SLICE, A_PREV_SLICE, A_FLOW_FORWARD, A_FLOW_BACK, A_PARENT, A_FIRST_CHILD,
	A_BACK, A_FORWARD, A_BOOKMARK, A_CROP,
	A_TOGGLE_GROUP, A_ABS_TIME, A_DETAILS_MORE, A_FOLD_ROWS,
	A_LAYOUT, A_ALIGN_NEXT, A_SHIFT_EARLIER, A_SHIFT_LATER,
	A_NEXT_GAP, A_PREV_GAP, A_BIGGEST_GAP, A_GAP_MIN_UP, A_GAP_MIN_DOWN,
	/* views (global: each opens or closes a panel) */
	A_DIST_VIEW, A_GAP_LIST, A_OVERVIEW, A_OP_VIEW, A_KERNEL_VIEW, A_MEMORY_VIEW, A_QUALITY_VIEW, A_ADVICE_VIEW,
	A_BOOKMARK_LIST, A_DIFF_VIEW, A_HELP,
	/* tables */
	A_JUMP, A_SORT_NEXT, A_SORT_PREV, A_SORT_REVERSE, A_FILTER, A_CLOSE, A_COLS_LEFT, A_COLS_RIGHT,
	A_GAP_ORDER, A_GAP_CAUSE, A_GAP_DEVICE, A_GROUP_NEXT, A_SHORT_NAMES, A_EDIT_SOURCE,
	A_TREE_EXPAND, A_TREE_COLLAPSE, A_TREE_EXPAND_ALL, A_TREE_COLLAPSE_ALL, A_DELETE,
	/* prompt */
	A_ACCEPT, A_ERASE,
	/* general */
	A_QUIT, A_CANCEL,
	A__COUNT
};
/* clang-format on */

struct binding {
	int key;
	enum action action;
	enum key_context ctx;
};

#define KEYMAP_MAX 256
struct keymap {
	struct binding b[KEYMAP_MAX]; /* ends with key 0 */
	int n;
	/* settings a key map file may hold beside its bindings, for jump to source
	 * (ui/source.h): "source-root DIR" and "source-map FROM=TO" lines; "" when none */
	char source_root[256], source_map[512];
};

/* The action's stable name for key map files ("zoom-in"), and what it does. */
const char *action_name(enum action a);
const char *action_text(enum action a);
/* The help panel's group of an action ("Zoom and pan", "Gaps", ...). */
const char *action_group(enum action a);
/* A context's name in key maps and help ("timeline", "table", ...). */
const char *context_name(enum key_context c);

/* The default key table. */
void keymap_init(struct keymap *km);
/* The default bindings (*N of them). */
const struct binding *keymap_defaults(int *n);
/* The action KEY has in context CTX, then in the global context; A_NONE when unbound. */
enum action keymap_action(const struct keymap *km, enum key_context ctx, int key);
/* The names of the keys bound to A in CTX (e.g. "Left h"), "" when none. Returns BUF. */
char *keymap_keys_for(const struct keymap *km, enum key_context ctx, enum action a, char *buf, size_t n);
/* The first key bound to A in CTX or globally, "?" when none. Static buffer. */
const char *keymap_key_for(const struct keymap *km, enum key_context ctx, enum action a);
/* Reads a key map: lines of "KEY ACTION" (the key takes the action in every context where
 * the action has a default key) or "CONTEXT KEY ACTION"; '#' starts a comment line. A line
 * that cannot be read is skipped and said in *CAUSE ("PATH:LINE: what (line skipped)", a
 * line each; allocated, NULL when none). Returns how many lines were skipped, or -1 with
 * *CAUSE when the file cannot be opened. */
int keymap_load(struct keymap *km, const char *path, char **cause);

/* A key's name for help and maps ("w", "Enter", "S-Left"). Returns a static buffer. */
const char *key_label(int key);
/* Parses a key script ("wwd/aten<Enter>n<S-Enter>q") into *KEYS (allocated). Returns the
 * count, or -1 with *cause for an unknown <Name>. */
int keys_parse(const char *script, int **keys, char **cause);

#endif
