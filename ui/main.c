/* main.c: command line, loading, and the choice between the reports and the timeline. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "parsers/load.h"
#include "parsers/merged_file.h"
#include "lib/test_knobs.h"
#include "lib/map_guard.h"
#include "lib/monotime.h"
#include "lib/xalloc.h"
#include "lib/stage_clock.h"
#include "src/ranks.h"
#include "lib/timefmt.h"
#include "ui/app.h"
#include "ui/view.h"
#include "lib/escape.h"
#include "src/diff.h"
#include "ui/diff_report.h"
#include "ui/report.h"
#include "ui/reports.h"
#include "ui/jsonw.h"
#include "ui/table.h"
#include "src/analysis.h"
#include "cmd/record.h"
#include "ui/source.h"
#include "cmd/crop.h"
#include "cmd/merge.h"
#include "cmd/index.h"
#include "cmd/trace_paths.h"
#include "cmd/progress_line.h"
#include "parsers/cache_dir.h"
#include "ui/session.h"
#include "ui/tty.h"
#include "parsers/library_versions.h"

#define MMAP_THRESHOLD_ONE (64 * 1024)   /* malloc's mmap threshold for one trace... */
#define MMAP_THRESHOLD_MANY (256 * 1024) /* ... and for several */

/* What the command line asks for: the timeline (else the summary), a report (ui/reports.h),
 * or the screen drawn headless. */
/* A view to open once the traces have loaded (--diff), or A_NONE. */
static int start_view = A_NONE;

enum mode { MODE_DEFAULT, MODE_REPORT, MODE_SCREEN, MODE_DIFF };

static bool has_json(const struct report_kind *k) { return k->json; }
static bool has_csv(const struct report_kind *k) { return k->csv; }
static bool has_groups(const struct report_kind *k) { return k->group_of != NULL; }

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The headless frontend: keys from a script, frames kept in the grid, times noted. */
struct script_frontend {
	struct frontend fe;
	const int *keys;
	int nk, at;
	double *frame, worst_key, first_frame;
	int nf, worst_key_at;
	int w, h;
	int presented;
};

static int script_next_key(struct frontend *fe, int wait_ms)
{
	struct script_frontend *s = (struct script_frontend *)fe;
	(void)wait_ms; /* a script's next key is there at once */
	return s->at < s->nk ? s->keys[s->at++] : -2;
}

static void script_present(struct frontend *fe, const struct grid *g)
{
	struct script_frontend *s = (struct script_frontend *)fe;
	const char *first = test_knobs().first_frame; /* tests: where the first frame goes */
	if (s->presented++ == 0 && first != NULL) {
		FILE *f = fopen(first, "w");
		if (f != NULL) {
			grid_dump(g, f);
			fclose(f);
		}
	}
}

static void script_size(struct frontend *fe, int *w, int *h)
{
	struct script_frontend *s = (struct script_frontend *)fe;
	*w = s->w; /* a script's <Resize> keeps the size given */
	*h = s->h;
}

/* A command the key script asks for (the editor of e): run with no terminal to hand
 * over, its input and output /dev/null, waited for. */
static int script_run(struct frontend *fe, char *const argv[])
{
	(void)fe;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

static void script_timing(struct frontend *fe, int key, double action_ms, double frame_ms)
{
	struct script_frontend *s = (struct script_frontend *)fe;
	if (key == -1) {
		s->first_frame = frame_ms; /* the whole trace, before any key: reported apart */
		return;
	}
	s->frame[s->nf++] = frame_ms;
	if (action_ms > s->worst_key) {
		s->worst_key = action_ms;
		s->worst_key_at = s->at - 1;
	}
}

/* --dump-screen: replays KEYS through the key table headless and prints the screen.
 * With TIMES, prints on stderr how long each frame took to draw (median, worst) and
 * the slowest key action (a search, typically). */
static int dump_screen(struct trace *const *ts, int nts, int align, int64_t gap_min, int w, int h, const char *keys,
                       const char *keymap, bool ascii, bool times)
{
	struct grid g;
	int *k = NULL, nk = 0;
	char *cause = NULL;

	if (keys != NULL && (nk = keys_parse(keys, &k, &cause)) < 0) {
		escape_say(stderr, "ttrace: %s", cause);
		free(cause);
		return 2;
	}
	struct session_opts o = { ts, nts, (enum align_mode)align, gap_min, keymap, ascii, NULL, start_view };
	/* clang-format off */
	struct script_frontend sf = { { script_next_key, script_present, script_size, script_timing, script_run }, k, nk, 0,
		                      xcalloc((size_t)nk + 2, sizeof(double)), 0, 0, 0, -1, w, h, 0 };
	/* clang-format on */
	grid_init(&g, w, h);
	if (session_run(&o, &sf.fe, &g, NULL, &cause) != 0) {
		escape_say(stderr, "ttrace: %s", cause);
		free(cause);
		free(sf.frame);
		grid_free(&g);
		free(k);
		return 2;
	}
	if (times) {
		int nf = sf.nf;
		if (nf == 0)
			sf.frame[nf++] = sf.first_frame; /* no key: the first frame is the only one */
		qsort(sf.frame, (size_t)nf, sizeof *sf.frame, cmp_double);
		fprintf(stderr,
		        "frames %d median_ms %.3f p90_ms %.3f worst_ms %.3f slowest_action_ms %.3f (key %d, %s) first_frame_ms %.3f\n",
		        nf, sf.frame[nf / 2], sf.frame[nf * 9 / 10], sf.frame[nf - 1], sf.worst_key, sf.worst_key_at,
		        sf.worst_key_at >= 0 ? key_label(k[sf.worst_key_at]) : "-", sf.first_frame);
	}
	free(sf.frame);
	grid_dump(&g, stdout);
	grid_free(&g);
	free(k);
	return 0;
}

/* The timeline on the terminal over the traces of O (with a load, see ui/session.h for
 * OUT). Returns the exit status: 0, 1 when the terminal cannot start, 2 for a bad key map,
 * 128 + N when signal N ended it. */
static int run_tty(struct session_opts *o, struct trace **out)
{
	char *cause = NULL;
	struct grid g;
	struct frontend *fe = tty_open(&o->ascii);
	if (fe == NULL) {
		if (o->load != NULL) { /* given up, as when the user quits at once */
			load_cancel(o->load);
			load_finish(o->load, out);
			if (o->ts[0] != out[0])
				trace_free(o->ts[0]); /* the snapshot shown */
			for (int i = 0; i < o->nts; i++)
				trace_free(out[i]);
			out[0] = NULL;
		}
		return 1;
	}
	grid_init(&g, 1, 1);
	int rc = session_run(o, fe, &g, out, &cause);
	int st = tty_close(fe);
	grid_free(&g);
	if (rc != 0) {
		escape_say(stderr, "ttrace: %s", cause);
		free(cause);
		return rc;
	}
	return st;
}

/* The user's key map file when none was given and there is one, else NULL (to free). */
static char *user_keymap(const char *given)
{
	char *home_map = NULL;
	if (given != NULL)
		return NULL;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg != NULL && xdg[0] != '\0')
		home_map = xasprintf("%s/ttrace/keys", xdg);
	else if (home != NULL)
		home_map = xasprintf("%s/.config/ttrace/keys", home);
	if (home_map != NULL && access(home_map, R_OK) != 0) {
		free(home_map);
		home_map = NULL;
	}
	return home_map;
}

/* When snapshots of a load are due (parsers/load.h): the first after 0.1 s, then each time
 * the bytes read have grown fourfold, at most one every 2 s, none past 30% of the file (each
 * costs an index of what it holds, on a core the load would use: bench/live). A test
 * sets TTRACE_TEST_SNAPSHOTS="first,every,growth,max" to see them on a small file. */
static struct snapshot_policy live_policy(void)
{
	struct snapshot_policy p = { 0.1, 2.0, 4.0, 0.3 };
	const char *e = test_knobs().snapshots;
	if (e != NULL)
		sscanf(e, "%lf,%lf,%lf,%lf", &p.first_after, &p.every, &p.growth, &p.max_fraction);
	return p;
}

/* Loads the N FILES for the timeline, which opens on the first file's first snapshot, if
 * one comes before the load ends, or (several files) on the first file's whole trace once
 * it has loaded and the policy's first snapshot would be due (ui/loading.h). Returns false
 * when neither came first: TRACES[0..n) then hold every trace, loaded as load_traces would,
 * for the usual way. Returns true when the timeline ran: then TRACES[0..n) hold the traces
 * when the load ended while it was open, TRACES[0] is NULL when the user quit first, and
 * *RC is the timeline's exit status. */
static bool load_live(char **files, int n, const struct load_options *given, FILE *progress, int align, int64_t gap_min,
                      const char *keymap, bool ascii, struct trace **traces, int *rc)
{
	struct load_options opt = *given;
	bool shown = false;
	struct trace *first = NULL;
	double t0 = monotime_seconds();

	opt.snapshots = true;
	opt.snapshot_policy = live_policy();
	struct load_session *s = load_start(files, n, &opt);
	while (!load_wait(s, 0.05)) {
		double waited = monotime_seconds() - t0;
		if ((first = load_take_snapshot(s)) != NULL)
			break;
		if (n > 1 && waited >= opt.snapshot_policy.first_after) {
			/* the first rank, whole, while the others load */
			struct trace *t = load_file_done(s, 0);
			if (t != NULL && t->status != LOAD_FAILED) {
				first = t;
				break;
			}
		}
		if (progress != NULL && waited >= opt.progress_after) {
			struct load_progress p;
			load_progress_now(s, false, &p);
			progress_line_draw(progress, &p, false);
			shown = true;
		}
	}
	if (first == NULL) {
		if (shown) {
			struct load_progress p;
			load_progress_now(s, true, &p);
			progress_line_draw(progress, &p, true);
		}
		load_finish(s, traces);
		return false;
	}
	if (shown)
		fputc('\n', progress);
	char *home_map = user_keymap(keymap);
	struct trace *firsts[1] = { first };
	struct session_opts o = {
		firsts, n, (enum align_mode)align, gap_min, keymap != NULL ? keymap : home_map, ascii, s, start_view
	};
	*rc = run_tty(&o, traces);
	free(home_map);
	return true;
}

static void usage(FILE *f)
{
	fputs("Usage: ttrace [OPTIONS] TRACE...\n"
	      "   or: ttrace record [OPTIONS] -- CMD [ARGS...]  (run CMD and record its CUDA activity\n"
	      "       with CUPTI; see ttrace record --help)\n"
	      "   or: ttrace crop --step=N|--from=T [--to=T] TRACE -o OUT  (a window as a trace of\n"
	      "       its own; see ttrace crop --help)\n"
	      "   or: ttrace merge DIR|FILE... -o OUT  (every rank in one trace, aligned, for Perfetto;\n"
	      "       see ttrace merge --help)\n"
	      "   or: ttrace index FILE|DIR...  (build the files' caches now, e.g. on the nodes that\n"
	      "       wrote them: srun -N 8 ttrace index run/; see ttrace index --help)\n"
	      "   or: ttrace diff [--json|--csv] [--top=N] A B  (B against A per step: figures,\n"
	      "       operators, kernels, findings, each change judged against the steps' spread)\n"
	      "   or: ttrace diff --ranks=R1,R2 DIR  (rank R2 against rank R1 of one job)\n"
	      "   or: ttrace diff --steps FILE  (its slowest step against its median one)\n"
	      "       (diff --group-by=shape|operator: operators by input shapes, kernels by launch\n"
	      "       shape, or by launch shape and launching operator)\n"
	      "View and analyse PyTorch profiler traces (Chrome trace-event JSON, plain, .gz or .zst;\n"
	      "TRACE may be - for standard input, or a directory: its trace files, one rank each;\n"
	      "several traces open side by side in the timeline, aligned).\n"
	      "\n"
	      "Reports (written without a terminal):\n",
	      f);
	reports_help(f);
	fputs("      --gap-min=DURATION shortest gap listed, in the report and the timeline (default\n"
	      "                         100us; ns, us, ms, s)\n"
	      "      --align=MODE       raw, step or collective (default) for --report=distributed\n"
	      "                         and advice\n"
	      "      --top=N            operators, kernels and memory: list N rows (0: all; default\n"
	      "                         20, 50, 20 in text, all in JSON)\n"
	      "      --sort=COLUMN      operators, kernels and memory: by the column with this JSON key\n"
	      "      --group-by=WAY     operators: by name (default), shape (and input shapes), source\n"
	      "                         (and source location) or tree (the call tree, rolled up);\n"
	      "                         kernels: by name, shape (grid, block, registers, shared\n"
	      "                         memory) or operator (launching operator and shape)\n"
	      "      --json             write the report (any but none) as JSON\n"
	      "      --csv              write the report's tables (those of its JSON) as CSV: each\n"
	      "                         after a line '# PATH', its place in the JSON\n"
	      "      --table=PATH       with --csv: only the table at PATH (e.g. files.0.kernels),\n"
	      "                         plain, for pandas.read_csv\n"
	      "      --width=N          text reports N columns wide (default: $COLUMNS, else the\n"
	      "                         terminal's width, else 120)\n"
	      "      --check            list data-quality findings with examples\n"
	      "      --dump-model       dump the whole parsed model as text (for tests and bug reports)\n"
	      "\n"
	      "Timeline:\n"
	      "      --keymap=FILE      key map: lines of \"KEY ACTION\" (e.g. \"z zoom-in\");\n"
	      "                         default ~/.config/ttrace/keys when it exists\n"
	      "      --diff             open the Diff panel (X): the second trace against the first\n"
	      "      --source-root=DIR  e opens Python source: look for recorded paths under DIR too\n"
	      "      --source-map=FROM=TO  and with the prefix FROM of a recorded path replaced by TO\n"
	      "      --ascii            no Unicode block glyphs\n"
	      "      --dump-screen      draw the timeline headless and print it (text, then styles)\n"
	      "      --size=WxH         screen size for --dump-screen (default 120x40)\n"
	      "      --keys=SCRIPT      keys to replay first, e.g. 'wwd/aten<Enter>n' (see ttrace(1))\n"
	      "      --frame-times      with --dump-screen: print frame and action times on stderr\n"
	      "\n"
	      "Other options:\n"
	      "  -q, --quiet            do not print warnings or progress on stderr\n"
	      "      --progress         show loading progress even when stderr is not a terminal\n"
	      "      --no-cache         neither read nor write the binary caches of trace files\n"
	      "                         (kept in $XDG_CACHE_HOME/ttrace; TTRACE_NO_CACHE=1 too)\n"
	      "      --merged-as-one    open a trace that ttrace merge wrote as one trace, as Perfetto\n"
	      "                         shows it, not as the ranks it holds\n"
	      "  -h, --help             show this help and exit\n"
	      "  -V, --version          show the version and exit\n"
	      "\n"
	      "Without a report option ttrace opens the interactive timeline of the first trace when\n"
	      "standard input and output are a terminal, and prints the summary report otherwise.\n"
	      "Exit status: 0 when every file could be used (perhaps with warnings), 1 when a file\n"
	      "was unusable, 2 on a usage error or when standard output cannot be written.\n"
	      "See ttrace(1) for the definitions of every figure.\n",
	      f);
}

static void print_warnings(const struct trace *t)
{
	const uint32_t max_lines = 12;
	size_t plen = strlen(t->path);
	const char *name = trace_name(t); /* a merged trace's rank says which */
	for (uint32_t i = 0; i < t->nwarnings && i < max_lines; i++) {
		const char *w = t->warnings[i];
		fputs("ttrace: warning: ", stderr);
		escape_term(stderr, name, strlen(name));
		if (strncmp(w, t->path, plen) == 0)
			w += plen;
		else
			fputs(": ", stderr);
		escape_term(stderr, w, strlen(w));
		fputc('\n', stderr);
	}
	if (t->nwarnings > max_lines)
		fprintf(stderr, "ttrace: warning: ... and %u more warnings (see --check)\n", t->nwarnings - max_lines);
	uint64_t skipped = t->quality.count[Q_MALFORMED_EVENT] + t->quality.count[Q_NOT_OBJECT];
	if (skipped > 0) {
		fputs("ttrace: warning: ", stderr);
		escape_term(stderr, name, strlen(name));
		fprintf(stderr, ": skipped %llu malformed events\n", (unsigned long long)skipped);
	}
	if (t->quality.count[Q_CONTROL_CHAR] + t->quality.count[Q_BAD_ESCAPE] + t->quality.count[Q_INVALID_UTF8] +
	            t->quality.count[Q_NONFINITE] >
	    0) {
		fputs("ttrace: warning: ", stderr);
		escape_term(stderr, name, strlen(name));
		fprintf(stderr,
		        ": kept %llu control characters, %llu invalid escapes, %llu strings with invalid UTF-8, "
		        "%llu non-finite numbers (shown escaped; see --check)\n",
		        (unsigned long long)t->quality.count[Q_CONTROL_CHAR],
		        (unsigned long long)t->quality.count[Q_BAD_ESCAPE],
		        (unsigned long long)t->quality.count[Q_INVALID_UTF8],
		        (unsigned long long)t->quality.count[Q_NONFINITE]);
	}
}

/* Says what getopt_long rejected: BAD is the argument it last stepped over, OPT its optopt
 * (0 for an unknown long option, the option's letter for a short one or for a long one
 * given a value it does not take). */
static void bad_option(const char *bad, int opt, const struct option *longopts)
{
	if (opt == 0) {
		escape_say(stderr, "ttrace: unknown or ambiguous option '%s'", bad);
		return;
	}
	size_t len = strcspn(bad, "=");
	for (const struct option *o = longopts; o->name != NULL; o++)
		if (o->val == opt && o->has_arg == no_argument && strncmp(bad, "--", 2) == 0 && bad[len] == '=' &&
		    len > 2 && strncmp(o->name, bad + 2, len - 2) == 0) {
			escape_say(stderr, "ttrace: option '--%s' takes no value", o->name);
			return;
		}
	escape_say(stderr, "ttrace: unknown option '-%c'", opt);
}

/* What a report says when a cache it reads is cut under it: written now, said from the
 * SIGBUS handler with write(2). */
static struct trace **guarded;
static int nguarded;
static char **guard_msgs;

static void report_lost(void)
{
	for (int i = 0; i < nguarded; i++)
		if (trace_cache_lost(guarded[i]) && guard_msgs[i] != NULL &&
		    write(STDERR_FILENO, guard_msgs[i], strlen(guard_msgs[i])) < 0)
			break;
	_exit(1);
}

static void guard_report(struct trace **ts, int n)
{
	guarded = ts;
	nguarded = n;
	guard_msgs = xcalloc((size_t)n ? (size_t)n : 1, sizeof *guard_msgs);
	for (int i = 0; i < n; i++) {
		if (ts[i]->cache_map == NULL)
			continue;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		escape_say(f,
		           "ttrace: %s: its cache was cut while it was read: what was written is incomplete; run "
		           "the command again (the file will be parsed)",
		           ts[i]->path);
		fclose(f);
		guard_msgs[i] = buf;
	}
	map_guard_on_lost(report_lost);
}

static void free_paths(char **p, int n)
{
	for (int i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

/* ttrace diff over the N traces TS loaded: side A the first NA, B the rest; or, with
 * RANKS[0] >= 0, the traces of ranks RANKS[0] and RANKS[1] (distributedInfo.rank, else the
 * position). Returns the exit status. */
static int run_diff(struct trace **ts, int n, int na, const int ranks[2], bool json, int top, int align, bool steps,
                    int match)
{
	if (steps) { /* one trace, step against step */
		if (n != 1 || ts[0]->status == LOAD_FAILED) {
			fputs("ttrace: diff --steps: give one trace file\n", stderr);
			return n != 1 ? 2 : 1;
		}
		return report_diff(stdout, ts, 1, ts, 1, json, top, align, true, DM_NAME);
	}
	struct trace **side[2];
	int cnt[2] = { 0, 0 };
	side[0] = xcalloc((size_t)n + 1, sizeof *side[0]);
	side[1] = xcalloc((size_t)n + 1, sizeof *side[1]);
	for (int i = 0; i < n; i++) {
		if (ts[i]->status == LOAD_FAILED)
			continue;
		int rank = ts[i]->rank >= 0 ? ts[i]->rank : i;
		for (int s = 0; s < 2; s++)
			if (ranks[0] >= 0 ? rank == ranks[s] : (s == 0) == (i < na))
				side[s][cnt[s]++] = ts[i];
	}
	int rc = 0;
	for (int s = 0; s < 2; s++)
		if (cnt[s] == 0) {
			if (ranks[0] >= 0)
				fprintf(stderr, "ttrace: diff: no trace of rank %d loaded\n", ranks[s]);
			else
				fprintf(stderr, "ttrace: diff: side %c has no trace that loaded\n", "AB"[s]);
			rc = 1;
		} else if (ranks[0] >= 0 && cnt[s] > 1) {
			fprintf(stderr, "ttrace: diff: %d traces say they are rank %d\n", cnt[s], ranks[s]);
			rc = 1;
		}
	if (rc == 0)
		rc = report_diff(stdout, side[0], cnt[0], side[1], cnt[1], json, top, align, false, match);
	free(side[0]);
	free(side[1]);
	return rc;
}

/* --version: the version, how it was built (a static build names its target) and the
 * versions of the libraries linked in. */
static void print_version(void)
{
	char libs[128];
	parser_library_versions(libs, sizeof libs);
	printf("ttrace %s\n", PACKAGE_VERSION);
#ifdef TTRACE_STATIC_TARGET
	printf("build: static, for %s (every library linked in: nothing to install)\n", TTRACE_STATIC_TARGET);
#ifdef TTRACE_STATIC_FALLBACKS
	printf("terminals: the machine's terminfo (TERMINFO, ~/.terminfo, TERMINFO_DIRS, %s), else built in: %s\n",
	       TTRACE_STATIC_TERMINFO, TTRACE_STATIC_FALLBACKS);
#endif
#else
	printf("build: dynamic (the libraries below are loaded at run time)\n");
#endif
	printf("libraries: %s, %s\n", tty_curses_version(), libs);
	fflush(stdout);
	record_say_library(stdout);
}

int main(int argc, char **argv)
{
	stage_clock("main");
	enum mode mode = MODE_DEFAULT;
	const struct report_kind *report = NULL; /* MODE_REPORT's */
	bool json = false, csv = false, quiet = false, force_progress = false, ascii = false, frame_times = false;
	const char *table_path = NULL; /* --table */
	int scr_w = 120, scr_h = 40;
	int64_t gap_min = ANALYSIS_DEFAULT_MIN_GAP;
	int align = ALIGN_COLLECTIVE;
	const char *keys = NULL, *keymap = NULL, *sort = NULL, *source_root = NULL, *source_map = NULL;
	const char *group_arg = NULL;
	int top = -1; /* the report's own default */
	/* clang-format off */
	enum { OPT_SOURCE_ROOT = 0x100, OPT_SOURCE_MAP, OPT_CSV, OPT_TABLE, OPT_MERGED_AS_ONE };
	static const struct option longopts[] = {
		{ "report", required_argument, NULL, 'r' }, { "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, OPT_CSV },      { "table", required_argument, NULL, OPT_TABLE },
		{ "check", no_argument, NULL, 'c' },        { "dump-model", no_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },        { "progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },         { "version", no_argument, NULL, 'V' },
		{ "dump-screen", no_argument, NULL, 'X' },  { "size", required_argument, NULL, 'z' },
		{ "keys", required_argument, NULL, 'k' },   { "keymap", required_argument, NULL, 'K' },
		{ "source-root", required_argument, NULL, OPT_SOURCE_ROOT },
		{ "source-map", required_argument, NULL, OPT_SOURCE_MAP },
		{ "ascii", no_argument, NULL, 'a' },        { "frame-times", no_argument, NULL, 'T' },
		{ "gap-min", required_argument, NULL, 'g' },      { "align", required_argument, NULL, 'L' },
		{ "top", required_argument, NULL, 'n' },          { "sort", required_argument, NULL, 'o' },
		{ "group-by", required_argument, NULL, 'B' },
		{ "no-cache", no_argument, NULL, 'N' },
		{ "merged-as-one", no_argument, NULL, OPT_MERGED_AS_ONE },
		{ "ranks", required_argument, NULL, 'R' },
		{ "diff", no_argument, NULL, 'Y' },
		{ "steps", no_argument, NULL, 'Z' },
		{ "width", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	int c;

	if (argc > 1 && strcmp(argv[1], "record") == 0)
		return record_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return merge_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "crop") == 0)
		return crop_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "index") == 0)
		return index_main(argc - 1, argv + 1);
	/* ttrace diff A B: two runs side by side (ui/diff_report.h) */
	bool diff = argc > 1 && strcmp(argv[1], "diff") == 0;
	int diff_rank[2] = { -1, -1 }; /* --ranks R1,R2: two ranks of one job */
	bool diff_steps_mode = false;  /* --steps: the slowest step of one trace against its median one */
	bool merged_as_one = false;    /* --merged-as-one */
	int report_width_given = -1;   /* --width */
	if (diff) {
		argc--;
		argv++;
	}

	/* Big arrays (slices, rows) grow by realloc: keep them mmapped, so that growing is a
	 * remap rather than a copy and freed memory goes back to the system at once. glibc
	 * would otherwise raise this threshold after the first large free. 64 KB for one
	 * trace: arrays that grew past 64 KB in the heap left their old copies there as holes,
	 * 0.6 MB of a 54 MB trace's peak (the v100 216k trace's, read with malloc_info); 256
	 * KB for several (below). */
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_ONE);

	opterr = 0; /* getopt would echo a bad option raw: say it here, escaped */
	while ((c = getopt_long(argc, argv, ":qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if ((report = reports_find(optarg)) == NULL) {
				char known[256];
				reports_names(known, sizeof known, NULL, ", ");
				escape_say(stderr, "ttrace: unknown report '%s' (known: %s)", optarg, known);
				return 2;
			}
			mode = MODE_REPORT;
			break;
		case 'j': json = true; break;
		case OPT_CSV: csv = true; break;
		case OPT_TABLE: table_path = optarg; break;
		case 'c':
			mode = MODE_REPORT;
			report = &report_check_kind;
			break;
		case 'D':
			mode = MODE_REPORT;
			report = &report_dump_kind;
			break;
		case 'q': quiet = true; break;
		case 'P': force_progress = true; break;
		case 'X': mode = MODE_SCREEN; break;
		case 'z':
			if (sscanf(optarg, "%dx%d", &scr_w, &scr_h) != 2 || scr_w < 20 || scr_h < 8 || scr_w > 1000 ||
			    scr_h > 1000) {
				escape_say(stderr, "ttrace: --size wants WxH, at least 20x8 (got '%s')", optarg);
				return 2;
			}
			break;
		case 'k': keys = optarg; break;
		case 'K': keymap = optarg; break;
		case OPT_SOURCE_ROOT: source_root = optarg; break;
		case OPT_SOURCE_MAP:
			if (strchr(optarg, '=') == NULL || optarg[0] == '=') {
				escape_say(stderr, "ttrace: --source-map wants FROM=TO (got '%s')", optarg);
				return 2;
			}
			source_map = optarg;
			break;
		case 'a': ascii = true; break;
		case 'T': frame_times = true; break;
		case 'L':
			align = align_mode_parse(optarg);
			if (align < 0 || align == ALIGN_MANUAL) {
				escape_say(stderr, "ttrace: --align wants raw, step or collective (got '%s')", optarg);
				return 2;
			}
			break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end != '\0' || v < 0 || v > 1000000000) {
				escape_say(stderr, "ttrace: --top wants a count, 0 for all (got '%s')", optarg);
				return 2;
			}
			top = (int)v;
			break;
		}
		case 'o': sort = optarg; break;
		case 'B':
			group_arg = optarg; /* checked once the report is known */
			break;
		case 'N': cache_dir_disable(); break;
		case OPT_MERGED_AS_ONE: merged_as_one = true; break;
		case 'Y': start_view = A_DIFF_VIEW; break;
		case 'I': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end != '\0' || v < REPORT_WIDTH_MIN || v > REPORT_WIDTH_MAX) {
				escape_say(stderr, "ttrace: --width wants a number of columns, %d to %d (got '%s')",
				           REPORT_WIDTH_MIN, REPORT_WIDTH_MAX, optarg);
				return 2;
			}
			report_width_given = (int)v;
			break;
		}
		case 'Z':
			if (!diff) {
				fputs("ttrace: --steps goes with ttrace diff\n", stderr);
				return 2;
			}
			diff_steps_mode = true;
			break;
		case 'R': {
			char *end, *end2;
			const char *p = optarg[0] == 'r' ? optarg + 1 : optarg;
			long r1 = strtol(p, &end, 10), r2 = -1;
			if (end != p && *end == ',') {
				const char *q = end[1] == 'r' ? end + 2 : end + 1;
				r2 = strtol(q, &end2, 10);
				if (end2 == q || *end2 != '\0')
					r2 = -1;
			}
			if (!diff || r1 < 0 || r2 < 0 || r1 > 1000000 || r2 > 1000000) {
				escape_say(
					stderr,
					"ttrace: --ranks goes with ttrace diff and wants two ranks, R1,R2 (got '%s')",
					optarg);
				return 2;
			}
			diff_rank[0] = (int)r1;
			diff_rank[1] = (int)r2;
			break;
		}
		case 'g':
			if (timefmt_parse_dur(optarg, &gap_min) < 0) {
				escape_say(stderr,
				           "ttrace: --gap-min wants a duration such as 50us, 2ms or 1s (got '%s')",
				           optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		case 'V': print_version(); return 0;
		case ':':
			escape_say(stderr, "ttrace: option '%s' needs a value", argv[optind - 1]);
			fputs("Try 'ttrace --help' for more information.\n", stderr);
			return 2;
		default:
			bad_option(argv[optind - 1], optopt, longopts);
			fputs("Try 'ttrace --help' for more information.\n", stderr);
			return 2;
		}
	}
	report_width_init(report_width_given);
	if (diff && mode != MODE_DEFAULT) {
		fputs("ttrace: diff writes its own report: no --report, --check, --dump-model or --dump-screen\n",
		      stderr);
		return 2;
	}
	if (diff) {
		mode = MODE_DIFF;
		int want = diff_rank[0] >= 0 || diff_steps_mode ? 1 : 2;
		if (argc - optind != want || (diff_steps_mode && diff_rank[0] >= 0)) {
			fprintf(stderr, "ttrace: diff wants %s\nTry 'ttrace --help' for more information.\n",
			        diff_steps_mode
			                ? "one trace file with --steps (and no --ranks): ttrace diff --steps FILE"
			        : want == 2 ? "two traces (files or rank directories): ttrace diff A B"
			                    : "one directory of ranks with --ranks: ttrace diff --ranks 0,7 DIR");
			return 2;
		}
	}
	if (optind >= argc) {
		fputs("ttrace: no trace given\nTry 'ttrace --help' for more information.\n", stderr);
		return 2;
	}
	/* `ttrace --no-cache diff A B`: a subcommand after an option reads as a file name */
	static const char *const subcommands[] = { "diff", "index", "record", "merge", "crop" };
	for (int i = optind; i < argc; i++)
		for (size_t k = 0; k < sizeof subcommands / sizeof *subcommands; k++)
			if (strcmp(argv[i], subcommands[k]) == 0 && access(argv[i], F_OK) != 0) {
				fprintf(stderr,
				        "ttrace: no file '%s': the subcommand comes first, before any option (ttrace %s "
				        "[OPTIONS] ...)\n",
				        argv[i], argv[i]);
				return 2;
			}
	source_set_opts(source_root, source_map);
	struct report_opts ro = { json || csv, gap_min, align, top, sort, -1 };
	int diff_match = DM_NAME;
	if (group_arg != NULL && mode == MODE_DIFF) {
		/* diff: how operators and kernels are matched across the sides */
		if (strcmp(group_arg, "name") == 0)
			diff_match = DM_NAME;
		else if (strcmp(group_arg, "shape") == 0)
			diff_match = DM_SHAPE;
		else if (strcmp(group_arg, "operator") == 0)
			diff_match = DM_OPERATOR;
		else {
			escape_say(stderr, "ttrace: diff --group-by wants name, shape or operator (got '%s')",
			           group_arg);
			return 2;
		}
		group_arg = NULL;
	}
	if (group_arg != NULL) {
		if (mode != MODE_REPORT || report->group_of == NULL) {
			char with[128];
			reports_names(with, sizeof with, has_groups, " or ");
			fprintf(stderr, "ttrace: --group-by goes with --report=%s\n", with);
			return 2;
		}
		if ((ro.group = report->group_of(group_arg)) < 0) {
			escape_say(stderr, "ttrace: --group-by wants %s (got '%s')", report->group_choices, group_arg);
			return 2;
		}
	}
	if (json && !(mode == MODE_DEFAULT || mode == MODE_DIFF || (mode == MODE_REPORT && report->json))) {
		char with[256];
		reports_names(with, sizeof with, has_json, " or ");
		fprintf(stderr, "ttrace: --json goes with --report=%s\n", with);
		return 2;
	}
	if (csv && json) {
		fputs("ttrace: --csv and --json: choose one (--csv writes the tables of the report's JSON)\n", stderr);
		return 2;
	}
	if (table_path != NULL && !csv) {
		fputs("ttrace: --table goes with --csv (--csv --table=PATH: the table at PATH in the JSON, e.g. "
		      "files.0.kernels)\n",
		      stderr);
		return 2;
	}
	if (csv && !(mode == MODE_DEFAULT || mode == MODE_DIFF || (mode == MODE_REPORT && report->csv))) {
		char with[256];
		reports_names(with, sizeof with, has_csv, " or ");
		if (mode == MODE_REPORT && report->json)
			fprintf(stderr,
			        "ttrace: --csv: the %s report has no table (its JSON is not rows of columns; use "
			        "--json); --csv goes with --report=%s and ttrace diff\n",
			        report->name, with);
		else
			fprintf(stderr, "ttrace: --csv goes with --report=%s and ttrace diff\n", with);
		return 2;
	}

	int nstdin = 0;
	for (int i = optind; i < argc; i++)
		nstdin += strcmp(argv[i], "-") == 0;
	if (nstdin > 1) {
		fputs("ttrace: standard input (-) can be given only once\n", stderr);
		return 2;
	}

	char *bad_env = NULL;
	if (cache_dir_check_env(&bad_env) != 0) {
		escape_say(stderr, "ttrace: %s (or --no-cache)", bad_env);
		free(bad_env);
		return 2;
	}

	int n, diff_na = 0; /* diff without --ranks: the first DIFF_NA files are side A */
	if (mode == MODE_DIFF && diff_rank[0] < 0 && !diff_steps_mode) {
		char **side_a = trace_paths_expand(argv + optind, 1, &diff_na);
		const struct merged_rank **side_a_ranks = NULL;
		if (!merged_as_one)
			merged_expand(&side_a, &diff_na, &side_a_ranks);
		merged_ranks_free(side_a_ranks, diff_na);
		free_paths(side_a, diff_na);
	}
	char **files = trace_paths_expand(argv + optind, argc - optind, &n);
	/* a file ttrace merge wrote opens as the ranks it holds */
	const struct merged_rank **merged = NULL;
	if (!merged_as_one)
		merged_expand(&files, &n, &merged);
	if (n == 0) {
		fputs("ttrace: no trace file found\n", stderr);
		free(files);
		free(merged);
		return 1;
	}
	/* several traces (a job's ranks): each load reuses the heap memory the ones before it
	 * freed; fresh pages for all of them made 256 ranks of 4 MB 6-7% slower */
	if (n > 1)
		mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_MANY);
	struct trace **traces = xcalloc((size_t)n, sizeof *traces);
	struct load_options opt = { 0 };
	opt.merged = merged;
	/* a diff's traces are each analysed once loaded: the first done is analysed while the
	 * others still parse (on two cores, one file is most often done well before the other) */
	if (mode == MODE_DIFF && diff_rank[0] < 0 && !diff_steps_mode)
		opt.loaded = diff_prepare;
	int status = 0;
	FILE *progress = !quiet && (force_progress || isatty(STDERR_FILENO)) ? stderr : NULL;
	if (progress != NULL) {
		opt.progress = progress_line_report;
		opt.progress_ctx = progress;
	}
	opt.progress_after = force_progress ? 0 : 0.5;
	/* the timeline opens on the first snapshot of a long load, or on the first of several
	 * files while the others load, and fills in (ui/loading.h); cached or small files load
	 * before the first snapshot is due */
	bool live = false, piped = false;
	for (int i = 0; i < n; i++)
		piped |= strcmp(files[i], "-") == 0;
	if (mode == MODE_DEFAULT && !json && !csv && !piped && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		int rc = 0;
		if (load_live(files, n, &opt, progress, align, gap_min, keymap, ascii, traces, &rc)) {
			if (traces[0] == NULL) { /* the user quit while it loaded */
				free(traces);
				for (int i = 0; i < n; i++)
					free(files[i]);
				free(files);
				merged_ranks_free(merged, n);
				return rc;
			}
			live = true;
			status = rc;
		}
	} else {
		cache_dir_guard_signals(); /* an interrupted report leaves no temporary cache */
		load_traces(files, n, &opt, traces);
	}

	const char *last_note = NULL;
	for (int i = 0; i < n; i++) {
		struct trace *t = traces[i];
		if (t->status == LOAD_FAILED) {
			/* a JSON file that a directory holds beside the traces (a sidecar, a config) is
			 * skipped with a warning; one named on the command line, or a damaged trace, fails */
			bool named = false;
			for (int k = optind; k < argc && !named; k++)
				named = strcmp(argv[k], files[i]) == 0;
			bool sidecar = !named && t->not_a_trace;
			if (sidecar && quiet)
				continue;
			fputs(sidecar ? "ttrace: warning: skipped " : "ttrace: ", stderr);
			escape_term(stderr, t->error ? t->error : "cannot load",
			            strlen(t->error ? t->error : "cannot load"));
			if (t->name != NULL) { /* one rank of a merged trace */
				fputs(" (", stderr);
				escape_term(stderr, t->name, strlen(t->name));
				fputc(')', stderr);
			}
			fputc('\n', stderr);
			if (!sidecar)
				status = 1;
			continue;
		}
		if (!quiet && t->cache_note != NULL && t->cache_damaged &&
		    (last_note == NULL || strcmp(last_note, t->cache_note) != 0)) {
			/* the same reason for every file (an untrusted directory) is said once */
			last_note = t->cache_note;
			fputs("ttrace: warning: ", stderr);
			escape_term(stderr, t->path, strlen(t->path));
			fputs(": ", stderr);
			escape_term(stderr, t->cache_note, strlen(t->cache_note));
			fputs(": parsed the file again\n", stderr);
		}
		if (!quiet && report != &report_check_kind) { /* --check says them itself */
			if (t->status == LOAD_TRUNCATED) {
				fputs("ttrace: warning: ", stderr);
				escape_term(stderr, t->error, strlen(t->error));
				if (t->name != NULL) { /* one rank of a merged trace */
					fputs(" (", stderr);
					escape_term(stderr, t->name, strlen(t->name));
					fputc(')', stderr);
				}
				fputc('\n', stderr);
			}
			print_warnings(t);
		}
	}
	/* the timeline shows the traces that loaded, one per rank */
	struct trace **usable = xcalloc((size_t)n, sizeof *usable);
	int nusable = 0;
	for (int i = 0; i < n; i++)
		if (traces[i]->status != LOAD_FAILED)
			usable[nusable++] = traces[i];
	if (nusable == 0 && status == 0) {
		/* every file was a sidecar, skipped above */
		fputs("ttrace: no trace file found\n", stderr);
		status = 1;
	}
	/* the default mode opens the timeline when both ends are a terminal, else the summary */
	bool interactive = mode == MODE_DEFAULT && !json && !csv && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
	                   nusable > 0 && strcmp(files[0], "-") != 0;
	if (nusable > VIEW_MAX_RANKS && !quiet && (mode == MODE_SCREEN || interactive))
		fprintf(stderr, "ttrace: warning: %d traces: the timeline shows only the first %d\n", nusable,
		        VIEW_MAX_RANKS);
	/* a cache cut while a report reads it (lib/map_guard.h): said, not a SIGBUS; the
	 * timeline parses the file again instead (ui/loading.h) */
	if (!(mode == MODE_DEFAULT && (live || interactive))) {
		guard_report(traces, n);
		/* a test hook (tests/cache_cut.sh): time to cut a cache before the report reads it */
		long delay = test_knobs().report_delay_ms;
		if (delay > 0) {
			fprintf(stderr, "ttrace: test: the report waits %ld ms\n", delay);
			nanosleep(&(struct timespec){ delay / 1000, delay % 1000 * 1000000 }, NULL);
		}
	}
	/* --csv: the report writes its JSON, and its tables go to standard output as CSV
	 * (ui/jsonw.h, ui/table.h), the JSON itself nowhere */
	struct table_csv tables = { .f = stdout, .only = table_path };
	if (csv)
		jsonw_capture(&tables);
	if (mode == MODE_DIFF) {
		int rc = run_diff(traces, n, diff_na, diff_rank, json || csv, top, align, diff_steps_mode, diff_match);
		if (rc != 0)
			status = rc;
	} else if (mode == MODE_SCREEN) {
		if (nusable > 0) {
			int rc = dump_screen(usable, nusable, align, gap_min, scr_w, scr_h, keys, keymap, ascii,
			                     frame_times);
			if (rc != 0)
				status = rc;
		}
	} else if (mode == MODE_DEFAULT && live) {
		/* the timeline was open while the trace loaded */
	} else if (mode == MODE_DEFAULT && interactive) {
		char *home_map = user_keymap(keymap);
		struct session_opts o = {
			usable, nusable,   (enum align_mode)align, gap_min, keymap != NULL ? keymap : home_map, ascii,
			NULL,   start_view
		};
		int rc = run_tty(&o, NULL);
		free(home_map);
		if (rc != 0)
			status = rc;
	} else {
		/* a report; without one, and without a terminal, the summary */
		const struct report_kind *k = mode == MODE_REPORT ? report : &report_summary_kind;
		stage_clock("loaded (the reader's view)");
		if (!k->needs_a_trace || nusable > 0) {
			int rc = k->write(stdout, traces, n, &ro);
			if (rc != 0)
				status = rc;
		}
		stage_clock("report written");
	}
	jsonw_capture(NULL);
	if (table_path != NULL && tables.written == 0 && nusable > 0 && status != 2) {
		escape_say(stderr, "ttrace: --table: the report has no table '%s' (its tables: %s)", table_path,
		           tables.plen > 0 ? tables.paths : "none");
		status = 2;
	}
	table_csv_release(&tables);
	map_guard_on_lost(NULL);
	for (int i = 0; guard_msgs != NULL && i < nguarded; i++)
		free(guard_msgs[i]);
	free(guard_msgs);
	free(usable);
	for (int i = 0; i < n; i++) {
		trace_end_of_process(traces[i]);
		free(files[i]);
	}
	free(traces);
	free(files);
	merged_ranks_free(merged, n);
	stage_clock("traces freed");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("ttrace: error writing standard output\n", stderr);
		return status ? status : 2;
	}
	return status;
}
