/* trace_paths.c: directories on the command line expanded into their trace files
 * (trace_paths.h). */
#include "cmd/trace_paths.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/escape.h"
#include "lib/xalloc.h"

/* Orders file names with their runs of digits compared as numbers, so that a directory of
 * ranks reads rank0, rank1, rank2, ... rank10 rather than rank0, rank1, rank10, rank100;
 * names equal that way (rank01, rank1) fall back to strcmp. */
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int natural_cmp(const char *a, const char *b)
{
	const char *p = a, *q = b;
	while (*p != '\0' && *q != '\0') {
		if (is_digit(*p) && is_digit(*q)) {
			while (*p == '0')
				p++;
			while (*q == '0')
				q++;
			size_t np = 0, nq = 0;
			while (is_digit(p[np]))
				np++;
			while (is_digit(q[nq]))
				nq++;
			if (np != nq)
				return np < nq ? -1 : 1;
			int c = memcmp(p, q, np);
			if (c != 0)
				return c;
			p += np;
			q += nq;
			continue;
		}
		if (*p != *q)
			return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
		p++;
		q++;
	}
	if (*p != *q)
		return *p == '\0' ? -1 : 1;
	return strcmp(a, b);
}

static int name_cmp(const void *a, const void *b) { return natural_cmp(*(char *const *)a, *(char *const *)b); }

static bool is_trace_name(const char *n)
{
	size_t l = strlen(n);
	return (l > 5 && strcmp(n + l - 5, ".json") == 0) || (l > 8 && strcmp(n + l - 8, ".json.gz") == 0) ||
	       (l > 9 && strcmp(n + l - 9, ".json.zst") == 0);
}

char **trace_paths_expand(char **paths, int n, int *nout)
{
	char **out = NULL;
	int m = 0, cap = 0;
	for (int i = 0; i < n; i++) {
		struct stat st;
		DIR *d;
		if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode) &&
		    (d = opendir(paths[i])) != NULL) {
			struct dirent *e;
			int first = m;
			while ((e = readdir(d)) != NULL) {
				if (e->d_name[0] == '.' || !is_trace_name(e->d_name))
					continue;
				if (m == cap)
					out = xreallocarray(out, (size_t)(cap = cap ? cap * 2 : 16), sizeof *out);
				size_t pl = strlen(paths[i]);
				while (pl > 1 && paths[i][pl - 1] == '/')
					pl--; /* "run/" gives run/rank0.json, not run//rank0.json */
				out[m++] = xasprintf("%.*s/%s", (int)pl, paths[i], e->d_name);
			}
			closedir(d);
			if (m - first > 1)
				qsort(out + first, (size_t)(m - first), sizeof *out, name_cmp);
			if (m == first)
				escape_say(stderr, "ttrace: warning: %s holds no .json, .json.gz or .json.zst file",
				           paths[i]);
			continue;
		}
		if (m == cap)
			out = xreallocarray(out, (size_t)(cap = cap ? cap * 2 : 16), sizeof *out);
		out[m++] = xstrdup(paths[i]);
	}
	*nout = m;
	return out;
}
