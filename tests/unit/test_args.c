/* test_args.c: args read back through the trace's store: from plain, gzip (one member or
 * several) and zstd (one frame or several) files, equal to the plain file's; kept in
 * memory for a FIFO up to a bound, and said not kept past it; never read from another
 * file put in the loaded one's place, nor from one changed since. And the same through a
 * reader, which opens the file once for many reads. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "parsers/seekindex.h"
#include "parsers/args_json.h"
#include "src/args.h"
#include "parsers/load.h"
#include "lib/xalloc.h"
#include "tests/unit/compress.h"
#include "tests/unit/tap.h"

static char tmpdir[] = "/tmp/ttrace-test-args-XXXXXX";

static const char doc[] =
	"{\"traceEvents\": [\n"
	"  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5,\n"
	"   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 42, \"grid\": [4, 1, 1], \"note\": \"a \\\"q\\\" b\"}},\n"
	"  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 0,\n"
	"   \"args\": {\"bytes\": 8, \"memory bandwidth (GB/s)\": inf, \"x\": [nan, -inf]}},\n"
	"  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"noargs\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 50}\n"
	"]}\n";

static const struct slice *find(const struct trace *t, const char *name)
{
	for (uint32_t ti = 0; ti < t->ntracks; ti++)
		for (uint32_t i = 0; i < t->tracks[ti].nslices; i++)
			if (strcmp(strtab_get(&t->strings, slice_name(t, &t->tracks[ti].slices[i])), name) == 0)
				return &t->tracks[ti].slices[i];
	return NULL;
}

/* The args reference of slice S of T (0 for NULL). */
static uint64_t args_ref(const struct trace *t, const struct slice *s)
{
	for (uint32_t ti = 0; s != NULL && ti < t->ntracks; ti++)
		if (s >= t->tracks[ti].slices && s < t->tracks[ti].slices + t->tracks[ti].nslices)
			return slice_args(&t->tracks[ti], s);
	return 0;
}

static void check(const char *path, const char *what)
{
	struct load_options opt = { 0 };
	struct trace *t = load_trace(path, &opt);
	struct event_args a;
	char *cause = NULL;
	const struct slice *k = find(t, "k"), *m = find(t, "Memcpy HtoD"), *n = find(t, "noargs");

	ok(t->status == LOAD_OK && k && m && n, "%s: loads", what);
	if (!(k && m && n)) {
		trace_free(t);
		return;
	}
	ok(args_store_read(t, args_ref(t, k), &a, &cause) == 0 && a.json != NULL, "%s: kernel args read back", what);
	ok(cJSON_GetObjectItem(a.json, "correlation") && cJSON_GetObjectItem(a.json, "correlation")->valueint == 42,
	   "%s: correlation 42", what);
	ok(cJSON_GetArraySize(cJSON_GetObjectItem(a.json, "grid")) == 3, "%s: grid array", what);
	is_str(cJSON_GetStringValue(cJSON_GetObjectItem(a.json, "note")), "a \"q\" b", "%s: escaped string", what);
	ok(a.text[0] == '{' && a.text[strlen(a.text) - 1] == '}', "%s: raw text is the args object", what);
	event_args_free(&a);
	ok(args_store_read(t, args_ref(t, m), &a, &cause) == 0 && a.json != NULL, "%s: args with bare inf parse", what);
	is_int(a.nonfinite, 3, "%s: three non-finite tokens read as null", what);
	ok(strstr(a.text, "inf") != NULL, "%s: the raw text keeps inf", what);
	ok(cJSON_IsNull(cJSON_GetObjectItem(a.json, "memory bandwidth (GB/s)")), "%s: inf became null", what);
	event_args_free(&a);
	ok(args_store_read(t, args_ref(t, n), &a, &cause) < 0 && cause && strstr(cause, "no args"),
	   "%s: no args said so", what);
	free(cause);
	trace_free(t);
}

/* Loads a trace from a FIFO that a child writes DOC into. */
static struct trace *load_fifo(const char *fifo)
{
	struct load_options opt = { 0 };
	pid_t pid = fork();
	if (pid == 0) {
		FILE *w = fopen(fifo, "w");
		if (w != NULL) {
			fputs(doc, w);
			fclose(w);
		}
		_exit(0);
	}
	struct trace *t = load_trace(fifo, &opt);
	waitpid(pid, NULL, 0);
	return t;
}

/* A trace loaded from a FIFO: never reopened by its name (that would block); its args are
 * kept in memory while it loads, up to a bound past which it says they are not kept. */
static void test_fifo(void)
{
	char *fifo = xasprintf("%s/fifo", tmpdir);
	struct event_args a;
	char *cause = NULL;

	if (mkfifo(fifo, 0600) != 0) {
		ok(1, "# SKIP mkfifo failed");
		free(fifo);
		return;
	}
	struct trace *t = load_fifo(fifo);
	ok(t->status == LOAD_OK && !t->regular, "a FIFO loads, and is not a regular file");
	alarm(60); /* reopening the FIFO by name would block: fail rather than hang */
	int rc = args_store_read(t, args_ref(t, find(t, "k")), &a, &cause);
	alarm(0);
	ok(rc == 0 && a.json != NULL && cJSON_GetObjectItem(a.json, "correlation") != NULL,
	   "its args were kept while it loaded: %s", rc == 0 ? a.text : cause);
	ok(strcmp(t->args->kind, "in memory") == 0, "in the side store");
	if (rc == 0)
		event_args_free(&a);
	free(cause);
	cause = NULL;
	trace_free(t);

	/* past the bound (here 100 bytes of args text; the doc has about 180) */
	load_set_stdin_args_max(100);
	t = load_fifo(fifo);
	load_set_stdin_args_max(LOAD_STDIN_ARGS_MAX);
	rc = args_store_read(t, args_ref(t, find(t, "k")), &a, &cause);
	ok(t->status == LOAD_OK && rc < 0 && cause &&
	           strstr(cause, "args not kept for standard input or a pipe with over 100 bytes of args"),
	   "past the bound, args are said not kept: %s", cause ? cause : "(none)");
	free(cause);
	trace_free(t);
	unlink(fifo);
	free(fifo);
}

/* A file replaced (renamed over) after loading: not read back. */
static void test_replaced(const char *plain)
{
	struct load_options opt = { 0 };
	struct trace *t = load_trace(plain, &opt);
	char *other = xasprintf("%s/b.json", tmpdir), *cause = NULL;
	struct event_args a;
	FILE *f = fopen(other, "w");

	fputs(doc, f); /* the same bytes: only the file's identity differs */
	fclose(f);
	/* a reader that opened the file before keeps reading the one it opened */
	struct args_reader before, after;
	char *text = NULL;
	args_reader_init(&before, t);
	ok(args_reader_text(&before, args_ref(t, find(t, "k")), &text, &cause) == 0 && text[0] == '{',
	   "a reader reads the loaded file");
	free(text);
	text = NULL;
	rename(other, plain);
	int rc = args_store_read(t, args_ref(t, find(t, "k")), &a, &cause);
	ok(rc < 0 && cause && strstr(cause, "changed"), "a file renamed over the loaded one is not read: %s",
	   cause ? cause : "(none)");
	free(cause);
	cause = NULL;
	ok(args_reader_text(&before, args_ref(t, find(t, "k")), &text, &cause) == 0 && text != NULL &&
	           strstr(text, "\"correlation\": 42") != NULL,
	   "the reader opened before reads on from the file it opened");
	free(text);
	free(cause);
	cause = NULL;
	args_reader_end(&before);
	args_reader_init(&after, t);
	rc = args_reader_text(&after, args_ref(t, find(t, "k")), &text, &cause);
	ok(rc < 0 && text == NULL && cause && strstr(cause, "changed"),
	   "a reader begun after the rename does not read it either: %s", cause ? cause : "(none)");
	args_reader_end(&after);
	free(cause);
	trace_free(t);
	free(other);
}

/* A trace of N slices named e000000.., each with args of its own; *LEN its size. */
static char *make_trace(int n, size_t *len)
{
	size_t cap = (size_t)n * 200 + 64, at = 0;
	char *t = xmalloc(cap);
	uint32_t r = 99;
	at += (size_t)snprintf(t, cap, "{\"traceEvents\": [\n");
	for (int i = 0; i < n; i++) {
		r = r * 1103515245u + 12345u;
		at += (size_t)snprintf(t + at, cap - at,
		                       "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e%06d\", \"pid\": 1, "
		                       "\"tid\": %d, \"ts\": %d, \"dur\": 1, \"args\": {\"i\": %d, \"h\": "
		                       "\"%08x\", \"v\": [%u, %u]}}%s\n",
		                       i, 1 + i % 3, i * 2, i, r * 2654435761u, r >> 16, r & 0xffff,
		                       i + 1 < n ? "," : "");
	}
	at += (size_t)snprintf(t + at, cap - at, "]}\n");
	*len = at;
	return t;
}

static const struct slice *find_in(const struct trace *t, const char *name) { return find(t, name); }

/* Loads PATH and compares the args text of sample slices (the first, middle and last in
 * the file, and every 97th) with those of the plain trace REF. */
static void same_args(const struct trace *ref, const char *path, const char *what, const char *kind)
{
	struct load_options opt = { 0 };
	struct trace *t = load_trace(path, &opt);
	uint32_t n = ref->tracks[0].nslices, tried = 0, bad = 0;

	ok(t->status == LOAD_OK && t->args != NULL && strcmp(t->args->kind, kind) == 0, "%s: loads, store '%s' (%s)",
	   what, kind, t->args != NULL ? t->args->kind : "none");
	/* and through a reader: the file opened once, at its first read, kept to its end */
	struct args_reader reader;
	args_reader_init(&reader, t);
	uint32_t via_reader = 0, reader_bad = 0;
	int first_fd = -2;
	/* the 3 tracks are tids 1, 2, 3: slice i of e.g. track 0 is e{3i} */
	for (uint32_t ti = 0; ti < ref->ntracks; ti++) {
		n = ref->tracks[ti].nslices;
		for (uint32_t i = 0; i < n; i++) {
			if (!(i == 0 || i == n / 2 || i == n - 1 || i % 97 == 0))
				continue;
			const struct slice *rs = &ref->tracks[ti].slices[i];
			const char *name = strtab_get(&ref->strings, slice_name(ref, rs));
			const struct slice *s = find_in(t, name);
			struct event_args a, b;
			char *c1 = NULL, *c2 = NULL;
			int r1 = args_store_read(ref, args_ref(ref, rs), &a, &c1),
			    r2 = s != NULL ? args_store_read(t, args_ref(t, s), &b, &c2) : -1;
			tried++;
			if (r1 != 0 || r2 != 0 || strcmp(a.text, b.text) != 0) {
				bad++;
				printf("#   %s: %s differs: %s / %s\n", what, name, r1 == 0 ? a.text : c1,
				       r2 == 0 ? b.text
				       : c2    ? c2
				               : "(no slice)");
			}
			char *text = NULL, *c3 = NULL;
			int r3 = s != NULL ? args_reader_text(&reader, args_ref(t, s), &text, &c3) : -1;
			if (first_fd == -2)
				first_fd = reader.fd;
			via_reader++;
			if (r3 != 0 || r1 != 0 || strcmp(text, a.text) != 0 || reader.fd != first_fd)
				reader_bad++;
			free(text);
			free(c3);
			if (r1 == 0)
				event_args_free(&a);
			if (r2 == 0)
				event_args_free(&b);
			free(c1);
			free(c2);
		}
	}
	ok(tried > 20 && bad == 0,
	   "%s: args of %u slices (first, middle, last of each track...) equal the plain file's", what, tried);
	bool opens = strcmp(kind, "in memory") != 0;
	ok(via_reader == tried && reader_bad == 0 && (opens ? first_fd >= 0 : first_fd == -1),
	   "%s: the same %u through one reader, %s (%u differ)", what, via_reader,
	   opens ? "its file opened once" : "no file opened", reader_bad);
	args_reader_end(&reader);
	ok(reader.fd == -1, "%s: the reader's end closes its file", what);
	trace_free(t);
}

/* Every kind of compressed file and of store, against the plain file. */
static void test_stores(void)
{
	size_t n, zlen = 0;
	char *text = make_trace(15000, &n), *z = NULL, *path;
	struct load_options opt = { 0 };
	char *plain = xasprintf("%s/big.json", tmpdir);
	FILE *f = fopen(plain, "wb");

	fwrite(text, 1, n, f);
	fclose(f);
	/* small spans and frames, so that a 2.4 MB file has many points, and a 64 KB frame
	 * is the largest read back from the file */
	seek_set_limits(16 << 10, 64 << 10);
	struct trace *ref = load_trace(plain, &opt);
	ok(ref->status == LOAD_OK && ref->ntracks == 3 && strcmp(ref->args->kind, "file") == 0,
	   "plain: loads, read at offsets");

	gzip_member(text, n, 1, &z, &zlen);
	path = xasprintf("%s/one.json.gz", tmpdir);
	f = fopen(path, "wb");
	fwrite(z, 1, zlen, f);
	fclose(f);
	same_args(ref, path, "gzip, one member", "gzip checkpoints");
	unlink(path);
	free(path);

	zlen = 0;
	gzip_member(text, n / 3, 8, &z, &zlen);
	gzip_member(text + n / 3, n / 3, 1, &z, &zlen);
	gzip_member(text + 2 * (n / 3), n - 2 * (n / 3), 8, &z, &zlen);
	path = xasprintf("%s/three.json.gz", tmpdir);
	f = fopen(path, "wb");
	fwrite(z, 1, zlen, f);
	fclose(f);
	same_args(ref, path, "gzip, three members", "gzip checkpoints");
	unlink(path);
	free(path);

	zlen = 0;
	zstd_frame(text, n, &z, &zlen);
	path = xasprintf("%s/one.json.zst", tmpdir);
	f = fopen(path, "wb");
	fwrite(z, 1, zlen, f);
	fclose(f);
	same_args(ref, path, "zstd, one frame", "in memory");
	/* the same parsed in parts of the stream on several threads: their side stores append */
	setenv("TTRACE_PARTS", "3", 1);
	same_args(ref, path, "zstd, one frame, in 3 parts", "in memory");
	/* two threads for the three chunks: a thread parses a second chunk into the window and
	 * args buffers its first one left (scan_range.keep_window, args_side_keep_buffers) */
	setenv("TTRACE_PARTS", "2", 1);
	same_args(ref, path, "zstd, one frame, in 2 parts (buffers reused)", "in memory");
	unsetenv("TTRACE_PARTS");
	unlink(path);
	free(path);

	zlen = 0;
	for (size_t off = 0; off < n; off += 60000) {
		zstd_skippable(&z, &zlen);
		zstd_frame(text + off, off + 60000 <= n ? 60000 : n - off, &z, &zlen);
	}
	path = xasprintf("%s/frames.json.zst", tmpdir);
	f = fopen(path, "wb");
	fwrite(z, 1, zlen, f);
	fclose(f);
	same_args(ref, path, "zstd, frames of 60 KB", "zstd frames");

	/* a compressed file changed in place after loading (same bytes, new time): not read */
	{
		struct trace *t = load_trace(path, &opt);
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
		struct event_args a;
		char *cause = NULL;
		utimensat(AT_FDCWD, path, ts, 0);
		int rc = args_store_read(t, args_ref(t, find(t, "e007000")), &a, &cause);
		ok(rc < 0 && cause && strstr(cause, "changed"),
		   "zstd frames: a file modified since loading is not read: %s", cause ? cause : "(none)");
		free(cause);
		trace_free(t);
	}
	unlink(path);
	free(path);

	/* the legacy exporter's "args": {} on every event: nothing to read back, and the gzip
	 * checkpoints (a compressed window every span) are not kept */
	{
		size_t cap = 64 + 15000 * 120, len = 0;
		char *legacy = xmalloc(cap);
		len += (size_t)snprintf(legacy + len, cap - len, "[");
		for (int i = 0; i < 15000; i++)
			len += (size_t)snprintf(
				legacy + len, cap - len,
				"%s{\"name\": \"op%d\", \"ph\": \"X\", \"ts\": %d, \"dur\": 5, \"pid\": 1, "
				"\"tid\": 1, \"args\": {}}\n",
				i ? "," : "", i % 7, i * 10);
		len += (size_t)snprintf(legacy + len, cap - len, "]");
		zlen = 0;
		gzip_member(legacy, len, 6, &z, &zlen);
		path = xasprintf("%s/legacy.json.gz", tmpdir);
		f = fopen(path, "wb");
		fwrite(z, 1, zlen, f);
		fclose(f);
		struct trace *t = load_trace(path, &opt);
		struct event_args a;
		char *cause = NULL;
		ok(t->status == LOAD_OK && t->ntracks == 1 && t->tracks[0].nslices == 15000 &&
		           t->tracks[0].args == NULL,
		   "gzip, args {} everywhere: loads, no slice has args");
		ok(t->args != NULL && strcmp(t->args->kind, "not kept") == 0 && args_store_memory(t->args) < 1024,
		   "and no checkpoints are kept (%s, %llu bytes)", t->args ? t->args->kind : "none",
		   (unsigned long long)args_store_memory(t->args));
		int rc = args_store_read(t, args_ref(t, find(t, "op3")), &a, &cause);
		ok(rc < 0 && cause && strstr(cause, "no args"), "a slice says it has no args: %s",
		   cause ? cause : "(none)");
		free(cause);
		trace_free(t);
		unlink(path);
		free(path);
		free(legacy);
	}
	seek_set_limits(0, 0);

	trace_free(ref);
	unlink(plain);
	free(plain);
	free(z);
	free(text);
}

int main(void)
{
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	char *plain = xasprintf("%s/a.json", tmpdir), *gz = xasprintf("%s/a.json.gz", tmpdir);
	FILE *f = fopen(plain, "w");
	fputs(doc, f);
	fclose(f);
	gzFile g = gzopen(gz, "wb");
	gzwrite(g, doc, (unsigned)strlen(doc));
	gzclose(g);
	check(plain, "plain");
	check(gz, "gzip");
	test_fifo();
	test_replaced(plain);
	test_stores();

	/* a same-size rewrite that puts the modification time back (touch -r, rsync -t
	 * --inplace): the status change time moved, so the file is not read as the one loaded */
	{
		struct load_options o = { 0 };
		struct trace *t = load_trace(gz, &o);
		struct stat sb;
		struct event_args a;
		char *cause = NULL, buf[65536];
		size_t n;
		stat(gz, &sb);
		FILE *gf = fopen(gz, "r+b");
		n = fread(buf, 1, sizeof buf, gf);
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL); /* past the clock's tick */
		rewind(gf);
		fwrite(buf, 1, n, gf);
		fclose(gf);
		struct timespec ts[2] = { sb.st_atim, sb.st_mtim };
		utimensat(AT_FDCWD, gz, ts, 0);
		int rc = args_store_read(t, args_ref(t, find(t, "k")), &a, &cause);
		ok(rc < 0 && cause && strstr(cause, "changed"),
		   "gzip: the same bytes rewritten, the modification time put back: not read as the file loaded: %s",
		   cause ? cause : "(none)");
		free(cause);
		trace_free(t);
	}

	/* a file changed after loading: an error, not garbage */
	struct load_options opt = { 0 };
	struct trace *t = load_trace(plain, &opt);
	f = fopen(plain, "w");
	fputs("{}", f);
	fclose(f);
	struct event_args a;
	char *cause = NULL;
	ok(args_store_read(t, args_ref(t, find(t, "k")), &a, &cause) < 0 && cause && strstr(cause, "changed"),
	   "a changed file gives a clear error: %s", cause ? cause : "(none)");
	free(cause);
	trace_free(t);
	unlink(plain);
	unlink(gz);
	rmdir(tmpdir);
	free(plain);
	free(gz);
	return done_testing();
}
