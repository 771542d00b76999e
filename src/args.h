/* args.h: an event's full `args`, read through the args store its trace owns and parsed
 * on demand.
 *
 * The model keeps only where each slice's args object lies in the decompressed stream
 * (slice.args: offset and length). The trace's store turns such a range back into bytes;
 * which store a trace gets is the loader's choice: a plain file is read at the offset, a
 * compressed file from its nearest seek point (parsers/seekindex.h), a big single-frame
 * zstd file and standard input from a copy of their args kept in memory, compressed
 * (src/args_side.h). Nothing here does I/O itself (an args_reader closes the file its
 * store opened), nor parses JSON: the args text is parsed by parsers/args_json.h. */
#ifndef TT_ARGS_H
#define TT_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/model.h"

struct args_store;

/* What a store does. Reads are independent of one another (each keeps its own state), so
 * a store may be read from any thread once the load is over. */
struct args_store_ops {
	/* Copies the LEN bytes at offset OFFSET of the decompressed stream into BUF.
	 * Returns 0, or -1 with *cause set to an allocated message (the file changed or
	 * vanished, the args were not kept, ...). */
	int (*read)(struct args_store *st, uint64_t offset, size_t len, char *buf, char **cause);
	/* Bytes of memory the store holds. */
	uint64_t (*memory)(const struct args_store *st);
	void (*free)(struct args_store *st);
	/* Returns what a later run needs to make the same store again over the same file (a
	 * tag byte, then the store's own layout: parsers/cache_dir.h restores it), allocated,
	 * with its length in *LEN; NULL when the store cannot be saved. */
	char *(*save)(const struct args_store *st, size_t *len);
	/* For many reads in a row (struct args_reader), where a read opens a file: opens it
	 * once, returning a descriptor for read_open, or -1 with *cause set (allocated); and
	 * read as READ through that descriptor (the caller closes it). NULL: every read
	 * opens what it needs itself. */
	int (*open)(struct args_store *st, char **cause);
	int (*read_open)(struct args_store *st, int fd, uint64_t offset, size_t len, char *buf, char **cause);
};

/* A store: each kind embeds this as its first member. */
struct args_store {
	const struct args_store_ops *ops;
	const char *kind; /* for reports: "file", "gzip checkpoints", "in memory", ... */
};

/* Reads the raw args text that ARGS (a slice's: slice_args) points at through T's store into *TEXT (allocated,
 * NUL-terminated, starting with '{'). Returns 0, or -1 with *cause set (allocated) when
 * the slice has no args, the trace has no store, or the store cannot give them back (file
 * changed or gone, args of a large standard input not kept). */
int args_store_text(const struct trace *t, uint64_t args, char **text, char **cause);

/* Many reads of one trace's args in a row, its file opened once rather than at every read
 * (a distributed report reads every collective kernel's args of every rank; on a network
 * file system an open costs more than the read). Not shared between threads. */
struct args_reader {
	const struct trace *t;
	int fd;      /* the store's file, open; -1: none */
	bool opened; /* the store's open was tried */
};

void args_reader_init(struct args_reader *r, const struct trace *t);
/* As args_store_text, through R. */
int args_reader_text(struct args_reader *r, uint64_t args, char **text, char **cause);
/* Closes what R opened. */
void args_reader_end(struct args_reader *r);

/* The first byte of a saved store (args_store_ops.save). */
enum args_saved_kind {
	ARGS_SAVED_FILE = 'F', /* a plain file, read at the offset */
	ARGS_SAVED_SEEK = 'S', /* a compressed file's seek index (parsers/seekindex.h) */
	ARGS_SAVED_SIDE = 'M', /* the side store's compressed chunks (src/args_side.h) */
};

/* Returns T's store saved (args_store_ops.save), or NULL when it has none or it cannot be
 * saved. */
char *args_store_save(const struct args_store *st, size_t *len);

/* Returns a store whose every read fails with a copy of WHY (copied); the caller owns it. */
struct args_store *args_store_unavailable(const char *why);
/* Bytes of memory ST holds (0 for NULL). */
uint64_t args_store_memory(const struct args_store *st);
/* Frees ST. NULL is a no-op. */
void args_store_free(struct args_store *st);

#endif
