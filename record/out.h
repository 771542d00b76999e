/* out.h: the recorder's output file, a JSON document that is whole at every checkpoint.
 *
 * The file holds the document's opening and the events written so far, then a closing
 * (see trace_writer.h): each checkpoint writes the events since the last one over the
 * previous closing and a new closing after them, in one write, so that a program that
 * crashes between checkpoints leaves the document of the last one. Compressed (zstd), the
 * events of each checkpoint are one frame and the closing another; plain, the text as it
 * is. The file never shrinks: a closing shorter than the one it replaces is padded, with
 * spaces in plain JSON and with a skippable frame in zstd. Between checkpoints the
 * compressed events wait in memory; out_pending tells how much, so the caller can
 * checkpoint early.
 *
 * A stream (a FIFO or a character device, which cannot be written over) gets the opening
 * and the events in order, each checkpoint's events when it is made, and the last
 * checkpoint's closing at out_close: what a reader gets is whole once the file is closed,
 * and cut short (which ttrace reads up to the cut) when the program dies before. */
#ifndef TTRACE_RECORD_OUT_H
#define TTRACE_RECORD_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct out;

/* Creates PATH (O_EXCL and O_NOFOLLOW: never replaces a file, never follows a symbolic
 * link) and writes PREFIX and an empty CLOSING. ZSTD picks the compressed form. NULL with
 * errno set on failure. */
struct out *out_create(const char *path, bool zstd, const char *prefix, size_t prefix_len, const char *closing,
                       size_t closing_len);

/* Like out_create, but into the stream FD, open for writing (a FIFO, a character device),
 * which the out takes over: out_close (or a failure here) closes it. A write to a FIFO
 * whose reader has gone fails with EPIPE and raises no SIGPIPE. */
struct out *out_stream(int fd, bool zstd, const char *prefix, size_t prefix_len, const char *closing,
                       size_t closing_len);

/* Adds event text (compressing it when the file is zstd). 0, or -1 after a failure. */
int out_write(struct out *o, const char *text, size_t len);

/* Bytes waiting for the next checkpoint. */
size_t out_pending(const struct out *o);

/* Writes what is pending and CLOSING after it. 0, or -1 (errno) when the write failed:
 * the file then keeps the previous checkpoint's document. */
int out_checkpoint(struct out *o, const char *closing, size_t closing_len);

/* Bytes of the file, and of the JSON written into it (the uncompressed size). */
uint64_t out_file_bytes(const struct out *o);
uint64_t out_json_bytes(const struct out *o);

/* Closes the file (after a last checkpoint by the caller; a stream gets that checkpoint's
 * closing now) and frees O. */
int out_close(struct out *o);

#endif
