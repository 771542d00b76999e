/* comm_args.c: a collective's message from its args (see comm_args.h). */
#include "parsers/comm_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "parsers/args_json.h"

int comm_dtype_bytes(const char *name)
{
	static const struct {
		const char *name;
		int bytes;
	} t[] = {
		{ "Float", 4 },
		{ "Double", 8 },
		{ "Half", 2 },
		{ "BFloat16", 2 },
		{ "Int", 4 },
		{ "Long", 8 },
		{ "Short", 2 },
		{ "Char", 1 },
		{ "Byte", 1 },
		{ "Bool", 1 },
		{ "ComplexFloat", 8 },
		{ "ComplexDouble", 16 },
		{ "Float8_e4m3fn", 1 },
		{ "Float8_e5m2", 1 },
		{ "Float8_e4m3fnuz", 1 },
		{ "Float8_e5m2fnuz", 1 },
		{ "UInt8", 1 },
		{ "Int8", 1 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(name, t[i].name) == 0)
			return t[i].bytes;
	return 0;
}

static int64_t num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9e18 ? (int64_t)v->valuedouble : -1;
}

static void str(const cJSON *o, const char *key, char *buf, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsString(v) && buf[0] == '\0')
		snprintf(buf, n, "%s", v->valuestring);
}

/* The figures of *OUT from what was read (IN, OUT, GROUP as num gives them, the strings as
 * str fills them). */
static void finish(struct comm_args *out, int64_t in, int64_t outn, int64_t g, const char *dtype)
{
	out->in_nelems = in;
	out->out_nelems = outn;
	out->group_size = g >= 0 && g < 1000000 ? (int)g : -1;
	out->elem_bytes = comm_dtype_bytes(dtype);
	out->sized = out->in_nelems >= 0 && out->elem_bytes > 0;
}

/* A fast read of the args TEXT without a parse tree: a collective's args are read for each
 * of its calls on every rank, and a cJSON tree a call was most of the distributed report's
 * time after the loads (bench/RESULTS.md, "The collectives' args"). It reads the top-level
 * members of a plain object, the first of each key as cJSON_GetObjectItemCaseSensitive
 * finds it, and gives up (false) on anything else it would have to judge: an escape in a
 * key or a wanted string, a number strtod does not read whole, a structure that is not
 * key, colon, value, comma. cJSON then reads it as before. */
enum { W_IN, W_OUT, W_GROUP, W_DTYPE, W_COLL, W_PGNAME, W_PGDESC, W__N };
static const char *const wanted[W__N] = {
	"In msg nelems",      "Out msg nelems",           "Group size", "dtype", "Collective name",
	"Process Group Name", "Process Group Description"
};

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

/* Past the string whose opening quote is at P[-1]; NULL when it does not end. */
static const char *past_string(const char *p)
{
	for (;;) {
		if (*p == '\0')
			return NULL;
		if (*p == '\\') {
			if (p[1] == '\0')
				return NULL;
			p += 2;
			continue;
		}
		if (*p++ == '"')
			return p;
	}
}

static bool number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Past the value at P (not checked inside: cJSON's job only when it matters); NULL when it
 * does not end. */
static const char *past_value(const char *p)
{
	if (*p == '"')
		return past_string(p + 1);
	if (*p == '[' || *p == '{') {
		unsigned depth = 0;
		for (;;) {
			char c = *p;
			if (c == '\0' || depth > 1000)
				return NULL;
			if (c == '"') {
				if ((p = past_string(p + 1)) == NULL)
					return NULL;
				continue;
			}
			if (c == '[' || c == '{')
				depth++;
			else if ((c == ']' || c == '}') && --depth == 0)
				return p + 1;
			p++;
		}
	}
	const char *q = p;
	while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || number_char(*q))
		q++;
	return q > p ? q : NULL;
}

static bool read_flat(const char *p, struct comm_args *out)
{
	int64_t num_v[3] = { -1, -1, -1 };
	char dtype[32] = "", pg_name[sizeof out->group] = "", pg_desc[sizeof out->group] = "";
	bool seen[W__N] = { false };
	p = ws(p);
	if (*p++ != '{')
		return false;
	p = ws(p);
	if (*p == '}')
		goto done;
	for (;;) {
		if (*p != '"')
			return false;
		const char *k = ++p, *ke = strchr(k, '"');
		if (ke == NULL || memchr(k, '\\', (size_t)(ke - k)) != NULL)
			return false;
		size_t kn = (size_t)(ke - k);
		p = ws(ke + 1);
		if (*p++ != ':')
			return false;
		p = ws(p);
		int w = W__N;
		for (int i = 0; i < W__N; i++)
			if (strlen(wanted[i]) == kn && memcmp(wanted[i], k, kn) == 0) {
				w = i;
				break;
			}
		const char *end = past_value(p);
		if (end == NULL)
			return false;
		if (w < W__N && !seen[w]) {
			seen[w] = true;
			if (w <= W_GROUP) {
				/* as num: a number from 0 to 9e18, else -1 (a string, null, ...) */
				if (number_char(*p)) {
					char buf[64], *e;
					size_t n = (size_t)(end - p);
					if (n >= sizeof buf)
						return false;
					memcpy(buf, p, n);
					buf[n] = '\0';
					double v = strtod(buf, &e);
					if (e != buf + n)
						return false;
					num_v[w] = v >= 0 && v < 9e18 ? (int64_t)v : -1;
				}
			} else if (*p == '"') {
				/* as str: the string, cut to the field; an escape: cJSON's */
				size_t n = (size_t)(end - 1 - (p + 1));
				if (memchr(p + 1, '\\', n) != NULL)
					return false;
				char *dst = w == W_DTYPE    ? dtype
				            : w == W_COLL   ? out->collective
				            : w == W_PGNAME ? pg_name
				                            : pg_desc;
				size_t cap = w == W_DTYPE  ? sizeof dtype
				             : w == W_COLL ? sizeof out->collective
				                           : sizeof pg_name;
				snprintf(dst, cap, "%.*s", (int)n, p + 1);
			}
		}
		p = ws(end);
		if (*p == ',') {
			p = ws(p + 1);
			continue;
		}
		if (*p == '}')
			break;
		return false;
	}
done:
	p = ws(p + 1);
	if (*p != '\0')
		return false;
	/* the name, else the description (as str fills the field twice) */
	snprintf(out->group, sizeof out->group, "%s", pg_name[0] != '\0' ? pg_name : pg_desc);
	finish(out, num_v[0], num_v[1], num_v[2], dtype);
	return true;
}

/* *OUT saying nothing: no message, no group. */
static void clear(struct comm_args *out)
{
	memset(out, 0, sizeof *out);
	out->in_nelems = out->out_nelems = -1;
	out->group_size = -1;
}

int comm_args_parse(const char *text, struct comm_args *out, bool tree)
{
	clear(out);
	if (!tree && read_flat(text, out))
		return 0;
	clear(out);
	struct event_args a;
	event_args_parse(xstrdup(text), &a);
	if (a.json == NULL) {
		event_args_free(&a);
		return -1;
	}
	char dtype[32] = "";
	str(a.json, "dtype", dtype, sizeof dtype);
	str(a.json, "Collective name", out->collective, sizeof out->collective);
	str(a.json, "Process Group Name", out->group, sizeof out->group);
	str(a.json, "Process Group Description", out->group, sizeof out->group);
	finish(out, num(a.json, "In msg nelems"), num(a.json, "Out msg nelems"), num(a.json, "Group size"), dtype);
	event_args_free(&a);
	return 0;
}

int comm_args_read(struct args_reader *reader, uint64_t args, struct comm_args *out)
{
	char *text = NULL, *cause = NULL;
	clear(out);
	if (args_reader_text(reader, args, &text, &cause) != 0) {
		free(cause);
		return -1;
	}
	int r = comm_args_parse(text, out, false);
	free(text);
	return r;
}
