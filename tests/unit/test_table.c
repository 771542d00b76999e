/* test_table.c: the table's values, sort, filter, layout, elision and both writers. */
#include <stdlib.h>
#include <string.h>

#include "ui/table.h"
#include "tests/unit/tap.h"

static const struct column cols[] = {
	{ "name", "name", COL_TEXT, 1 },
	{ "duration_ns", "duration", COL_DUR, 0 },
	{ "share_pct", "share", COL_PCT, 0 },
	{ "calls", "calls", COL_COUNT, 0 },
	{ "bytes", "bytes", COL_BYTES, 0 },
};

static char out[8192];

static const char *text(const struct table *t, const uint32_t *rows, uint32_t n, int width)
{
	FILE *f = fmemopen(out, sizeof out, "w");
	table_write_text(f, t, rows, n, width, "  ");
	fclose(f);
	return out;
}

static const char *json(const struct table *t)
{
	FILE *f = fmemopen(out, sizeof out, "w");
	struct jsonw w;
	jsonw_init(&w, f);
	table_write_json(&w, t, NULL, 0);
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

	ok(table_row_matches(&t, r1, "SGEMM"), "filter ignores case");
	ok(!table_row_matches(&t, r0, "sgemm"), "filter rejects a row without the text");
	ok(table_row_matches(&t, r0, ""), "an empty filter passes every row");

	is_int(table_elide("abcdefghij", 5, true, b, sizeof b), 5, "elided to the width");
	is_str(b, "a...j", "ASCII elision keeps head and tail");
	table_elide("abcdefghij", 5, false, b, sizeof b);
	is_str(b, "ab\xe2\x80\xa6ij", "elided in the middle with an ellipsis");
	table_elide("short", 10, false, b, sizeof b);
	is_str(b, "short", "short text unchanged");
	table_elide("caf\xc3\xa9\xc3\xa9\xc3\xa9xyz", 5, false, b, sizeof b);
	is_str(b, "ca\xe2\x80\xa6yz", "elision counts code points, not bytes");

	int colw[5];
	table_layout(&t, NULL, 3, 60, colw);
	is_int(colw[1], 8, "a fixed column as wide as its widest value");
	ok(colw[0] + colw[1] + colw[2] + colw[3] + colw[4] + 4 <= 60, "the layout fits the width");
	ok(colw[0] >= 4, "a flex column at least as wide as its title");
	table_layout(&t, NULL, 3, 500, colw);
	is_int(colw[0], (int)strlen("ampere_sgemm_128x64_nn_with_a_very_long_kernel_name_that_will_not_fit"), "a flex column no wider than its widest value");

	const char *s = text(&t, NULL, 0, 60);
	ok(strstr(s, "  name") == s, "heading first, indented");
	ok(strstr(s, "\xe2\x80\xa6") != NULL, "a long name elided, not cut");
	ok(strstr(s, "2.50 ms") != NULL, "durations written");
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
	return done_testing();
}
