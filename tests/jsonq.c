/* jsonq.c: a test helper. Reads JSON on stdin, checks it parses, and prints the value at
 * each PATH argument ("files.0.events", "files.0.quality.malformed_events"; "#" gives an
 * array's length). Exit 1 if stdin is not valid JSON, 3 if a path is missing. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t cap = 1 << 16, n = 0, k;
	char *buf = malloc(cap);
	while ((k = fread(buf + n, 1, cap - n - 1, stdin)) > 0) {
		n += k;
		if (cap - n < 2)
			buf = realloc(buf, cap *= 2);
	}
	buf[n] = '\0';
	cJSON *root = cJSON_Parse(buf);
	int status = 0;
	if (root == NULL) {
		fprintf(stderr, "jsonq: invalid JSON near: %.40s\n", cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "?");
		free(buf);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		cJSON *v = root;
		char *path = strdup(argv[i]), *save = NULL;
		for (char *tok = strtok_r(path, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save)) {
			if (strcmp(tok, "#") == 0) {
				printf("%d\n", cJSON_GetArraySize(v));
				v = NULL;
				goto next;
			}
			if (cJSON_IsArray(v))
				v = cJSON_GetArrayItem(v, atoi(tok));
			else
				v = cJSON_GetObjectItemCaseSensitive(v, tok);
		}
		if (v == NULL) {
			free(path);
			status = 3;
			break;
		}
		if (cJSON_IsString(v)) {
			puts(v->valuestring);
		} else {
			char *s = cJSON_PrintUnformatted(v);
			puts(s);
			free(s);
		}
next:
		free(path);
	}
	cJSON_Delete(root);
	free(buf);
	fflush(stdout);
	return status;
}
