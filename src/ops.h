/* ops.h: the Operators view's figures, as the TensorBoard plugin's Operator view defines
 * them (its operator tree), grouped by name, by name and a key the caller gives (input
 * shapes, source location), or by call path (the tree mode).
 *
 * The operator tree, per CPU thread, by interval containment: its nodes are operators
 * (ops_counts_as_op: cpu_op, or every slice of a legacy trace), ProfilerStep#N, nn.Module
 * python_function slices, "python" slices and nccl:/gloo: collectives' user annotations;
 * other user annotations and python functions are not nodes (their children belong to the
 * node around them), and a node that overlaps the one around it without nesting is left
 * out. A node with exactly one child node of the same name, both operators, absorbs it:
 * the child's children and runtime calls become its own, and its own runtime calls are
 * dropped (torch.autograd's _remove_dup_nodes, which the plugin follows).
 *
 * A runtime call (cuda_runtime and the like, cuda_driver too) belongs to the innermost
 * operator or user annotation around it: to that node, or to none when that is a user
 * annotation that is not a node. The plugin attaches runtime calls by External id, which
 * gives the same owner wherever the trace's External ids are consistent; where they are
 * not (some traces give every runtime call an id no operator has), it attaches nothing
 * and every operator has 0 device time, and ttrace keeps the enclosing one. The plugin
 * also ignores cuda_driver launches (cuLaunchKernel: Triton, CUTLASS JIT kernels); ttrace
 * counts them. GPU activities (kernels, memcpy, memset) belong to their runtime call by
 * correlation id.
 *
 * Per node: CPU total = its duration; self CPU = duration - its child nodes' durations -
 * its own runtime calls' durations (a runtime call nested in another counts once);
 * self device = the durations of the GPU activities of its own runtime calls; device
 * total = self device + its child nodes' device totals. Rows are operators but
 * ProfilerStep#N, enumerate(DataLoader)#...__next__, enumerate(DataPipe)#..., Optimizer.*,
 * DataParallel.forward and DistributedDataParallel.forward; each sums its instances. */
#ifndef TT_OPS_H
#define TT_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/strtab.h"
#include "src/model.h"

/* One node of the operator tree (after the merge). */
struct op_inst {
	struct slice_ref ref;
	uint32_t parent; /* the enclosing node's position in the tree, or TT_NONE */
	uint32_t name;   /* string id */
	bool row;        /* an operator row (not a step, module, DataLoader...) */
	int64_t dur, cpu_self, dev_self, dev_total;
};

/* The operator tree of a trace: nodes in thread then time order (a parent before its
 * children). */
struct op_tree {
	struct op_inst *inst;
	uint32_t n;
	uint64_t gpu_ops, gpu_ops_linked; /* GPU activities, and those owned by a node */
};

enum op_group {
	OP_BY_NAME,
	OP_BY_SHAPE,  /* name and input shapes (args "Input Dims") */
	OP_BY_SOURCE, /* name and source location (src/ops.h's caller finds it) */
	OP_BY_TREE,   /* call path: names from the root, rolled up */
	OP__GROUPS
};

struct op_row {
	uint32_t name;   /* the operator's string id */
	uint32_t key;    /* id in the report's keys: shape or source; 0 when none */
	uint32_t parent; /* tree: the row of the enclosing path, or TT_NONE */
	uint16_t depth;  /* tree: 0 at a root */
	uint64_t calls;
	int64_t cpu_total, cpu_self;
	int64_t dev_total, dev_self;
	struct slice_ref longest; /* the longest instance */
};

struct op_report {
	enum op_group group;
	struct op_row *rows; /* by name: by device total, then CPU total, longest first;
	                      * tree: depth first, siblings likewise */
	uint32_t n;
	uint64_t gpu_ops, gpu_ops_linked;
	struct strtab keys; /* the keys' text (shape or source), id 0 the empty one */
	uint64_t keyed;     /* operator instances that have a key */
};

/* Whether slice S of T is an operator: of category cpu_op/Operator, or, in a legacy-exporter
 * trace that has no categories, any CPU slice but ProfilerStep#N (ops_legacy_op). Inline:
 * the analyses ask it of every slice of the CPU threads. */
bool ops_legacy_op(const struct trace *t, const struct slice *s);
static inline bool ops_counts_as_op(const struct trace *t, const struct slice *s)
{
	return slice_cls(t, s) == SC_CPU_OP || (t->legacy && slice_cls(t, s) == SC_OTHER && ops_legacy_op(t, s));
}

/* Builds T's operator tree into TREE (free it with ops_tree_free). */
void ops_tree_build(const struct trace *t, struct op_tree *tree);
void ops_tree_free(struct op_tree *tree);

/* Groups TREE's operator rows into R: by name when KEYS is NULL, else by name and
 * KEYS[i] for node i (ids into KEY_TEXT, 0: none), which R takes over (KEY_TEXT is left
 * initialised and empty). GROUP says which grouping this is. */
void ops_group(const struct trace *t, const struct op_tree *tree, enum op_group group, const uint32_t *keys,
               struct strtab *key_text, struct op_report *r);
/* The grouping by name alone, as ops_tree_build then ops_group with no keys give it, in
 * one sweep without the tree (what the view opens on). */
void ops_by_name(const struct trace *t, struct op_report *r);
/* The summary's figures, into R, grouped by name as ops_by_name groups, with no tree: every
 * operator (ops_counts_as_op; the names the view leaves out included), its calls, CPU
 * total and, in cpu_self, its duration less the time of its direct children on the thread,
 * whatever they are, at least 0 a call (not the plugin's self time); device figures 0.
 * Rows by that self time, largest first, ties by the name's text. */
void ops_thread_self(const struct trace *t, struct op_report *r);
/* The tree mode: every call path of TREE's nodes (ProfilerStep#N left out, its children
 * roots), nodes with the same path summed, into R. */
void ops_group_tree(const struct trace *t, const struct op_tree *tree, struct op_report *r);
void ops_free(struct op_report *r);

/* The name of a grouping ("name", "shape", "source", "tree"), and the grouping of such a
 * name; -1 when none has it. */
const char *ops_group_name(enum op_group g);
int ops_group_of(const char *name);

#endif
