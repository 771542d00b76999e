/* test_escape.c: nothing from a trace reaches the terminal raw; JSON output stays valid. */
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "ui/grid.h"
#include "tests/unit/tap.h"

static char out[4096];

static const char *term(const char *s, size_t n)
{
	FILE *f = fmemopen(out, sizeof out, "w");
	escape_term(f, s, n);
	fclose(f);
	return out;
}

static const char *json(const char *s, size_t n)
{
	FILE *f = fmemopen(out, sizeof out, "w");
	escape_json(f, s, n);
	fclose(f);
	return out;
}

int main(void)
{
	char b[64];
	is_str(term("aten::mm", 8), "aten::mm", "plain text unchanged");
	is_str(term("\x1b[31mred\x1b]0;title\x07", 18), "\\x1b[31mred\\x1b]0;title\\x07", "ESC and BEL escaped");
	/* clang-format off */
	is_str(term("a\x01" "b", 3), "a\\x01b", "C0 control escaped");
	is_str(term("line\nnext\t", 10), "line\\nnext\\t", "newline and tab made visible");
	is_str(term("caf\xc3\xa9 \xf0\x9f\x98\x80", 10), "caf\xc3\xa9 \xf0\x9f\x98\x80", "valid UTF-8 kept");
	is_str(term("\xc3\x28\xff", 3), "\\xc3(\\xff", "invalid UTF-8 bytes escaped");
	is_str(term("\xc2\x9b" "2J", 4), "\\u009b2J", "C1 CSI escaped");
	is_str(term("\x7f", 1), "\\x7f", "DEL escaped");
	is_str(term("\xed\xa0\x80", 3), "\\xed\\xa0\\x80", "UTF-16 surrogate encoded in UTF-8 rejected");
	is_str(term("\xe0\x80\xaf", 3), "\\xe0\\x80\\xaf", "overlong encoding rejected");
	is_str(escape_term_buf("abcdef", 6, b, 4), "abc", "buffer cut on a whole unit");
	is_str(escape_term_buf("\x1b\x1b", 2, b, 6), "\\x1b", "escape not split by the cut");
	is_str(json("a\"b\\c\n\x01", 7), "\"a\\\"b\\\\c\\n\\u0001\"", "JSON escapes");
	is_str(json("\xff" "ok", 3), "\"\\ufffdok\"", "invalid UTF-8 becomes U+FFFD in JSON");
	is_str(json("\xe2\x82\xac", 3), "\"\xe2\x82\xac\"", "valid UTF-8 kept in JSON");
	/* C1 controls: as UTF-8 they are code points, as raw bytes invalid UTF-8 */
	is_str(term("a\xc2\x85" "b\xc2\x9f", 6), "a\\u0085b\\u009f", "C1 as UTF-8 shown as \\u00XX");
	is_str(term("\xc2\xa0", 2), "\xc2\xa0", "U+00A0, just past C1, kept");
	is_str(term("\x9b" "2J\x85\x80", 5), "\\x9b2J\\x85\\x80", "raw C1 bytes shown as \\xNN");
	/* bidi controls */
	is_str(term("a\xe2\x80\xae" "b", 5), "a\\u202eb", "RLO U+202E escaped");
	/* clang-format on */
	is_str(term("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 12), "\\u202a\\u202b\\u202c\\u202d",
	       "U+202A-U+202D escaped");
	is_str(term("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", 12), "\\u2066\\u2067\\u2068\\u2069",
	       "isolates U+2066-U+2069 escaped");
	is_str(term("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 8), "\\u200e\\u200f\\u061c", "LRM, RLM, ALM escaped");
	is_str(term("\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa", 12),
	       "\xe2\x80\x8d\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa", "neighbours of the bidi controls kept");
	is_str(escape_term_buf("\xe2\x80\xae\xe2\x80\xae", 6, b, 8), "\\u202e", "a \\u escape is not split by the cut");
	is_str(escape_term_buf("x\xc2\x9b\x9b", 4, b, sizeof b), "x\\u009b\\x9b", "escape_term_buf escapes C1 too");
	/* in JSON: \u escapes */
	is_str(json("\xc2\x85\xc2\x9b", 4), "\"\\u0085\\u009b\"", "C1 as \\u00XX in JSON");
	is_str(json("\xe2\x80\xae\xe2\x81\xa9\xd8\x9c\xe2\x80\x8f", 11), "\"\\u202e\\u2069\\u061c\\u200f\"",
	       "bidi controls as \\u escapes in JSON");
	is_str(json("\x1b]0;t\x07\x7f", 7), "\"\\u001b]0;t\\u0007\\u007f\"", "ESC, BEL, DEL as \\u escapes in JSON");
	is_str(json("\x9b", 1), "\"\\ufffd\"", "a raw C1 byte becomes U+FFFD in JSON");
	/* the predicate the grid relies on */
	ok(escape_cp_is_control(0x1b) && escape_cp_is_control(0x7f) && escape_cp_is_control(0x85) &&
	           escape_cp_is_control(0x202e) && escape_cp_is_control(0x2066) && escape_cp_is_control(0x61c),
	   "controls recognised");
	ok(!escape_cp_is_control(' ') && !escape_cp_is_control(0xa0) && !escape_cp_is_control(0x2502) &&
	           !escape_cp_is_control(0x202f) && !escape_cp_is_control(0x2065),
	   "printable code points are not controls");
	{
		char msg[256];
		FILE *f = fmemopen(msg, sizeof msg, "w");
		escape_say(f, "ttrace: unknown report '%s'", "x\x1b]52;c;QQ==\x07\xe2\x80\xae");
		fclose(f);
		is_str(msg, "ttrace: unknown report 'x\\x1b]52;c;QQ==\\x07\\u202e'\n",
		       "escape_say formats, escapes, ends the line");
	}
	{
		/* the grid stores no control, whatever a caller passes */
		static const uint32_t bad[] = { 0x1b, 0x07, 0x7f, 0x85, 0x9b, 0x202e, 0x2066, 0x61c, 0xd800, 0x110000 };
		struct grid g;
		int kept = 0;
		grid_init(&g, 20, 2);
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			grid_set(&g, (int)i, 0, bad[i], CS_NORMAL, 0);
			kept += g.cells[i].ch != '?';
		}
		is_int(kept, 0, "grid_set stores C0, DEL, C1, bidi and non-scalars as '?'");
		grid_set(&g, 0, 1, 0x2502, CS_NORMAL, 0);
		grid_set(&g, 1, 1, 0, CS_NORMAL, 0);
		grid_set(&g, 2, 1, 0xa0, CS_NORMAL, 0);
		ok(g.cells[g.w].ch == 0x2502 && g.cells[g.w + 1].ch == 0 && g.cells[g.w + 2].ch == 0xa0,
		   "grid_set keeps printable code points and the wide-character filler 0");
		/* clang-format off */
		int x = grid_text(&g, 0, 0, g.w, "a\xe2\x80\xae" "b\xc2\x85\x1b\x9b" "c", CS_NORMAL, 0);
		/* clang-format on */
		is_int(x, 7, "grid_text: one cell per character or invalid byte");
		ok(g.cells[0].ch == 'a' && g.cells[1].ch == '?' && g.cells[2].ch == 'b' && g.cells[3].ch == '?' &&
		           g.cells[4].ch == '?' && g.cells[5].ch == '?' && g.cells[6].ch == 'c',
		   "grid_text: bidi, C1, ESC and a raw C1 byte become '?'");
		grid_free(&g);
	}
	return done_testing();
}
