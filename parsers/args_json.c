/* args_json.c: parsing an event's args text with cJSON (see args_json.h). */
#include "parsers/args_json.h"

#include <stdbool.h>
#include <stdio.h>
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
		bool may = c == '-' || c == 'I' || c == 'i' || c == 'n' || c == 'N'; /* the words' first letters */
		for (size_t w = 0; may && w < sizeof words / sizeof *words; w++) {
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

void event_args_parse(char *text, struct event_args *out)
{
	memset(out, 0, sizeof *out);
	out->text = text;
	char *fixed = finite_copy(out->text, strlen(out->text), &out->nonfinite);
	out->json = cJSON_ParseWithLength(fixed, strlen(fixed));
	free(fixed);
}

int args_store_read(const struct trace *t, uint64_t args, struct event_args *out, char **cause)
{
	char *text;
	memset(out, 0, sizeof *out);
	if (args_store_text(t, args, &text, cause) < 0)
		return -1;
	event_args_parse(text, out);
	return 0;
}

void event_args_free(struct event_args *a)
{
	cJSON_Delete(a->json);
	free(a->text);
	memset(a, 0, sizeof *a);
}

char *args_one_line(const struct trace *t, uint64_t args, char **cause)
{
	struct event_args ea;
	if (args_store_read(t, args, &ea, cause) < 0)
		return NULL;
	char *flat = ea.json != NULL ? cJSON_PrintUnformatted(ea.json) : NULL;
	char *out = xstrdup(flat != NULL ? flat : ea.text);
	free(flat);
	event_args_free(&ea);
	return out;
}

char *args_lines(const struct trace *t, uint64_t args, char **cause)
{
	struct event_args ea;
	if (args_store_read(t, args, &ea, cause) < 0)
		return NULL;
	if (ea.json == NULL || !cJSON_IsObject(ea.json)) {
		char *out = xasprintf("%s\n", ea.text);
		event_args_free(&ea);
		return out;
	}
	size_t cap = 256, n = 0;
	char *out = xmalloc(cap);
	out[0] = '\0';
	for (const cJSON *it = ea.json->child; it != NULL; it = it->next) {
		char *val = cJSON_IsString(it) ? NULL : cJSON_PrintUnformatted(it);
		const char *v = cJSON_IsString(it) ? it->valuestring : val != NULL ? val : "?";
		const char *k = it->string != NULL ? it->string : "";
		size_t need = strlen(k) + 2 * strlen(v) + 8;
		while (n + need + 1 > cap)
			out = xrealloc(out, cap *= 2);
		if (strcmp(k, "Call stack") == 0 && cJSON_IsString(it)) {
			/* Kineto's frames, innermost first, joined by ';': one a line */
			n += (size_t)snprintf(out + n, cap - n, "%s:\n", k);
			for (const char *f = v; *f != '\0';) {
				const char *e = strchr(f, ';');
				size_t len = e != NULL ? (size_t)(e - f) : strlen(f);
				if (len > 0)
					n += (size_t)snprintf(out + n, cap - n, "  %.*s\n", (int)len, f);
				f += len + (e != NULL);
			}
		} else {
			n += (size_t)snprintf(out + n, cap - n, "%s: %s\n", k, v);
		}
		free(val);
	}
	event_args_free(&ea);
	return out;
}
