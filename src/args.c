/* args.c: lazy args: an event's args bytes fetched through its trace's store and parsed;
 * and the store that keeps nothing, only says why. */
#include "src/args.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

/* Copies TEXT, turning bare inf/-inf/nan/Infinity/NaN tokens outside strings into null. */
static char *finite_copy(const char *text, size_t n, int *count)
{
	char *o = xmalloc(n * 2 + 8), *q = o;
	bool in_str = false, esc = false;
	*count = 0;
	for (size_t i = 0; i < n;) {
		char c = text[i];
		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
			*q++ = c;
			i++;
			continue;
		}
		if (c == '"') {
			in_str = true;
			*q++ = c;
			i++;
			continue;
		}
		static const char *const words[] = { "-Infinity", "Infinity", "-inf", "inf", "-nan", "nan", "NaN" };
		bool replaced = false;
		for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
			size_t k = strlen(words[w]);
			if (i + k <= n && memcmp(text + i, words[w], k) == 0 &&
			    (i == 0 || strchr(" \t\r\n:,[", text[i - 1]) != NULL)) {
				memcpy(q, "null", 4);
				q += 4;
				i += k;
				(*count)++;
				replaced = true;
				break;
			}
		}
		if (!replaced)
			*q++ = text[i++];
	}
	*q = '\0';
	return o;
}

int args_store_read(const struct trace *t, const struct slice *s, struct event_args *out, char **cause)
{
	uint64_t offset = s->args >> 24;
	size_t len = (size_t)(s->args & 0xffffff);
	char *fixed;

	memset(out, 0, sizeof *out);
	if (s->args == 0 || len == 0) {
		*cause = xstrdup("this event has no args");
		return -1;
	}
	if (len == 0xffffff) {
		*cause = xstrdup("this event's args are 16 MB or more: not read back");
		return -1;
	}
	if (t->args == NULL) {
		*cause = xstrdup("args unavailable: this trace has no args store");
		return -1;
	}
	out->text = xmalloc(len + 1);
	if (t->args->ops->read(t->args, offset, len, out->text, cause) < 0) {
		free(out->text);
		out->text = NULL;
		return -1;
	}
	out->text[len] = '\0';
	if (out->text[0] != '{') {
		*cause = xasprintf("%s: byte %llu is not the start of this event's args (has the file changed?)", t->path,
		                   (unsigned long long)offset);
		free(out->text);
		out->text = NULL;
		return -1;
	}
	fixed = finite_copy(out->text, len, &out->nonfinite);
	out->json = cJSON_ParseWithLength(fixed, strlen(fixed));
	free(fixed);
	return 0;
}

void event_args_free(struct event_args *a)
{
	cJSON_Delete(a->json);
	free(a->text);
	memset(a, 0, sizeof *a);
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

static const struct args_store_ops unavailable_ops = { unavailable_read, unavailable_memory, unavailable_free };

struct args_store *args_store_unavailable(const char *why)
{
	struct unavailable *u = xcalloc(1, sizeof *u);
	u->store.ops = &unavailable_ops;
	u->store.kind = "not kept";
	u->why = xstrdup(why);
	return &u->store;
}

uint64_t args_store_memory(const struct args_store *st)
{
	return st != NULL ? st->ops->memory(st) : 0;
}

void args_store_free(struct args_store *st)
{
	if (st != NULL)
		st->ops->free(st);
}
