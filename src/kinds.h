/* kinds.h: a trace's table of slice kinds (struct slice_kind: name, row, category, class,
 * flags), which its slices index. A trace holds a few thousand kinds for millions of
 * slices; a file whose slices all differ holds one a slice, correct but bigger.
 *
 * The builder interns a slice's kind as it pushes it, the merge of parts maps one table
 * into another, the index interns again the kinds of the slices it lays out in rows (their
 * depth and partial flag) on two threads: while kinds_share is on, interning takes a lock
 * and a table that grows keeps its old array until kinds_share is turned off, so that a
 * reader on the other thread never reads freed memory (readers load t->kinds each time:
 * slice_kind_of). */
#ifndef TT_KINDS_H
#define TT_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/model.h"

/* Gives T an empty table (T->kinds, T->nkinds, T->kind_table). */
void kinds_init(struct trace *t);
/* The index of kind K in T's table, added if it is new. */
uint32_t kinds_intern(struct trace *t, struct slice_kind k);
/* While ON, kinds_intern may be called from several threads at once (see above); turned
 * off, the arrays kept meanwhile are freed. */
void kinds_share(struct trace *t, bool on);
/* Gives DST a copy of SRC's table (the same indices), able to intern more. */
void kinds_copy(struct trace *dst, const struct trace *src);
/* Frees T's table (its array too unless BORROWED: a cache mapping's). */
void kinds_free(struct trace *t, bool borrowed);

#endif
