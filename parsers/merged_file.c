/* merged_file.c: finding a merged trace's "ttraceMerge" key at its beginning, and a list
 * of paths with each merged file turned into its ranks (merged_file.h). */
#include "parsers/merged_file.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parallel.h"
#include "lib/escape.h"
#include "lib/xalloc.h"
#include "parsers/input.h"

#define KEY "\"ttraceMerge\""
#define TT_STR_(x) #x
#define TT_STR(x) TT_STR_(x)

static size_t skip_ws(const char *p, size_t i, size_t n)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return i;
}

/* The end of the object at P[I] (one past its '}'), or 0 when P[0..n) does not hold all of
 * it. */
static size_t object_end(const char *p, size_t i, size_t n)
{
	int depth = 0;
	bool in_str = false;
	for (; i < n; i++) {
		char c = p[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && --depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

/* KEY's whole number: a JSON number, or a string of digits (exact past 2^53). */
static int64_t int_of(const cJSON *o, const char *key, int64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsString(v) && v->valuestring[0] != '\0') {
		char *end;
		errno = 0;
		long long x = strtoll(v->valuestring, &end, 10);
		return *end == '\0' && errno == 0 ? x : dflt;
	}
	return cJSON_IsNumber(v) && v->valuedouble >= -9.2e18 && v->valuedouble <= 9.2e18 ? (int64_t)v->valuedouble
	                                                                                  : dflt;
}

static char *string_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
}

static void fail(char **cause, const char *path, const char *what)
{
	size_t n = strlen(path) + strlen(what) + 64;
	*cause = xmalloc(n);
	snprintf(*cause, n, "%s: a merged trace whose ttraceMerge key %s", path, what);
}

/* The ranks of the ttraceMerge object TEXT[0..len). Returns 0, or -1 with *CAUSE. */
static int parse_key(const char *path, const char *text, size_t len, struct merged_file *mf, char **cause)
{
	cJSON *o = cJSON_ParseWithLength(text, len);
	const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(o, "ranks");
	if (!cJSON_IsArray(ranks) || cJSON_GetArraySize(ranks) == 0) {
		cJSON_Delete(o);
		fail(cause, path, "has no list of ranks");
		return -1;
	}
	int n = cJSON_GetArraySize(ranks);
	if (n > MERGED_RANKS_MAX) {
		cJSON_Delete(o);
		fail(cause, path, "has more than " TT_STR(MERGED_RANKS_MAX) " ranks");
		return -1;
	}
	memset(mf, 0, sizeof *mf);
	mf->ranks = xcalloc((size_t)n, sizeof *mf->ranks);
	const cJSON *r;
	cJSON_ArrayForEach(r, ranks)
	{
		struct merged_rank *m = &mf->ranks[mf->nranks];
		int64_t rank = int_of(r, "rank", -2), ws = int_of(r, "world_size", -1);
		m->pid_base = int_of(r, "pid_base", -1);
		m->offset_ns = int_of(r, "offset_ns", 0);
		m->shift_ns = int_of(r, "shift_ns", m->offset_ns);
		const cJSON *base = cJSON_GetObjectItemCaseSensitive(r, "base_ns");
		m->has_base = cJSON_IsNumber(base) || cJSON_IsString(base);
		m->base_ns = int_of(r, "base_ns", 0);
		if (!cJSON_IsObject(r) || rank < -1 || rank > INT32_MAX || ws < -1 || ws > INT32_MAX ||
		    m->pid_base < MERGED_PID_STRIDE || m->pid_base % MERGED_PID_STRIDE != 0 ||
		    m->shift_ns < -((int64_t)1 << 62) || m->shift_ns > (int64_t)1 << 62) {
			mf->nranks++;
			merged_file_release(mf);
			cJSON_Delete(o);
			fail(cause, path, "has a rank without a number, a pid base or an offset it can use");
			return -1;
		}
		m->rank = (int32_t)rank;
		m->world_size = (int32_t)ws;
		m->backend = string_of(r, "backend");
		m->source = string_of(r, "source");
		/* what chrome_build reads from a distributedInfo key */
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "rank", rank);
		cJSON_AddNumberToObject(d, "world_size", (double)ws);
		if (m->backend != NULL)
			cJSON_AddStringToObject(d, "backend", m->backend);
		m->distributed_json = cJSON_PrintUnformatted(d);
		cJSON_Delete(d);
		mf->nranks++;
	}
	cJSON_Delete(o);
	return 0;
}

/* What BUF[0..n) says: 0 not a merged file, 1 its key's object at [*S, *E), 2 more bytes
 * are needed to tell, -1 its key is not an object. */
static int look(const char *buf, size_t n, size_t *s, size_t *e)
{
	size_t i = skip_ws(buf, 0, n), want = strlen(KEY);
	if (n - i >= 3 && memcmp(buf + i, "\xef\xbb\xbf", 3) == 0)
		i = skip_ws(buf, i + 3, n);
	if (i >= n)
		return 2;
	if (buf[i] != '{')
		return 0;
	i = skip_ws(buf, i + 1, n);
	if (memcmp(buf + i, KEY, n - i < want ? n - i : want) != 0)
		return 0;
	if (n - i < want)
		return 2;
	i = skip_ws(buf, i + want, n);
	if (i >= n)
		return 2;
	if (buf[i] != ':')
		return 0;
	i = skip_ws(buf, i + 1, n);
	if (i >= n)
		return 2;
	if (buf[i] != '{')
		return -1;
	*s = i;
	*e = object_end(buf, i, n);
	return *e > 0 ? 1 : 2;
}

int merged_file_read(const char *path, struct merged_file *mf, char **cause)
{
	*cause = NULL;
	if (strcmp(path, "-") == 0)
		return 0;
	/* a look at the first 4 KB tells most files apart; a merged file's key may need more,
	 * read again from the start, each time 16 times as much */
	int rc = 0;
	for (size_t cap = 4096;; cap = cap * 16 < MERGED_HEAD_MAX ? cap * 16 : MERGED_HEAD_MAX) {
		char *buf = xmalloc(cap);
		ssize_t n = input_head(path, buf, cap);
		size_t s = 0, e = 0;
		int said = n > 0 ? look(buf, (size_t)n, &s, &e) : 0;
		if (said == 1)
			rc = parse_key(path, buf + s, e - s, mf, cause) == 0 ? 1 : -1;
		else if (said == -1)
			fail(cause, path, "is not an object");
		free(buf);
		if (said != 2)
			return said == 1 ? rc : said; /* -1: not an object; 0: not a merged file */
		if ((size_t)n < cap)
			return 0; /* the file ends first (the load says what is wrong) */
		if (cap == MERGED_HEAD_MAX) {
			fail(cause, path, "is over 8 MiB");
			return -1;
		}
	}
}

void merged_file_release(struct merged_file *mf)
{
	for (int i = 0; i < mf->nranks; i++) {
		free(mf->ranks[i].backend);
		free(mf->ranks[i].source);
		free(mf->ranks[i].distributed_json);
	}
	free(mf->ranks);
	memset(mf, 0, sizeof *mf);
}

/* The look at each file's beginning, on parallel_for's threads (a compressed file's first
 * block is decompressed: 0.1 ms each, which hundreds of ranks add up). */
struct probes {
	char **paths;
	struct merged_file *mf;
	int *rc;
	char **cause;
};

static void probe_one(void *arg, int i)
{
	struct probes *p = arg;
	p->rc[i] = merged_file_read(p->paths[i], &p->mf[i], &p->cause[i]);
}

void merged_expand(char ***paths, int *n, const struct merged_rank ***ranks)
{
	char **in = *paths, **out = NULL;
	const struct merged_rank **rk = NULL;
	int nout = 0;
	struct probes p = { .paths = in };
	p.mf = xcalloc((size_t)*n + 1, sizeof *p.mf);
	p.rc = xcalloc((size_t)*n + 1, sizeof *p.rc);
	p.cause = xcalloc((size_t)*n + 1, sizeof *p.cause);
	parallel_for(*n, probe_one, &p);
	for (int i = 0; i < *n; i++) {
		struct merged_file *mf = &p.mf[i];
		int rc = p.rc[i];
		if (rc < 0) {
			escape_say(stderr, "ttrace: warning: %s: opened as one trace", p.cause[i]);
			free(p.cause[i]);
		}
		int add = rc == 1 ? mf->nranks : 1;
		out = xreallocarray(out, (size_t)nout + (size_t)add + 1, sizeof *out);
		rk = xreallocarray(rk, (size_t)nout + (size_t)add + 1, sizeof *rk);
		if (rc != 1) {
			out[nout] = in[i];
			rk[nout++] = NULL;
			continue;
		}
		for (int k = 0; k < mf->nranks; k++) {
			struct merged_rank *r = xmalloc(sizeof *r);
			*r = mf->ranks[k]; /* the strings move to the copy */
			r->group_pos = k;
			r->group_n = mf->nranks;
			out[nout] = xstrdup(in[i]);
			rk[nout++] = r;
		}
		free(in[i]);
		free(mf->ranks);
	}
	free(p.mf);
	free(p.rc);
	free(p.cause);
	free(in);
	*paths = out;
	*ranks = rk;
	*n = nout;
}

void merged_ranks_free(const struct merged_rank **ranks, int n)
{
	if (ranks == NULL)
		return;
	for (int i = 0; i < n; i++) {
		struct merged_rank *r = (struct merged_rank *)ranks[i];
		if (r == NULL)
			continue;
		free(r->backend);
		free(r->source);
		free(r->distributed_json);
		free(r);
	}
	free(ranks);
}
