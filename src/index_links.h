/* index_links.h: the steps of index_build (src/index.c) that link a trace's records rather
 * than lay out its tracks (src/index_links.c). */
#ifndef TT_INDEX_LINKS_H
#define TT_INDEX_LINKS_H

#include "lib/helper.h"
#include "src/model.h"

/* First: gives each track whose slices have GPU facts its fact index a slice (track.gpu),
 * from the bits the builder kept and the facts' tracks (trace.gpu_fact_track), which go. */
void index_unpack_gpu_bits(struct trace *t);

/* Before the lay-out: sorts T's flow ends and pairs them into T's flows, written over the
 * ends (each end keeps its track; bound to slices by index_link). Notes repeated ids and
 * ends without their other end in T's quality. */
void index_pair_flows(struct trace *t);

/* The runtime calls that GPU operations link to: N of them, one for each correlation id
 * (the first in the file when several share it), as indices into T's gpu sorted by that
 * id; NRT calls had one. From index_gpu_facts to index_link. */
struct launch_keys {
	uint32_t *keys;
	uint32_t n, nrt;
};

/* Before the lay-out, once T's tracks are sorted: numbers T's builder GPU facts in the
 * order of their slices (each track's fact indices become its gpu_words, which make
 * slice_gpu and gpu_self), turns them into gpu_info in place, and fills LK for index_link. */
void index_gpu_facts(struct trace *t, struct launch_keys *lk);

/* After the lay-out: links each GPU operation to the runtime call of its correlation id in
 * LK (an operation without one noted in T's quality; LK's keys freed), binds each flow's
 * ends to the slices they start in, and finds T's steps (ProfilerStep#N). With a helper H
 * (lib/helper.h; NULL: none), the flows are bound in chunks by it and by this thread. */
void index_link(struct trace *t, struct launch_keys *lk, struct helper *h);

#endif
