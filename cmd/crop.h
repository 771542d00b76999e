/* crop.h: `ttrace crop IN -o OUT`: the events of a window of a trace as a trace of its
 * own, for Perfetto, a bug report or a smaller file to pass around.
 *
 * The window is a time range (--from, --to: offsets from the trace's start, as the
 * timeline's ruler shows them) or a profiler step (--step=N: the TensorBoard plugin's
 * device-adjusted step, so that the kernels the step launched are in it). OUT is written
 * as plain JSON, gzip or zstd by its name (.json, .json.gz, .json.zst; "-": plain JSON on
 * standard output). What is kept, each event's bytes exactly as in the input:
 * - every header key (deviceProperties, distributedInfo, baseTimeNanoseconds, ...), and
 *   every metadata (M) event;
 * - complete (X) events that overlap the window, whole (not clipped);
 * - B/E pairs (matched per thread in file order) that overlap it, both ends: a pair that
 *   crosses an edge stays closed; a B without its E, when it begins before the window ends;
 * - instant events inside it, and for each [memory] device and each counter series the
 *   last sample before it, so that the curves start at the right value;
 * - flows whose every event lies inside it (a flow that crosses an edge is dropped: the
 *   slice at its other end is not in the file); async (b/e/n) ids whose span overlaps it.
 * The window comes from the trace's model, from its cache when there is one; with the
 * model's map of where the events lie (src/event_blocks.h), only the blocks of the file
 * that the window needs are read, else the whole file, once (twice for a big window: the
 * matching, then the copy). */
#ifndef TT_CMD_CROP_H
#define TT_CMD_CROP_H

#include <stdbool.h>
#include <stdint.h>

/* Runs the subcommand on ARGV[0..argc), where ARGV[0] is "crop". Returns 0 when OUT was
 * written, 1 when the input could not be read or OUT not written (OUT is then removed), 2 on
 * a usage error. */
int crop_main(int argc, char **argv);

struct trace;

/* Writes the events of PATH in [W0, W1) (its file's time, ns) to OUTP as above (FORCE: as
 * -f), reading only the blocks of PATH that the window needs when T (PATH loaded; may be
 * NULL) has a map of its events, else the whole file. Returns 0 with *KEPT of *TOTAL
 * events, or -1 with *CAUSE (allocated), OUTP then not left behind when crop_file created
 * it. */
int crop_file(const char *path, const struct trace *t, int64_t w0, int64_t w1, const char *outp, bool force,
              uint64_t *kept, uint64_t *total, char **cause);

#endif
