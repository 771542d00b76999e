/* test_scan.c: the streaming scanner on small documents and on ones larger than its
 * window, where events straddle refills; and its bounds, at reduced limits: an element
 * past the largest window, values nested too deep, range scans that give up. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "parsers/chrome_scan.h"
#include "tests/unit/tap.h"

#define MAXEV 64

struct got {
	int n;
	struct scan_event ev[MAXEV];
	char names[MAXEV][64];
	char cats[MAXEV][32];
	char tid_str[MAXEV][32];
	char mname[MAXEV][32];
	int nheaders;
	char header_keys[8][32];
	char header_json[8][128];
	int problems;
	uint64_t last_problem_offset, last_problem_line, last_problem_col;
	char last_problem_msg[160];
	/* for the big document */
	uint64_t big_count, big_bad;
	int64_t big_expect_ts;
};

static void copy_str(char *dst, size_t n, struct scan_str s)
{
	size_t k = s.len < n - 1 ? s.len : n - 1;
	if (k > 0)
		memcpy(dst, s.p, k);
	dst[k] = '\0';
}

static void on_event(void *ctx, const struct scan_event *ev)
{
	struct got *g = ctx;
	if (g->n < MAXEV) {
		g->ev[g->n] = *ev;
		copy_str(g->names[g->n], sizeof g->names[0], ev->name);
		copy_str(g->cats[g->n], sizeof g->cats[0], ev->cat);
		if (ev->tid.is_str)
			copy_str(g->tid_str[g->n], sizeof g->tid_str[0], ev->tid.str);
		copy_str(g->mname[g->n], sizeof g->mname[0], ev->m_name);
	}
	g->n++;
}

static void on_header(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len)
{
	struct got *g = ctx;
	if (g->nheaders < 8) {
		snprintf(g->header_keys[g->nheaders], 32, "%.*s", (int)keylen, key);
		snprintf(g->header_json[g->nheaders], 128, "%s", json ? json : "(skipped)");
	}
	g->nheaders++;
	(void)len;
}

static void on_problem(void *ctx, enum scan_oddity kind, uint64_t offset, uint64_t line, uint64_t col, const char *msg)
{
	struct got *g = ctx;
	g->problems++;
	g->last_problem_offset = offset;
	g->last_problem_line = line;
	g->last_problem_col = col;
	snprintf(g->last_problem_msg, sizeof g->last_problem_msg, "%s", msg);
	(void)kind;
}

static char tmpdir[] = "/tmp/ttrace-test-scan-XXXXXX";

static char *write_tmp(const char *name, const char *data, size_t n)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, n, f) != n)
		fatal("cannot write %s", path);
	fclose(f);
	return path;
}

static enum scan_result scan_text(const char *text, struct got *g, struct scan_stats *st, char **cause)
{
	char *path = write_tmp("doc.json", text, strlen(text));
	struct scan_sink sink = { g, on_event, on_header, on_problem, NULL, NULL };
	char *err = NULL;
	struct input *in = input_open(path, &err);
	enum scan_result r;
	memset(g, 0, sizeof *g);
	if (in == NULL)
		fatal("open: %s", err);
	r = scan_run(in, &sink, st, cause);
	input_close(in);
	unlink(path);
	free(path);
	return r;
}

static void test_fixed_point(void)
{
	int64_t ns;
	const char *s;
#define US(str, want)                                                                                   \
	do {                                                                                            \
		s = str;                                                                                \
		ok(scan_parse_us_as_ns(s, s + strlen(s), &ns) == 0 && ns == (want), "us %s -> %lld", s, \
		   (long long)(want));                                                                  \
	} while (0)
	US("1712195495519689.047", 1712195495519689047ll);
	US("1694128201426674", 1694128201426674000ll);
	US("5127381282.123", 5127381282123ll);
	US("0", 0);
	US("-12.5", -12500);
	US("0.0004", 0);
	US("0.0005", 1); /* rounds half up on the 4th decimal */
	US("1.2345678", 1235);
	US("1.5e3", 1500000);
	US("2E-3", 2);
	US("9223372036854775.807", 9223372036854775807ll);
	s = "9223372036854776.000";
	ok(scan_parse_us_as_ns(s, s + strlen(s), &ns) < 0, "past int64 ns is rejected");
	s = "1e400";
	ok(scan_parse_us_as_ns(s, s + strlen(s), &ns) < 0, "huge exponent is rejected");
	s = "abc";
	ok(scan_parse_us_as_ns(s, s + strlen(s), &ns) < 0, "text is rejected");
	s = "1.";
	ok(scan_parse_us_as_ns(s, s + strlen(s), &ns) == 0 && ns == 1000, "1. is 1 us");
#undef US
}

static void test_basic_object(void)
{
	struct got g;
	struct scan_stats st;
	char *cause;
	enum scan_result r = scan_text(
		"\n  {\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0}],\n"
		"  \"traceEvents\": [\n"
		"  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\u00e9\\ud83d\\ude00\", \"pid\": 0, \"tid\": 7,\n"
		"   \"ts\": 1712195495519689.047, \"dur\": 2.5,\n"
		"   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 99, \"External id\": 5,\n"
		"     \"grid\": [2, 3, 1], \"block\": [128, 1, 1], \"blocks per SM\": 0.25,\n"
		"     \"est. achieved occupancy %\": 12, \"nested\": {\"a\": [1, {\"b\": \"}\"}]}}},\n"
		"  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": \"12\", \"tid\": \"stream 7 \", \"args\": {\"name\": \"stream 7 \"}},\n"
		"  {\"ph\": \"f\", \"id\": 18446744073709551615, \"pid\": 1, \"tid\": 1, \"ts\": 3, \"bp\": \"e\", \"cat\": \"ac2g\"},\n"
		"  {\"ph\": \"C\", \"name\": \"ctr\", \"pid\": 1, \"ts\": 4, \"args\": {\"a\": 1.5, \"b\": -2, \"c\": \"x\"}}\n"
		"  ],\n"
		"  \"baseTimeNanoseconds\": 1727743122000000000, \"traceName\": \"x\"}\n",
		&g, &st, &cause);
	is_int(r, SCAN_OK, "object document scans");
	ok(cause == NULL, "no cause when ok");
	is_int(g.n, 4, "four events");
	is_int(st.events, 4, "stats count four events");
	is_int(g.ev[0].ph, 'X', "ph X");
	is_str(g.cats[0], "kernel", "cat");
	is_str(g.names[0], "k\xc3\xa9\xf0\x9f\x98\x80", "\\u escapes and a surrogate pair decode to UTF-8");
	is_int(g.ev[0].ts, 1712195495519689047ll, "epoch ts with 3 decimals is exact in ns");
	is_int(g.ev[0].dur, 2500, "dur 2.5 us is 2500 ns");
	ok(g.ev[0].has_ts && g.ev[0].has_dur, "has ts and dur");
	is_int(g.ev[0].correlation, 99, "args correlation");
	is_int(g.ev[0].external_id, 5, "args External id");
	is_int(g.ev[0].stream, 7, "args stream");
	is_int(g.ev[0].grid[0] * 100 + g.ev[0].grid[1] * 10 + g.ev[0].grid[2], 231, "grid");
	is_int(g.ev[0].block[0], 128, "block");
	ok(fabs(g.ev[0].blocks_per_sm - 0.25) < 1e-9, "blocks per SM");
	ok(fabs(g.ev[0].occupancy - 12) < 1e-9, "occupancy");
	ok(g.ev[0].args_len > 0 && g.ev[0].args_offset > g.ev[0].offset, "args located after the event start");
	is_int(g.ev[1].ph, 'M', "metadata event");
	is_int(g.ev[1].pid.is_str, 0, "pid \"12\" becomes a number");
	is_int(g.ev[1].pid.num, 12, "pid value");
	ok(g.ev[1].tid.is_str, "tid \"stream 7 \" stays a string");
	is_str(g.tid_str[1], "stream 7 ", "trailing space kept by the scanner");
	is_str(g.mname[1], "stream 7 ", "M args.name");
	ok(g.ev[2].has_id && g.ev[2].id == UINT64_MAX, "flow id up to UINT64_MAX kept");
	is_int(g.ev[2].bp, 'e', "bp e");
	is_int(g.ev[3].ncounter, 2, "counter: two numeric values, the string skipped");
	ok(fabs(g.ev[3].counter_value[1] + 2) < 1e-9, "counter value b = -2");
	is_int(g.nheaders, 4, "four header keys (before and after the events)");
	is_str(g.header_keys[2], "baseTimeNanoseconds", "a header key after traceEvents");
	is_str(g.header_json[2], "1727743122000000000", "its raw text, past 2^53 intact");
	is_str(g.header_json[1], "[{\"id\": 0}]", "an object header's raw JSON");
	is_int(g.problems, 0, "no problems");
}

static void test_bare_array_and_leniency(void)
{
	struct got g;
	struct scan_stats st;
	char *cause;
	enum scan_result r = scan_text(
		"[\n\n{\"name\": \"a\x01"
		"b\", \"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"pid\": \"CPU functions\", \"tid\": 1},\n"
		"{\"name\": \"torch\\cuda\\__init__.py\", \"ph\": \"X\", \"ts\": 2, \"dur\": inf, \"pid\": 1, \"tid\": 1},\n"
		"{\"name\": \"bad \"quoted\" name\", \"ph\": \"X\", \"ts\": 3, \"dur\": 1, \"pid\": 1, \"tid\": 1},\n"
		"7,\n"
		"{\"name\": \"after\", \"ph\": \"X\", \"ts\": 4, \"dur\": 1, \"pid\": 1, \"tid\": 1, \"args\": {\"x\": NaN}}\n"
		"]",
		&g, &st, &cause);
	is_int(r, SCAN_OK, "bare array scans");
	is_int(g.n, 3, "three events kept: the malformed one and the number skipped");
	is_str(g.names[0],
	       "a\x01"
	       "b",
	       "raw control byte kept in the name");
	is_str(g.names[1], "torch\\cuda\\__init__.py", "invalid escapes keep their backslash");
	ok(!g.ev[1].has_dur, "dur inf read as missing");
	is_str(g.names[2], "after", "scanner resynchronised at the next event");
	is_int(st.count[SO_CONTROL_CHAR], 1, "one control char counted");
	is_int(st.count[SO_BAD_ESCAPE], 2, "two bad escapes counted");
	is_int(st.count[SO_NONFINITE], 2, "inf and NaN counted");
	is_int(st.count[SO_MALFORMED_EVENT], 1, "one malformed event");
	is_int(st.count[SO_NOT_OBJECT], 1, "one non-object element");
	ok(g.ev[0].pid.is_str, "pid \"CPU functions\" is a string");
}

static void test_truncated(void)
{
	struct got g;
	struct scan_stats st;
	char *cause = NULL;
	enum scan_result r =
		scan_text("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"pid\": 1, \"tid\": 1},\n"
	                  "{\"ph\": \"X\", \"ts\": 2, \"du",
	                  &g, &st, &cause);
	is_int(r, SCAN_TRUNCATED, "cut document is truncated");
	is_int(g.n, 1, "the complete event before the cut is kept");
	ok(cause != NULL && strstr(cause, "truncated") && strstr(cause, "line 2, column 1"), "cause names the cut: %s",
	   cause ? cause : "(null)");
	free(cause);
}

static void test_not_trace(void)
{
	struct got g;
	struct scan_stats st;
	char *cause = NULL;
	enum scan_result r =
		scan_text("{\"rocprofiler-sdk-tool\": [{\"metadata\": {\"a\": \"]}\"}}]}", &g, &st, &cause);
	is_int(r, SCAN_NOT_TRACE, "object without traceEvents is not a trace");
	ok(cause && strstr(cause, "no \"traceEvents\"") && strstr(cause, "rocprofiler-sdk-tool") &&
	           strstr(cause, "rocprofv3"),
	   "message names the key and the tool: %s", cause ? cause : "(null)");
	free(cause);
	cause = NULL;
	r = scan_text("Hello, world\n", &g, &st, &cause);
	is_int(r, SCAN_NOT_TRACE, "text is not a trace");
	ok(cause && strstr(cause, "line 1, column 1") && strstr(cause, "'H'"), "says where and what: %s",
	   cause ? cause : "(null)");
	free(cause);
	cause = NULL;
	r = scan_text("   \n", &g, &st, &cause);
	is_int(r, SCAN_NOT_TRACE, "whitespace is not a trace");
	ok(cause && strstr(cause, "empty"), "empty input message: %s", cause ? cause : "(null)");
	free(cause);
}

/* A document bigger than the scanner's window (4 MB), with names of many lengths so that
 * events and strings straddle every kind of refill boundary. */
static void big_event(void *ctx, const struct scan_event *ev)
{
	struct got *g = ctx;
	char want[32];
	int64_t i = (int64_t)g->big_count;
	size_t len = (size_t)(i % 97) * 7 + 1;
	snprintf(want, sizeof want, "n%lld", (long long)i);
	if (ev->ts != i * 1000 + 123 || ev->dur != (i % 1000) * 1000 || ev->name.len != len + strlen(want) ||
	    memcmp(ev->name.p, want, strlen(want)) != 0 || ev->tid.num != i % 5 || ev->correlation != i)
		g->big_bad++;
	g->big_count++;
}

static void test_big_document(void)
{
	const int64_t n = 60000;
	size_t cap = 48u << 20, len = 0;
	char *doc = xmalloc(cap);
	len += (size_t)sprintf(doc + len, "{\"traceEvents\": [\n");
	for (int64_t i = 0; i < n; i++) {
		size_t pad = (size_t)(i % 97) * 7 + 1;
		if (len + pad + 400 > cap)
			fatal("test buffer too small");
		len += (size_t)sprintf(doc + len, "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n%lld",
		                       (long long)i);
		memset(doc + len, i % 2 ? 'x' : ' ', pad);
		len += pad;
		len += (size_t)sprintf(doc + len,
		                       "\", \"pid\": 1, \"tid\": %lld,\n    \"ts\": %lld.123, \"dur\": %lld,\n"
		                       "    \"args\": {\"correlation\": %lld, \"s\": \"\\\"q\\\"\"}\n  }%s\n",
		                       (long long)(i % 5), (long long)i, (long long)(i % 1000), (long long)i,
		                       i + 1 < n ? "," : "");
	}
	len += (size_t)sprintf(doc + len, "]}\n");
	ok(len > (8u << 20), "big document is over twice the window (%zu bytes)", len);
	char *path = write_tmp("big.json", doc, len);
	struct got g;
	memset(&g, 0, sizeof g);
	struct scan_sink sink = { &g, big_event, NULL, NULL, NULL, NULL };
	struct scan_stats st;
	char *cause = NULL, *err = NULL;
	struct input *in = input_open(path, &err);
	enum scan_result r = scan_run(in, &sink, &st, &cause);
	input_close(in);
	is_int(r, SCAN_OK, "big document scans");
	is_int(g.big_count, n, "every event arrives");
	is_int(g.big_bad, 0, "every field of every event is right across refills");
	is_int(st.bytes, len, "every byte scanned");
	/* the same document cut at several points: always a clean truncation */
	size_t cuts[] = { 5u << 20, (4u << 20) + 1, len - 3, 100 };
	for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
		char *p2 = write_tmp("cut.json", doc, cuts[k]);
		memset(&g, 0, sizeof g);
		in = input_open(p2, &err);
		cause = NULL;
		r = scan_run(in, &sink, &st, &cause);
		input_close(in);
		ok(r == SCAN_TRUNCATED && g.big_bad == 0 && g.big_count <= (uint64_t)n &&
		           (cuts[k] < 1000) == (g.big_count == 0),
		   "cut at %zu: truncated with %llu good events", cuts[k], (unsigned long long)g.big_count);
		free(cause);
		unlink(p2);
		free(p2);
	}
	unlink(path);
	free(path);
	free(doc);
}

static void test_locations(void)
{
	struct got g;
	struct scan_stats st;
	char *cause = NULL;
	scan_text("{\"traceEvents\": [\n{\"ph\": \"X\", \"ts\": 1, \"pid\": 1, \"tid\": 1},\n"
	          "  {\"ph\": \"X\", \"name\": \"a\x02\", \"ts\": 1, \"pid\": 1, \"tid\": 1}]}",
	          &g, &st, &cause);
	is_int(g.problems, 1, "one problem reported");
	is_int(g.last_problem_line, 3, "its line");
	is_int(g.last_problem_col, 25, "its column");
	is_int(g.last_problem_offset, 18 + 42 + 24, "its byte offset");
}

/* A document of three events whose middle one holds a string of LEN bytes of 'a' (with an
 * escaped quote and a "}, {" inside, which must not end the skip); *MID is its offset. */
static char *long_string_doc(size_t len, size_t *n, size_t *mid)
{
	static const char ev[] = "{\"ph\": \"X\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1}";
	char *doc = xmalloc(len + 512);
	size_t k = (size_t)sprintf(doc, "{\"traceEvents\": [\n");
	k += (size_t)sprintf(doc + k, ev, "first", 1);
	k += (size_t)sprintf(doc + k, ",\n");
	*mid = k;
	k += (size_t)sprintf(doc + k, "{\"ph\": \"X\", \"name\": \"x\\\"}, {\\\"");
	memset(doc + k, 'a', len);
	k += len;
	k += (size_t)sprintf(doc + k, "\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1},\n");
	k += (size_t)sprintf(doc + k, ev, "last", 3);
	k += (size_t)sprintf(doc + k, "]}\n");
	*n = k;
	return doc;
}

static enum scan_result scan_file(const char *path, const struct scan_range *range, struct got *g,
                                  struct scan_stats *st, char **cause)
{
	struct scan_sink sink = { g, on_event, on_header, on_problem, NULL, NULL };
	char *err = NULL;
	struct input *in = input_open(path, &err);
	enum scan_result r;
	memset(g, 0, sizeof *g);
	if (in == NULL)
		fatal("open: %s", err);
	*cause = NULL;
	r = scan_run_range(in, &sink, range, st, cause);
	input_close(in);
	return r;
}

static void test_limits(void)
{
	const struct scan_limits lim = { 16u << 10, 64u << 10, 40 };
	struct got g;
	struct scan_stats st;
	struct scan_range whole;
	char *cause = NULL, *doc, *path;
	size_t n, mid;
	enum scan_result r;

	scan_set_limits(&lim);
	memset(&whole, 0, sizeof whole);

	/* an element between the small and the largest window: kept */
	doc = long_string_doc(40u << 10, &n, &mid);
	path = write_tmp("mid.json", doc, n);
	r = scan_file(path, NULL, &g, &st, &cause);
	ok(r == SCAN_OK && g.n == 3 && st.count[SO_MALFORMED_EVENT] == 0,
	   "a 40 KiB event with a 16 KiB small window: kept (result %d, %d events)", r, g.n);
	free(cause);
	/* a range scan never grows past the small window: it asks for a scan in one piece */
	r = scan_file(path, &whole, &g, &st, &cause);
	is_int(r, SCAN_MISSED_STOP, "the same in a range scan: SCAN_MISSED_STOP");
	free(cause);
	unlink(path);
	free(path);
	free(doc);

	/* past the largest window: skipped, counted, reported at its start; the rest kept */
	doc = long_string_doc(1u << 20, &n, &mid);
	path = write_tmp("long.json", doc, n);
	r = scan_file(path, NULL, &g, &st, &cause);
	is_int(r, SCAN_OK, "a 1 MiB string with a 64 KiB limit: the scan goes on");
	ok(g.n == 2 && strcmp(g.names[0], "first") == 0 && strcmp(g.names[1], "last") == 0,
	   "the events around it are kept (%d events)", g.n);
	is_int(st.count[SO_MALFORMED_EVENT], 1, "the big one is counted as skipped");
	is_int(g.last_problem_offset, mid, "reported at its start");
	ok(strstr(g.last_problem_msg, "larger than 64 KiB") != NULL, "the message gives the limit: %s",
	   g.last_problem_msg);
	free(cause);
	unlink(path);
	free(path);

	/* a string that never ends: truncated, the event before it kept */
	path = write_tmp("endless.json", doc, mid + (1u << 20));
	r = scan_file(path, NULL, &g, &st, &cause);
	ok(r == SCAN_TRUNCATED && g.n == 1 && st.count[SO_MALFORMED_EVENT] == 1,
	   "an endless string: truncated, 1 event kept (result %d, %d events)", r, g.n);
	ok(cause != NULL && strstr(cause, path) != NULL, "the cause names the file: %s", cause ? cause : "(none)");
	free(cause);
	unlink(path);
	free(path);
	free(doc);

	/* nesting: 40 levels pass, 41 stop the file, with its location */
	doc = xmalloc(4096);
	n = (size_t)sprintf(
		doc,
		"[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"x\": ");
	memset(doc + n, '[', 40);
	memset(doc + n + 40, ']', 40);
	n += 80;
	n += (size_t)sprintf(doc + n, "}},\n{\"ph\": \"X\", \"name\": \"b\", \"args\": {\"x\": ");
	mid = n + 40;
	memset(doc + n, '[', 200);
	n += 200;
	path = write_tmp("deep.json", doc, n);
	r = scan_file(path, NULL, &g, &st, &cause);
	is_int(r, SCAN_TRUNCATED, "41 levels after an event: truncated");
	is_int(g.n, 1, "the event before is kept");
	ok(cause != NULL && strstr(cause, "nested too deep") != NULL && strstr(cause, path) != NULL,
	   "the cause says why and names the file: %s", cause ? cause : "(none)");
	{
		char want[64];
		snprintf(want, sizeof want, "(byte %zu)", mid);
		ok(cause != NULL && strstr(cause, want) != NULL, "the cause has the byte offset of level 41 (%s)",
		   want);
	}
	free(cause);
	unlink(path);
	free(path);
	/* a bare array of brackets, and a header value nested too deep: not a trace */
	memset(doc, '[', 4000);
	path = write_tmp("brackets.json", doc, 4000);
	r = scan_file(path, NULL, &g, &st, &cause);
	ok(r == SCAN_NOT_TRACE && cause != NULL && strstr(cause, "nested too deep") != NULL,
	   "4000 '[': not a trace, nested too deep: %s", cause ? cause : "(none)");
	free(cause);
	unlink(path);
	free(path);
	n = (size_t)sprintf(doc, "{\"x\": ");
	memset(doc + n, '{', 100);
	path = write_tmp("deephdr.json", doc, n + 100);
	r = scan_file(path, NULL, &g, &st, &cause);
	ok(r == SCAN_NOT_TRACE && cause != NULL && strstr(cause, "nested too deep") != NULL,
	   "a header value nested too deep: stopped: %s", cause ? cause : "(none)");
	free(cause);
	unlink(path);
	free(path);
	free(doc);

	scan_set_limits(NULL);
}

/* Every key of the args table (parsers/scan_args.c), with a value its guard takes and with
 * one it refuses; a counter event's "flops" and "name" are among its values. */
static void test_arg_keys(void)
{
	struct got g;
	struct scan_stats st;
	char *cause = NULL;
	const uint32_t all = SA_CORRELATION | SA_EXTERNAL_ID | SA_DEVICE | SA_STREAM | SA_GRID | SA_BLOCK |
	                     SA_BLOCKS_PER_SM | SA_OCCUPANCY | SA_BYTES | SA_TOTAL_ALLOC | SA_TOTAL_RESERVED |
	                     SA_DEVICE_ID | SA_DEVICE_TYPE | SA_M_NAME | SA_M_SORT | SA_M_LABELS | SA_PG_NAME |
	                     SA_ADDR | SA_REGS | SA_SMEM | SA_FLOPS;
	enum scan_result r = scan_text(
		"[{\"ph\":\"X\",\"args\":{\"correlation\":1,\"External id\":2,\"device\":3,\"stream\":4,"
		"\"grid\":[5,6,7],\"block\":[8,9,10],\"blocks per SM\":1.5,\"est. achieved occupancy %\":25,"
		"\"registers per thread\":32,\"shared memory\":1024,\"bytes\":11,\"Total Allocated\":12,"
		"\"Total Reserved\":13,\"Device Id\":14,\"Device Type\":15,\"Addr\":16,\"flops\":17,"
		"\"Process Group Name\":\"pg\",\"name\":\"n\",\"labels\":\"l\",\"sort_index\":18}},\n"
		"{\"ph\":\"X\",\"args\":{\"external id\":19,\"Bytes\":20,\"Addr\":null,\"correlation\":inf}},\n"
		"{\"ph\":\"X\",\"args\":{\"correlation\":\"1\",\"External id\":[2],\"device\":{},\"stream\":\"4\","
		"\"blocks per SM\":\"x\",\"registers per thread\":\"32\",\"bytes\":[],\"Total Allocated\":\"12\","
		"\"Device Id\":\"14\",\"flops\":\"17\",\"Process Group Name\":3,\"name\":4,\"labels\":[],"
		"\"sort_index\":\"18\",\"Stream\":5,\"streams\":6,\"\":7}},\n"
		"{\"ph\":\"C\",\"args\":{\"flops\":2,\"name\":7,\"device\":3}}]",
		&g, &st, &cause);
	ok(r == SCAN_OK && g.n == 4, "four events with args scan (result %d, %d events)", r, g.n);
	if (g.n < 4)
		return;
	const struct scan_event *e = &g.ev[0];
	ok(e->have == all, "every key of the table is read (have %#x, want %#x)", e->have, all);
	ok(e->correlation == 1 && e->external_id == 2 && e->device == 3 && e->stream == 4, "ids, device, stream");
	ok(e->grid[0] == 5 && e->grid[2] == 7 && e->block[0] == 8 && e->block[2] == 10, "grid and block");
	ok(e->blocks_per_sm == 1.5 && e->occupancy == 25, "blocks per SM and occupancy");
	ok(e->regs == 32 && e->smem == 1024 && e->bytes == 11 && e->flops == 17,
	   "registers, shared memory, bytes, flops");
	ok(e->total_allocated == 12 && e->total_reserved == 13 && e->device_id == 14 && e->device_type == 15,
	   "the memory keys");
	ok(e->m_sort_index == 18 && e->pg_name.len == 2 && e->m_labels.len == 1, "sort_index, group name, labels");
	ok(strcmp(g.mname[0], "n") == 0, "args.name");
	e = &g.ev[1];
	ok(e->have == (SA_EXTERNAL_ID | SA_BYTES) && e->external_id == 19 && e->bytes == 20,
	   "\"external id\" and \"Bytes\" too; a null Addr and an inf correlation are not there (have %#x)", e->have);
	e = &g.ev[2];
	ok(e->have == 0, "values their guards refuse, and keys that are not in the table, are skipped (have %#x)",
	   e->have);
	e = &g.ev[3];
	ok(e->have == SA_DEVICE && e->device == 3, "a counter's device is read (have %#x)", e->have);
	ok(e->ncounter == 2 && e->counter_value[0] == 2 && e->counter_value[1] == 7 && e->counter_key[0].len == 5,
	   "a counter's \"flops\" and \"name\" are its values (%u values)", e->ncounter);
	free(cause);
}

/* Times and integers of every length the fast paths take eight digits at a time (and past
 * them), at every alignment, before each delimiter: each read as the byte-by-byte rules
 * read it (times through scan_parse_us_as_ns, integers through strtoll). */
/* Numbers read as doubles (a kernel's "blocks per SM"), bit for bit as strtod reads them:
 * up to 21 digits around the point, leading zeros, signs, exponents; the short ones take
 * the scanner's fast path, the rest strtod. */
static void test_doubles(void)
{
	unsigned seed = 777, bad = 0, checked = 0;
	for (int round = 0; round < 60; round++) {
		char doc[16384], txt[MAXEV][48];
		struct got g;
		struct scan_stats st;
		char *cause = NULL;
		size_t n = (size_t)snprintf(doc, sizeof doc, "[");
		for (int i = 0; i < 48; i++) {
			char *q = txt[i];
			int k = round * 48 + i;
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 4 == 0)
				*q++ = '-';
			int ni = 1 + k % 21, nf = (k / 21) % 24;
			for (int d = 0; d < ni; d++) {
				seed = seed * 1103515245u + 12345u;
				*q++ = (char)('0' + (seed >> 16) % 10);
			}
			if (nf > 0) {
				*q++ = '.';
				for (int d = 0; d < nf; d++) {
					seed = seed * 1103515245u + 12345u;
					*q++ = (char)('0' + ((seed >> 16) % 3 == 0 ? 9 : (seed >> 16) % 10));
				}
			}
			if (k % 13 == 0)
				q += sprintf(q, "e%d", (int)((seed >> 16) % 40) - 20);
			*q = '\0';
			n += (size_t)snprintf(
				doc + n, sizeof doc - n,
				"%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
				"\"ts\": %d, \"dur\": 1, \"args\": {\"blocks per SM\": %s}}",
				i > 0 ? ",\n" : "", i, txt[i]);
		}
		snprintf(doc + n, sizeof doc - n, "]");
		enum scan_result r = scan_text(doc, &g, &st, &cause);
		free(cause);
		if (r != SCAN_OK || g.n != 48) {
			bad++;
			continue;
		}
		for (int i = 0; i < 48; i++) {
			double want = strtod(txt[i], NULL), got = g.ev[i].blocks_per_sm;
			checked++;
			if (memcmp(&want, &got, sizeof want) != 0 || !(g.ev[i].have & SA_BLOCKS_PER_SM)) {
				if (bad++ < 3)
					printf("# %s: %.17g, strtod %.17g\n", txt[i], got, want);
			}
		}
	}
	ok(bad == 0 && checked == 60 * 48, "%u doubles as strtod reads them, bit for bit (%u differ)", checked, bad);
}

static void test_numbers(void)
{
	static const char delims[] = { ',', ' ', '\n', '}' };
	unsigned seed = 12345;
	int bad_ts = 0, bad_dur = 0, bad_pid = 0, checked = 0, docs = 0;
	for (int round = 0; round < 40; round++) {
		char doc[16384];
		char ts_txt[MAXEV][40], dur_txt[MAXEV][40], pid_txt[MAXEV][40];
		size_t n = (size_t)snprintf(doc, sizeof doc, "{\"traceEvents\": [");
		int nev = 48;
		for (int i = 0; i < nev; i++) {
			int k = round * nev + i;
			/* integer part 1..18 digits, fraction 0..5, a leading minus now and then */
			int ni = 1 + k % 18, nf = (k / 18) % 6;
			char *q = ts_txt[i];
			for (int d = 0; d < ni; d++) {
				seed = seed * 1103515245u + 12345u;
				*q++ = (char)('0' + (d == 0 && ni > 1 ? 1 + (seed >> 16) % 9 : (seed >> 16) % 10));
			}
			if (nf > 0) {
				*q++ = '.';
				for (int d = 0; d < nf; d++) {
					seed = seed * 1103515245u + 12345u;
					*q++ = (char)('0' + (seed >> 16) % 10);
				}
			}
			*q = '\0';
			int nd = 1 + (k * 7) % 20;
			q = dur_txt[i];
			for (int d = 0; d < nd && d < 12; d++) {
				seed = seed * 1103515245u + 12345u;
				*q++ = (char)('0' + (seed >> 16) % 10);
			}
			*q = '\0';
			q = pid_txt[i];
			if (k % 5 == 0)
				*q++ = '-';
			for (int d = 0; d < nd; d++) {
				seed = seed * 1103515245u + 12345u;
				*q++ = (char)('0' + (d == 0 ? 1 + (seed >> 16) % 9 : (seed >> 16) % 10));
			}
			*q = '\0';
			/* each number followed by ',' or '}' at once, or after a space or a newline; and
			 * 1..8 spaces before the key move its alignment */
			char dl = delims[k % 4];
			char sep[3] = { dl, ',', 0 }, close[3] = { dl, '}', 0 };
			if (dl == ',' || dl == '}') {
				sep[0] = ',', sep[1] = 0;
				close[0] = '}', close[1] = 0;
			}
			n += (size_t)snprintf(doc + n, sizeof doc - n,
			                      "%s{\"ph\": \"X\",%.*s\"ts\": %s%s\"dur\": %s%s\"tid\": 1, \"pid\": %s%s",
			                      i ? "," : "", 1 + k % 8, "        ", ts_txt[i], sep, dur_txt[i], sep,
			                      pid_txt[i], close);
		}
		n += (size_t)snprintf(doc + n, sizeof doc - n, "]}");
		struct got g;
		struct scan_stats st;
		char *cause = NULL;
		scan_text(doc, &g, &st, &cause);
		free(cause);
		docs += g.n == nev;
		for (int i = 0; i < nev && i < g.n; i++) {
			int64_t want;
			if (scan_parse_us_as_ns(ts_txt[i], ts_txt[i] + strlen(ts_txt[i]), &want) == 0)
				bad_ts += !g.ev[i].has_ts || g.ev[i].ts != want;
			if (scan_parse_us_as_ns(dur_txt[i], dur_txt[i] + strlen(dur_txt[i]), &want) == 0)
				bad_dur += !g.ev[i].has_dur || g.ev[i].dur != want;
			if (strlen(pid_txt[i]) <= 18 + (pid_txt[i][0] == '-'))
				bad_pid += g.ev[i].pid.is_str || g.ev[i].pid.num != strtoll(pid_txt[i], NULL, 10);
			checked++;
		}
	}
	is_int(docs, 40, "numbers of every length: every event of the 40 documents read");
	ok(checked == 40 * 48, "%d events checked", checked);
	is_int(bad_ts, 0, "each ts read as scan_parse_us_as_ns reads its text");
	is_int(bad_dur, 0, "each dur too");
	is_int(bad_pid, 0, "each pid of up to 18 digits as strtoll reads it");
}

int main(void)
{
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp failed");
	test_fixed_point();
	test_basic_object();
	test_bare_array_and_leniency();
	test_truncated();
	test_not_trace();
	test_locations();
	test_big_document();
	test_limits();
	test_arg_keys();
	test_numbers();
	test_doubles();
	rmdir(tmpdir);
	return done_testing();
}
