/* test_comm_args.c: a collective's args read in one pass (parsers/comm_args.c) give what
 * cJSON's tree gives, on the cases that differ in order, type, repetition and escapes,
 * and on 200,000 args objects made at random from the keys Kineto writes and others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/comm_args.h"
#include "tests/unit/tap.h"

static int same(const struct comm_args *a, const struct comm_args *b)
{
	return a->sized == b->sized && a->in_nelems == b->in_nelems && a->out_nelems == b->out_nelems &&
	       a->elem_bytes == b->elem_bytes && a->group_size == b->group_size &&
	       strcmp(a->collective, b->collective) == 0 && strcmp(a->group, b->group) == 0;
}

/* Both ways on TEXT; returns whether they agree (and says how when not). */
static int agree(const char *text)
{
	struct comm_args a, b;
	int ra = comm_args_parse(text, &a, false), rb = comm_args_parse(text, &b, true);
	if (ra == rb && (ra != 0 || same(&a, &b)))
		return 1;
	printf("# differ on %s\n#   one pass: %d in %lld out %lld bytes %d group %d coll '%s' pg '%s'\n"
	       "#   tree:     %d in %lld out %lld bytes %d group %d coll '%s' pg '%s'\n",
	       text, ra, (long long)a.in_nelems, (long long)a.out_nelems, a.elem_bytes, a.group_size, a.collective,
	       a.group, rb, (long long)b.in_nelems, (long long)b.out_nelems, b.elem_bytes, b.group_size, b.collective,
	       b.group);
	return 0;
}

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

int main(void)
{
	struct comm_args a;
	const char *kineto = "{\"External id\": 43, \"Collective name\": \"allreduce\", \"In msg nelems\": 1048576, "
			     "\"Out msg nelems\": 1048576, \"Group size\": 8, \"dtype\": \"BFloat16\", "
			     "\"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process Group Name\": \"0\", "
			     "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": \"[0, 1]\"}";
	is_int(comm_args_parse(kineto, &a, false), 0, "Kineto's args of an NCCL kernel read");
	ok(a.sized && a.in_nelems == 1048576 && a.elem_bytes == 2 && a.group_size == 8 &&
	           strcmp(a.collective, "allreduce") == 0 && strcmp(a.group, "0") == 0,
	   "their message: 1048576 BFloat16, group 0 of 8, allreduce");
	ok(agree(kineto), "(as the tree reads them)");

	static const char *cases[] = {
		/* the description before the name: the name still wins */
		"{\"Process Group Description\": \"d\", \"Process Group Name\": \"n\"}",
		"{\"Process Group Description\": \"d\", \"Process Group Name\": \"\"}",
		"{\"Process Group Description\": \"d\"}",
		/* the first of a repeated key, whatever its type */
		"{\"In msg nelems\": \"5\", \"In msg nelems\": 7, \"dtype\": \"Float\"}",
		"{\"In msg nelems\": 5, \"In msg nelems\": 7, \"dtype\": \"Float\", \"dtype\": \"Long\"}",
		"{\"Collective name\": 3, \"Collective name\": \"x\"}",
		/* numbers out of range, negative, with exponents, non-finite, null */
		"{\"In msg nelems\": -1, \"Out msg nelems\": 1e3, \"Group size\": 2.5e6}",
		"{\"In msg nelems\": 9e18, \"Out msg nelems\": 8.9e18, \"Group size\": 999999}",
		"{\"In msg nelems\": nan, \"Out msg nelems\": -inf, \"Group size\": null}",
		"{\"In msg nelems\": 1.2.3}",
		"{\"In msg nelems\": e5}",
		/* escapes: the tree's */
		"{\"Collective name\": \"all\\\"reduce\"}",
		"{\"dtype\": \"Fl\\u006fat\", \"In msg nelems\": 4}",
		"{\"In msg\\u0020nelems\": 4}",
		/* values skipped: nested, with brackets inside strings */
		"{\"a\": [[1, 2], {\"b\": \"]}\"}], \"In msg nelems\": 8, \"dtype\": \"Half\"}",
		/* not an object, or broken */
		"[1, 2]",
		"{\"In msg nelems\": 4,}",
		"{\"In msg nelems\" 4}",
		"{\"In msg nelems\": 4} x",
		"{}",
		"  { \"dtype\" :\"Int\" , \"In msg nelems\" :\n 3 }  ",
		"{\"Collective name\": \"a very long collective name that is cut to the field's size, as snprintf cuts\"}",
	};
	int n = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		n += agree(cases[i]);
	is_int(n, (int)(sizeof cases / sizeof cases[0]), "the odd cases: one pass as the tree");
	comm_args_parse(cases[0], &a, false);
	is_str(a.group, "n", "a group's name before its description, in either order");
	comm_args_parse(cases[3], &a, false);
	ok(!a.sized && a.in_nelems == -1, "the first In msg nelems, a string, leaves the size unknown");

	/* random objects from these keys and values */
	static const char *keys[] = { "In msg nelems",
		                      "Out msg nelems",
		                      "Group size",
		                      "dtype",
		                      "Collective name",
		                      "Process Group Name",
		                      "Process Group Description",
		                      "External id",
		                      "Process Group Ranks",
		                      "In split size",
		                      "x" };
	static const char *vals[] = { "0",
		                      "4",
		                      "1048576",
		                      "-3",
		                      "2.5",
		                      "1e9",
		                      "\"Float\"",
		                      "\"BFloat16\"",
		                      "\"\"",
		                      "\"allreduce\"",
		                      "null",
		                      "true",
		                      "[]",
		                      "[1, [2, \"]\"]]",
		                      "{\"k\": {}}",
		                      "\"a\\\"b\"",
		                      "nan",
		                      "\"Long\"",
		                      "99999999999999999999" };
	static const char *sp[] = { "", " ", "\n  " };
	char buf[2048];
	int agreed = 0, total = 200000;
	for (int r = 0; r < total; r++) {
		size_t o = 0;
		unsigned nk = rnd(8);
		o += (size_t)snprintf(buf + o, sizeof buf - o, "{%s", sp[rnd(3)]);
		for (unsigned k = 0; k < nk; k++)
			o += (size_t)snprintf(buf + o, sizeof buf - o, "%s\"%s\":%s%s%s", k ? "," : "",
			                      keys[rnd(sizeof keys / sizeof keys[0])], sp[rnd(3)],
			                      vals[rnd(sizeof vals / sizeof vals[0])], sp[rnd(3)]);
		snprintf(buf + o, sizeof buf - o, "}");
		if (agree(buf))
			agreed++;
		else if (total - agreed > 5)
			break;
	}
	is_int(agreed, total, "200,000 random args objects: one pass as the tree");
	return done_testing();
}
