/* cache_dir.c: finding, reading, writing and trimming the binary caches of trace files
 * (see cache_dir.h), and giving a trace read from one its args store back. */
#include "parsers/cache_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

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
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || v > (unsigned long long)INT64_MAX >> shift)
		return -1;
	return (int64_t)(v << shift);
}

char *cache_dir_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg != NULL && xdg[0] == '/') /* the spec: a relative value is ignored */
		return xasprintf("%s/ttrace", xdg);
	if (home != NULL && home[0] != '\0')
		return xasprintf("%s/.cache/ttrace", home);
	return NULL;
}

bool cache_dir_wanted(const char *path, bool force)
{
	struct stat sb;
	if (disabled || env_off() || strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
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
		*cause = fd < 0 ? xasprintf("%s: %s", path, strerror(errno)) : xasprintf("%s: not a regular file", path);
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

/* Gives T, read from a cache whose args store was saved as BLOB (in the mapping), a store. */
static void restore_args(struct trace *t, const struct cache_key *key, const char *blob, size_t len)
{
	struct input_file id = { key->dev, key->ino, key->size, key->mtime_ns };
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
	struct trace *t;

	*note = NULL;
	*damaged = false;
	if (dir == NULL)
		return NULL;
	file = cache_file(dir, path, key);
	free(dir);
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		free(file);
		return NULL;
	}
	t = cache_read(fd, path, key, &blob, &blob_len, &cause, &why);
	if (t == NULL) {
		*damaged = why == CACHE_DAMAGED;
		*note = xasprintf(*damaged ? "its cache %s was damaged (%s)" : "its cache %s was out of date (%s)", file,
		                  cause);
		free(cause);
		close(fd);
		free(file);
		return NULL;
	}
	restore_args(t, key, blob, blob_len);
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

/* Removes the least recently used caches of DIR until it holds at most its cap, never
 * KEEP (the one just written) unless it alone is over the cap; and temporary files left by
 * writers that died. Returns -1 when KEEP itself had to go. */
static int trim(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0, max = cap_bytes(dir);
	struct dirent *de;
	time_t now = time(NULL);
	int rc = 0;

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
			if (now - sb.st_mtime > STALE_TMP_SECONDS)
				unlink(p);
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
	qsort(e, n, sizeof *e, by_use);
	for (size_t i = 0; i < n && total > max; i++) {
		if (strcmp(e[i].path, keep) == 0)
			continue;
		if (unlink(e[i].path) == 0)
			total -= e[i].bytes;
	}
	if (total > max && unlink(keep) == 0)
		rc = -1;
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
	return rc;
}

int cache_dir_save(const struct trace *t, const struct cache_key *key, char **cause)
{
	char *dir = cache_dir_path(), *file, *tmp, *blob;
	struct cache_key now_key;
	size_t blob_len;
	int fd, rc;

	if (dir == NULL) {
		*cause = xstrdup("no cache directory: neither XDG_CACHE_HOME nor HOME is set");
		return -1;
	}
	if (cache_dir_key(t->path, &now_key, cause) < 0) {
		free(dir);
		return -1;
	}
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
	file = cache_file(dir, t->path, key);
	tmp = xasprintf("%s/.%s.tmp.XXXXXX", dir, strrchr(file, '/') + 1);
	fd = mkstemp(tmp);
	if (fd < 0) {
		*cause = xasprintf("cannot write in the cache directory %s: %s", dir, strerror(errno));
		free(tmp);
		free(file);
		free(dir);
		return -1;
	}
	blob = args_store_save(t->args, &blob_len);
	rc = cache_write(fd, t, key, blob, blob_len, cause);
	free(blob);
	if (close(fd) != 0 && rc == 0) {
		*cause = xasprintf("cannot write the cache %s: %s", tmp, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && rename(tmp, file) != 0) {
		*cause = xasprintf("cannot rename the cache into %s: %s", file, strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		unlink(tmp);
	else if (trim(dir, file) != 0) {
		*cause = xasprintf("the cache (%.0f MB) is bigger than the cache directory's cap (TTRACE_CACHE_MAX)",
		                   (double)t->bytes / 1e6);
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
	/* behind the first frame and the report, which run beside it on the other core:
	 * measured on 2 cores, the writer at the same priority slowed the 1 GB trace's first
	 * frame by a sixth (bench/RESULTS.md, "Binary cache") */
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
