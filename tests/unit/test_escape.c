/* test_escape.c: nothing from a trace reaches the terminal raw; JSON output stays valid. */
#include <stdlib.h>
#include <string.h>

#include "ui/escape.h"
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
	return done_testing();
}
