/* test_skip.c: the values the scanner skips (args it does not keep, unknown event keys),
 * generated at random: nested arrays and objects, strings holding brackets, commas,
 * escaped quotes, escapes, raw control bytes and long runs, numbers, literals and
 * non-finite words, at every alignment and across window refills. The generator counts
 * the problems it writes (control bytes, bad escapes, inf/nan); the kept keys on both
 * sides of each skipped value must come through, and the counts must be the scan's.
 * And nesting at the limit, at every offset within 64 bytes: the limit passes, one more
 * level stops the file at that level's byte. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "parsers/chrome_scan.h"
#include "tests/unit/tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

struct doc {
	char *p;
	size_t n, cap;
	uint64_t want[SO__COUNT]; /* the problems written */
};

static void put(struct doc *d, const char *s, size_t n)
{
	if (d->n + n + 1 > d->cap) {
		d->cap = (d->n + n + 1) * 2;
		d->p = xrealloc(d->p, d->cap);
	}
	memcpy(d->p + d->n, s, n);
	d->n += n;
	d->p[d->n] = '\0';
}

static void puts_(struct doc *d, const char *s) { put(d, s, strlen(s)); }

static void ws(struct doc *d)
{
	static const char *const w[] = { "", "", " ", "\n  ", "\t", "  \r\n" };
	puts_(d, w[rnd(6)]);
}

static void gen_string(struct doc *d)
{
	static const char plain[] = "ab{}[],:0 iInN-x";
	unsigned n = rnd(4) == 0 ? rnd(200) : rnd(12);
	puts_(d, "\"");
	for (unsigned i = 0; i < n; i++) {
		unsigned k = rnd(40);
		if (k == 0) {
			puts_(d, "\\\"");
		} else if (k == 1) {
			puts_(d, "\\\\");
		} else if (k == 2) {
			static const char *const esc[] = {
				"\\n", "\\/", "\\t", "\\u0041", "\\ud83d\\ude00", "\\ud800"
			};
			puts_(d, esc[rnd(6)]);
		} else if (k == 3) {
			char c = (char)(1 + rnd(31)); /* a raw control byte, kept and counted */
			put(d, &c, 1);
			d->want[SO_CONTROL_CHAR]++;
		} else if (k == 4) {
			puts_(d, "\\q"); /* a bad escape, kept and counted */
			d->want[SO_BAD_ESCAPE]++;
		} else {
			put(d, &plain[rnd(sizeof plain - 1)], 1);
		}
	}
	puts_(d, "\"");
}

static void gen_value(struct doc *d, unsigned depth)
{
	static const char *const scalars[] = { "0", "-12.5e3", "123456789", "true", "false", "null", "1E-7" };
	static const char *const nonfinite[] = { "NaN", "nan", "Infinity", "inf", "-inf", "-Infinity", "-nan" };
	unsigned k = depth < 12 ? rnd(10) : 5 + rnd(5);

	if (k < 3) { /* an array */
		unsigned n = rnd(6);
		puts_(d, "[");
		ws(d);
		for (unsigned i = 0; i < n; i++) {
			if (i > 0) {
				puts_(d, ",");
				ws(d);
			}
			gen_value(d, depth + 1);
			ws(d);
		}
		puts_(d, "]");
	} else if (k < 5) { /* an object */
		unsigned n = rnd(5);
		puts_(d, "{");
		ws(d);
		for (unsigned i = 0; i < n; i++) {
			if (i > 0) {
				puts_(d, ",");
				ws(d);
			}
			gen_string(d);
			ws(d);
			puts_(d, ":");
			ws(d);
			gen_value(d, depth + 1);
			ws(d);
		}
		puts_(d, "}");
	} else if (k < 7) {
		gen_string(d);
	} else if (k < 9) {
		puts_(d, scalars[rnd(7)]);
	} else {
		puts_(d, nonfinite[rnd(7)]);
		d->want[SO_NONFINITE]++;
	}
}

/* N events; event i has "External id": i and "correlation": 7 i in its args around a
 * skipped key (and, in some, a skipped key of the event itself). */
static void gen_doc(struct doc *d, unsigned n)
{
	char buf[160];
	memset(d, 0, sizeof *d);
	puts_(d, "{\"traceEvents\": [\n");
	for (unsigned i = 0; i < n; i++) {
		snprintf(buf, sizeof buf,
		         "%s{\"ph\": \"X\", \"name\": \"e\", \"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": 1, ",
		         i > 0 ? ",\n" : "", i);
		puts_(d, buf);
		if (rnd(4) == 0) {
			puts_(d, "\"zz\": ");
			gen_value(d, 1);
			puts_(d, ", ");
		}
		snprintf(buf, sizeof buf, "\"args\": {\"External id\": %u,%*s\"skipped\":", i, (int)rnd(64), "");
		puts_(d, buf);
		ws(d);
		gen_value(d, 0);
		ws(d);
		snprintf(buf, sizeof buf, ", \"correlation\": %u}}", 7 * i);
		puts_(d, buf);
	}
	puts_(d, "\n]}\n");
}

struct got {
	unsigned n, bad;
};

static void on_event(void *ctx, const struct scan_event *ev)
{
	struct got *g = ctx;
	bool good = (ev->have & SA_EXTERNAL_ID) && (ev->have & SA_CORRELATION) && ev->external_id == (int64_t)g->n &&
	            ev->correlation == 7 * (int64_t)g->n && ev->ts == (int64_t)g->n * 1000;
	if (!good && g->bad++ < 3)
		printf("# event %u: External id %lld, correlation %lld\n", g->n, (long long)ev->external_id,
		       (long long)ev->correlation);
	g->n++;
}

static char tmpdir[] = "/tmp/ttrace-test-skip-XXXXXX";

static enum scan_result scan_doc(const char *data, size_t n, struct got *g, struct scan_stats *st, char **cause)
{
	char *path = xasprintf("%s/doc.json", tmpdir);
	FILE *f = fopen(path, "wb");
	struct scan_sink sink = { g, on_event, NULL, NULL, NULL, NULL };
	char *err = NULL;
	struct input *in;
	enum scan_result r;

	if (f == NULL || fwrite(data, 1, n, f) != n || fclose(f) != 0)
		fatal("cannot write %s", path);
	if ((in = input_open(path, &err)) == NULL)
		fatal("open: %s", err);
	memset(g, 0, sizeof *g);
	memset(st, 0, sizeof *st);
	*cause = NULL;
	r = scan_run(in, &sink, st, cause);
	input_close(in);
	unlink(path);
	free(path);
	return r;
}

static void test_random_values(const char *how)
{
	for (unsigned round = 0; round < 6; round++) {
		struct doc d;
		struct got g;
		struct scan_stats st;
		char *cause;
		unsigned n = 1500;
		gen_doc(&d, n);
		enum scan_result r = scan_doc(d.p, d.n, &g, &st, &cause);
		ok(r == SCAN_OK && g.n == n && g.bad == 0,
		   "%s, document %u (%zu bytes): %u of %u events with both kept keys (result %d, %s)", how, round, d.n,
		   g.n - g.bad, n, r, cause ? cause : "no cause");
		ok(st.count[SO_CONTROL_CHAR] == d.want[SO_CONTROL_CHAR] &&
		           st.count[SO_BAD_ESCAPE] == d.want[SO_BAD_ESCAPE] &&
		           st.count[SO_NONFINITE] == d.want[SO_NONFINITE] && st.count[SO_MALFORMED_EVENT] == 0,
		   "%s, document %u: problems counted as written (control bytes %llu/%llu, bad escapes %llu/%llu, "
		   "inf/nan %llu/%llu)",
		   how, round, (unsigned long long)st.count[SO_CONTROL_CHAR],
		   (unsigned long long)d.want[SO_CONTROL_CHAR], (unsigned long long)st.count[SO_BAD_ESCAPE],
		   (unsigned long long)d.want[SO_BAD_ESCAPE], (unsigned long long)st.count[SO_NONFINITE],
		   (unsigned long long)d.want[SO_NONFINITE]);
		free(cause);
		free(d.p);
	}
}

/* An event, then one whose args hold a value nested LIMIT or LIMIT + 1 deep (brackets and
 * objects, the first after 0-63 spaces), then a third: at the limit all three are kept;
 * past it the file stops at the deepest level's byte, with the first event kept. */
static void test_depth_at_every_offset(unsigned limit)
{
	unsigned good = 0, stopped_right = 0;
	for (unsigned shift = 0; shift < 64; shift++) {
		for (unsigned extra = 0; extra < 2; extra++) {
			unsigned depth = limit + extra;
			struct doc d;
			struct got g;
			struct scan_stats st;
			char *cause, want[64];
			memset(&d, 0, sizeof d);
			puts_(&d, "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1, "
			          "\"args\": {\"External id\": 0, \"correlation\": 0}},\n"
			          "{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, "
			          "\"args\": {\"External id\": 1, \"x\":");
			for (unsigned i = 0; i < shift; i++)
				puts_(&d, " ");
			size_t deepest = 0;
			for (unsigned i = 0; i < depth; i++) {
				deepest = d.n;
				puts_(&d, i % 3 == 2 && i + 1 < depth ? "{\"k\":" : "[");
			}
			for (unsigned i = depth; i-- > 0;)
				puts_(&d, i % 3 == 2 && i + 1 < depth ? "}" : "]");
			puts_(&d, ", \"correlation\": 7}},\n{\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, "
			          "\"ts\": 2, \"dur\": 1, \"args\": {\"External id\": 2, \"correlation\": 14}}]\n");
			enum scan_result r = scan_doc(d.p, d.n, &g, &st, &cause);
			snprintf(want, sizeof want, "(byte %zu)", deepest);
			if (extra == 0 && r == SCAN_OK && g.n == 3 && g.bad == 0)
				good++;
			if (extra == 1 && r == SCAN_TRUNCATED && g.n == 1 && g.bad == 0 && cause != NULL &&
			    strstr(cause, "nested too deep") != NULL && strstr(cause, want) != NULL)
				stopped_right++;
			else if (extra == 1 && stopped_right + 3 > shift)
				printf("# shift %u: result %d, %s (want %s)\n", shift, r, cause ? cause : "no cause",
				       want);
			free(cause);
			free(d.p);
		}
	}
	is_int(good, 64, "%u levels, at 64 offsets: the three events kept", limit);
	is_int(stopped_right, 64, "%u levels, at 64 offsets: stopped, the cause at the deepest level's byte",
	       limit + 1);
}

int main(void)
{
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp failed");
	/* 64 bytes at a time where the processor has AVX-512BW, then 16 (SSE2) */
	for (int narrow = 0; narrow < 2; narrow++) {
		if (narrow)
			setenv("TTRACE_TEST_NARROW_BLOCKS", "1", 1);
		scan_set_limits(NULL);
		test_random_values(narrow ? "mapped window, 16-byte blocks" : "mapped window");
		/* a small window: values straddle refills at random places */
		const struct scan_limits small = { 4u << 10, 64u << 10, 40 };
		scan_set_limits(&small);
		test_random_values(narrow ? "4 KiB window, 16-byte blocks" : "4 KiB window");
		test_depth_at_every_offset(40);
	}
	unsetenv("TTRACE_TEST_NARROW_BLOCKS");
	scan_set_limits(NULL);
	rmdir(tmpdir);
	return done_testing();
}
