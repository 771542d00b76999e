/* test_args.c: args read back lazily from plain and compressed files; never from a
 * FIFO, nor from another file put in the loaded one's place. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/xalloc.h"
#include "parsers/load.h"
#include "src/args.h"
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
			if (strcmp(strtab_get(&t->strings, t->tracks[ti].slices[i].name), name) == 0)
				return &t->tracks[ti].slices[i];
	return NULL;
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
	ok(event_args_read(t, k, &a, &cause) == 0 && a.json != NULL, "%s: kernel args read back", what);
	ok(cJSON_GetObjectItem(a.json, "correlation") && cJSON_GetObjectItem(a.json, "correlation")->valueint == 42,
	   "%s: correlation 42", what);
	ok(cJSON_GetArraySize(cJSON_GetObjectItem(a.json, "grid")) == 3, "%s: grid array", what);
	is_str(cJSON_GetStringValue(cJSON_GetObjectItem(a.json, "note")), "a \"q\" b", "%s: escaped string", what);
	ok(a.text[0] == '{' && a.text[strlen(a.text) - 1] == '}', "%s: raw text is the args object", what);
	event_args_free(&a);
	ok(event_args_read(t, m, &a, &cause) == 0 && a.json != NULL, "%s: args with bare inf parse", what);
	is_int(a.nonfinite, 3, "%s: three non-finite tokens read as null", what);
	ok(strstr(a.text, "inf") != NULL, "%s: the raw text keeps inf", what);
	ok(cJSON_IsNull(cJSON_GetObjectItem(a.json, "memory bandwidth (GB/s)")), "%s: inf became null", what);
	event_args_free(&a);
	ok(event_args_read(t, n, &a, &cause) < 0 && cause && strstr(cause, "no args"), "%s: no args said so", what);
	free(cause);
	trace_free(t);
}

/* A trace loaded from a FIFO that a child writes: its args are unavailable, at once. */
static void test_fifo(void)
{
	char *fifo = xasprintf("%s/fifo", tmpdir);
	struct load_options opt = { 0 };
	struct event_args a;
	char *cause = NULL;
	pid_t pid;

	if (mkfifo(fifo, 0600) != 0) {
		ok(1, "# SKIP mkfifo failed");
		free(fifo);
		return;
	}
	pid = fork();
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
	ok(t->status == LOAD_OK && !t->regular, "a FIFO loads, and is not a regular file");
	alarm(60); /* reopening the FIFO by name would block: fail rather than hang */
	int rc = event_args_read(t, find(t, "k"), &a, &cause);
	alarm(0);
	ok(rc < 0 && cause && strstr(cause, "args unavailable: input was not a regular file") != NULL,
	   "its args are unavailable: %s", cause ? cause : "(none)");
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
	rename(other, plain);
	int rc = event_args_read(t, find(t, "k"), &a, &cause);
	ok(rc < 0 && cause && strstr(cause, "changed"),
	   "a file renamed over the loaded one is not read: %s", cause ? cause : "(none)");
	free(cause);
	trace_free(t);
	free(other);
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

	/* a file changed after loading: an error, not garbage */
	struct load_options opt = { 0 };
	struct trace *t = load_trace(plain, &opt);
	f = fopen(plain, "w");
	fputs("{}", f);
	fclose(f);
	struct event_args a;
	char *cause = NULL;
	ok(event_args_read(t, find(t, "k"), &a, &cause) < 0 && cause && strstr(cause, "changed"),
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
