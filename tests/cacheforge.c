/* cacheforge.c: forges a binary cache as anyone who can write it could (src/cache.h):
 * replaces every occurrence of the bytes FROM by TO (of the same length) in the cache
 * file, then recomputes its checksums (cache_reseal), so that only ttrace's other checks
 * (who owns the file, what its values are) stand between the forgery and a report.
 *
 *   cacheforge CACHE FROM TO
 *
 * Prints how many occurrences were replaced; exits 1 when none was, 2 on an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cache.h"

int main(int argc, char **argv)
{
	if (argc != 4 || strlen(argv[2]) != strlen(argv[3]) || argv[2][0] == '\0') {
		fputs("usage: cacheforge CACHE FROM TO (FROM and TO of the same length)\n", stderr);
		return 2;
	}
	FILE *f = fopen(argv[1], "r+b");
	if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
		perror(argv[1]);
		return 2;
	}
	long len = ftell(f);
	char *image = malloc(len > 0 ? (size_t)len : 1);
	rewind(f);
	if (len <= 0 || image == NULL || fread(image, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", argv[1]);
		return 2;
	}
	size_t n = strlen(argv[2]), hits = 0;
	for (char *p = image; (p = memmem(p, (size_t)(image + len - p), argv[2], n)) != NULL; p += n) {
		memcpy(p, argv[3], n);
		hits++;
	}
	/* 0 is fine: the header names ttrace's build, not this program's */
	if (cache_reseal(image, (size_t)len) < 0) {
		fprintf(stderr, "%s: shorter than a cache's header\n", argv[1]);
		return 2;
	}
	rewind(f);
	if (fwrite(image, 1, (size_t)len, f) != (size_t)len || fclose(f) != 0) {
		perror(argv[1]);
		return 2;
	}
	printf("%zu\n", hits);
	free(image);
	return hits > 0 ? 0 : 1;
}
