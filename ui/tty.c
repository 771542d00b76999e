/* tty.c: the terminal frontend: copies the cell grid to the terminal with curses and
 * hands keys and mouse events to the main loop (ui/app.c). Only this file includes curses: everything it shows was
 * drawn by ui/render.c into a grid, and curses sends only the cells that changed. The terminal is restored on q, on
 * fatal errors (fatal hook), on SIGINT, SIGTERM and SIGHUP, and on crashes (SIGSEGV, SIGBUS, SIGABRT, SIGFPE: restored,
 * then re-raised). A stop signal that arrives while the program waits for a key ends the loop; one that arrives while
 * it computes (a key's action, a frame) cannot wait for the loop, so the handler restores the terminal itself with
 * async-signal-safe calls only (the saved termios, the terminal's own reset strings, written with write(2)) and exits.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "ui/tty.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "lib/test_knobs.h"
#include "lib/map_guard.h"
#include "lib/monotime.h"
#include "lib/xalloc.h"
#include "lib/escape.h"
#include "ui/app.h"
#include "ui/keys.h"

static volatile sig_atomic_t tty_active;
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t busy; /* between a key and its frame on the screen */

/* What the signal handler needs to restore the terminal without curses. */
static struct termios saved_termios;
static bool have_termios;
static char reset_seq[512];
static size_t reset_len;

static void tty_restore(void)
{
	if (tty_active) {
		tty_active = 0;
		endwin();
	}
}

static void add_reset(const char *cap)
{
	const char *s = tigetstr(cap);
	if (s == NULL || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (reset_len + n < sizeof reset_seq) {
		memcpy(reset_seq + reset_len, s, n);
		reset_len += n;
	}
}

/* The strings that undo what initscr, keypad and mousemask did: attributes off, the mouse
 * off, the keypad in normal mode, the cursor shown, the alternate screen left. */
static void prepare_reset(void)
{
	static const char mouse_off[] = "\033[?1000l\033[?1002l\033[?1006l";
	reset_len = 0;
	add_reset("sgr0");
	if (tigetstr("kmous") != NULL && tigetstr("kmous") != (char *)-1) {
		memcpy(reset_seq + reset_len, mouse_off, sizeof mouse_off - 1);
		reset_len += sizeof mouse_off - 1;
	}
	add_reset("rmkx");
	add_reset("cnorm");
	add_reset("rmcup");
}

static void on_stop(int sig)
{
	stop_signal = sig;
	if (busy && tty_active) {
		if (have_termios)
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_termios);
		if (reset_len > 0 && write(STDOUT_FILENO, reset_seq, reset_len) < 0)
			_exit(128 + sig);
		_exit(128 + sig);
	}
}

static void on_crash(int sig)
{
	tty_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* 256-colour palette indices for the slice colours, and 8-colour fallbacks. */
static const short pal256[12] = { 68, 71, 136, 133, 30, 166, 97, 107, 172, 61, 132, 37 };
static const short pal8[12] = { COLOR_BLUE, COLOR_GREEN, COLOR_YELLOW, COLOR_MAGENTA, COLOR_CYAN, COLOR_RED,
	                        COLOR_BLUE, COLOR_GREEN, COLOR_YELLOW, COLOR_MAGENTA, COLOR_CYAN, COLOR_RED };

enum {
	PAIR_HEADER = 1,
	PAIR_STATUS,
	PAIR_GROUP,
	PAIR_SEL,
	PAIR_MATCH,
	PAIR_MARK,
	PAIR_CURSOR,
	PAIR_GAP,
	PAIR_UTIL,
	PAIR_MEM_ALLOC,
	PAIR_MEM_RESERVED,
	PAIR_SLICE0
};

static bool use_color;

static void setup_colors(void)
{
	use_color = has_colors() && getenv("NO_COLOR") == NULL;
	if (!use_color)
		return;
	start_color();
	use_default_colors();
	bool c256 = COLORS >= 256;
	init_pair(PAIR_HEADER, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_STATUS, COLOR_BLACK, COLOR_WHITE);
	init_pair(PAIR_GROUP, COLOR_YELLOW, -1);
	init_pair(PAIR_SEL, COLOR_BLACK, COLOR_YELLOW);
	init_pair(PAIR_MATCH, COLOR_BLACK, COLOR_GREEN);
	init_pair(PAIR_MARK, COLOR_MAGENTA, -1);
	init_pair(PAIR_CURSOR, COLOR_RED, -1);
	init_pair(PAIR_GAP, COLOR_RED, -1);
	init_pair(PAIR_UTIL, COLOR_GREEN, -1);
	init_pair(PAIR_MEM_ALLOC, COLOR_CYAN, -1);
	init_pair(PAIR_MEM_RESERVED, COLOR_BLUE, -1);
	for (int i = 0; i < 12; i++)
		init_pair((short)(PAIR_SLICE0 + i), c256 ? 231 : COLOR_WHITE, c256 ? pal256[i] : pal8[i]);
}

/* Attributes of a cell: colours where allowed, else attributes and glyphs only. */
static attr_t cell_attr(const struct cell *c, short *pair)
{
	*pair = 0;
	switch ((enum cell_style)c->style) {
	case CS_HEADER: *pair = PAIR_HEADER; return use_color ? A_NORMAL : A_REVERSE;
	case CS_STATUS: *pair = PAIR_STATUS; return use_color ? A_NORMAL : A_REVERSE;
	case CS_GROUP: *pair = PAIR_GROUP; return A_BOLD;
	case CS_HILITE: return A_REVERSE;
	case CS_SLICE: *pair = (short)(PAIR_SLICE0 + (c->color ? c->color - 1 : 0) % 12); return A_NORMAL;
	case CS_SLICE_SEL: *pair = PAIR_SEL; return A_BOLD | (use_color ? A_NORMAL : A_REVERSE);
	case CS_MATCH: *pair = PAIR_MATCH; return use_color ? A_NORMAL : A_UNDERLINE;
	case CS_MARK: *pair = PAIR_MARK; return A_BOLD;
	case CS_CURSOR: *pair = PAIR_CURSOR; return A_BOLD;
	case CS_GAP: *pair = PAIR_GAP; return use_color ? A_NORMAL : A_DIM;
	case CS_UTIL: *pair = PAIR_UTIL; return A_NORMAL;
	case CS_MEM_ALLOC: *pair = PAIR_MEM_ALLOC; return A_NORMAL;
	case CS_MEM_RESERVED: *pair = PAIR_MEM_RESERVED; return use_color ? A_NORMAL : A_DIM;
	case CS_ANNOTATION: return A_DIM;
	case CS_RULER:
	case CS_DETAILS:
	case CS_TRACK:
	case CS_EMPTY:
	case CS_NORMAL:
	case CS__COUNT: break;
	}
	return A_NORMAL;
}

static void blit(const struct grid *g)
{
	for (int y = 0; y < g->h && y < LINES; y++) {
		for (int x = 0; x < g->w && x < COLS; x++) {
			const struct cell *c = &g->cells[y * g->w + x];
			if (c->ch == 0)
				continue;
			short pair;
			attr_t a = cell_attr(c, &pair);
			wchar_t wc[2] = { (wchar_t)c->ch, 0 };
			cchar_t cc;
			setcchar(&cc, wc, a, use_color ? pair : 0, NULL);
			mvadd_wch(y, x, &cc);
		}
	}
}

/* TTRACE_TEST_BUSY_MS=N: every frame computes for N ms more, so that the tests can send a
 * signal while the program is busy (as it would be on a slow frame). */
static void test_busy(long ms)
{
	if (ms <= 0)
		return;
	double until = monotime_seconds() + (double)ms / 1e3;
	while (monotime_seconds() < until)
		;
}

static int map_key(wint_t ch, int code)
{
	if (code == KEY_CODE_YES) {
		switch (ch) {
		case KEY_UP: return TT_KEY_UP;
		case KEY_DOWN: return TT_KEY_DOWN;
		case KEY_LEFT: return TT_KEY_LEFT;
		case KEY_RIGHT: return TT_KEY_RIGHT;
		case KEY_SLEFT: return TT_KEY_S_LEFT;
		case KEY_SRIGHT: return TT_KEY_S_RIGHT;
		case KEY_PPAGE: return TT_KEY_PGUP;
		case KEY_NPAGE: return TT_KEY_PGDN;
		case KEY_HOME: return TT_KEY_HOME;
		case KEY_END: return TT_KEY_END;
		case KEY_ENTER: return TT_KEY_ENTER;
		case KEY_BACKSPACE: return TT_KEY_BACKSPACE;
		case KEY_RESIZE: return TT_KEY_RESIZE;
		case KEY_BTAB: return TT_KEY_TAB;
		default: return -1;
		}
	}
	switch (ch) {
	case '\n':
	case '\r': return TT_KEY_ENTER;
	case 27: return TT_KEY_ESC;
	case '\t': return TT_KEY_TAB;
	case 127:
	case 8: return TT_KEY_BACKSPACE;
	default: return ch < 0x80 ? (int)ch : -1;
	}
}

/* The terminal frontend of the main loop (ui/app.h). */
struct tty_frontend {
	struct frontend fe;
	long busy_ms;
};

static int tty_next_key(struct frontend *fe, int wait_ms)
{
	(void)fe;
	if (stop_signal)
		return -2;
	timeout(wait_ms);
	busy = 0;
	wint_t ch;
	int code = get_wch(&ch);
	busy = 1;
	if (stop_signal)
		return -2;
	if (code == ERR)
		return -1; /* the timeout: look at the signals (and the load) again */
	if (code == KEY_CODE_YES && ch == KEY_MOUSE) {
		MEVENT me;
		if (getmouse(&me) != OK || me.x < 0 || me.y < 0)
			return -1;
		int kind = me.bstate & BUTTON4_PRESSED    ? TT_WHEEL_UP
		           : me.bstate & BUTTON5_PRESSED  ? TT_WHEEL_DOWN
		           : me.bstate & BUTTON1_PRESSED  ? TT_PRESS
		           : me.bstate & BUTTON1_RELEASED ? TT_RELEASE
		           : me.bstate & BUTTON1_CLICKED  ? TT_CLICK
		                                          : 0;
		return kind != 0 ? TT_MOUSE(kind, me.x, me.y) : -1;
	}
	int key = map_key(ch, code);
	return key >= 0 ? key : -1;
}

static void tty_present(struct frontend *fe, const struct grid *g)
{
	struct tty_frontend *t = (struct tty_frontend *)fe;
	blit(g);
	busy = 0;
	refresh();
	busy = 1;
	test_busy(t->busy_ms);
}

static void tty_size(struct frontend *fe, int *w, int *h)
{
	(void)fe;
	*w = COLS;
	*h = LINES;
}

/* Hands the terminal to ARGV (an editor) and takes it back, as system() would: the
 * keyboard's signals are the command's while it runs, not ours. */
static int tty_run(struct frontend *fe, char *const argv[])
{
	(void)fe;
	struct sigaction ign, old_int, old_quit;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	def_prog_mode();
	endwin();
	fputs("\033[?1000l\033[?1002l\033[?1006l", stdout); /* the mouse back to the terminal */
	fflush(stdout);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	busy = 0;
	pid_t pid = fork();
	int st = -1;
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	busy = 1;
	reset_prog_mode();
	mousemask(0, NULL); /* set again: the mask is sent to the terminal only when it changes */
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	clearok(curscr, TRUE);
	refresh();
	return st;
}

static struct tty_frontend the_tty = { { tty_next_key, tty_present, tty_size, NULL, tty_run }, 0 };

/* Whether the locale the environment names (LC_ALL, else LC_CTYPE, else LANG) says UTF-8. */
static bool env_says_utf8(void)
{
	const char *names[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const char *v = getenv(names[i]);
		if (v != NULL && v[0] != '\0')
			return strcasestr(v, "utf-8") != NULL || strcasestr(v, "utf8") != NULL;
	}
	return false;
}

/* The user's locale; when it cannot be loaded (not generated on this node, or a static
 * build's C library reading another's locale files) but says UTF-8, C.UTF-8 where the
 * machine has it: the terminal still gets UTF-8. With no UTF-8 locale at all, ASCII. */
static void set_locale(void)
{
	if (setlocale(LC_ALL, "") != NULL)
		return;
	if (env_says_utf8() && setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		setlocale(LC_CTYPE, "C.utf8");
}

/* The terminals a static build has built in (quickstart.sh passes the list) */
#ifdef TTRACE_STATIC_FALLBACKS
#define TTY_BUILT_IN " and none built in (" TTRACE_STATIC_FALLBACKS ")"
#else
#define TTY_BUILT_IN ""
#endif

struct frontend *tty_open(bool *ascii)
{
	struct sigaction sa;

	set_locale();
	*ascii = *ascii || strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGSEGV, on_crash);
	map_guard_install(on_crash); /* SIGBUS: a cut cache is survived (lib/map_guard.h) */
	signal(SIGABRT, on_crash);
	signal(SIGFPE, on_crash);
	fatal_set_hook(tty_restore);
	atexit(tty_restore);
	have_termios = tcgetattr(STDIN_FILENO, &saved_termios) == 0;
	/* newterm, not initscr: initscr exits on a terminal it has no description of */
	if (newterm(NULL, stdout, stdin) == NULL) {
		const char *term = getenv("TERM");
		if (term == NULL || term[0] == '\0')
			fputs("ttrace: TERM is not set: set it to the terminal's name (TERM=xterm-256color)\n", stderr);
		else
			escape_say(
				stderr,
				"ttrace: no description of the terminal \"%s\" (TERM) on this machine%s: point TERMINFO at a "
				"directory holding it, or run with TERM=xterm-256color",
				term, TTY_BUILT_IN);
		return NULL;
	}
	tty_active = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	halfdelay(2); /* wake up to notice signals */
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	setup_colors();
	prepare_reset();
	busy = 1;
	the_tty.busy_ms = test_knobs().busy_ms;
	return &the_tty.fe;
}

int tty_close(struct frontend *fe)
{
	(void)fe;
	busy = 0;
	tty_restore();
	return stop_signal ? 128 + stop_signal : 0;
}

const char *tty_curses_version(void) { return curses_version(); }
