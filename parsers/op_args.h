/* op_args.h: the Operators view's grouping keys that live in the args of operator slices
 * (input shapes, the source location), read back on demand through the trace's args
 * store and parsed here, where cJSON is allowed. */
#ifndef TT_OP_ARGS_H
#define TT_OP_ARGS_H

#include "src/ops.h"

/* An op_keys_fn (src/analysis.h): fills KEYS[i] for each operator row node i of TREE with
 * the id in TEXT of its key of grouping G, 0 when it has none:
 * OP_BY_SHAPE: args "Input Dims" (or "Input dims") written as Python writes a list,
 *   "[[888, 3072], [888, 128], []]";
 * OP_BY_SOURCE: the first frame of args "Call stack" not in torch and not built in, else
 *   the innermost enclosing python_function slice that is neither.
 * Args are read in file order, several operators' at a time, so the cost is about one
 * more pass over the file; an operator whose args cannot be read has no key. */
void op_args_keys(const struct trace *t, const struct op_tree *tree, enum op_group g, uint32_t *keys,
                  struct strtab *text);

/* The input shapes of one of T's first operators, for telling whether two runs fed the model
 * alike: the first (in time, on the first CPU thread that has one) operator whose name is
 * NAME, or, when NAME is NULL, a layer's (aten::linear, conv, embedding, matmul, norm...),
 * among the first MAX operators of each thread, whose args carry "Input Dims" (a thread
 * none of whose first 20 operators has shapes is given up: few args are read). Returns its
 * shapes as op_args_keys writes them (allocated) and its name's string id in *NAME_ID; NULL
 * when none (shapes not recorded, or args unreadable). *RECORDED says whether any
 * operator looked at had "Input Dims" at all (record_shapes). */
char *op_args_first_shapes(const struct trace *t, const char *name, uint32_t max, uint32_t *name_id, bool *recorded);

/* Whether the source location FRAME (N bytes: "path.py(12): fn", a python_function's name)
 * is the user's code: not in torch, not built in, not a module marker. */
bool op_args_user_frame(const char *frame, size_t n);

#endif
