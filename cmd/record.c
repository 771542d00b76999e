/* record.c: `ttrace record`: sets the environment the recorder library reads
 * (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, TTRACE_RECORD_*), runs the command,
 * waits for it while passing on the signals meant for it, then reads the manifest its
 * processes appended to and summarises each trace file they wrote.
 *
 * The recorder itself is a library the CUDA driver loads into every process that
 * initialises CUDA (record/inject.c). This file needs no CUDA header and is always built;
 * a build without CUPTI (config.h HAVE_CUPTI undefined) has no library to inject, and the
 * command then says how to get one. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "lib/timefmt.h"
#include "lib/xalloc.h"
#include "parsers/load.h"
#include "record/settings.h"
#include "lib/escape.h"
#include "cmd/record.h"
#include "cmd/trace_out.h"

#ifndef PKGLIBDIR
#error "PKGLIBDIR, where the recorder library is installed, comes from Makefile.am"
#endif

#define RECORDER_NAME "libttrace-record.so"

struct record_opts {
	const char *output;           /* -o, or NULL for the current directory */
	const char *delay, *duration; /* decimal seconds as given, or NULL */
	bool no_api, no_nvtx, open, force;
	char **cmd; /* the command and its arguments, NULL-terminated */
};

static void usage(FILE *f)
{
	fputs("Usage: ttrace record [OPTIONS] [--] CMD [ARGS...]\n"
	      "Run CMD with ttrace's CUPTI recorder injected (CUDA_INJECTION64_PATH): every process\n"
	      "that initialises CUDA writes a Chrome trace of its kernels, memory copies and sets,\n"
	      "CUDA API calls and NVTX ranges, in torch.profiler's layout (ttrace, Perfetto and HTA\n"
	      "open it). At the end, the files written are listed with a one-line summary of each.\n"
	      "\n"
	      "  -o, --output=DIR|FILE  a directory (created when it ends in '/'; default: the\n"
	      "                         current one) gets HOST.PID.pt.trace.json.zst per process,\n"
	      "                         HOST.PID.rankR.pt.trace.json.zst when RANK is set; a FILE is\n"
	      "                         written by the first process (a .json name: plain JSON, else\n"
	      "                         zstd), the others write FILE with .PID before its extension\n"
	      "  -f, --force            replace an existing -o FILE, or write into an existing FIFO\n"
	      "                         or character device (never a symbolic link)\n"
	      "      --delay=S          start recording S seconds after CUDA loads the recorder\n"
	      "                         (decimal, such as 2 or 0.5; at most " RECORD_SECONDS_MAX_TEXT ")\n"
	      "      --duration=S       record for S seconds (more than 0, at most as --delay), then\n"
	      "                         stop (files are completed at exit)\n"
	      "      --no-api           no CUDA runtime and driver API calls (and so no launch flows)\n"
	      "      --no-nvtx          no NVTX ranges and marks\n"
	      "      --open             then open the timeline on the files written (as ttrace FILE...)\n"
	      "  -h, --help             show this help and exit\n"
	      "\n"
	      "Exit status: CMD's; 128+N when signal N killed it; 126 or 127 when it cannot be run;\n"
	      "2 on a usage error or when this ttrace was built without CUPTI.\n"
	      "See RECORDING in ttrace(1).\n",
	      f);
}

static void explain_no_recorder(void)
{
	fputs("ttrace record: this ttrace was built without CUPTI, so it has no recorder to inject.\n"
	      "To build one, install CUPTI's headers and library, then configure with --with-cupti:\n"
	      "  Debian: enable the non-free component, then\n"
	      "      apt-get install libcupti-dev nvidia-cuda-dev\n"
	      "      ./configure --with-cupti\n"
	      "  a CUDA toolkit: ./configure --with-cupti=/usr/local/cuda (or the toolkit's $CUDA_HOME)\n",
	      stderr);
}

/* Reads the command line into O. Returns -1 to go on, else the exit status (0 for --help). */
static int parse_args(int argc, char **argv, struct record_opts *o)
{
	/* clang-format off */
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' }, { "force", no_argument, NULL, 'f' },
		{ "delay", required_argument, NULL, 'd' },  { "duration", required_argument, NULL, 'u' },
		{ "no-api", no_argument, NULL, 'A' },       { "no-nvtx", no_argument, NULL, 'N' },
		{ "open", no_argument, NULL, 'O' },         { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* clang-format on */
	int c;

	opterr = 0; /* getopt would echo a bad option raw: say it here, escaped */
	/* '+': options end at the command, whose own options are its business */
	while ((c = getopt_long(argc, argv, "+:o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (optarg[0] == '\0') {
				fputs("ttrace record: -o wants a file or directory name\n", stderr);
				return 2;
			}
			o->output = optarg;
			break;
		case 'f': o->force = true; break;
		case 'd':
		case 'u': {
			/* the grammar and range the recorder checks again (record/settings.h) */
			double v;
			if (!record_parse_seconds(optarg, &v) || (c == 'u' && v <= 0)) {
				escape_say(
					stderr,
					"ttrace record: --%s wants decimal seconds, such as 10 or 2.5%s, at most " RECORD_SECONDS_MAX_TEXT
					" (got '%s')",
					c == 'd' ? "delay" : "duration", c == 'u' ? ", more than 0" : "", optarg);
				return 2;
			}
			*(c == 'd' ? &o->delay : &o->duration) = optarg;
			break;
		}
		case 'A': o->no_api = true; break;
		case 'N': o->no_nvtx = true; break;
		case 'O': o->open = true; break;
		case 'h': usage(stdout); return 0;
		case ':':
			escape_say(stderr, "ttrace record: option '%s' needs a value", argv[optind - 1]);
			fputs("Try 'ttrace record --help' for more information.\n", stderr);
			return 2;
		default:
			if (optopt != 0)
				escape_say(stderr, "ttrace record: unknown option '-%c'", optopt);
			else
				escape_say(stderr, "ttrace record: unknown or ambiguous option '%s'", argv[optind - 1]);
			fputs("Try 'ttrace record --help' for more information.\n", stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs("ttrace record: no command given: ttrace record [OPTIONS] -- CMD [ARGS...]\n"
		      "Try 'ttrace record --help' for more information.\n",
		      stderr);
		return 2;
	}
	o->cmd = argv + optind;
	return -1;
}

/* Whether this ttrace can record. TTRACE_RECORD_FORCE=1 together with TTRACE_RECORD_LIB is a
 * test hook, not for users: it lets tests/record_cmd.sh run the rest of the command (the
 * environment, running and waiting, the manifest, the summary) in a build without CUPTI,
 * with stand-in commands that do the recorder's part. */
static bool can_record(void)
{
#if defined(HAVE_CUPTI) || defined(TTRACE_STATIC_RECORDER)
	return true;
#else
	const char *force = getenv("TTRACE_RECORD_FORCE"), *lib = getenv("TTRACE_RECORD_LIB");
	return force != NULL && strcmp(force, "1") == 0 && lib != NULL && lib[0] != '\0';
#endif
}

/* The static build (quickstart.sh) looks first for its own library beside it, under the
 * name quickstart.sh gives it (libttrace-record-x86_64.so) */
#ifdef TTRACE_STATIC_RECORDER
#define STATIC_RECORDER_NAME TTRACE_STATIC_RECORDER
#else
#define STATIC_RECORDER_NAME RECORDER_NAME
#endif

/* The absolute path of the recorder library: $TTRACE_RECORD_LIB; else the one beside the
 * running executable (a static build's own name first, a build tree, libtool's .libs/ too);
 * else the installed one in PKGLIBDIR. Returns it allocated, or NULL with *CAUSE (allocated)
 * saying where it looked. */
static char *recorder_path(char **cause)
{
	const char *env = getenv("TTRACE_RECORD_LIB");
	if (env != NULL && env[0] != '\0') {
		char *abs = realpath(env, NULL);
		if (abs == NULL)
			*cause = xasprintf("TTRACE_RECORD_LIB names %s: %s", env, strerror(errno));
		return abs;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *own = NULL, *beside = NULL, *libs = NULL;
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL)
			*slash = '\0';
		own = xasprintf("%s/" STATIC_RECORDER_NAME, exe);
		beside = xasprintf("%s/" RECORDER_NAME, exe);
		libs = xasprintf("%s/.libs/" RECORDER_NAME, exe);
	}
	const char *candidates[] = { own, beside, libs, PKGLIBDIR "/" RECORDER_NAME };
	for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
		char *abs;
		if (candidates[i] != NULL && access(candidates[i], R_OK) == 0 &&
		    (abs = realpath(candidates[i], NULL)) != NULL) {
			free(own);
			free(beside);
			free(libs);
			return abs;
		}
	}
	*cause = xasprintf("cannot find " STATIC_RECORDER_NAME " (looked beside %s and in %s; TTRACE_RECORD_LIB=PATH "
	                   "names it)",
	                   n > 0 ? exe : "this executable", PKGLIBDIR);
	free(own);
	free(beside);
	free(libs);
	return NULL;
}

void record_say_library(FILE *f)
{
	if (!can_record()) {
		fputs("recorder: not in this build (configure found no CUPTI)\n", f);
		return;
	}
	char *cause = NULL, *lib = recorder_path(&cause);
	if (lib != NULL)
		escape_say(f, "recorder: %s", lib);
	else
		escape_say(f, "recorder: %s", cause);
	free(lib);
	free(cause);
}

/* mkdir -p PATH with mode 0755. Returns 0, or -1 with errno. */
static int make_dirs(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char was = *s;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			errno = e;
			return -1;
		}
		*s = was;
		if (was == '\0')
			break;
	}
	free(p);
	struct stat st;
	if (stat(path, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Turns the -o value OUT (NULL: the current directory) into the absolute path the recorder
 * writes to: a directory when it is one or ends in '/' (created; it may be reached through
 * symbolic links, which are resolved), else a file. An existing file must be one that
 * FORCE allows, and is never replaced by anything but a regular file: a regular file is
 * removed; a FIFO or character device is kept and written into, and *ID (allocated) gets
 * its DEV:INO for TTRACE_RECORD_OUT_ID, so that the recorder writes into that one and
 * nothing put in its place; a symbolic link (which could lead anywhere) and anything else
 * are refused. Returns the path allocated, or NULL with *CAUSE (allocated). */
static char *resolve_output(const char *out, bool force, char **id, char **cause)
{
	struct stat st;
	*id = NULL;
	if (out == NULL)
		out = ".";
	bool dir = out[strlen(out) - 1] == '/' || (stat(out, &st) == 0 && S_ISDIR(st.st_mode));
	char *abs;
	if (dir) {
		if (make_dirs(out) != 0 || (abs = realpath(out, NULL)) == NULL) {
			*cause = xasprintf("cannot create the directory %s: %s", out, strerror(errno));
			return NULL;
		}
		if (access(abs, W_OK | X_OK) != 0) {
			*cause = xasprintf("cannot write into %s: %s", abs, strerror(errno));
			free(abs);
			return NULL;
		}
		return abs;
	}
	const char *slash = strrchr(out, '/');
	char *parent = slash == NULL  ? xstrdup(".")
	               : slash == out ? xstrdup("/")
	                              : xstrndup(out, (size_t)(slash - out));
	char *real_parent = realpath(parent, NULL);
	if (real_parent == NULL || access(real_parent, W_OK | X_OK) != 0) {
		*cause = xasprintf("cannot write %s: %s: %s", out, parent, strerror(errno));
		free(parent);
		free(real_parent);
		return NULL;
	}
	free(parent);
	abs = xasprintf("%s/%s", strcmp(real_parent, "/") == 0 ? "" : real_parent, slash == NULL ? out : slash + 1);
	free(real_parent);
	if (lstat(abs, &st) != 0) {
		if (errno == ENOENT)
			return abs;
		*cause = xasprintf("cannot write %s: %s", out, strerror(errno));
	} else if (S_ISLNK(st.st_mode)) {
		*cause = xasprintf(
			"%s is a symbolic link: ttrace record does not write through one (name the file itself)", out);
	} else if (S_ISREG(st.st_mode)) {
		if (!force)
			*cause = xasprintf("%s exists (-f overwrites it)", out);
		else if (unlink(abs) != 0)
			*cause = xasprintf("cannot remove %s: %s", out, strerror(errno));
		else
			return abs;
	} else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		if (!force)
			*cause = xasprintf("%s exists and is %s (-f writes into it)", out,
			                   trace_out_file_kind(st.st_mode));
		else if (access(abs, W_OK) != 0)
			*cause = xasprintf("cannot write into %s: %s", out, strerror(errno));
		else {
			*id = xasprintf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
			return abs;
		}
	} else {
		*cause = xasprintf("%s is %s: -o names a directory, a file, a FIFO or a character device", out,
		                   trace_out_file_kind(st.st_mode));
	}
	free(abs);
	return NULL;
}

/* Creates the empty manifest file the recorded processes append to, in $TMPDIR or /tmp.
 * Returns its allocated path, or NULL with *CAUSE (allocated). */
static char *make_manifest(char **cause)
{
	const char *tmp = getenv("TMPDIR");
	if (tmp == NULL || tmp[0] != '/') /* the processes may change directory */
		tmp = "/tmp";
	char *path = xasprintf("%s/ttrace-record.XXXXXX", tmp);
	int fd = mkstemp(path);
	if (fd < 0) {
		*cause = xasprintf("cannot create a manifest file in %s: %s", tmp, strerror(errno));
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static void set_env(const char *name, const char *value)
{
	if (value == NULL) {
		unsetenv(name);
		return;
	}
	if (setenv(name, value, 1) != 0)
		fatal("cannot set %s: %s", name, strerror(errno));
}

/* Sets the environment the recorder reads (the contract with record/inject.c); variables
 * for options not given are removed, so that the command sees only what was asked here. */
static void set_recorder_env(const struct record_opts *o, const char *lib, const char *out, const char *out_id,
                             const char *manifest)
{
	const char *old = getenv("CUDA_INJECTION64_PATH");
	if (old != NULL && old[0] != '\0' && strcmp(old, lib) != 0)
		escape_say(
			stderr,
			"ttrace record: warning: replacing CUDA_INJECTION64_PATH=%s (CUDA loads one injection library)",
			old);
	set_env("CUDA_INJECTION64_PATH", lib);
	if (!o->no_nvtx) {
		/* NVTX calls go to CUPTI, which hands the ranges to the recorder */
		const char *cupti = getenv("TTRACE_CUPTI_LIB");
#if defined(TTRACE_STATIC_RECORDER)
		/* the static build runs on other machines than its build's: CUDA's usual places */
		static const char *const usual[] = { "/usr/local/cuda/lib64/libcupti.so",
			                             "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so" };
		for (size_t i = 0; (cupti == NULL || cupti[0] == '\0') && i < sizeof usual / sizeof *usual; i++)
			if (access(usual[i], R_OK) == 0)
				cupti = usual[i];
#elif defined(CUPTI_LIBRARY)
		if (cupti == NULL || cupti[0] == '\0')
			cupti = CUPTI_LIBRARY;
#endif
		if (cupti != NULL && cupti[0] != '\0')
			set_env("NVTX_INJECTION64_PATH", cupti);
		else
			fputs("ttrace record: warning: no libcupti path known (TTRACE_CUPTI_LIB): NVTX ranges are not recorded\n",
			      stderr);
	}
	set_env("TTRACE_RECORD_OUT", out);
	set_env("TTRACE_RECORD_OUT_ID", out_id);
	set_env("TTRACE_RECORD_MANIFEST", manifest);
	set_env("TTRACE_RECORD_DELAY", o->delay);
	set_env("TTRACE_RECORD_DURATION", o->duration);
	set_env("TTRACE_RECORD_NO_API", o->no_api ? "1" : NULL);
	set_env("TTRACE_RECORD_NO_NVTX", o->no_nvtx ? "1" : NULL);
}

static volatile sig_atomic_t forward_to; /* the running child's pid, or 0 */

static void forward_signal(int sig)
{
	pid_t pid = (pid_t)forward_to;
	if (pid > 0)
		kill(pid, sig);
}

/* Runs FILE (execvp) with ARGV and waits for it. Meanwhile SIGINT and SIGQUIT are ignored
 * (the terminal sends them to the command as well, which decides what they mean) and
 * SIGTERM and SIGHUP are passed on to it. Returns its wait status; -1 (errno set) when it
 * could not be forked; -2 with *EXEC_ERRNO when exec failed (the child says why through a
 * close-on-exec pipe, so that the parent reports it and sums up nothing). */
static int run_and_wait(const char *file, char *const *argv, int *exec_errno)
{
	sigset_t forwarded, saved_mask;
	sigemptyset(&forwarded);
	sigaddset(&forwarded, SIGTERM);
	sigaddset(&forwarded, SIGHUP);
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) != 0)
		return -1;
	/* blocked from before the fork, so that one sent meanwhile reaches the child */
	sigprocmask(SIG_BLOCK, &forwarded, &saved_mask);
	fflush(NULL); /* the child must not write our buffered output again */
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		sigprocmask(SIG_SETMASK, &saved_mask, NULL);
		close(errpipe[0]);
		close(errpipe[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(errpipe[0]);
		sigprocmask(SIG_SETMASK, &saved_mask, NULL);
		execvp(file, argv);
		int e = errno;
		ssize_t w = write(errpipe[1], &e, sizeof e);
		(void)w;
		_exit(127);
	}
	close(errpipe[1]);
	struct sigaction fwd = { 0 }, ign = { 0 }, old_term, old_hup, old_int, old_quit;
	fwd.sa_handler = forward_signal;
	sigemptyset(&fwd.sa_mask);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	forward_to = pid;
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);

	int e = 0;
	ssize_t got;
	while ((got = read(errpipe[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(errpipe[0]);
	int wstatus = 0;
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	forward_to = 0;
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (got == (ssize_t)sizeof e) {
		*exec_errno = e;
		return -2;
	}
	return wstatus;
}

static const char *signal_name(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",   [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
		[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",
		[SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
		[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM", [SIGXCPU] = "SIGXCPU",
		[SIGXFSZ] = "SIGXFSZ", [SIGSYS] = "SIGSYS",
	};
	if (sig > 0 && (size_t)sig < sizeof names / sizeof *names && names[sig] != NULL)
		return names[sig];
	return "a signal";
}

/* The exit status that stands for wait status WSTATUS of CMD; says which signal killed it. */
static int exit_status_of(int wstatus, const char *cmd)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		escape_say(stderr, "ttrace record: %s was killed by %s (signal %d, %s)%s", cmd, signal_name(sig), sig,
		           strsignal(sig), WCOREDUMP(wstatus) ? ", core dumped" : "");
		return 128 + sig;
	}
	return 1;
}

/* The distinct lines of the manifest at PATH, in order: one path per trace file written.
 * Returns an allocated array of *N allocated paths (a missing manifest has none). */
static char **read_manifest(const char *path, int *n)
{
	char **files = NULL;
	int m = 0, cap = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (f == NULL && fd >= 0)
		close(fd);
	char *line = NULL;
	size_t linecap = 0;
	ssize_t len;
	while (f != NULL && (len = getline(&line, &linecap, f)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || strlen(line) != (size_t)len)
			continue; /* empty, or a NUL in it: no path */
		bool seen = false;
		for (int i = 0; i < m && !seen; i++)
			seen = strcmp(files[i], line) == 0;
		if (seen)
			continue;
		if (m == cap)
			files = xreallocarray(files, (size_t)(cap = cap ? cap * 2 : 8), sizeof *files);
		files[m++] = xstrdup(line);
	}
	free(line);
	if (f != NULL)
		fclose(f);
	*n = m;
	return files;
}

static const char *plural(uint64_t n, const char *one, const char *many) { return n == 1 ? one : many; }

/* One line on stderr for trace T: what it holds, or why it could not be read. */
static void summarise(const struct trace *t)
{
	if (t->status == LOAD_FAILED) {
		const char *why = t->error != NULL ? t->error : "cannot load";
		fputs("ttrace record: ", stderr);
		escape_term(stderr, why, strlen(why));
		fputc('\n', stderr);
		return;
	}
	uint64_t count[SC__COUNT] = { 0 };
	uint32_t streams = 0, ndev = 0;
	int32_t devices[64];
	for (uint32_t i = 0; i < t->ntracks; i++) {
		const struct track *tr = &t->tracks[i];
		for (uint32_t s = 0; s < tr->nslices; s++)
			count[slice_cls(t, &tr->slices[s])]++;
		if (tr->kind != TRACK_GPU_COMPUTE && tr->kind != TRACK_GPU_COMM)
			continue;
		streams++;
		bool known = false;
		for (uint32_t d = 0; d < ndev && !known; d++)
			known = devices[d] == tr->device;
		if (!known && ndev < sizeof devices / sizeof *devices)
			devices[ndev++] = tr->device;
	}
	char span[64];
	timefmt_dur(t->end > t->start ? t->end - t->start : 0, span, sizeof span);
	fputs("ttrace record: wrote ", stderr);
	escape_term(stderr, t->path, strlen(t->path));
	fprintf(stderr, ": %llu %s, %llu %s, %llu %s, %u %s, %u %s, span %s, %llu %s",
	        (unsigned long long)count[SC_KERNEL], plural(count[SC_KERNEL], "kernel", "kernels"),
	        (unsigned long long)count[SC_MEMCPY], plural(count[SC_MEMCPY], "memcpy", "memcpys"),
	        (unsigned long long)count[SC_MEMSET], plural(count[SC_MEMSET], "memset", "memsets"), ndev,
	        plural(ndev, "GPU", "GPUs"), streams, plural(streams, "stream", "streams"), span,
	        (unsigned long long)t->events, plural(t->events, "event", "events"));
	if (t->status == LOAD_TRUNCATED && t->error != NULL) {
		fputs(" (cut short: ", stderr);
		escape_term(stderr, t->error, strlen(t->error));
		fputc(')', stderr);
	}
	fputc('\n', stderr);
}

/* Runs this ttrace on the N FILES, as `ttrace -- FILE...` would be. Returns its exit status. */
static int open_viewer(char *const *files, int n)
{
	char **argv = xcalloc((size_t)n + 3, sizeof *argv);
	argv[0] = "ttrace";
	argv[1] = "--"; /* a path is never an option */
	for (int i = 0; i < n; i++)
		argv[i + 2] = files[i];
	int e = 0, ws = run_and_wait("/proc/self/exe", argv, &e);
	if (ws == -2) /* no /proc: the ttrace on PATH */
		ws = run_and_wait("ttrace", argv, &e);
	free(argv);
	if (ws < 0) {
		fprintf(stderr, "ttrace record: cannot open the timeline: %s\n", strerror(ws == -2 ? e : errno));
		return 2;
	}
	return exit_status_of(ws, "ttrace");
}

int record_main(int argc, char **argv)
{
	struct record_opts o = { 0 };
	int status = parse_args(argc, argv, &o);
	if (status >= 0)
		return status;
	if (!can_record()) {
		explain_no_recorder();
		return 2;
	}
	char *cause = NULL, *lib = NULL, *out = NULL, *out_id = NULL, *manifest = NULL;
	if ((lib = recorder_path(&cause)) == NULL ||
	    (out = resolve_output(o.output, o.force, &out_id, &cause)) == NULL ||
	    (manifest = make_manifest(&cause)) == NULL) {
		escape_say(stderr, "ttrace record: %s", cause);
		free(cause);
		free(lib);
		free(out);
		free(out_id);
		return 2;
	}
	set_recorder_env(&o, lib, out, out_id, manifest);

	int exec_errno = 0, ws = run_and_wait(o.cmd[0], o.cmd, &exec_errno);
	if (ws < 0) {
		int e = ws == -2 ? exec_errno : errno;
		escape_say(stderr, "ttrace record: cannot run %s: %s", o.cmd[0], strerror(e));
		status = ws == -1 ? 2 : e == ENOENT ? 127 : 126; /* as a shell says it */
	} else {
		status = exit_status_of(ws, o.cmd[0]);
	}
	int n = 0, nusable = 0;
	char **files = ws < 0 ? NULL : read_manifest(manifest, &n);
	unlink(manifest);
	if (ws >= 0 && n == 0)
		escape_say(stderr,
		           "ttrace record: no CUDA context was seen: %s did not initialise CUDA, or CUDA did not "
		           "load the recorder (CUDA_INJECTION64_PATH)",
		           o.cmd[0]);
	if (n > 0) {
		/* a FIFO or a device was written into: its reader has what was written, and reading
		 * it here would wait for a writer that will never come */
		char **regular = xcalloc((size_t)n, sizeof *regular);
		int nregular = 0;
		for (int i = 0; i < n; i++) {
			struct stat st;
			if (lstat(files[i], &st) == 0 && !S_ISREG(st.st_mode))
				escape_say(stderr, "ttrace record: wrote into %s (%s): not read back", files[i],
				           trace_out_file_kind(st.st_mode));
			else
				regular[nregular++] = files[i];
		}
		struct trace **traces = xcalloc((size_t)n, sizeof *traces);
		struct load_options lo = { .quiet = true };
		if (nregular > 0)
			load_traces(regular, nregular, &lo, traces);
		char **usable = xcalloc((size_t)n, sizeof *usable);
		for (int i = 0; i < nregular; i++) {
			summarise(traces[i]);
			if (traces[i]->status != LOAD_FAILED)
				usable[nusable++] = regular[i];
		}
		for (int i = 0; i < nregular; i++)
			trace_free(traces[i]);
		free(traces);
		free(regular);
		if (o.open && nusable > 0) {
			int viewer = open_viewer(usable, nusable);
			if (status == 0)
				status = viewer;
		}
		free(usable);
	}
	if (o.open && nusable == 0 && ws >= 0)
		fputs("ttrace record: nothing to open\n", stderr);
	for (int i = 0; i < n; i++)
		free(files[i]);
	free(files);
	free(lib);
	free(out);
	free(out_id);
	free(manifest);
	return status;
}
