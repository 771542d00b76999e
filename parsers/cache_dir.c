/* cache_dir.c: finding, reading, writing and trimming the binary caches of trace files
 * (see cache_dir.h), and giving a trace read from one its args store back. */
#include "parsers/cache_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "lib/test_knobs.h"
#include "lib/checksum.h"
#include "lib/xalloc.h"
#include "parsers/input.h"
#include "parsers/seekindex.h"
#include "src/args_side.h"

#define EDGE_BYTES ((size_t)64 << 10)
/* a temporary file this old belongs to a writer that died */
#define STALE_TMP_SECONDS 3600
/* the writer thread's niceness (Linux: per thread) */
#define SAVE_NICE 10

static bool disabled;

void cache_dir_disable(void) { disabled = true; }

static bool env_off(void)
{
	const char *e = getenv("TTRACE_NO_CACHE");
	return e != NULL && e[0] != '\0' && strcmp(e, "0") != 0;
}

/* A byte count such as 20G, 500M, 64k or 1048576; -1 when it is not one. */
static int64_t parse_bytes(const char *s)
{
	char *end;
	unsigned long long v;
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	int shift = 0;
	switch (*end) {
	/* clang-format off */
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
		/* clang-format on */
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || v > (unsigned long long)INT64_MAX >> shift)
		return -1;
	return (int64_t)(v << shift);
}

/* The directory the cache directory goes in: $XDG_CACHE_HOME, else ~/.cache (allocated). */
static char *cache_base(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg != NULL && xdg[0] == '/') /* the spec: a relative value is ignored */
		return xstrdup(xdg);
	if (home != NULL && home[0] != '\0')
		return xasprintf("%s/.cache", home);
	return NULL;
}

char *cache_dir_path(void)
{
	char *base = cache_base(), *dir;
	struct stat sb;
	if (base == NULL)
		return NULL;
	/* a base that is not this user's (a shared scratch directory): a subdirectory of
	 * the user's own in it, so that no one else's ttrace directory is ever used */
	if (stat(base, &sb) == 0 && sb.st_uid != geteuid())
		dir = xasprintf("%s/ttrace-%lu", base, (unsigned long)geteuid());
	else
		dir = xasprintf("%s/ttrace", base);
	free(base);
	return dir;
}

#define TRUST_HINT \
	"; caches are used only in a directory that is yours and that nobody else can write (SECURITY in ttrace(1))"

/* Why the directory DIR cannot be trusted with caches (allocated), or NULL when it can: it
 * must be a directory of this user's that neither its group nor others can write, and
 * every directory above it must belong to this user or to root and be writable by no one
 * else, unless it has the sticky bit (as /tmp: others cannot rename or remove what is
 * not theirs in it). *MISSING: DIR does not exist (then NULL). As ssh checks its keys. */
static char *untrusted_dir(const char *dir, bool *missing)
{
	char *real = realpath(dir, NULL), *why = NULL;
	struct stat sb;
	uid_t me = geteuid();

	*missing = false;
	if (real == NULL) {
		if (errno == ENOENT || errno == ENOTDIR) { /* not there (yet): nothing to trust */
			*missing = true;
			return NULL;
		}
		return xasprintf("the cache directory %s cannot be checked: %s", dir, strerror(errno));
	}
	if (lstat(real, &sb) != 0 || !S_ISDIR(sb.st_mode))
		why = xasprintf("the cache directory %s is not a directory" TRUST_HINT, dir);
	else if (sb.st_uid != me)
		why = xasprintf("the cache directory %s belongs to user %lu, not to you (user %lu)" TRUST_HINT, dir,
		                (unsigned long)sb.st_uid, (unsigned long)me);
	else if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		why = xasprintf("the cache directory %s can be written by %s (mode %04o)" TRUST_HINT, dir,
		                (sb.st_mode & S_IWOTH) ? "anyone" : "its group", (unsigned)(sb.st_mode & 07777));
	for (char *slash = strrchr(real, '/'); why == NULL && slash != NULL; slash = strrchr(real, '/')) {
		if (slash == real)
			slash[1] = '\0'; /* the root */
		else
			*slash = '\0';
		if (lstat(real, &sb) != 0)
			why = xasprintf("%s, above the cache directory %s, cannot be checked: %s", real, dir,
			                strerror(errno));
		else if (sb.st_uid != me && sb.st_uid != 0)
			why = xasprintf("%s, above the cache directory %s, belongs to user %lu" TRUST_HINT, real, dir,
			                (unsigned long)sb.st_uid);
		else if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (sb.st_mode & S_ISVTX) == 0)
			why = xasprintf(
				"%s, above the cache directory %s, can be written by %s and has no sticky bit (mode "
				"%04o)" TRUST_HINT,
				real, dir, (sb.st_mode & S_IWOTH) ? "anyone" : "its group",
				(unsigned)(sb.st_mode & 07777));
		if (real[1] == '\0')
			break;
	}
	free(real);
	return why;
}

/* untrusted_dir, remembering the last directory found trusted: a directory of many ranks
 * checks it once (only the user and root can make a trusted directory untrusted). */
static char *untrusted_dir_once(const char *dir, bool *missing)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char *trusted;
	char *why;

	pthread_mutex_lock(&lock);
	if (trusted != NULL && strcmp(trusted, dir) == 0) {
		pthread_mutex_unlock(&lock);
		*missing = false;
		return NULL;
	}
	pthread_mutex_unlock(&lock);
	why = untrusted_dir(dir, missing);
	if (why == NULL && !*missing) {
		pthread_mutex_lock(&lock);
		free(trusted);
		trusted = xstrdup(dir);
		pthread_mutex_unlock(&lock);
	}
	return why;
}

/* Why the cache file open on FD (FILE) cannot be trusted, or NULL: it must be a regular
 * file of this user's that neither its group nor others can write. */
static char *untrusted_file(int fd, const char *file)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0)
		return xasprintf("its cache %s cannot be checked: %s", file, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return xasprintf("its cache %s is not a regular file", file);
	if (sb.st_uid != geteuid())
		return xasprintf("its cache %s belongs to user %lu, not to you (user %lu)" TRUST_HINT, file,
		                 (unsigned long)sb.st_uid, (unsigned long)geteuid());
	if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0)
		return xasprintf("its cache %s can be written by %s (mode %04o)" TRUST_HINT, file,
		                 (sb.st_mode & S_IWOTH) ? "anyone" : "its group", (unsigned)(sb.st_mode & 07777));
	return NULL;
}

int cache_dir_check_env(char **msg)
{
	static const char *const names[] = { "TTRACE_CACHE_MAX", "TTRACE_CACHE_MIN" };
	if (disabled || env_off())
		return 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const char *v = getenv(names[i]);
		if (v != NULL && v[0] != '\0' && parse_bytes(v) < 0) {
			*msg = xasprintf("%s='%s' is not a byte count: a whole number with an optional K, M, G or T "
			                 "(powers of 1024), such as 500M or 20G",
			                 names[i], v);
			return -1;
		}
	}
	return 0;
}

bool cache_dir_readable(const char *path)
{
	struct stat sb;
	return !disabled && !env_off() && strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

bool cache_dir_wanted(const char *path, bool force)
{
	struct stat sb;
	if (!cache_dir_readable(path) || stat(path, &sb) != 0)
		return false;
	int64_t min = parse_bytes(getenv("TTRACE_CACHE_MIN"));
	return force || (uint64_t)sb.st_size >= (min >= 0 ? (uint64_t)min : CACHE_DIR_DEFAULT_MIN);
}

bool cache_dir_is_other(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
}

int cache_dir_key(const char *path, struct cache_key *key, char **cause)
{
	char *real = realpath(path, NULL);
	struct stat sb;
	int fd;

	memset(key, 0, sizeof *key);
	if (real == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		*cause =
			fd < 0 ? xasprintf("%s: %s", path, strerror(errno)) : xasprintf("%s: not a regular file", path);
		if (fd >= 0)
			close(fd);
		free(real);
		return -1;
	}
	key->path_hash = checksum64(real, strlen(real), 0);
	key->size = (uint64_t)sb.st_size;
	key->dev = (uint64_t)sb.st_dev;
	key->ino = (uint64_t)sb.st_ino;
	key->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	key->ctime_ns = (int64_t)sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec;
	/* the head and the tail: what an in-place rewrite of the same size and time changes */
	char *buf = xmalloc(EDGE_BYTES);
	uint64_t h = key->size;
	for (int part = 0; part < 2; part++) {
		uint64_t at = part == 0 || key->size < EDGE_BYTES ? 0 : key->size - EDGE_BYTES;
		ssize_t n = input_pread_fd(fd, buf, EDGE_BYTES, at);
		if (n < 0) {
			*cause = xasprintf("%s: %s", path, strerror(errno));
			free(buf);
			free(real);
			close(fd);
			return -1;
		}
		h = checksum64(buf, (size_t)n, h);
	}
	key->edge_hash = h;
	free(buf);
	free(real);
	close(fd);
	return 0;
}

void cache_dir_key_rank(struct cache_key *key, int32_t pos)
{
	uint64_t mix[3] = { key->path_hash, 0x6d65726765645f72ull /* "merged_r" */, (uint64_t)(uint32_t)pos };
	key->path_hash = checksum64(mix, sizeof mix, 0);
}

/* The cache file of the input with KEY, named after PATH's base name (allocated). */
static char *cache_file(const char *dir, const char *path, const struct cache_key *key)
{
	const char *base = strrchr(path, '/');
	char name[41];
	size_t n = 0;
	uint64_t id[3] = { key->path_hash, key->dev, key->ino };

	for (base = base != NULL ? base + 1 : path; *base != '\0' && n < sizeof name - 1; base++) {
		char c = *base;
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		             c == '_' || (c == '.' && n > 0);
		name[n++] = plain ? c : '_';
	}
	name[n] = '\0';
	return xasprintf("%s/%s-%016llx.ttc", dir, name, (unsigned long long)checksum64(id, sizeof id, 0));
}

void cache_dir_restore_args(struct trace *t, const struct cache_key *key, const char *blob, size_t len)
{
	struct input_file id = { key->dev, key->ino, key->size, key->mtime_ns, key->ctime_ns };
	if (len >= 1 && blob[0] == ARGS_SAVED_FILE && len == 1) {
		t->args = seek_store_new(t->path, &id, NULL);
		return;
	}
	if (len >= 1 && blob[0] == ARGS_SAVED_SEEK) {
		struct seek_index *x = seek_index_restore(blob + 1, len - 1);
		if (x != NULL) {
			t->args = seek_store_new(t->path, &id, x);
			return;
		}
	}
	if (len >= 1 && blob[0] == ARGS_SAVED_SIDE) {
		struct args_side *s = args_side_restore(blob + 1, len - 1);
		if (s != NULL) {
			t->args = args_side_store(s);
			return;
		}
	}
	t->args = args_store_unavailable("the args of this trace were not kept in its cache: open it with --no-cache "
	                                 "to read them");
}

struct trace *cache_dir_open(const char *path, const struct cache_key *key, char **note, bool *damaged)
{
	char *dir = cache_dir_path(), *file, *cause = NULL;
	const void *blob;
	size_t blob_len;
	int fd, why;
	bool missing;
	struct trace *t;

	*note = NULL;
	*damaged = false;
	if (dir == NULL)
		return NULL;
	if ((cause = untrusted_dir_once(dir, &missing)) != NULL || missing) {
		/* a directory someone else can write: its caches could say anything */
		*note = cause;
		*damaged = cause != NULL;
		free(dir);
		return NULL;
	}
	file = cache_file(dir, path, key);
	free(dir);
	/* O_NOFOLLOW: a link in the directory is not followed elsewhere */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		if (errno != ENOENT) {
			*note = xasprintf(errno == ELOOP ? "its cache %s is a symbolic link"
			                                 : "its cache %s cannot be opened: %s",
			                  file, strerror(errno));
			*damaged = true;
		}
		free(file);
		return NULL;
	}
	if ((cause = untrusted_file(fd, file)) != NULL) {
		*note = cause;
		*damaged = true;
		close(fd);
		free(file);
		return NULL;
	}
	t = cache_read(fd, path, key, &blob, &blob_len, &cause, &why);
	if (t == NULL) {
		*damaged = why == CACHE_DAMAGED;
		*note = xasprintf(*damaged ? "its cache %s was damaged (%s)" : "its cache %s was out of date (%s)",
		                  file, cause);
		free(cause);
		close(fd);
		free(file);
		return NULL;
	}
	cache_dir_restore_args(t, key, blob, blob_len);
	t->regular = true;
	t->file_dev = key->dev;
	t->file_ino = key->ino;
	/* used now: the least recently used caches go first when the directory is trimmed */
	futimens(fd, NULL);
	close(fd);
	free(file);
	return t;
}

static int mkdir_p(const char *dir)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST)
			rc = -1;
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

/* The cap on the directory's bytes: TTRACE_CACHE_MAX, else 10% of its file system, at
 * most CACHE_DIR_DEFAULT_MAX. */
static uint64_t cap_bytes(const char *dir)
{
	int64_t v = parse_bytes(getenv("TTRACE_CACHE_MAX"));
	struct statvfs vfs;
	if (v >= 0)
		return (uint64_t)v;
	if (statvfs(dir, &vfs) == 0) {
		uint64_t tenth = (uint64_t)vfs.f_blocks * vfs.f_frsize / 10;
		if (tenth > 0 && tenth < CACHE_DIR_DEFAULT_MAX)
			return tenth;
	}
	return CACHE_DIR_DEFAULT_MAX;
}

/* ---- temporary files: removed on SIGINT, SIGTERM and SIGHUP ---------------------------- */

#define MAX_LIVE_TMP 64
/* slot states: 0 free, 1 being filled, 2 holds a live temporary's path */
static _Atomic int live_state[MAX_LIVE_TMP];
static char live_path[MAX_LIVE_TMP][PATH_MAX];

static int live_add(const char *path)
{
	if (strlen(path) >= PATH_MAX)
		return -1;
	for (int i = 0; i < MAX_LIVE_TMP; i++) {
		int free_slot = 0;
		if (atomic_compare_exchange_strong(&live_state[i], &free_slot, 1)) {
			strcpy(live_path[i], path);
			atomic_store(&live_state[i], 2);
			return i;
		}
	}
	return -1;
}

static void live_remove(int slot)
{
	if (slot >= 0)
		atomic_store(&live_state[slot], 0);
}

void cache_dir_remove_temporaries(void)
{
	for (int i = 0; i < MAX_LIVE_TMP; i++)
		if (atomic_load(&live_state[i]) == 2)
			unlink(live_path[i]); /* async-signal-safe */
}

static void on_fatal_signal(int sig)
{
	int saved = errno;
	cache_dir_remove_temporaries();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

void cache_dir_guard_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 ||
		    old.sa_handler != SIG_DFL)
			continue; /* ignored, or someone else's: leave it */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

/* The name of a temporary file for FILE: .BASE.tmp.HOST.PID.XXXXXX in its directory, so
 * that a later trim can tell one whose writer is gone (allocated). */
static char *tmp_template(const char *dir, const char *file)
{
	char host[64];
	if (gethostname(host, sizeof host) != 0)
		host[0] = '\0';
	host[sizeof host - 1] = '\0';
	for (char *c = host; *c != '\0'; c++)
		if (*c == '.' || *c == '/')
			*c = '_';
	return xasprintf("%s/.%s.tmp.%s.%ld.XXXXXX", dir, strrchr(file, '/') + 1, host, (long)getpid());
}

/* Replaces the trailing XXXXXX of TMP by six random letters and digits, as mkstemp does. */
static void fill_random_suffix(char *tmp)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static _Atomic uint64_t counter;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
	             (atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull);
	size_t n = strlen(tmp);
	for (size_t i = n >= 6 ? n - 6 : 0; i < n; i++) {
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdull;
		x ^= x >> 29;
		tmp[i] = set[x % (sizeof set - 1)];
	}
}

/* Whether the temporary file NAME (.BASE.tmp.HOST.PID.XXXXXX) was left by a process of this
 * host that is gone. */
static bool tmp_writer_gone(const char *name)
{
	const char *t = strstr(name, ".tmp."), *dot;
	char host[64];
	size_t hl;
	if (t == NULL)
		return false;
	t += 5;
	/* the PID is the field before the last (the XXXXXX) */
	const char *last = strrchr(t, '.');
	if (last == NULL || last == t)
		return false;
	dot = last - 1;
	while (dot > t && *dot != '.')
		dot--;
	if (*dot != '.')
		return false;
	hl = (size_t)(dot - t);
	if (gethostname(host, sizeof host) != 0)
		return false;
	host[sizeof host - 1] = '\0';
	for (char *c = host; *c != '\0'; c++)
		if (*c == '.' || *c == '/')
			*c = '_';
	if (strlen(host) != hl || memcmp(host, t, hl) != 0)
		return false;
	char *end;
	errno = 0;
	long pid = strtol(dot + 1, &end, 10);
	if (errno != 0 || end != last || pid <= 0 || pid > INT_MAX)
		return false;
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

struct entry {
	char *path;
	uint64_t bytes;
	int64_t used_ns;
};

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->used_ns < y->used_ns ? -1 : x->used_ns > y->used_ns ? 1 : strcmp(x->path, y->path);
}

/* Trims DIR to its cap after KEEP (the cache just written, KEEP_BYTES long) came in:
 * temporary files whose writer is gone (a process of this host that no longer runs, or
 * older than an hour) are removed, those still being written count against the cap; if
 * KEEP alone does not fit beside them it is removed and nothing else is; else the least
 * recently used caches go until the directory fits. Returns -1 when KEEP had to go. */
static int trim(const char *dir, const char *keep, uint64_t keep_bytes, uint64_t *cap_out)
{
	DIR *d = opendir(dir);
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0, busy = 0, max = cap_bytes(dir);
	struct dirent *de;
	time_t now = time(NULL);
	int rc = 0;

	*cap_out = max;
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		struct stat sb;
		char *p;
		bool tmp = de->d_name[0] == '.' && strstr(de->d_name, ".tmp.") != NULL;
		if (!tmp && (l < 5 || strcmp(de->d_name + l - 4, ".ttc") != 0 || de->d_name[0] == '.'))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			free(p);
			continue;
		}
		if (tmp) {
			if (now - sb.st_mtime > STALE_TMP_SECONDS || tmp_writer_gone(de->d_name)) {
				if (unlink(p) != 0)
					busy += (uint64_t)sb.st_size;
			} else {
				busy += (uint64_t)sb.st_size; /* another writer's, still growing */
			}
			free(p);
			continue;
		}
		if (strcmp(p, keep) == 0) { /* counted as KEEP_BYTES */
			free(p);
			continue;
		}
		if (n == cap)
			e = xreallocarray(e, cap = cap ? cap * 2 : 64, sizeof *e);
		e[n++] = (struct entry){ p, (uint64_t)sb.st_size,
			                 (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec };
		total += (uint64_t)sb.st_size;
	}
	closedir(d);
	if (keep_bytes > max || busy > max - keep_bytes) {
		/* it cannot fit whatever goes: give it up, not the others */
		unlink(keep);
		rc = -1;
	} else {
		if (n > 0)
			qsort(e, n, sizeof *e, by_use);
		total += busy + keep_bytes;
		for (size_t i = 0; i < n && total > max; i++)
			if (unlink(e[i].path) == 0)
				total -= e[i].bytes;
	}
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
	return rc;
}

/* Renames TMP to FILE only when FILE is a regular file or absent: a directory, a FIFO, a
 * device or a link put at FILE's name is never replaced. */
static int rename_over_regular(const char *tmp, const char *file, char **cause)
{
	struct stat sb;
	if (lstat(file, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		*cause = xasprintf("%s exists and is not a regular file: not replaced", file);
		return -1;
	}
	if (rename(tmp, file) != 0) {
		*cause = xasprintf("cannot rename the cache into %s: %s", file, strerror(errno));
		return -1;
	}
	return 0;
}

static char *human_bytes(uint64_t b)
{
	if (b >= (uint64_t)1 << 30)
		return xasprintf("%.1f GiB", (double)b / (double)((uint64_t)1 << 30));
	if (b >= (uint64_t)1 << 20)
		return xasprintf("%.1f MiB", (double)b / (double)((uint64_t)1 << 20));
	return xasprintf("%.1f KiB", (double)b / 1024.0);
}

int cache_dir_save(const struct trace *t, const struct cache_key *key, char **cause)
{
	char *dir = cache_dir_path(), *file, *tmp, *blob, *why;
	struct cache_key now_key;
	struct stat sb;
	size_t blob_len;
	int fd, rc, slot;
	bool missing;

	if (dir == NULL) {
		*cause = xstrdup("no cache directory: neither XDG_CACHE_HOME nor HOME is set");
		return -1;
	}
	if (cache_dir_check_env(cause) != 0) {
		free(dir);
		return -1;
	}
	if (cache_dir_key(t->path, &now_key, cause) < 0) {
		free(dir);
		return -1;
	}
	if (t->merged)
		cache_dir_key_rank(&now_key, t->merged_pos); /* one rank of a merged trace */
	if (memcmp(&now_key, key, sizeof now_key) != 0) {
		*cause = xasprintf("%s changed while it loaded: not cached", t->path);
		free(dir);
		return -1;
	}
	if (mkdir_p(dir) != 0) {
		*cause = xasprintf("cannot create the cache directory %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	if ((why = untrusted_dir(dir, &missing)) != NULL || missing) {
		*cause = why != NULL ? why : xasprintf("the cache directory %s went away", dir);
		free(dir);
		return -1;
	}
	file = cache_file(dir, t->path, key);
	tmp = tmp_template(dir, file);
	/* the name is registered for removal before the file exists (a signal between a
	 * mkstemp and the registration left it behind): unlinking a name not yet created is
	 * harmless */
	fd = -1;
	slot = -1;
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		fill_random_suffix(tmp);
		slot = live_add(tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			int e = errno;
			live_remove(slot);
			slot = -1;
			errno = e;
			if (e != EEXIST)
				break;
		}
	}
	if (fd < 0) {
		*cause = xasprintf("cannot write in the cache directory %s: %s", dir, strerror(errno));
		free(tmp);
		free(file);
		free(dir);
		return -1;
	}
	/* a test hook (tests/cache_trust.sh): a writer that takes this long, to be interrupted */
	if (test_knobs().cache_stall_s > 0)
		sleep(test_knobs().cache_stall_s);
	blob = args_store_save(t->args, &blob_len);
	rc = cache_write(fd, t, key, blob, blob_len, cause);
	free(blob);
	if (rc == 0 && fstat(fd, &sb) != 0) {
		*cause = xasprintf("cannot write the cache %s: %s", tmp, strerror(errno));
		rc = -1;
	}
	if (close(fd) != 0 && rc == 0) {
		*cause = xasprintf("cannot write the cache %s: %s", tmp, strerror(errno));
		rc = -1;
	}
	if (rc == 0)
		rc = rename_over_regular(tmp, file, cause);
	if (rc != 0)
		unlink(tmp);
	live_remove(slot);
	uint64_t max;
	if (rc == 0 && trim(dir, file, (uint64_t)sb.st_size, &max) != 0) {
		char *size = human_bytes((uint64_t)sb.st_size), *cap = human_bytes(max);
		*cause = xasprintf(
			"the cache (%s) does not fit in the cache directory's cap (%s, TTRACE_CACHE_MAX%s)", size, cap,
			getenv("TTRACE_CACHE_MAX") != NULL ? ""
							   : " not set: a tenth of its file system, at most 20 GiB");
		free(size);
		free(cap);
		rc = -1;
	}
	free(tmp);
	free(file);
	free(dir);
	return rc;
}

struct cache_save {
	pthread_t thread;
	struct trace *t;
	struct cache_key key;
	char *cause;
	int rc;
};

static void *save_main(void *arg)
{
	struct cache_save *s = arg;
	/* behind the first frame and the report, which run beside it on the other core: at
	 * the same priority the writer slowed the first frame (bench/RESULTS.md, "Binary
	 * cache") */
	setpriority(PRIO_PROCESS, (id_t)gettid(), SAVE_NICE);
	s->rc = cache_dir_save(s->t, &s->key, &s->cause);
	return NULL;
}

static void finish_save(struct trace *t)
{
	struct cache_save *s = t->cache_save;
	pthread_join(s->thread, NULL);
	t->cache = s->rc == 0 ? TRACE_CACHE_SAVED : TRACE_CACHE_NOT_SAVED;
	free(t->cache_note);
	t->cache_note = s->cause;
	free(s);
	t->cache_save = NULL;
	t->finish_cache_save = NULL;
}

void cache_dir_save_async(struct trace *t, const struct cache_key *key)
{
	struct cache_save *s = xcalloc(1, sizeof *s);
	sigset_t all, old;
	int e;

	s->t = t;
	s->key = *key;
	/* the thread takes no signals: the UI's handlers run on the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&s->thread, NULL, save_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) { /* no thread: write it now */
		save_main(s);
		t->cache = s->rc == 0 ? TRACE_CACHE_SAVED : TRACE_CACHE_NOT_SAVED;
		t->cache_note = s->cause;
		free(s);
		return;
	}
	t->cache = TRACE_CACHE_SAVING;
	t->cache_save = s;
	t->finish_cache_save = finish_save;
}
