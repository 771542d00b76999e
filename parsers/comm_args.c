/* comm_args.c: a collective's message from its args (see comm_args.h). */
#include "parsers/comm_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int comm_args_read(const struct trace *t, uint64_t args, struct comm_args *out)
{
	memset(out, 0, sizeof *out);
	out->in_nelems = out->out_nelems = -1;
	out->group_size = -1;
	struct event_args a;
	char *cause = NULL;
	if (args_store_read(t, args, &a, &cause) != 0) {
		free(cause);
		return -1;
	}
	if (a.json == NULL) {
		event_args_free(&a);
		return -1;
	}
	out->in_nelems = num(a.json, "In msg nelems");
	out->out_nelems = num(a.json, "Out msg nelems");
	int64_t g = num(a.json, "Group size");
	out->group_size = g >= 0 && g < 1000000 ? (int)g : -1;
	char dtype[32] = "";
	str(a.json, "dtype", dtype, sizeof dtype);
	out->elem_bytes = comm_dtype_bytes(dtype);
	str(a.json, "Collective name", out->collective, sizeof out->collective);
	str(a.json, "Process Group Name", out->group, sizeof out->group);
	str(a.json, "Process Group Description", out->group, sizeof out->group);
	out->sized = out->in_nelems >= 0 && out->elem_bytes > 0;
	event_args_free(&a);
	return 0;
}
