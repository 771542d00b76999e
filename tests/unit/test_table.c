/* test_table.c: the table's values, sort, filter, layout, elision and its writers: text,
 * JSON and CSV (and the CSV capture of a JSON writer, with the paths of its tables). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ui/table.h"
#include "tests/unit/tap.h"

static const struct column cols[] = {
	{ "name", "name", COL_TEXT, 1, 0 },      { "duration_ns", "duration", COL_DUR, 0, 0 },
	{ "share_pct", "share", COL_PCT, 0, 0 }, { "calls", "calls", COL_COUNT, 0, 0 },
	{ "bytes", "bytes", COL_BYTES, 0, 0 },
};

static char out[8192];

/* A table that writes more in JSON than it shows, nests dotted keys and holds child rows. */
static const struct column rich_cols[] = {
	{ "n", "#", COL_INT, 0, COL_TEXT_ONLY },
	{ "pid", "pid", COL_INT, 0, 0 },
	{ "start_ns", "start", COL_TIME, 0, 0 },
	{ "end_ns", "end", COL_TIME, 0, COL_JSON_ONLY },
	{ "cause", "cause", COL_TEXT, 0, COL_TEXT_ONLY },
	{ "cause", "cause", COL_TEXT, 0, COL_JSON_ONLY },
	{ "slice.name", "slice", COL_TEXT, 1, 0 },
	{ "slice.dur_ns", "slice duration", COL_DUR, 0, COL_JSON_ONLY },
	{ "device", "GPU", COL_INT, 0, COL_OMIT_NULL },
	{ "util", "utilization", COL_RATIO, 0, 0 },
	{ "ok", "ok", COL_BOOL, 0, 0 },
	{ "parts", "parts", COL_ROWS, 0, COL_JSON_ONLY },
};
static const struct column part_cols[] = {
	{ "rank", "rank", COL_INT, 0, 0 },
	{ "wait_ns", "wait", COL_DUR, 0, COL_OMIT_NULL },
};

/* The JSON of T's rows with the columns COLS, on one line (jsonw indents: squeezed out). */
static const char *json_cols(const struct table *t, uint64_t set)
{
	static char flat[8192];
	FILE *f = fmemopen(out, sizeof out, "w");
	struct jsonw w;
	jsonw_init(&w, f);
	table_write_json(&w, t, NULL, 0, set);
	jsonw_finish(&w);
	fclose(f);
	size_t k = 0;
	bool in_str = false;
	for (const char *p = out; *p && k + 1 < sizeof flat; p++) {
		if (*p == '"' && (p == out || p[-1] != '\\'))
			in_str = !in_str;
		if (in_str || (*p != ' ' && *p != '\n'))
			flat[k++] = *p;
	}
	flat[k] = '\0';
	return flat;
}

static const char *text_cols(const struct table *t, uint64_t set, int width)
{
	FILE *f = fmemopen(out, sizeof out, "w");
	table_write_text(f, t, NULL, 0, set, width, "");
	fclose(f);
	return out;
}

static void rich(void)
{
	struct table t, parts;
	char b[256];
	table_init(&t, rich_cols, 12);
	table_init(&parts, part_cols, 2);
	table_set_child(&t, 11, &parts);
	t.origin = 1000;
	uint32_t r0 = table_add_row(&t, 0), r1 = table_add_row(&t, 1);
	table_set_int(&t, r0, 0, 1);
	table_set_int(&t, r0, 1, 42);
	table_set_int(&t, r0, 2, 3000);
	table_set_int(&t, r0, 3, 4000);
	table_set_str(&t, r0, 4, "data loading");
	table_set_str(&t, r0, 5, "dataloader");
	table_set_str(&t, r0, 6, "next");
	table_set_int(&t, r0, 7, 500);
	table_set_int(&t, r0, 8, 3);
	table_set_pct(&t, r0, 9, 0.3912);
	table_set_int(&t, r0, 10, 1);
	uint32_t p0 = table_add_row(&parts, 0), p1 = table_add_row(&parts, 1);
	table_set_int(&parts, p0, 0, 0);
	table_set_int(&parts, p0, 1, 70);
	table_set_int(&parts, p1, 0, 1);
	table_set_rows(&t, r0, 11, p0, 2);
	table_set_int(&t, r1, 0, 2);
	table_set_str(&t, r1, 1, "pid-as-text");
	table_set_int(&t, r1, 2, 1000);
	table_set_int(&t, r1, 10, 0);

	table_format(&t, r0, 2, b, sizeof b);
	is_str(b, "+0.002 ms", "a time shown from the table's origin");
	table_format(&t, r0, 9, b, sizeof b);
	is_str(b, "39.12%", "a ratio shown as a percentage, two decimals");
	table_format(&t, r1, 10, b, sizeof b);
	is_str(b, "no", "a boolean shown as yes or no");
	table_format(&t, r1, 1, b, sizeof b);
	is_str(b, "pid-as-text", "a number column may hold text");
	size_t n;
	ok(table_text(&t, r1, 1, &n) != NULL && n == 11, "the text of a text cell in a number column");
	is_int(table_cmp(&t, 1, r0, r1) < 0, 1, "numbers sort before text in one column");
	ok(table_row_matches(&t, r1, TABLE_ALL, "AS-TEXT"), "the filter finds text in a number column");
	ok(table_row_matches(&t, r0, TABLE_ALL, "loading"), "the filter finds the words shown");
	ok(!table_row_matches(&t, r0, TABLE_ALL, "dataloader"), "the filter does not find what only JSON has");
	ok(!table_row_matches(&t, r1, table_cols_of(&t, "start_ns"), "as-text"), "nor what the column set leaves out");

	const char *j = json_cols(&t, TABLE_ALL);
	ok(strstr(j, "\"n\"") == NULL, "a text-only column is not in JSON");
	ok(strstr(j, "\"end_ns\":4000") != NULL, "a JSON-only column is in JSON");
	ok(strstr(j, "\"start_ns\":3000") != NULL, "times in JSON as they are, not from the origin");
	ok(strstr(j, "\"cause\":\"dataloader\"") != NULL && strstr(j, "data loading") == NULL,
	   "JSON has the key where the text shows the words");
	ok(strstr(j, "\"slice\":{\"name\":\"next\",\"dur_ns\":500}") != NULL, "dotted keys nest as an object");
	ok(strstr(j, "\"slice\":null") != NULL, "an object whose values are all null is null");
	ok(strstr(j, "\"device\":3") != NULL, "an omit-null column with a value is written");
	ok(strstr(j, "\"pid\":\"pid-as-text\",\"start_ns\":1000,\"end_ns\":null,\"cause\":null,\"slice\":null,"
	             "\"util\":null,\"ok\":false,\"parts\":null}") != NULL,
	   "an omit-null column without a value has no key; text in a number column is a JSON string");
	ok(strstr(j, "\"util\":0.3912") != NULL, "a ratio in JSON as the fraction");
	ok(strstr(j, "\"ok\":true") != NULL, "a boolean in JSON");
	ok(strstr(j, "\"parts\":[{\"rank\":0,\"wait_ns\":70},{\"rank\":1}]") != NULL,
	   "child rows as an array of objects, in the child's own columns");
	j = json_cols(&t, table_cols_between(&t, "pid", "start_ns"));
	is_str(j, "[{\"pid\":42,\"start_ns\":3000},{\"pid\":\"pid-as-text\",\"start_ns\":1000}]",
	       "a column set writes only its columns");
	is_int(table_cols_between(&t, "start_ns", "cause"), 0x1c, "the set of the columns between two keys");
	is_int(table_cols_of(&t, "nope"), 0, "no column, an empty set");

	const char *s = text_cols(&t, TABLE_ALL, 120);
	ok(s[0] == '#' && strstr(s, " pid ") != NULL, "a text-only column heads the text");
	ok(strstr(s, "end") == NULL && strstr(s, "slice duration") == NULL && strstr(s, "parts") == NULL,
	   "JSON-only columns are not in the text");
	ok(strstr(s, "data loading") != NULL && strstr(s, "dataloader") == NULL, "the text shows the words");
	s = text_cols(&t, table_cols_of(&t, "pid") | table_cols_of(&t, "util"), 120);
	is_str(s, "        pid utilization\n         42      39.12%\npid-as-text           -\n",
	       "a column set shows only its columns");
	int colw[12];
	is_int(table_layout(&t, NULL, 2, table_cols_of(&t, "pid") | table_cols_of(&t, "ok"), 80, colw), 15,
	       "the layout counts only the columns shown");
	is_int(colw[3] + colw[0], 0, "columns not shown get no width");

	/* CSV, worked by hand: JSON's columns but the column of rows, its values, null empty */
	FILE *f = fmemopen(out, sizeof out, "w");
	table_write_csv(f, &t, NULL, 0, TABLE_ALL);
	fclose(f);
	is_str(out,
	       "pid,start_ns,end_ns,cause,slice.name,slice.dur_ns,device,util,ok\n"
	       "42,3000,4000,dataloader,next,500,3,0.3912,true\n"
	       "pid-as-text,1000,,,,,,,false\n",
	       "CSV: a header of JSON keys, a line per row, nulls empty, the column of rows left out");
	f = fmemopen(out, sizeof out, "w");
	table_write_csv_child(f, &t, NULL, 0, 11);
	fclose(f);
	is_str(out, "parent_row,rank,wait_ns\n0,0,70\n0,1,\n", "CSV: child rows after their parent's position");
	uint32_t only1 = r1;
	f = fmemopen(out, sizeof out, "w");
	table_write_csv(f, &t, &only1, 1, table_cols_between(&t, "pid", "start_ns"));
	fclose(f);
	is_str(out, "pid,start_ns\npid-as-text,1000\n", "CSV: the rows listed, the column set");
	table_free(&t);
	table_free(&parts);
}

static const struct column name_cols[] = {
	{ "name", "name", COL_TEXT, 1, 0 },
	{ "n", "n", COL_COUNT, 0, 0 },
};

/* CSV quoting (RFC 4180) and text written byte for byte, but NUL. */
static void csv_text(void)
{
	static const struct {
		const char *s;
		size_t n;
		const char *want;
	} cases[] = {
		{ "plain", 5, "plain,1\n" },
		{ "a,b", 3, "\"a,b\",1\n" },
		{ "say \"hi\"", 8, "\"say \"\"hi\"\"\",1\n" },
		{ "cr\rlf\n", 6, "\"cr\rlf\n\",1\n" },
		{ "#x", 2, "\"#x\",1\n" },
		{ "a#", 2, "a#,1\n" },
		{ "", 0, "\"\",1\n" },
		{ "n\0l", 3, "n\xef\xbf\xbdl,1\n" },
		{ "\x1b[2J\xff\xe2\x80\xae", 8, "\x1b[2J\xff\xe2\x80\xae,1\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct table t;
		table_init(&t, name_cols, 2);
		uint32_t r = table_add_row(&t, 0);
		table_set_text(&t, r, 0, cases[i].s, cases[i].n);
		table_set_int(&t, r, 1, 1);
		char buf[256];
		FILE *f = fmemopen(buf, sizeof buf, "w");
		table_write_csv(f, &t, NULL, 0, TABLE_ALL);
		fclose(f);
		const char *line = strchr(buf, '\n') + 1;
		ok(strcmp(line, cases[i].want) == 0, "CSV text %zu written as RFC 4180 wants", i);
		table_free(&t);
	}
}

/* The capture: a JSON writer set up under jsonw_capture writes no JSON, and its tables go
 * to the sink as blocks named by their JSON paths, or the one --table names. */
static void csv_capture(const char *only, const char *want, uint32_t written, const char *paths)
{
	struct table t;
	table_init(&t, name_cols, 2);
	uint32_t r = table_add_row(&t, 0);
	table_set_str(&t, r, 0, "k");
	table_set_int(&t, r, 1, 2);
	char buf[1024] = "", json[64] = "";
	FILE *f = fmemopen(buf, sizeof buf, "w"), *j = fmemopen(json, sizeof json, "w");
	struct table_csv c = { .f = f, .only = only };
	jsonw_capture(&c);
	struct jsonw w;
	jsonw_init(&w, j);
	jsonw_object(&w);
	jsonw_key(&w, "version");
	jsonw_str(&w, "1");
	jsonw_key(&w, "files");
	jsonw_array(&w);
	for (int i = 0; i < 2; i++) {
		jsonw_object(&w);
		jsonw_key(&w, "path");
		jsonw_str(&w, "p");
		jsonw_key(&w, "kernels");
		table_write_json(&w, &t, NULL, 0, TABLE_ALL);
		jsonw_key(&w, "after");
		jsonw_int(&w, 1);
		jsonw_end_object(&w);
	}
	jsonw_end_array(&w);
	jsonw_key(&w, "top");
	table_write_json(&w, &t, NULL, 0, TABLE_ALL);
	jsonw_end_object(&w);
	jsonw_finish(&w);
	jsonw_capture(NULL);
	fclose(f);
	fclose(j);
	is_str(buf, want, "capture (--table=%s): the blocks", only ? only : "");
	is_int(c.written, written, "capture (--table=%s): blocks written", only ? only : "");
	is_str(c.paths, paths, "capture: the paths met");
	is_str(json, "", "capture: no JSON written");
	table_csv_release(&c);
	table_free(&t);
}

static const char *text(const struct table *t, const uint32_t *rows, uint32_t n, int width)
{
	FILE *f = fmemopen(out, sizeof out, "w");
	table_write_text(f, t, rows, n, TABLE_ALL, width, "  ");
	fclose(f);
	return out;
}

static const char *json(const struct table *t)
{
	FILE *f = fmemopen(out, sizeof out, "w");
	struct jsonw w;
	jsonw_init(&w, f);
	table_write_json(&w, t, NULL, 0, TABLE_ALL);
	jsonw_finish(&w);
	fclose(f);
	return out;
}

int main(void)
{
	struct table t;
	char b[256];
	table_init(&t, cols, 5);
	uint32_t r0 = table_add_row(&t, 10), r1 = table_add_row(&t, 11), r2 = table_add_row(&t, 12);
	table_set_str(&t, r0, 0, "aten::mm");
	table_set_int(&t, r0, 1, 1500);
	table_set_pct(&t, r0, 2, 12.5);
	table_set_int(&t, r0, 3, 3);
	table_set_int(&t, r0, 4, 2048);
	table_set_str(&t, r1, 0, "ampere_sgemm_128x64_nn_with_a_very_long_kernel_name_that_will_not_fit");
	table_set_int(&t, r1, 1, 2500000);
	table_set_pct(&t, r1, 2, 80.0);
	table_set_int(&t, r1, 3, 1);
	table_set_str(&t, r2, 0, "\x1b]0;pwned\x07");
	table_set_int(&t, r2, 1, 700);
	table_set_int(&t, r2, 3, 2);
	is_int(t.nrows, 3, "three rows");
	is_int(t.tag[1], 11, "rows keep their tag");
	is_int(table_col(&t, "calls"), 3, "a column by key");
	is_int(table_col(&t, "nope"), -1, "an unknown key");

	table_format(&t, r0, 1, b, sizeof b);
	is_str(b, "1.50 us", "a duration formatted");
	table_format(&t, r0, 2, b, sizeof b);
	is_str(b, "12.5%", "a percentage formatted");
	table_format(&t, r2, 2, b, sizeof b);
	is_str(b, "-", "a null shown as -");
	table_format(&t, r2, 0, b, sizeof b);
	ok(strchr(b, 0x1b) == NULL && strchr(b, 0x07) == NULL, "trace text escaped for the terminal");
	table_set_na(&t, r2, 4, "n/a");
	table_format(&t, r2, 4, b, sizeof b);
	is_str(b, "n/a", "a value not available shows its text");
	ok(table_value(&t, r2, 4)->null, "and is null (JSON null, sorted last)");

	uint32_t rows[3] = { 0, 1, 2 };
	table_sort(&t, rows, 3, 1, true);
	ok(rows[0] == 1 && rows[1] == 0 && rows[2] == 2, "sorted by duration, longest first");
	table_sort(&t, rows, 3, 1, false);
	ok(rows[0] == 2 && rows[1] == 0 && rows[2] == 1, "sorted by duration, shortest first");
	table_sort(&t, rows, 3, 2, false);
	ok(rows[0] == 0 && rows[1] == 1 && rows[2] == 2, "nulls sort last");
	table_sort(&t, rows, 3, 2, true);
	ok(rows[2] == 2, "nulls sort last when descending too");
	table_sort(&t, rows, 3, 0, false);
	ok(rows[0] == 2 && rows[1] == 1 && rows[2] == 0, "sorted by name bytes");

	ok(table_row_matches(&t, r1, TABLE_ALL, "SGEMM"), "filter ignores case");
	ok(!table_row_matches(&t, r0, TABLE_ALL, "sgemm"), "filter rejects a row without the text");
	ok(table_row_matches(&t, r0, TABLE_ALL, ""), "an empty filter passes every row");

	is_int(table_elide("abcdefghij", 5, true, b, sizeof b), 5, "elided to the width");
	is_str(b, "a...j", "ASCII elision keeps head and tail");
	table_elide("abcdefghij", 5, false, b, sizeof b);
	is_str(b, "ab\xe2\x80\xa6ij", "elided in the middle with an ellipsis");
	table_elide("short", 10, false, b, sizeof b);
	is_str(b, "short", "short text unchanged");
	table_elide("caf\xc3\xa9\xc3\xa9\xc3\xa9xyz", 5, false, b, sizeof b);
	is_str(b, "ca\xe2\x80\xa6yz", "elision counts code points, not bytes");

	{
		/* rows alike at both ends: each shows where it departs from the others */
		const char *v[] = {
			"void k<4, at::native::addcdiv_cuda_kernel(at::TensorIteratorBase&), Array<char*, 4> >",
			"void k<4, at::native::addcmul_cuda_kernel(at::TensorIteratorBase&), Array<char*, 4> >",
			"volta_sgemm_128x32_nt", "volta_sgemm_128x32_nt",
			"void k<4, at::native::addcdiv_cuda_kernel(at::TensorIteratorBase&), Array<char*, 4> >"
		};
		int at[5];
		table_elide_apart(v, 5, 40, false, at);
		ok(at[0] == 26 && at[1] == 26 && at[4] == 26, "alike rows depart at code point 26 (%d %d %d)", at[0],
		   at[1], at[4]);
		ok(at[2] == -1 && at[3] == -1, "equal values that fit are left alone");
		char e0[256], e1[256];
		is_int(table_elide_at(v[0], 40, at[0], false, e0, sizeof e0), 40, "elided to the width");
		table_elide_at(v[1], 40, at[1], false, e1, sizeof e1);
		ok(strcmp(e0, e1) != 0, "the two read differently: '%s' '%s'", e0, e1);
		ok(strstr(e0, "addcd") != NULL && strstr(e1, "addcm") != NULL, "each shows its own part");
		table_elide(v[0], 40, false, b, sizeof b);
		table_elide(v[1], 40, false, e1, sizeof e1);
		ok(strcmp(b, e1) == 0, "where table_elide alone writes them the same");
		table_elide_at(v[0], 40, 2, false, e0, sizeof e0);
		table_elide(v[0], 40, false, b, sizeof b);
		ok(strncmp(e0, v[0], 29) == 0 && strstr(e0, "\xe2\x80\xa6") != NULL,
		   "departing near the start: a longer head");
		table_elide_at(v[0], 40, 80, true, e0, sizeof e0);
		ok(strstr(e0, "Array<char*, 4> >") != NULL && strstr(e0, "...") != NULL,
		   "near the end: a longer tail (ASCII)");
		is_int(table_elide_at("short", 40, 3, false, e0, sizeof e0), 5, "a value that fits is whole");
		const char *u[] = {
			"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 middle part A and a tail that is long",
			"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 middle part B and a tail that is long"
		};
		table_elide_apart(u, 2, 24, false, at);
		ok(at[0] == 23 && at[1] == 23, "code points, not bytes (%d %d)", at[0], at[1]);
	}

	int colw[5];
	table_layout(&t, NULL, 3, TABLE_ALL, 60, colw);
	is_int(colw[1], 8, "a fixed column as wide as its widest value");
	ok(colw[0] + colw[1] + colw[2] + colw[3] + colw[4] + 4 <= 60, "the layout fits the width");
	ok(colw[0] >= 4, "a flex column at least as wide as its title");
	table_layout(&t, NULL, 3, TABLE_ALL, 500, colw);
	is_int(colw[0], (int)strlen("ampere_sgemm_128x64_nn_with_a_very_long_kernel_name_that_will_not_fit"),
	       "a flex column no wider than its widest value");

	const char *s = text(&t, NULL, 0, 60);
	ok(strstr(s, "  name") == s, "heading first, indented");
	ok(strstr(s, "\xe2\x80\xa6") != NULL, "a long name elided, not cut");
	ok(strstr(s, "2500 us") != NULL, "durations written, in the column's one unit");
	table_format(&t, r2, 1, b, sizeof b);
	is_str(b, "0.700 us", "one unit down the column: 700 ns as 0.700 us beside 2500 us");
	table_format(&t, r1, 1, b, sizeof b);
	is_str(b, "2500 us", "the largest: no decimals from 100 units on");
	table_format(&t, r0, 4, b, sizeof b);
	is_str(b, "2.05 kB", "bytes in a unit too");
	ok(strchr(s, 0x1b) == NULL, "no raw escape in the text");
	int lines = 0, longest = 0, cur = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '\n') {
			lines++;
			longest = cur > longest ? cur : longest;
			cur = 0;
		} else if ((*p & 0xc0) != 0x80) {
			cur++;
		}
	}
	is_int(lines, 4, "a heading and a line per row");
	ok(longest <= 60, "every line fits the width (%d)", longest);

	s = json(&t);
	ok(strstr(s, "\"duration_ns\": 2500000") != NULL || strstr(s, "\"duration_ns\":2500000") != NULL,
	   "JSON durations as integer ns");
	ok(strstr(s, "that_will_not_fit") != NULL, "JSON names whole");
	ok(strstr(s, "null") != NULL, "JSON nulls");
	ok(strchr(s, 0x1b) == NULL, "JSON escapes control characters");

	table_clear(&t);
	is_int(t.nrows, 0, "cleared");
	table_free(&t);
	rich();
	csv_text();
	csv_capture(NULL, "# files.0.kernels\nname,n\nk,2\n\n# files.1.kernels\nname,n\nk,2\n\n# top\nname,n\nk,2\n", 3,
	            "files.0.kernels, files.1.kernels, top");
	csv_capture("files.1.kernels", "name,n\nk,2\n", 1, "files.0.kernels, files.1.kernels, top");
	csv_capture("files.2.kernels", "", 0, "files.0.kernels, files.1.kernels, top");
	return done_testing();
}
