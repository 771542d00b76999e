/* inject.c: the recorder, a CUDA injection library (libttrace-record.so).
 *
 * The CUDA driver loads the library named by CUDA_INJECTION64_PATH when a process calls
 * cuInit, and calls its InitializeInjection. That loads libcupti (TTRACE_CUPTI_LIB, else
 * the one the build found), subscribes to context creation and destruction, and turns on
 * CUPTI's activity records: kernels (concurrent), memcpy, memset, runtime and driver calls,
 * synchronisation, NVTX markers and names, CUPTI's overhead, devices and contexts.
 *
 * CUPTI fills buffers we give it (bufferRequested) and hands them back full
 * (bufferCompleted) from its own thread; a writer thread turns their records into trace
 * events (trace_writer.c) and into the output file (out.c), which it checkpoints every
 * second, so memory is bounded by the buffers in flight and the file is a whole JSON
 * document at every checkpoint. The file is created when the process creates its first
 * CUDA context: a process that never does leaves no file.
 *
 * The end: at exit() (atexit), on SIGINT/SIGTERM/SIGHUP when the program left them to
 * their default action (the handler asks the writer to finish, waits for it at most
 * FINISH_WAIT_MS, then dies of the signal as it would have), and when the recording's
 * duration is over. A program killed otherwise keeps the last checkpoint.
 *
 * Settings come from the environment `ttrace record` sets (see cmd/record.c):
 * TTRACE_RECORD_OUT, TTRACE_RECORD_OUT_ID, TTRACE_RECORD_MANIFEST, TTRACE_RECORD_DELAY,
 * TTRACE_RECORD_DURATION, TTRACE_RECORD_NO_API, TTRACE_RECORD_NO_NVTX, TTRACE_RECORD_SKIP,
 * TTRACE_CUPTI_LIB;
 * RANK, WORLD_SIZE and LOCAL_RANK name the rank. A TTRACE_RECORD_* value that is not what
 * the command would have set (record/settings.h) is said, and the program runs
 * unrecorded; a bad RANK, WORLD_SIZE or LOCAL_RANK is said and taken as not set. Messages
 * go to stderr prefixed "ttrace record:", escaped (they quote paths and values). */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "record/out.h"
#include "record/settings.h"
#include "record/trace_writer.h"
#include "lib/escape.h"

#define BUFFER_BYTES (4u << 20) /* one activity buffer */
#define MAX_BUFFERS 32          /* in flight at once: 128 MB; beyond, CUPTI drops records */
#define CHECKPOINT_MS 1000
#define PENDING_MAX (32u << 20) /* compressed bytes that force an early checkpoint */
#define FINISH_WAIT_MS 10000

/* The CUPTI entry points, resolved from the libcupti loaded at run time. */
/* clang-format off */
#define CUPTI_FUNCS(X)                                                                            \
	X(cuptiSubscribe) X(cuptiUnsubscribe) X(cuptiEnableDomain) X(cuptiEnableCallback)             \
	X(cuptiActivityEnable) X(cuptiActivityDisable) X(cuptiActivityRegisterCallbacks)            \
	X(cuptiActivityFlushAll) X(cuptiActivityGetNextRecord) X(cuptiActivityGetNumDroppedRecords) \
	X(cuptiGetTimestamp) X(cuptiGetResultString) X(cuptiGetCallbackName) X(cuptiGetContextId)   \
	X(cuptiGetDeviceId) X(cuptiSetThreadIdType)
/* clang-format on */
static struct {
#define X(f) __typeof__(f) *f;
	CUPTI_FUNCS(X)
#undef X
} cu;

/* A completed buffer waiting for the writer. */
struct done_buf {
	uint8_t *p;
	size_t valid;
	struct done_buf *next;
};

static struct {
	pthread_mutex_t lock; /* guards the queue, out, and the flags below */
	struct done_buf *head, *tail;
	atomic_int buffers; /* allocated, in CUPTI's hands or queued */
	atomic_ullong dropped;
	int wake[2];     /* a byte wakes the writer */
	int finished[2]; /* the writer writes a byte when it has finished */
	pthread_t writer;
	bool writer_started, stop, stopped_by_duration;
	bool stream, write_failed; /* the output is a FIFO or a device; a write to it failed */
	_Atomic bool enabled;      /* the activity kinds are on */
	bool initialised, forked_child, finishing;
	struct tw *tw;
	struct out *out;
	char *path;
	unsigned contexts;
	CUpti_SubscriberHandle subscriber;
	/* settings */
	char *out_setting, *manifest;
	bool out_id_set; /* TTRACE_RECORD_OUT_ID: the FIFO or device to write into */
	uintmax_t out_dev, out_ino;
	double delay_s, duration_s;
	bool no_api, no_nvtx;
	unsigned skip; /* TTRACE_RECORD_SKIP: SKIP_* bits of activity kinds left off */
	double t0;     /* CLOCK_MONOTONIC seconds at InitializeInjection */
	int rank;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = { -1, -1 }, .finished = { -1, -1 }, .rank = -1 };

static struct sigaction old_action[NSIG];
static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP };

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char msg[1024], shown[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "ttrace record: %s\n", escape_term_buf(msg, strlen(msg), shown, sizeof shown));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *result_string(CUptiResult r)
{
	const char *s = NULL;
	if (cu.cuptiGetResultString != NULL)
		cu.cuptiGetResultString(r, &s);
	return s ? s : "unknown CUPTI error";
}

#define CHECK(call)                                              \
	do {                                                     \
		CUptiResult r_ = (call);                         \
		if (r_ != CUPTI_SUCCESS)                         \
			say("%s: %s", #call, result_string(r_)); \
	} while (0)

/* ---- names ----------------------------------------------------------------------------- */

static const char *callback_name(CUpti_CallbackDomain domain, uint32_t cbid)
{
	const char *name = NULL;
	if (cu.cuptiGetCallbackName == NULL || cu.cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS)
		return NULL;
	return name;
}

static char *read_small_file(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *b = malloc(4096);
	ssize_t r = b ? read(fd, b, 4095) : -1;
	close(fd);
	if (r < 0) {
		free(b);
		return NULL;
	}
	b[r] = '\0';
	*n = (size_t)r;
	return b;
}

static char *thread_name(uint32_t pid, uint32_t tid)
{
	char path[64];
	size_t n;
	snprintf(path, sizeof path, "/proc/%" PRIu32 "/task/%" PRIu32 "/comm", pid, tid);
	char *s = read_small_file(path, &n);
	if (s != NULL && n > 0 && s[n - 1] == '\n')
		s[n - 1] = '\0';
	return s;
}

/* argv[0]'s last component, as Kineto names the process ("python3", "nccl-tests"...). */
static char *process_name(void)
{
	size_t n;
	char *s = read_small_file("/proc/self/cmdline", &n);
	if (s == NULL || n == 0) {
		free(s);
		return strdup("process");
	}
	char *slash = strrchr(s, '/');
	char *name = strdup(slash ? slash + 1 : s);
	free(s);
	return name;
}

/* C++ kernel names through the C++ runtime's demangler, when one is in the process (a
 * CUDA program is almost always C++; without one the names stay mangled). */
static char *demangle(const char *mangled)
{
	static char *(*fn)(const char *, char *, size_t *, int *);
	static int looked;
	if (mangled[0] != '_' || mangled[1] != 'Z')
		return NULL;
	if (!looked) {
		looked = 1;
		*(void **)&fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
		if (fn == NULL) {
			void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
			if (h != NULL)
				*(void **)&fn = dlsym(h, "__cxa_demangle");
		}
	}
	if (fn == NULL)
		return NULL;
	int status = 0;
	char *out = fn(mangled, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- the output file ------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void write_manifest(const char *path)
{
	if (g.manifest == NULL || *g.manifest == '\0')
		return;
	int fd = open(g.manifest, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	char line[PATH_MAX + 2];
	int n = snprintf(line, sizeof line, "%s\n", path);
	if (n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) != n)
		say("cannot note %s in %s: %s", path, g.manifest, strerror(errno));
	close(fd);
}

/* Whether this process is the first of the run to take PATH, a FIFO or a device that
 * several processes must not write into at once: under an exclusive lock on the manifest,
 * PATH is noted there unless a line already names it. Without a manifest, no process takes
 * it. */
static bool claim_in_manifest(const char *path)
{
	if (g.manifest == NULL || *g.manifest == '\0')
		return false;
	int fd = open(g.manifest, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool mine = false;
	struct stat st;
	if (flock(fd, LOCK_EX) == 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		size_t size = (size_t)st.st_size, n = 0, len = strlen(path);
		char *text = malloc(size + 1);
		while (text != NULL && n < size) {
			ssize_t r = pread(fd, text + n, size - n, (off_t)n);
			if (r > 0)
				n += (size_t)r;
			else if (r == 0 || errno != EINTR)
				break;
		}
		bool taken = text == NULL;
		for (size_t at = 0; !taken && at < n;) {
			char *nl = memchr(text + at, '\n', n - at);
			size_t end = nl != NULL ? (size_t)(nl - text) : n;
			taken = end - at == len && memcmp(text + at, path, len) == 0;
			at = end + 1;
		}
		free(text);
		if (!taken) {
			char line[PATH_MAX + 2];
			int m = snprintf(line, sizeof line, "%s\n", path);
			mine = m > 0 && (size_t)m < sizeof line && write(fd, line, (size_t)m) == m;
		}
	}
	close(fd); /* and the lock with it */
	return mine;
}

/* Opens the FIFO or character device PATH that `ttrace record -f -o` was asked to write
 * into, when it is still the one it checked (TTRACE_RECORD_OUT_ID: its device and inode,
 * compared through an O_PATH descriptor, which opens nothing, and reopened through
 * /proc/self/fd, so that nothing put in its place meanwhile is written into) and this is
 * the first process of the run to claim it. A FIFO with no reader yet is waited for, as a
 * shell's redirection waits. The descriptor; or -1 with errno when PATH is not this
 * process's to write into: ENOENT when it is gone, EEXIST when it is another file or
 * another process's stream; or -2 with errno when this process claimed it but cannot
 * open it. */
static int open_stream(const char *path)
{
	int pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0) {
		if (errno != ENOENT)
			errno = EEXIST;
		return -1;
	}
	struct stat st;
	if (fstat(pfd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) ||
	    (uintmax_t)st.st_dev != g.out_dev || (uintmax_t)st.st_ino != g.out_ino || !claim_in_manifest(path)) {
		close(pfd);
		errno = EEXIST;
		return -1;
	}
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", pfd);
	int fd = open(self, O_WRONLY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0));
	if (fd < 0 && errno == ENXIO) { /* a FIFO that no one reads yet */
		say("waiting for a process to read the FIFO %s", path);
		fd = open(self, O_WRONLY | O_CLOEXEC);
	} else if (fd >= 0 && S_ISFIFO(st.st_mode)) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK); /* a slow reader slows the writer */
	}
	int e = errno;
	close(pfd);
	errno = e;
	return fd >= 0 ? fd : -2;
}

/* Creates the output file: in the directory TTRACE_RECORD_OUT (default: the current
 * one) as HOST.PID[.rankR].pt.trace.json.zst, or as the file it names (FILE.PID.EXT when
 * another process of the run took FILE), or writes into the FIFO or device it names when
 * TTRACE_RECORD_OUT_ID says so (open_stream). Files are created O_EXCL|O_NOFOLLOW: never
 * over a file, never through a symbolic link. Called with g.lock held. */
static void open_output(void)
{
	char host[256] = "host";
	gethostname(host, sizeof host - 1);
	host[sizeof host - 1] = '\0';
	for (char *c = host; *c; c++)
		if (*c == '/')
			*c = '_';
	const char *set = g.out_setting && *g.out_setting ? g.out_setting : ".";
	struct stat st;
	/* lstat: a symbolic link put where a file is to go is not a directory to write into
	 * (ttrace record passes a directory with its links resolved) */
	bool dir = ends_with(set, "/") || (lstat(set, &st) == 0 && S_ISDIR(st.st_mode));
	char path[PATH_MAX];
	char rank[32] = "";
	if (g.rank >= 0)
		snprintf(rank, sizeof rank, ".rank%d", g.rank);
	size_t prefix_len, closing_len;
	char *prefix = tw_prefix(g.tw, &prefix_len);
	char *closing = tw_suffix(g.tw, &closing_len);
	bool zstd, stream = false;
	if (dir) {
		if (ends_with(set, "/"))
			mkdir(set, 0755);
		snprintf(path, sizeof path, "%s%s%s.%ld%s.pt.trace.json.zst", set, ends_with(set, "/") ? "" : "/", host,
		         (long)getpid(), rank);
		zstd = true;
		g.out = out_create(path, zstd, prefix, prefix_len, closing, closing_len);
	} else {
		snprintf(path, sizeof path, "%s", set);
		zstd = !ends_with(set, ".json");
		int fd = g.out_id_set ? open_stream(path) : -1;
		stream = fd != -1;
		if (fd >= 0)
			g.out = out_stream(fd, zstd, prefix, prefix_len, closing, closing_len);
		else if (!g.out_id_set || errno == ENOENT)
			g.out = out_create(path, zstd, prefix, prefix_len, closing, closing_len);
		if (g.out == NULL && !stream && errno == EEXIST) {
			/* FILE.PID.json[.zst]: the process's id before the extension */
			const char *ext = strstr(set, ".json");
			int base = ext ? (int)(ext - set) : (int)strlen(set);
			snprintf(path, sizeof path, "%.*s.%ld%s", base, set, (long)getpid(), ext ? ext : "");
			g.out = out_create(path, zstd, prefix, prefix_len, closing, closing_len);
		}
	}
	free(prefix);
	free(closing);
	if (g.out == NULL) {
		say("cannot %s %s: %s; nothing will be recorded", stream ? "write into" : "create", path,
		    strerror(errno));
		return;
	}
	if (stream) {
		g.stream = true;
		g.path = strdup(path); /* noted in the manifest when claimed */
		return;
	}
	char abs[PATH_MAX];
	g.path = strdup(realpath(path, abs) ? abs : path);
	write_manifest(g.path);
}

/* ---- CUPTI's buffers ------------------------------------------------------------------- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*max_records = 0;
	*buffer = NULL;
	*size = 0;
	if (atomic_load(&g.buffers) >= MAX_BUFFERS)
		return; /* the writer is behind: CUPTI drops records and counts them */
	void *p = NULL;
	if (posix_memalign(&p, 8, BUFFER_BYTES) != 0)
		return;
	atomic_fetch_add(&g.buffers, 1);
	*buffer = p;
	*size = BUFFER_BYTES;
}

static void wake_writer(void)
{
	char c = 'w';
	if (g.wake[1] >= 0 && write(g.wake[1], &c, 1) < 0) {
		/* a full pipe already holds a wake-up */
	}
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	size_t dropped = 0;
	if (cu.cuptiActivityGetNumDroppedRecords != NULL &&
	    cu.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped > 0)
		atomic_fetch_add(&g.dropped, dropped);
	if (buffer == NULL)
		return;
	struct done_buf *d = malloc(sizeof *d);
	if (d == NULL) {
		free(buffer);
		atomic_fetch_sub(&g.buffers, 1);
		return;
	}
	d->p = buffer;
	d->valid = valid;
	d->next = NULL;
	pthread_mutex_lock(&g.lock);
	if (g.tail)
		g.tail->next = d;
	else
		g.head = d;
	g.tail = d;
	pthread_mutex_unlock(&g.lock);
	wake_writer();
}

/* Turns the queued buffers into events in the file. Writer thread only. */
static void drain(void)
{
	for (;;) {
		pthread_mutex_lock(&g.lock);
		struct done_buf *d = g.head;
		if (d) {
			g.head = d->next;
			if (g.head == NULL)
				g.tail = NULL;
		}
		pthread_mutex_unlock(&g.lock);
		if (d == NULL)
			return;
		CUpti_Activity *rec = NULL;
		while (cu.cuptiActivityGetNextRecord(d->p, d->valid, &rec) == CUPTI_SUCCESS) {
			pthread_mutex_lock(&g.lock);
			tw_record(g.tw, rec);
			if (g.out != NULL) {
				size_t n;
				const char *t = tw_take(g.tw, &n);
				out_write(g.out, t, n);
			}
			pthread_mutex_unlock(&g.lock);
		}
		free(d->p);
		free(d);
		atomic_fetch_sub(&g.buffers, 1);
	}
}

static void checkpoint(void)
{
	pthread_mutex_lock(&g.lock);
	if (g.out != NULL) {
		tw_set_dropped(g.tw, atomic_load(&g.dropped));
		size_t n;
		const char *t = tw_take(g.tw, &n); /* events made before the file existed */
		out_write(g.out, t, n);
		char *closing = tw_suffix(g.tw, &n);
		if (out_checkpoint(g.out, closing, n) != 0 && !g.write_failed) {
			g.write_failed = true; /* said once: later checkpoints fail at once */
			say("writing %s failed: %s; %s", g.path, strerror(errno),
			    g.stream ? "its reader has what was written before" : "it keeps what was written before");
		}
		free(closing);
	}
	pthread_mutex_unlock(&g.lock);
}

/* ---- what is recorded ------------------------------------------------------------------ */

static const CUpti_ActivityKind gpu_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,   CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_OVERHEAD,
};
static const CUpti_ActivityKind api_kinds[] = { CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER };
static const CUpti_ActivityKind nvtx_kinds[] = { CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_NAME };

/* TTRACE_RECORD_SKIP: activity kinds to leave off, to measure what each costs (bench/gpu/
 * check); the kernels are always recorded. */
enum { SKIP_RUNTIME = 1, SKIP_DRIVER = 2, SKIP_SYNC = 4, SKIP_OVERHEAD = 8, SKIP_MEMCPY = 16, SKIP_MEMSET = 32 };
static const struct {
	const char *name;
	unsigned bit;
	CUpti_ActivityKind kind;
} skippable[] = {
	{ "runtime", SKIP_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME },
	{ "driver", SKIP_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER },
	{ "sync", SKIP_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION },
	{ "overhead", SKIP_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD },
	{ "memcpy", SKIP_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY },
	{ "memset", SKIP_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET },
};

static bool skipped(CUpti_ActivityKind k)
{
	for (size_t i = 0; i < sizeof skippable / sizeof skippable[0]; i++)
		if (skippable[i].kind == k)
			return (g.skip & skippable[i].bit) != 0;
	return false;
}

static void set_kinds(bool on)
{
	CUptiResult (*fn)(CUpti_ActivityKind) = on ? cu.cuptiActivityEnable : cu.cuptiActivityDisable;
	for (size_t i = 0; i < sizeof gpu_kinds / sizeof gpu_kinds[0]; i++)
		if (!skipped(gpu_kinds[i]))
			CHECK(fn(gpu_kinds[i]));
	if (!g.no_api)
		for (size_t i = 0; i < sizeof api_kinds / sizeof api_kinds[0]; i++)
			if (!skipped(api_kinds[i]))
				CHECK(fn(api_kinds[i]));
	if (!g.no_nvtx)
		for (size_t i = 0; i < sizeof nvtx_kinds / sizeof nvtx_kinds[0]; i++)
			CHECK(fn(nvtx_kinds[i]));
	g.enabled = on;
}

static volatile sig_atomic_t finish_requested; /* by a signal handler: the writer finishes */
static bool claim_finish(void);
static void final_write(void);

/* ---- the writer thread ----------------------------------------------------------------- */

static void *writer_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* the program's signals are not for us */
	double next = now_s() + CHECKPOINT_MS / 1000.0;
	for (;;) {
		double t = now_s();
		double wait = next - t;
		if (!g.enabled && !g.stopped_by_duration && g.delay_s > 0 && g.t0 + g.delay_s - t < wait)
			wait = g.t0 + g.delay_s - t;
		if (g.enabled && g.duration_s > 0 && g.t0 + g.delay_s + g.duration_s - t < wait)
			wait = g.t0 + g.delay_s + g.duration_s - t;
		struct pollfd p = { g.wake[0], POLLIN, 0 };
		int ms = wait <= 0 ? 0 : (int)(wait * 1000) + 1;
		if (poll(&p, 1, ms) > 0) {
			char b[64];
			if (read(g.wake[0], b, sizeof b) < 0) {
				/* nothing: the byte only wakes us */
			}
		}
		if (finish_requested && claim_finish()) {
			final_write();
			return NULL;
		}
		t = now_s();
		pthread_mutex_lock(&g.lock);
		bool stop = g.stop;
		pthread_mutex_unlock(&g.lock);
		if (!stop && !g.enabled && !g.stopped_by_duration && g.delay_s > 0 && t >= g.t0 + g.delay_s)
			set_kinds(true);
		if (!stop && g.enabled && g.duration_s > 0 && t >= g.t0 + g.delay_s + g.duration_s) {
			set_kinds(false);
			g.stopped_by_duration = true;
			CHECK(cu.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
			drain();
			checkpoint();
		}
		drain();
		if (stop)
			break;
		if (t >= next || (g.out != NULL && out_pending(g.out) > PENDING_MAX)) {
			/* buffers CUPTI has filled come back through buffer_completed */
			if (g.enabled)
				CHECK(cu.cuptiActivityFlushAll(0));
			drain();
			checkpoint();
			next = t + CHECKPOINT_MS / 1000.0;
		}
	}
	return NULL;
}

/* ---- the end --------------------------------------------------------------------------- */

/* True for the one caller that is to write the end of the file. */
static bool claim_finish(void)
{
	pthread_mutex_lock(&g.lock);
	bool mine = g.initialised && !g.forked_child && !g.finishing;
	g.finishing = true;
	pthread_mutex_unlock(&g.lock);
	return mine;
}

/* Flushes CUPTI, writes the rest and the closing, closes the file; then tells a waiting
 * signal handler. */
static void final_write(void)
{
	if (g.enabled)
		CHECK(cu.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
	drain();
	pthread_mutex_lock(&g.lock);
	tw_flush_annotations(g.tw);
	pthread_mutex_unlock(&g.lock);
	checkpoint();
	pthread_mutex_lock(&g.lock);
	if (g.out != NULL) {
		if (out_close(g.out) != 0)
			say("%s may be incomplete: a write failed", g.path);
		g.out = NULL;
		unsigned long long dropped = atomic_load(&g.dropped);
		if (dropped > 0)
			say("%s: CUPTI dropped %llu records: the writer could not keep up (%u buffers of %u MB)",
			    g.path, dropped, MAX_BUFFERS, BUFFER_BYTES >> 20);
	}
	pthread_mutex_unlock(&g.lock);
	char c = 'f';
	if (g.finished[1] >= 0 && write(g.finished[1], &c, 1) < 0) {
		/* a handler waiting then waits out its time */
	}
}

/* exit(): the writer stops, and this thread writes the end. */
static void at_exit(void)
{
	if (!claim_finish())
		return;
	if (g.writer_started) {
		pthread_mutex_lock(&g.lock);
		g.stop = true;
		pthread_mutex_unlock(&g.lock);
		wake_writer();
		pthread_join(g.writer, NULL);
	}
	final_write();
}

/* The handler for a signal the program left to its default action: the writer thread is
 * asked to finish (this is not async-signal-safe work, so it runs there), and after it
 * has, or after FINISH_WAIT_MS, the signal takes its default action. A signal the
 * program handles itself goes to its handler: the program's own exit path flushes. */
static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	struct sigaction *old = &old_action[sig];
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction != NULL) {
			old->sa_sigaction(sig, info, uctx);
			return;
		}
	} else if (old->sa_handler == SIG_IGN) {
		return;
	} else if (old->sa_handler != SIG_DFL) {
		old->sa_handler(sig);
		return;
	}
	if (g.writer_started && !g.forked_child) {
		finish_requested = 1;
		char c = 'x';
		if (write(g.wake[1], &c, 1) >= 0 || errno == EAGAIN) {
			struct pollfd p = { g.finished[0], POLLIN, 0 };
			poll(&p, 1, FINISH_WAIT_MS);
		}
	}
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns and unblocks it */
}

static void install_signal_handlers(void)
{
	for (size_t i = 0; i < sizeof handled_signals / sizeof handled_signals[0]; i++) {
		int sig = handled_signals[i];
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, &old_action[sig]) != 0)
			continue;
		if (!(old_action[sig].sa_flags & SA_SIGINFO) && old_action[sig].sa_handler == SIG_IGN)
			sigaction(sig, &old_action[sig], NULL); /* ignored (nohup): stays ignored */
	}
}

/* A forked child has no writer thread and must not touch its parent's file. */
static void in_child(void)
{
	g.forked_child = true;
	g.out = NULL;
}

/* ---- contexts ------------------------------------------------------------------------ */

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
	(void)userdata;
	if (domain != CUPTI_CB_DOMAIN_RESOURCE || g.forked_child)
		return;
	const CUpti_ResourceData *rd = data;
	if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
		pthread_mutex_lock(&g.lock);
		g.contexts++;
		if (g.out == NULL && g.path == NULL && !g.finishing)
			open_output();
		pthread_mutex_unlock(&g.lock);
	} else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
		/* a context's records must be flushed before it goes */
		(void)rd;
		if (g.enabled)
			CHECK(cu.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
	}
}

/* ---- start ----------------------------------------------------------------------------- */

/* A TTRACE_RECORD_* value the recorder cannot take as given: said, naming it. The caller
 * then gives up (setup returns 0): recording other than was asked (at once instead of
 * after a delay, say) would be a wrong answer. */
static bool bad_setting(const char *name, const char *v, const char *want)
{
	say("%s=%s: %s", name, v, want);
	return false;
}

/* TTRACE_RECORD_DELAY or _DURATION into *S: unset or empty is 0 (none); else decimal seconds
 * as ttrace record takes them (record/settings.h), a duration more than 0. False when bad. */
static bool env_seconds(const char *name, bool positive, double *s)
{
	const char *v = getenv(name);
	*s = 0;
	if (v == NULL || *v == '\0')
		return true;
	if (!record_parse_seconds(v, s) || (positive && *s <= 0))
		return bad_setting(
			name, v,
			positive
				? "not seconds the recorder takes (decimal, more than 0, at most " RECORD_SECONDS_MAX_TEXT
				  ")"
				: "not seconds the recorder takes (decimal, at most " RECORD_SECONDS_MAX_TEXT ")");
	return true;
}

/* RANK, WORLD_SIZE or LOCAL_RANK: a decimal integer from 0 to INT_MAX; -1 when unset or
 * empty, and when bad, which is said: the launcher's value, not the recorder's, so the
 * recording goes on without it. */
static int env_int(const char *name)
{
	const char *v = getenv(name);
	if (v == NULL || *v == '\0')
		return -1;
	uintmax_t n;
	if (!record_parse_uint(v, INT_MAX, &n)) {
		say("%s=%s is not a number from 0 to %d: taken as not set", name, v, INT_MAX);
		return -1;
	}
	return (int)n;
}

/* TTRACE_RECORD_NO_API or _NO_NVTX into *ON: unset, empty or "0" is off, "1" on. False
 * when bad. */
static bool env_flag(const char *name, bool *on)
{
	const char *v = getenv(name);
	*on = v != NULL && strcmp(v, "1") == 0;
	if (v == NULL || *v == '\0' || strcmp(v, "0") == 0 || *on)
		return true;
	return bad_setting(name, v, "not 0 or 1");
}

/* TTRACE_RECORD_SKIP: a comma-separated list of the names of skippable[] into g.skip.
 * False when a name is unknown. */
static bool env_skip(void)
{
	const char *v = getenv("TTRACE_RECORD_SKIP");
	g.skip = 0;
	if (v == NULL)
		return true;
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",");
		bool known = n == 0;
		for (size_t i = 0; i < sizeof skippable / sizeof skippable[0] && !known; i++)
			if (strlen(skippable[i].name) == n && strncmp(p, skippable[i].name, n) == 0) {
				g.skip |= skippable[i].bit;
				known = true;
			}
		if (!known)
			return bad_setting("TTRACE_RECORD_SKIP", v,
			                   "not a list of runtime, driver, sync, overhead, memcpy, memset");
		p += n + (p[n] == ',');
	}
	return true;
}

/* TTRACE_RECORD_OUT_ID, DEV:INO in decimal (set by ttrace record -f for a FIFO or a
 * device to write into). False when bad. */
static bool env_out_id(void)
{
	const char *v = getenv("TTRACE_RECORD_OUT_ID");
	g.out_id_set = false;
	if (v == NULL || *v == '\0')
		return true;
	const char *colon = strchr(v, ':');
	char dev[32];
	if (colon == NULL || (size_t)(colon - v) >= sizeof dev)
		return bad_setting("TTRACE_RECORD_OUT_ID", v, "not DEVICE:INODE");
	memcpy(dev, v, (size_t)(colon - v));
	dev[colon - v] = '\0';
	if (!record_parse_uint(dev, UINTMAX_MAX, &g.out_dev) || !record_parse_uint(colon + 1, UINTMAX_MAX, &g.out_ino))
		return bad_setting("TTRACE_RECORD_OUT_ID", v, "not DEVICE:INODE");
	g.out_id_set = true;
	return true;
}

static char *env_dup(const char *name)
{
	const char *v = getenv(name);
	return v ? strdup(v) : NULL;
}

/* Where libcupti is looked for when TTRACE_CUPTI_LIB does not say: the one the build found
 * (not in the portable library quickstart.sh builds, which runs on other machines), then
 * the loader's search path, then CUDA toolkits' usual places. */
static const char *const cupti_candidates[] = {
#if defined(CUPTI_LIBRARY) && !defined(TTRACE_PORTABLE_RECORDER)
	CUPTI_LIBRARY,
#endif
	"libcupti.so",
	"libcupti.so.13",
	"libcupti.so.12",
	"libcupti.so.11.8",
	"/usr/local/cuda/lib64/libcupti.so",
	"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
};

static bool load_cupti(void)
{
	const char *lib = getenv("TTRACE_CUPTI_LIB");
	bool asked = lib != NULL && *lib != '\0';
	void *h = NULL;
	if (asked)
		h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	char first[512] = ""; /* the first candidate's failure: the others' say less */
	for (size_t i = 0; !asked && h == NULL && i < sizeof cupti_candidates / sizeof *cupti_candidates; i++) {
		lib = cupti_candidates[i];
		h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
		const char *e = h == NULL ? dlerror() : NULL;
		if (i == 0 && e != NULL)
			snprintf(first, sizeof first, "%s", e);
	}
	if (h == NULL && asked) {
		say("cannot load CUPTI (%s): %s; set TTRACE_CUPTI_LIB to libcupti.so's path", lib, dlerror());
		return false;
	}
	if (h == NULL) {
		say("cannot load CUPTI (%s; nor libcupti.so on the loader's path or under /usr/local/cuda); set "
		    "TTRACE_CUPTI_LIB to libcupti.so's path",
		    first);
		return false;
	}
#define X(f)                                                                   \
	*(void **)&cu.f = dlsym(h, #f);                                        \
	if (cu.f == NULL) {                                                    \
		say("%s has no %s: not a CUPTI this recorder knows", lib, #f); \
		return false;                                                  \
	}
	CUPTI_FUNCS(X)
#undef X
	return true;
}

/* CUPTI's clock against CLOCK_REALTIME, as Kineto does, so that the files of several
 * processes and ranks line up: the smallest bracket of a few readings. */
static int64_t clock_offset(void)
{
	int64_t best = 0, best_span = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		struct timespec a, b;
		uint64_t c = 0;
		clock_gettime(CLOCK_REALTIME, &a);
		cu.cuptiGetTimestamp(&c);
		clock_gettime(CLOCK_REALTIME, &b);
		int64_t ta = (int64_t)a.tv_sec * 1000000000 + a.tv_nsec,
			tb = (int64_t)b.tv_sec * 1000000000 + b.tv_nsec;
		if (tb - ta < best_span) {
			best_span = tb - ta;
			best = ta + (tb - ta) / 2 - (int64_t)c;
		}
	}
	return best;
}

static int setup(void)
{
	g.out_setting = env_dup("TTRACE_RECORD_OUT");
	g.manifest = env_dup("TTRACE_RECORD_MANIFEST");
	if (!env_out_id() || !env_seconds("TTRACE_RECORD_DELAY", false, &g.delay_s) ||
	    !env_seconds("TTRACE_RECORD_DURATION", true, &g.duration_s) ||
	    !env_flag("TTRACE_RECORD_NO_API", &g.no_api) || !env_flag("TTRACE_RECORD_NO_NVTX", &g.no_nvtx) ||
	    !env_skip())
		return 0;
	g.rank = env_int("RANK");
	g.t0 = now_s();
	if (!load_cupti())
		return 0;
	if (pipe2(g.wake, O_CLOEXEC | O_NONBLOCK) != 0 || pipe2(g.finished, O_CLOEXEC | O_NONBLOCK) != 0) {
		say("cannot make a pipe: %s", strerror(errno));
		return 0;
	}

	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	char *pname = process_name();
	struct tw_options opt = {
		.base_ns = (uint64_t)rt.tv_sec * 1000000000u, /* the second recording began */
		.clock_offset_ns = clock_offset(),
		.pid = (uint32_t)getpid(),
		.process_name = pname,
		.hostname = host,
		.rank = g.rank,
		.world_size = env_int("WORLD_SIZE"),
		.local_rank = env_int("LOCAL_RANK"),
		.no_api = g.no_api,
		.callback_name = callback_name,
		.thread_name = thread_name,
		.demangle = demangle,
	};
	g.tw = tw_new(&opt);
	free(pname);

	CHECK(cu.cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
	CUptiResult r = cu.cuptiSubscribe(&g.subscriber, (CUpti_CallbackFunc)on_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		/* CUPTI allows one subscriber: Nsight Systems or another profiler may have it */
		say("cannot subscribe to CUPTI (%s): is another profiler attached? nothing will be recorded",
		    result_string(r));
		return 0;
	}
	CHECK(cu.cuptiEnableDomain(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE));
	CHECK(cu.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
	/* devices and contexts from the start, whatever the delay: they name the rest */
	CHECK(cu.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE));
	CHECK(cu.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONTEXT));
	if (g.delay_s <= 0)
		set_kinds(true);

	pthread_mutex_lock(&g.lock);
	g.initialised = true;
	pthread_mutex_unlock(&g.lock);
	if (pthread_create(&g.writer, NULL, writer_main, NULL) != 0) {
		say("cannot start the writer thread: %s", strerror(errno));
		return 0;
	}
	g.writer_started = true;
	pthread_atfork(NULL, NULL, in_child);
	atexit(at_exit);
	install_signal_handlers();
	return 1;
}

/* The CUDA driver's entry point. Returns 1: a recorder that cannot record says why and
 * lets the program run as it would have. */
static void init_once(void)
{
	if (!setup())
		say("the program runs unrecorded");
}

__attribute__((visibility("default"))) int InitializeInjection(void);
int InitializeInjection(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, init_once);
	return 1;
}
