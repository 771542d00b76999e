/* trace_out.h: a trace file that ttrace writes (crop), compressed as its name says:
 * ".gz" gzip, ".zst" zstd, anything else plain; "-" is standard output, plain.
 *
 * The rules for the path are `ttrace record -o`'s: a new file is created O_EXCL and
 * O_NOFOLLOW (never through a symbolic link); an existing regular file is replaced only
 * with FORCE, a FIFO or character device is written into only with FORCE, anything else
 * is refused; and whatever FORCE says, never a file that is one of the inputs (the same
 * device and inode). A file this writer created is removed when writing fails. */
#ifndef TT_CMD_TRACE_OUT_H
#define TT_CMD_TRACE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_out;

/* What a file of mode M is, for a message: "a regular file", "a FIFO", ... */
const char *trace_out_file_kind(mode_t m);

/* The identity of an input, which the output must not be. */
struct out_avoid {
	uint64_t dev, ino;
};

/* Opens PATH for writing, as above; AVOID (N of them) are the inputs. NULL with *CAUSE
 * (allocated) when it may not or cannot be. */
struct trace_out *trace_out_open(const char *path, bool force, const struct out_avoid *avoid, int n, char **cause);
/* Appends LEN bytes of JSON. Returns 0, or -1 (the error kept for trace_out_close). */
int trace_out_write(struct trace_out *o, const void *buf, size_t len);
/* Finishes the compressed stream and closes. Returns 0, or -1 with *CAUSE (allocated)
 * when anything failed since the open (a file created here is then removed). */
int trace_out_close(struct trace_out *o, char **cause);
/* Writes S (N bytes) as a JSON string: quotes, backslashes and control bytes escaped. */
void trace_out_json_string(struct trace_out *o, const char *s, size_t n);
/* Gives up: closes and removes a file created here. */
void trace_out_abort(struct trace_out *o);

#endif
