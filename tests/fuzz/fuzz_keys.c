/* fuzz_keys.c: the libFuzzer target for the timeline. The input is a small trace and a
 * key script: the trace is loaded as the program loads it (a memfd through load_trace),
 * opened in a headless view (ui/view.h) at a screen size the input picks, and every key
 * goes through app_key (the real key table and panel stack), app_resize or the mouse, then app_draw
 * draws the screen into a cell grid (ui/render.h), as the terminal would after each key.
 * After every frame no cell may hold a control character (C0, DEL, C1, a bidi control)
 * or a code point no terminal can show; a violation aborts, so it is a crash to the
 * fuzzer. A hang is libFuzzer's -timeout, or the replay's watchdog (replay_main.c).
 *
 * Input layout (every part may be mutated):
 *   byte 0   configuration: bits 0-2 the screen size (sizes[]), bit 3 two ranks, bits
 *            4-5 the alignment (raw, step, collective; 3 is raw), bit 6 ASCII glyphs;
 *   byte 1   L, the length of the key script in bytes;
 *   L bytes  the key script, decoded by next_key;
 *   the rest the trace (JSON, gzip or zstd). With two ranks it is cut at the first
 *            RANK_SEP into rank 0 and rank 1; without one, both ranks get the whole. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "parsers/load.h"
#include "src/model.h"
#include "ui/grid.h"
#include "ui/app.h"
#include "ui/view_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RANK_SEP "\n--rank--\n"

static const struct {
	int w, h;
} sizes[] = { { 80, 24 }, { 1, 1 }, { 12, 4 }, { 30, 8 }, { 50, 16 }, { 132, 43 }, { 200, 60 }, { 320, 90 } };

/* The keys that are not printable ASCII, in the order key bytes 0x80.. name them. */
static const int special_keys[] = { TT_KEY_ENTER, TT_KEY_S_ENTER, TT_KEY_ESC,    TT_KEY_UP,      TT_KEY_DOWN,
	                            TT_KEY_LEFT,  TT_KEY_RIGHT,   TT_KEY_S_LEFT, TT_KEY_S_RIGHT, TT_KEY_PGUP,
	                            TT_KEY_PGDN,  TT_KEY_HOME,    TT_KEY_END,    TT_KEY_TAB,     TT_KEY_BACKSPACE };

#define NSPECIAL ((int)(sizeof special_keys / sizeof *special_keys))
#define KEY_RESIZE_BYTE (0x80 + NSPECIAL) /* followed by one byte: the new size */
#define KEY_MOUSE_FIRST 0x90              /* 0x90..0x9f: a mouse event, followed by x and y */
#define KEY_BOUND_FIRST 0xa0              /* 0xa0..0xff: the N-th key of the default table */

/* One step of the key script. */
struct key_step {
	bool resize;
	int key;  /* when not resize */
	int w, h; /* when resize */
};

static int nbound(void)
{
	int n;
	keymap_defaults(&n);
	return n;
}

/* Decodes the step at *P (advanced past it) for a screen of W x H columns and lines:
 *   0x20..0x7e     that ASCII key;
 *   0x00..0x1f, 0x7f  as the terminal maps them (ui/tty.c): LF and CR Enter, ESC, TAB,
 *                  DEL and BS backspace, any other control code passed on as itself;
 *   0x80..0x8e     special_keys[];
 *   0x8f S         a resize to sizes[S % 8] (or, for S >= 8, to S % 64 + 1 x S / 64 + 1);
 *   0x90..0x9f X Y a mouse event (kind from the low bits) at X % (W + 2), Y % (H + 2);
 *   0xa0..0xff     a key of the default key table, cycling. */
static struct key_step next_key(const uint8_t **p, const uint8_t *end, int w, int h)
{
	struct key_step s = { false, 0, 0, 0 };
	uint8_t b = *(*p)++;
	uint8_t x = *p < end ? **p : 0;
	uint8_t y = *p + 1 < end ? (*p)[1] : 0;

	if (b >= 0x20 && b < 0x7f) {
		s.key = b;
	} else if (b < 0x20 || b == 0x7f) {
		s.key = b == '\n' || b == '\r' ? TT_KEY_ENTER
		        : b == 27              ? TT_KEY_ESC
		        : b == '\t'            ? TT_KEY_TAB
		        : b == 8 || b == 0x7f  ? TT_KEY_BACKSPACE
		                               : b;
	} else if (b < KEY_RESIZE_BYTE) {
		s.key = special_keys[b - 0x80];
	} else if (b == KEY_RESIZE_BYTE) {
		s.resize = true;
		if (x < 8) {
			s.w = sizes[x].w;
			s.h = sizes[x].h;
		} else {
			s.w = x % 64 + 1;
			s.h = x / 64 + 1;
		}
		*p += *p < end;
	} else if (b < KEY_BOUND_FIRST) {
		int kind = TT_CLICK + (b - KEY_MOUSE_FIRST) % 5;
		s.key = TT_MOUSE(kind, x % (w + 2), y % (h + 2));
		*p += *p < end;
		*p += *p < end;
	} else {
		int n;
		s.key = keymap_defaults(&n)[(b - KEY_BOUND_FIRST) % nbound()].key;
	}
	return s;
}

/* True for a code point that must never reach the terminal as it is. */
static bool unsafe(uint32_t c)
{
	return (c > 0 && c < 0x20) || (c >= 0x7f && c <= 0x9f) || c == 0x61c || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || (c >= 0xd800 && c <= 0xdfff) ||
	       c > 0x10ffff;
}

static void check_grid(const struct grid *g, int step, const char *what)
{
	for (int y = 0; y < g->h; y++)
		for (int x = 0; x < g->w; x++) {
			uint32_t c = g->cells[y * g->w + x].ch;
			if (unsafe(c)) {
				fprintf(stderr, "fuzz_keys: after step %d (%s): cell %d,%d of %dx%d holds U+%04X\n",
				        step, what, x, y, g->w, g->h, (unsigned)c);
				for (int i = 0; i < g->w; i++) {
					uint32_t d = g->cells[y * g->w + i].ch;
					fputc(d >= 0x20 && d < 0x7f ? (int)d : '?', stderr);
				}
				fputc('\n', stderr);
				abort();
			}
		}
}

/* Writes N bytes to a new memfd; returns it, its path in PATH. */
static int memfd_with(const uint8_t *data, size_t n, char *path, size_t pathsz)
{
	int fd = memfd_create("fuzz_keys", MFD_CLOEXEC);
	if (fd < 0) {
		perror("fuzz_keys: memfd_create");
		abort();
	}
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, data + done, n - done);
		if (w <= 0) {
			perror("fuzz_keys: write");
			abort();
		}
		done += (size_t)w;
	}
	snprintf(path, pathsz, "/proc/self/fd/%d", fd);
	return fd;
}

static const uint8_t *find_sep(const uint8_t *p, size_t n)
{
	size_t m = strlen(RANK_SEP);
	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(p + i, RANK_SEP, m) == 0)
			return p + i;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct load_options opt = { .progress = NULL, .progress_after = 0, .quiet = true, .problems = NULL };
	struct trace *loaded[2] = { NULL, NULL }, *usable[2];
	int fds[2] = { -1, -1 }, nranks, nusable = 0;
	const uint8_t *keys, *keys_end, *body, *sep;
	size_t nkeys, nbody, part_len[2];
	const uint8_t *part[2];

	if (size < 2)
		return 0;
	uint8_t conf = data[0];
	nkeys = data[1] < size - 2 ? data[1] : size - 2;
	keys = data + 2;
	keys_end = keys + nkeys;
	body = keys_end;
	nbody = size - 2 - nkeys;
	int w = sizes[conf & 7].w, h = sizes[conf & 7].h;
	nranks = conf & 8 ? 2 : 1;
	enum align_mode align = (conf >> 4 & 3) == 3 ? ALIGN_RAW : (enum align_mode)(conf >> 4 & 3);
	bool ascii = (conf & 0x40) != 0;

	part[0] = part[1] = body;
	part_len[0] = part_len[1] = nbody;
	if (nranks == 2 && (sep = find_sep(body, nbody)) != NULL) {
		part_len[0] = (size_t)(sep - body);
		part[1] = sep + strlen(RANK_SEP);
		part_len[1] = nbody - part_len[0] - strlen(RANK_SEP);
	}
	unsetenv("TTRACE_PARTS");
	for (int r = 0; r < nranks; r++) {
		char path[64];
		fds[r] = memfd_with(part[r], part_len[r], path, sizeof path);
		loaded[r] = load_trace(path, &opt);
		if (loaded[r]->status != LOAD_FAILED)
			usable[nusable++] = loaded[r];
	}
	if (nusable > 0) {
		struct app app;
		struct grid g;
		int step = 0;

		app_init(&app, usable, nusable, align, w, h, ascii);
		grid_init(&g, w, h);
		app_draw(&app, &g);
		check_grid(&g, step, "the first frame");
		for (const uint8_t *p = keys; p < keys_end && !app.quit;) {
			struct key_step s = next_key(&p, keys_end, app.w, app.h);
			step++;
			if (s.resize)
				app_resize(&app, s.w, s.h);
			else
				app_key(&app, s.key);
			app_draw(&app, &g);
			check_grid(&g, step, s.resize ? "resize" : key_label(s.key));
			if (g.w != app.w || g.h != app.h || app.tl->w != app.w || app.tl->h != app.h) {
				fprintf(stderr, "fuzz_keys: after step %d the grid is %dx%d for a %dx%d app\n", step,
				        g.w, g.h, app.w, app.h);
				abort();
			}
		}
		grid_free(&g);
		app_free(&app);
	}
	for (int r = 0; r < nranks; r++) {
		trace_free(loaded[r]);
		close(fds[r]);
	}
	return 0;
}
