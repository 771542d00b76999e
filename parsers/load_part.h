/* load_part.h: one part of a file's parse (the whole file, a range of it parsed beside the
 * others, or a chunk of a compressed stream): its own input, scanner and builder, and the
 * sink that ties them together (parsers/load_job.h has the job it belongs to). */
#ifndef TT_LOAD_PART_H
#define TT_LOAD_PART_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "parsers/chrome_scan.h"
#include "parsers/input.h"
#include "parsers/load_job.h"
#include "src/args_side.h"
#include "src/builder.h"

struct part {
	struct job *job;
	uint64_t last_data, last_file;
	struct trace *t;
	struct builder *b;
	struct input *in;
	struct scan_range range;
	bool ranged;
	struct scan_stats stats;
	enum scan_result res;
	char *cause;
	struct args_side *side; /* args kept aside (load_keeps_args_aside), or NULL */
	pthread_t thread;
	int index;       /* its place among the file's parts */
	unsigned served; /* the last snapshot it gave a copy for */
	unsigned events; /* events seen (for slow_us) */
};

/* The facts of EV that the map of where the events lie keeps (src/event_blocks.h): its
 * EB_* flags in *FLAGS, whether it is timed (a finite ts), its end in *END (ts + dur of a
 * complete event, else ts), its series' key in *SERIES (with EB_CM, else 0); as cmd/crop.c
 * tells the events apart. */
void load_block_facts(const struct scan_event *ev, uint32_t *flags, bool *timed, int64_t *end, uint64_t *series);

/* Scans P's input (P->range when P->ranged) through the Chrome rules into P's builder,
 * keeping args aside into P->side when it has one, serving the job's snapshots, counting
 * its progress and keeping its problems as P->t's warnings; the result and cause (owned by
 * P) in P->res and P->cause. Ends the job's snapshots. */
void load_part_scan(struct part *p);

/* load_part_scan on a thread of its own: ARG is the part. */
void *load_part_main(void *arg);

/* Finds up to PARTS-1 offsets where an event of the array begins ("}, {"), evenly spread
 * over the SIZE bytes of IN, into SPLITS; says whether the document is an object. Returns
 * how many were found (0: parse it in one piece). */
int load_part_splits(struct input *in, uint64_t size, int parts, uint64_t *splits, bool *top_is_object);

/* Frees the parts 0..NSPLIT of an abandoned parse, but for part 0's input and trace
 * (part 0's builder, cause and args kept aside are freed). */
void load_parts_free(struct part *parts, int nsplit);

#endif
