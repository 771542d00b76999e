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

/* Whether the source location FRAME (N bytes: "path.py(12): fn", a python_function's name)
 * is the user's code: not in torch, not built in, not a module marker. */
bool op_args_user_frame(const char *frame, size_t n);

#endif
