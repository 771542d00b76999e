/* input.c: the byte source under every parser: a file or stdin, sniffed for gzip or
 * zstd by magic bytes, and decompressed on a background thread when compressed.
 *
 * Plain input is read() straight into the caller's buffer; nothing else runs. For
 * gzip and zstd a producer thread reads the compressed bytes and inflates them directly
 * into a ring of RING_SLOTS buffers of SLOT_SIZE bytes; input_read copies out of the
 * slot at the head of the ring. The ring state shared by the two threads is one count,
 * `filled` (slots published and not yet released, the one being read included), plus
 * `done`/`stop` flags, all under `lock`. The producer only fills slot
 * (head + filled) % RING_SLOTS, which the consumer never touches, so slot contents need
 * no lock; the mutex hand-off orders them. Each side waits on its own condition variable
 * and is signalled only on the transition that can unblock it: empty -> non-empty wakes
 * the consumer, full -> not full wakes the producer.
 *
 * Errors (truncated or corrupt stream, read error) are recorded by the producer after it
 * has published every byte decompressed before them, so the consumer sees all the good
 * data first, then -1. When stdin is a pipe the producer may sit in read(): it polls the
 * pipe together with a wake-up pipe that input_close writes to, so closing never hangs on
 * a stalled writer. */
#include "parsers/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "src/xalloc.h"

#define RING_SLOTS 4
#define SLOT_SIZE ((size_t)256 << 10)
#define SRC_BUF_SIZE ((size_t)256 << 10)
#define SNIFF_LEN 4

struct slot {
	unsigned char *buf;
	size_t len;
	uint64_t src_off; /* compressed bytes consumed when the slot was published */
};

struct input {
	char *path;
	const char *name; /* for messages: the path, or "stdin" */
	int fd;
	bool own_fd;
	bool is_reg;
	enum input_codec codec;
	uint64_t file_size;

	unsigned char sniff[SNIFF_LEN];
	size_t sniff_len;
	size_t sniff_pos; /* plain only: how much of sniff input_read has served */

	uint64_t file_off;
	uint64_t data_off;
	bool eof;
	char *err; /* set once the input has ended badly; every later read repeats it */

	/* Memory input (input_open_mem): bytes handed over by the caller. */
	const char *mem;
	size_t mem_len, mem_pos;
	char *mem_end_cause;

	/* Compressed input only. */
	bool threaded;
	pthread_t thread;
	int wake[2];
	z_stream z;
	ZSTD_DStream *zds;
	unsigned char *src;

	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	pthread_cond_t notfull;
	struct slot ring[RING_SLOTS];
	unsigned int filled; /* under lock */
	bool done;	     /* under lock: producer has finished */
	bool stop;	     /* under lock: consumer wants the producer gone */
	char *prod_err;	     /* under lock once done */
	uint64_t final_off;  /* under lock once done */

	unsigned int head; /* consumer: slot being read */
	size_t head_pos;
	bool holding; /* consumer: ring[head] is published and being read */

	unsigned int tail; /* producer: slot being filled */
};

const char *input_codec_name(enum input_codec c)
{
	switch (c) {
	case INPUT_PLAIN:
		return "plain";
	case INPUT_GZIP:
		return "gzip";
	case INPUT_ZSTD:
		return "zstd";
	}
	return "unknown";
}

enum input_codec input_codec(const struct input *in) { return in->codec; }
uint64_t input_file_size(const struct input *in) { return in->file_size; }
uint64_t input_file_offset(const struct input *in) { return in->file_off; }
uint64_t input_data_offset(const struct input *in) { return in->data_off; }
const char *input_path(const struct input *in) { return in->path; }

/* zstd frames start with 28 b5 2f fd; pzstd output starts with a skippable frame,
 * 5? 2a 4d 18, which the zstd decoder steps over by itself. */
static enum input_codec sniff_codec(const unsigned char *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return INPUT_GZIP;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		return INPUT_ZSTD;
	if (n >= 4 && (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18)
		return INPUT_ZSTD;
	return INPUT_PLAIN;
}

static ssize_t read_retry(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Producer side of a read from the compressed source. Returns the count, 0 at end of
 * file, -1 with errno on error, or -2 when input_close asked the producer to stop. */
static ssize_t src_read(struct input *in, void *buf, size_t len)
{
	struct pollfd pfd[2];
	int r;

	if (!in->is_reg) {
		pfd[0].fd = in->fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = in->wake[0];
		pfd[1].events = POLLIN;
		do {
			pfd[0].revents = pfd[1].revents = 0;
			r = poll(pfd, 2, -1);
		} while (r < 0 && errno == EINTR);
		if (r < 0)
			return -1;
		if (pfd[1].revents != 0)
			return -2;
	}
	return read_retry(in->fd, buf, len);
}

/* Returns the slot to fill next, waiting for one to free up; NULL once stopped. */
static struct slot *ring_claim(struct input *in)
{
	bool stop;

	pthread_mutex_lock(&in->lock);
	while (in->filled == RING_SLOTS && !in->stop)
		pthread_cond_wait(&in->notfull, &in->lock);
	stop = in->stop;
	pthread_mutex_unlock(&in->lock);
	if (stop)
		return NULL;
	in->ring[in->tail].len = 0;
	return &in->ring[in->tail];
}

static void ring_publish(struct input *in, struct slot *s, uint64_t src_off)
{
	s->src_off = src_off;
	pthread_mutex_lock(&in->lock);
	if (in->filled++ == 0)
		pthread_cond_signal(&in->nonempty);
	pthread_mutex_unlock(&in->lock);
	in->tail = (in->tail + 1) % RING_SLOTS;
}

static void ring_finish(struct input *in, char *err, uint64_t src_off)
{
	pthread_mutex_lock(&in->lock);
	in->done = true;
	in->prod_err = err;
	in->final_off = src_off;
	pthread_cond_signal(&in->nonempty);
	pthread_mutex_unlock(&in->lock);
}

static char *read_error(const struct input *in, int errnum)
{
	return xasprintf("%s: read error: %s", in->name, strerror(errnum));
}

/* The gzip producer. Members follow one another (pigz, cat a.gz b.gz); zero bytes after
 * the last member (tape padding) are skipped, anything else there is an error. */
static void gzip_run(struct input *in)
{
	z_stream *z = &in->z;
	struct slot *s = NULL;
	uint64_t total = in->sniff_len;
	bool in_member = true, padding = false, out_full = false;
	char *err = NULL;
	ssize_t n;
	int ret;

	memcpy(in->src, in->sniff, in->sniff_len);
	z->next_in = in->src;
	z->avail_in = (uInt)in->sniff_len;
	for (;;) {
		if (z->avail_in == 0 && !out_full) {
			n = src_read(in, in->src, SRC_BUF_SIZE);
			if (n == -2)
				return;
			if (n < 0) {
				err = read_error(in, errno);
				break;
			}
			if (n == 0) {
				if (in_member)
					err = xasprintf("%s: gzip stream truncated at compressed "
							"byte %llu (no end-of-stream marker)",
							in->name, (unsigned long long)total);
				break;
			}
			total += (uint64_t)n;
			z->next_in = in->src;
			z->avail_in = (uInt)n;
		}
		if (!in_member) {
			while (z->avail_in > 0 && z->next_in[0] == 0) {
				z->next_in++;
				z->avail_in--;
				padding = true;
			}
			if (z->avail_in == 0)
				continue;
			if (padding || z->next_in[0] != 0x1f) {
				err = xasprintf("%s: trailing garbage after gzip stream at "
						"compressed byte %llu",
						in->name,
						(unsigned long long)(total - z->avail_in));
				break;
			}
			inflateReset(z);
			in_member = true;
		}
		if (s == NULL) {
			if ((s = ring_claim(in)) == NULL)
				return;
			z->next_out = s->buf;
			z->avail_out = (uInt)SLOT_SIZE;
		}
		ret = inflate(z, Z_NO_FLUSH);
		s->len = SLOT_SIZE - z->avail_out;
		if (ret == Z_STREAM_END) {
			in_member = false;
		} else if (ret == Z_MEM_ERROR) {
			fatal("out of memory (inflate)");
		} else if (ret != Z_OK && ret != Z_BUF_ERROR) {
			err = xasprintf("%s: corrupt gzip data at compressed byte %llu: %s",
					in->name, (unsigned long long)(total - z->avail_in),
					z->msg != NULL ? z->msg : zError(ret));
			break;
		}
		/* Z_STREAM_END comes only once the member is fully flushed. */
		out_full = in_member && z->avail_out == 0;
		if (z->avail_out == 0) {
			ring_publish(in, s, total - z->avail_in);
			s = NULL;
		}
	}
	if (s != NULL && s->len > 0)
		ring_publish(in, s, total - z->avail_in);
	ring_finish(in, err, total - z->avail_in);
}

static char *zstd_error(const struct input *in, size_t ret, uint64_t off)
{
	if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge)
		return xasprintf("%s: zstd frame at compressed byte %llu needs a window "
				 "larger than the 128 MiB limit (made with --long?)",
				 in->name, (unsigned long long)off);
	return xasprintf("%s: corrupt zstd data at compressed byte %llu: %s", in->name,
			 (unsigned long long)off, ZSTD_getErrorName(ret));
}

/* The zstd producer, after zstd's examples/streaming_decompression.c: frames follow one
 * another in one stream; a nonzero hint from the last call at end of file means a frame
 * was cut short. A full output buffer may hide buffered data, so the decoder is called
 * again before more input is read. */
static void zstd_run(struct input *in)
{
	ZSTD_inBuffer zin = { in->src, in->sniff_len, 0 };
	ZSTD_outBuffer zout = { NULL, 0, 0 };
	struct slot *s = NULL;
	uint64_t total = in->sniff_len;
	bool out_full = false;
	size_t ret = 0;
	char *err = NULL;
	ssize_t n;

	memcpy(in->src, in->sniff, in->sniff_len);
	for (;;) {
		if (zin.pos == zin.size && !out_full) {
			n = src_read(in, in->src, SRC_BUF_SIZE);
			if (n == -2)
				return;
			if (n < 0) {
				err = read_error(in, errno);
				break;
			}
			if (n == 0) {
				if (ret != 0)
					err = xasprintf("%s: zstd frame truncated at compressed "
							"byte %llu",
							in->name, (unsigned long long)total);
				break;
			}
			total += (uint64_t)n;
			zin.size = (size_t)n;
			zin.pos = 0;
		}
		if (s == NULL) {
			if ((s = ring_claim(in)) == NULL)
				return;
			zout.dst = s->buf;
			zout.size = SLOT_SIZE;
			zout.pos = 0;
		}
		ret = ZSTD_decompressStream(in->zds, &zout, &zin);
		s->len = zout.pos;
		if (ZSTD_isError(ret)) {
			err = zstd_error(in, ret, total - (zin.size - zin.pos));
			break;
		}
		out_full = zout.pos == zout.size;
		if (out_full) {
			ring_publish(in, s, total - (zin.size - zin.pos));
			s = NULL;
		}
	}
	if (s != NULL && s->len > 0)
		ring_publish(in, s, total - (zin.size - zin.pos));
	ring_finish(in, err, total - (zin.size - zin.pos));
}

static void *producer_main(void *arg)
{
	struct input *in = arg;

	if (in->codec == INPUT_GZIP)
		gzip_run(in);
	else
		zstd_run(in);
	return NULL;
}

static bool start_producer(struct input *in, char **cause)
{
	sigset_t all, old;
	int i, e;

	if (!in->is_reg) {
		if (pipe(in->wake) != 0) {
			*cause = xasprintf("cannot read %s: pipe: %s", in->name, strerror(errno));
			in->wake[0] = in->wake[1] = -1;
			return false;
		}
		fcntl(in->wake[0], F_SETFD, FD_CLOEXEC);
		fcntl(in->wake[1], F_SETFD, FD_CLOEXEC);
	}
	if (in->codec == INPUT_GZIP) {
		if (inflateInit2(&in->z, 15 + 16) != Z_OK)
			fatal("out of memory (inflateInit2)");
	} else {
		if ((in->zds = ZSTD_createDStream()) == NULL)
			fatal("out of memory (ZSTD_createDStream)");
		ZSTD_initDStream(in->zds);
	}
	in->src = xmalloc(SRC_BUF_SIZE);
	for (i = 0; i < RING_SLOTS; i++)
		in->ring[i].buf = xmalloc(SLOT_SIZE);
	pthread_mutex_init(&in->lock, NULL);
	pthread_cond_init(&in->nonempty, NULL);
	pthread_cond_init(&in->notfull, NULL);

	/* The thread takes no signals: the UI's handlers must run on the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&in->thread, NULL, producer_main, in);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		*cause = xasprintf("cannot read %s: pthread_create: %s", in->name,
				   strerror(e));
		return false;
	}
	in->threaded = true;
	return true;
}

static void free_input(struct input *in)
{
	int i;

	if (in->codec == INPUT_GZIP && in->src != NULL)
		inflateEnd(&in->z);
	ZSTD_freeDStream(in->zds);
	free(in->src);
	for (i = 0; i < RING_SLOTS; i++)
		free(in->ring[i].buf);
	if (in->src != NULL) {
		pthread_mutex_destroy(&in->lock);
		pthread_cond_destroy(&in->nonempty);
		pthread_cond_destroy(&in->notfull);
	}
	if (in->wake[0] >= 0) {
		close(in->wake[0]);
		close(in->wake[1]);
	}
	if (in->own_fd)
		close(in->fd);
	free(in->prod_err);
	free(in->err);
	free(in->mem_end_cause);
	free(in->path);
	free(in);
}

struct input *input_open_mem(const char *path, const char *buf, size_t len, uint64_t base, const char *end_cause)
{
	struct input *in = xcalloc(1, sizeof *in);
	in->path = xstrdup(path);
	in->name = in->path;
	in->fd = -1;
	in->wake[0] = in->wake[1] = -1;
	in->codec = INPUT_PLAIN;
	in->mem = buf;
	in->mem_len = len;
	in->data_off = in->file_off = base;
	in->mem_end_cause = end_cause != NULL ? xstrdup(end_cause) : NULL;
	return in;
}

struct input *input_open(const char *path, char **cause)
{
	struct input *in;
	struct stat st;
	ssize_t n;

	in = xcalloc(1, sizeof *in);
	in->path = xstrdup(path);
	in->wake[0] = in->wake[1] = -1;
	if (strcmp(path, "-") == 0) {
		in->name = "stdin";
		in->fd = STDIN_FILENO;
	} else {
		in->name = in->path;
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			*cause = xasprintf("cannot open %s: %s", path, strerror(errno));
			free_input(in);
			return NULL;
		}
		in->own_fd = true;
	}
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		in->is_reg = true;
		in->file_size = (uint64_t)st.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
		posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	}

	/* A pipe may hand over fewer bytes than asked: loop until the magic is in. */
	while (in->sniff_len < SNIFF_LEN) {
		n = read_retry(in->fd, in->sniff + in->sniff_len, SNIFF_LEN - in->sniff_len);
		if (n < 0) {
			*cause = read_error(in, errno);
			free_input(in);
			return NULL;
		}
		if (n == 0)
			break;
		in->sniff_len += (size_t)n;
	}
	in->codec = sniff_codec(in->sniff, in->sniff_len);
	if (in->codec != INPUT_PLAIN && !start_producer(in, cause)) {
		free_input(in);
		return NULL;
	}
	return in;
}

static ssize_t fail(struct input *in, char **cause)
{
	if (cause != NULL)
		*cause = xstrdup(in->err);
	return -1;
}

static ssize_t read_plain(struct input *in, unsigned char *buf, size_t len)
{
	size_t k;
	ssize_t n;

	if (in->sniff_pos < in->sniff_len) {
		k = in->sniff_len - in->sniff_pos;
		if (k > len)
			k = len;
		memcpy(buf, in->sniff + in->sniff_pos, k);
		in->sniff_pos += k;
		return (ssize_t)k;
	}
	n = read_retry(in->fd, buf, len);
	if (n < 0)
		in->err = read_error(in, errno);
	else if (n == 0)
		in->eof = true;
	return n;
}

/* Copies what the ring holds, up to LEN; blocks only while nothing at all was copied. */
static ssize_t read_ring(struct input *in, unsigned char *buf, size_t len)
{
	struct slot *s;
	size_t got = 0, k;
	char *err;

	for (;;) {
		if (in->holding) {
			s = &in->ring[in->head];
			k = s->len - in->head_pos;
			if (k > len - got)
				k = len - got;
			memcpy(buf + got, s->buf + in->head_pos, k);
			in->head_pos += k;
			got += k;
			if (got == len)
				return (ssize_t)got;
		}

		pthread_mutex_lock(&in->lock);
		if (in->holding) {
			if (in->filled-- == RING_SLOTS)
				pthread_cond_signal(&in->notfull);
			in->head = (in->head + 1) % RING_SLOTS;
			in->holding = false;
		}
		while (in->filled == 0 && !in->done && got == 0)
			pthread_cond_wait(&in->nonempty, &in->lock);
		if (in->filled > 0) {
			in->holding = true;
			in->head_pos = 0;
			in->file_off = in->ring[in->head].src_off;
			pthread_mutex_unlock(&in->lock);
			continue;
		}
		if (got > 0) {
			pthread_mutex_unlock(&in->lock);
			return (ssize_t)got;
		}
		err = in->prod_err;
		in->prod_err = NULL;
		in->file_off = in->final_off;
		pthread_mutex_unlock(&in->lock);
		if (err != NULL) {
			in->err = err;
			return -1;
		}
		in->eof = true;
		return 0;
	}
}

ssize_t input_read(struct input *in, void *buf, size_t len, char **cause)
{
	ssize_t n;

	if (in->err != NULL)
		return fail(in, cause);
	if (in->eof || len == 0)
		return 0;
	if (in->mem != NULL) {
		size_t k = in->mem_len - in->mem_pos;
		if (k == 0) {
			if (in->mem_end_cause != NULL) {
				in->err = xstrdup(in->mem_end_cause);
				return fail(in, cause);
			}
			in->eof = true;
			return 0;
		}
		if (k > len)
			k = len;
		memcpy(buf, in->mem + in->mem_pos, k);
		in->mem_pos += k;
		in->data_off += k;
		in->file_off = in->data_off;
		return (ssize_t)k;
	}
	if (in->codec == INPUT_PLAIN)
		n = read_plain(in, buf, len);
	else
		n = read_ring(in, buf, len);
	if (n < 0)
		return fail(in, cause);
	in->data_off += (uint64_t)n;
	if (in->codec == INPUT_PLAIN)
		in->file_off = in->data_off;
	return n;
}

void input_close(struct input *in)
{
	char c = 0;

	if (in == NULL)
		return;
	if (in->threaded) {
		pthread_mutex_lock(&in->lock);
		in->stop = true;
		pthread_cond_signal(&in->notfull);
		pthread_mutex_unlock(&in->lock);
		if (in->wake[1] >= 0 && write(in->wake[1], &c, 1) != 1)
			BUG("cannot wake the input thread: %s", strerror(errno));
		pthread_join(in->thread, NULL);
	}
	free_input(in);
}

bool input_is_seekable(const struct input *in) { return in->codec == INPUT_PLAIN && in->is_reg; }

int input_seek(struct input *in, uint64_t offset)
{
	if (!input_is_seekable(in) || in->err != NULL)
		return -1;
	if (lseek(in->fd, (off_t)offset, SEEK_SET) < 0)
		return -1;
	in->sniff_pos = in->sniff_len;
	in->eof = false;
	in->data_off = offset;
	in->file_off = offset;
	return 0;
}

ssize_t input_pread(struct input *in, void *buf, size_t len, uint64_t offset)
{
	size_t got = 0;
	if (!input_is_seekable(in))
		return -1;
	while (got < len) {
		ssize_t n = pread(in->fd, (char *)buf + got, len - got, (off_t)(offset + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}
