/* index_links.h: the steps of index_build (src/index.c) that link a trace's records rather
 * than lay out its tracks (src/index_links.c). */
#ifndef TT_INDEX_LINKS_H
#define TT_INDEX_LINKS_H

#include "lib/helper.h"
#include "src/model.h"

/* Before the lay-out: sorts T's flow ends and pairs them into T's flows, written over the
 * ends (each end keeps its track; bound to slices by index_link). Notes repeated ids and
 * ends without their other end in T's quality. */
void index_pair_flows(struct trace *t);

/* Before the lay-out, after index_pair_flows: turns T's builder GPU facts into gpu_info in
 * place, their links to slices and launches absent until index_link. */
void index_expand_gpu_facts(struct trace *t);

/* After the lay-out: links each GPU fact to its slice and to the runtime call of its
 * correlation id (a GPU operation without one noted in T's quality), binds each flow's
 * ends to the slices they start in, and finds T's steps (ProfilerStep#N). With a helper
 * H (lib/helper.h; NULL: none), the flows are bound in chunks by it and by this thread. */
void index_link(struct trace *t, struct helper *h);

#endif
