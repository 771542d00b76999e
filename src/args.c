/* args.c: lazy args: an event's args bytes fetched through its trace's store; and the
 * store that keeps nothing, only says why. (Parsing them is parsers/args_json.c's.) */
#include "src/args.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"

/* The args text at ARGS of T, read through FD when it is open (the store's read_open),
 * else by the store's own read. */
static int read_text(const struct trace *t, int fd, uint64_t args, char **text, char **cause)
{
	uint64_t offset = args >> 24;
	size_t len = (size_t)(args & 0xffffff);

	*text = NULL;
	if (args == 0 || len == 0) {
		*cause = xstrdup("this event has no args");
		return -1;
	}
	if (len == 0xffffff) {
		*cause = xstrdup("this event's args are 16 MB or more: not read back");
		return -1;
	}
	if (t->args == NULL) {
		*cause = xstrdup(t->snapshot_bytes > 0 ? "args: once the trace has loaded"
		                                       : "args unavailable: this trace has no args store");
		return -1;
	}
	char *buf = xmalloc(len + 1);
	int rc = fd >= 0 ? t->args->ops->read_open(t->args, fd, offset, len, buf, cause)
	                 : t->args->ops->read(t->args, offset, len, buf, cause);
	if (rc < 0) {
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	if (buf[0] != '{') {
		*cause = xasprintf("%s: byte %llu is not the start of this event's args (has the file changed?)",
		                   t->path, (unsigned long long)offset);
		free(buf);
		return -1;
	}
	*text = buf;
	return 0;
}

int args_store_text(const struct trace *t, uint64_t args, char **text, char **cause)
{
	return read_text(t, -1, args, text, cause);
}

void args_reader_init(struct args_reader *r, const struct trace *t) { *r = (struct args_reader){ t, -1, false }; }

int args_reader_text(struct args_reader *r, uint64_t args, char **text, char **cause)
{
	const struct trace *t = r->t;
	if (!r->opened && args != 0 && t->args != NULL && t->args->ops->open != NULL) {
		char *why = NULL;
		r->opened = true;
		r->fd = t->args->ops->open(t->args, &why);
		free(why); /* each read says it again */
	}
	return read_text(t, r->fd, args, text, cause);
}

void args_reader_end(struct args_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

struct unavailable {
	struct args_store store;
	char *why;
};

static int unavailable_read(struct args_store *st, uint64_t offset, size_t len, char *buf, char **cause)
{
	(void)offset, (void)len, (void)buf;
	*cause = xstrdup(((struct unavailable *)st)->why);
	return -1;
}

static uint64_t unavailable_memory(const struct args_store *st)
{
	return sizeof(struct unavailable) + strlen(((const struct unavailable *)st)->why) + 1;
}

static void unavailable_free(struct args_store *st)
{
	free(((struct unavailable *)st)->why);
	free(st);
}

static const struct args_store_ops unavailable_ops = {
	unavailable_read, unavailable_memory, unavailable_free, NULL, NULL, NULL
};

struct args_store *args_store_unavailable(const char *why)
{
	struct unavailable *u = xcalloc(1, sizeof *u);
	u->store.ops = &unavailable_ops;
	u->store.kind = "not kept";
	u->why = xstrdup(why);
	return &u->store;
}

uint64_t args_store_memory(const struct args_store *st) { return st != NULL ? st->ops->memory(st) : 0; }

char *args_store_save(const struct args_store *st, size_t *len)
{
	*len = 0;
	return st != NULL && st->ops->save != NULL ? st->ops->save(st, len) : NULL;
}

void args_store_free(struct args_store *st)
{
	if (st != NULL)
		st->ops->free(st);
}
