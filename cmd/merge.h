/* merge.h: `ttrace merge DIR|FILES -o OUT`: the traces of a job's ranks as one trace, for
 * Perfetto and the other viewers that show one file: the ranks lined up by the alignment
 * ttrace computes (src/ranks.h, --align), with no manual offsets.
 *
 * Each rank's events are copied as they are but for what must change for them to live in
 * one file: `ts` moves by the rank's offset; `pid` becomes the rank's own (rank position
 * p, the process's place in its file k: (p + 1) * 100000 + k), so that each rank's
 * processes group together, named "rank R: NAME" and sorted by rank; flow and async ids
 * and the `correlation` and `External id` args, which number the events of one process,
 * get the rank position in their bits 40 and up, so that ranks do not link to each other.
 * The header is the first rank's (its deviceProperties, base time...) without its
 * distributedInfo, and a key `ttraceMerge` says each rank's source, offset and pid base,
 * the alignment and its residual. */
#ifndef TT_CMD_MERGE_H
#define TT_CMD_MERGE_H

/* Runs the subcommand on ARGV[0..argc), where ARGV[0] is "merge". Returns 0 when OUT was
 * written, 1 when not, 2 on a usage error. */
int merge_main(int argc, char **argv);

#endif
