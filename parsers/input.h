/* input.h: a stream of bytes from a trace file or stdin, decompressed on the fly.
 *
 * The codec is sniffed from magic bytes, never from the name: gzip (1f 8b), zstd
 * (28 b5 2f fd), else plain. Compressed input is inflated on a background thread into
 * a small ring of buffers, so decompression runs beside the parser; memory stays
 * bounded (a few MB) whatever the file size. Input files are only ever read.
 *
 * Memory: a zstd frame may ask for a window of up to INPUT_ZSTD_WINDOW_MAX (a frame that
 * asks for more fails, with its offset and window in the message). Windows up to
 * INPUT_ZSTD_WINDOW_SMALL (what zstd -1 to -19 write) are free; a bigger one, like a
 * scanner window past its small size, first takes one of the few process-wide large
 * grants (input_hold_large), waiting for one to be given back. So however many files
 * load at once, at most INPUT_LARGE_SLOTS of them hold large buffers. */
#ifndef TT_INPUT_H
#define TT_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum input_codec { INPUT_PLAIN, INPUT_GZIP, INPUT_ZSTD };

#define INPUT_ZSTD_WINDOW_SMALL ((uint64_t)8 << 20)
#define INPUT_ZSTD_WINDOW_MAX ((uint64_t)1 << 27)
#define INPUT_LARGE_SLOTS 2

struct input;
struct seek_index;

/* Opens PATH ("-" means stdin) for reading. Returns the input, or NULL with *cause set
 * to an allocated message naming the file ("cannot open x.json: No such file..."). */
struct input *input_open(const char *path, char **cause);

/* As input_open, for a file opened before: opens PATH only if it is still the regular
 * file DEV/INO (input_file_id), without ever blocking (a FIFO put in its place is not
 * opened for reading). Returns NULL with *cause otherwise ("has the file changed?"). */
struct input *input_reopen(const char *path, uint64_t dev, uint64_t ino, char **cause);

/* True when IN reads a regular file by its name (not stdin, a pipe, a FIFO, a device, nor
 * memory): then
 * *DEV and *INO identify it, for input_reopen. */
bool input_file_id(const struct input *in, uint64_t *dev, uint64_t *ino);

/* What a regular file was when it was opened: reading it back later goes on only while
 * all of it still holds. */
struct input_file {
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns; /* modification and status change times */
};
/* As input_file_id, filling *ID. */
bool input_file_identity(const struct input *in, struct input_file *id);
/* Opens PATH for reading, without ever blocking, only if it is still the regular file ID
 * (same device, inode, size, modification and status change time). Returns the descriptor (the caller
 * closes it), or -1 with *cause set ("... has the file changed?"). */
int input_open_same(const char *path, const struct input_file *id, char **cause);

/* A compressed regular file records seek points while it is decompressed
 * (parsers/seekindex.h). This stops IN's decompression (no read is valid after it; close
 * IN as usual) and hands over the index, which covers at least every byte read; NULL
 * when IN keeps none (plain, stdin, a pipe). */
struct seek_index *input_take_index(struct input *in);

/* Returns an input over the LEN bytes at BUF (not copied: they must outlive the input),
 * whose stream offsets start at BASE, named PATH in messages. At its end it reports a
 * clean end, or, when END_CAUSE is not NULL, fails with a copy of END_CAUSE (a stream
 * that was cut: the bytes are its last complete part). Not seekable. */
struct input *input_open_mem(const char *path, const char *buf, size_t len, uint64_t base, const char *end_cause);

/* Reads the first LEN bytes of the regular file PATH, decompressed (plain, gzip or zstd by
 * its magic), into BUF, on the calling thread: for a look at a file's beginning without
 * the reader thread and buffers input_open sets up. Returns the count (less than LEN when
 * the file's data ends first), or -1 when PATH is not a regular file that can be read or
 * its stream is damaged before LEN bytes. A FIFO or device is never opened. */
ssize_t input_head(const char *path, void *buf, size_t len);

/* Copies up to LEN decompressed bytes into BUF. Returns the count (> 0), 0 at a clean
 * end of input, or -1 when the input ends badly (truncated or corrupt compressed
 * stream, read error): *cause is then an allocated message that names the file and the
 * compressed byte offset where it failed. All bytes returned before -1 are valid
 * decompressed data and stay usable (salvage). */
ssize_t input_read(struct input *in, void *buf, size_t len, char **cause);

/* The codec sniffed at open. */
enum input_codec input_codec(const struct input *in);
/* "plain", "gzip" or "zstd". */
const char *input_codec_name(enum input_codec c);
/* The file's size on disk when it is a regular file, else 0. */
uint64_t input_file_size(const struct input *in);
/* How many bytes of the file (compressed bytes for gzip/zstd) have been consumed: for
 * progress, safe to call from the reading thread only. */
uint64_t input_file_offset(const struct input *in);
/* How many decompressed bytes input_read has returned so far. */
uint64_t input_data_offset(const struct input *in);
/* The path as given ("-" for stdin). */
const char *input_path(const struct input *in);

/* True for a plain (uncompressed) regular file: the only kind that can be read at an
 * offset, and so parsed in parallel parts. */
bool input_is_seekable(const struct input *in);
/* Seekable inputs only: the next input_read starts at OFFSET (input_data_offset becomes
 * OFFSET). Returns 0, or -1 when the input is not seekable or the seek failed. */
int input_seek(struct input *in, uint64_t offset);
/* Seekable inputs only: copies up to LEN bytes at OFFSET into BUF without moving the
 * read position. Returns the count (short only at the end of the file) or -1. */
ssize_t input_pread(struct input *in, void *buf, size_t len, uint64_t offset);
/* pread of LEN bytes at OFFSET of FD, retried on EINTR and short reads: the bytes read
 * (fewer at the end of the file), or -1. */
ssize_t input_pread_fd(int fd, void *buf, size_t len, uint64_t offset);

/* A plain regular file's descriptor and its size now (fstat), for a reader that maps the
 * file instead of reading it (parsers/scan_window.c): the descriptor stays IN's, its read
 * position is not used. Returns -1 for any other input, or one that has failed or ended. */
int input_map_source(const struct input *in, uint64_t *size);

/* Waits until IN holds one of the large grants; at once when it holds one already (the
 * producer thread and the reader of an input share its grant). The grant is given back
 * by input_close. Returns 0, or -1 when IN is a memory input (they never hold one) or
 * is being closed. Holders must not wait on anything that waits for a grant. */
int input_hold_large(struct input *in);
/* True when IN holds a large grant. */
bool input_holds_large(const struct input *in);
/* Sets how many large grants there are (INPUT_LARGE_SLOTS by default, at least 1); for
 * tests, while no input holds one. */
void input_set_large_slots(unsigned n);

/* Stops the background thread, closes the file and frees everything. NULL is a no-op. */
void input_close(struct input *in);

#endif
