/* opcheck.c: checks that the Operators view's one-sweep grouping by name (ops_by_name)
 * gives exactly what the operator tree grouped by name gives (ops_tree_build then
 * ops_group), row by row and field by field, on each file given.
 *
 *   opcheck FILE...
 *
 * Prints "FILE: N rows, same" per file, or each difference; exits 1 on any difference,
 * 2 when a file does not load. */
#include <stdio.h>
#include <string.h>

#include "parsers/load.h"
#include "src/ops.h"

static int compare(const char *path, const struct trace *t)
{
	struct op_tree tree;
	struct op_report a, b;
	ops_tree_build(t, &tree);
	ops_group(t, &tree, OP_BY_NAME, NULL, NULL, &a);
	ops_by_name(t, &b);
	int bad = 0;
	if (a.n != b.n || a.gpu_ops != b.gpu_ops || a.gpu_ops_linked != b.gpu_ops_linked) {
		printf("%s: rows %u vs %u, gpu ops %llu/%llu vs %llu/%llu\n", path, a.n, b.n,
		       (unsigned long long)a.gpu_ops_linked, (unsigned long long)a.gpu_ops,
		       (unsigned long long)b.gpu_ops_linked, (unsigned long long)b.gpu_ops);
		bad = 1;
	}
	for (uint32_t i = 0; i < a.n && i < b.n; i++) {
		const struct op_row *x = &a.rows[i], *y = &b.rows[i];
		if (x->name != y->name || x->calls != y->calls || x->cpu_total != y->cpu_total ||
		    x->cpu_self != y->cpu_self || x->dev_total != y->dev_total || x->dev_self != y->dev_self ||
		    x->longest.track != y->longest.track || x->longest.idx != y->longest.idx) {
			printf("%s: row %u (%s): tree calls %llu cpu %lld/%lld dev %lld/%lld longest %u:%u; "
			       "sweep (%s) calls %llu cpu %lld/%lld dev %lld/%lld longest %u:%u\n",
			       path, i, strtab_get(&t->strings, x->name), (unsigned long long)x->calls,
			       (long long)x->cpu_self, (long long)x->cpu_total, (long long)x->dev_self,
			       (long long)x->dev_total, x->longest.track, x->longest.idx,
			       strtab_get(&t->strings, y->name), (unsigned long long)y->calls, (long long)y->cpu_self,
			       (long long)y->cpu_total, (long long)y->dev_self, (long long)y->dev_total,
			       y->longest.track, y->longest.idx);
			bad = 1;
		}
	}
	if (!bad)
		printf("%s: %u rows, same%s\n", path, a.n,
		       t->shared_launch ? " (runtime calls with several GPU activities)" : "");
	ops_free(&a);
	ops_free(&b);
	ops_tree_free(&tree);
	return bad;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct load_options opt = { 0 };
		struct trace *t = NULL;
		load_traces(argv + i, 1, &opt, &t);
		if (t == NULL || t->status == LOAD_FAILED) {
			printf("%s: cannot load\n", argv[i]);
			rc = 2;
		} else if (compare(argv[i], t)) {
			rc = rc ? rc : 1;
		}
		if (t != NULL)
			trace_free(t);
	}
	return rc;
}
