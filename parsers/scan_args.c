/* scan_args.c: the args of an event that the scanner keeps (scan_args.h).
 *
 * One table lists the keys the model needs: for each, what its value must look like (the
 * guard), how it is read and into which field of struct scan_event, and the SA_* bit that
 * says the event had it. A key is found through a hash of its length and first and last
 * bytes (one loop over the few entries of its slot; no two keys share a slot now, so a key
 * that is not in the table costs one comparison at most). A key that is not in the table,
 * or whose value fails its guard, is one of a counter event's values (C events: numbers
 * in file order) or is skipped. */
#include "parsers/scan_args.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "lib/xalloc.h"
#include "parsers/scan_lex.h"

/* What a key's value must look like to be read into its field. */
enum arg_guard {
	GUARD_ANY,          /* any value */
	GUARD_NUMBER,       /* not a string, an object or an array (numbers, inf/nan, literals) */
	GUARD_NUMBER_NOT_C, /* as GUARD_NUMBER, in an event that is not a counter (C) */
	GUARD_STRING,       /* a string */
};

/* How the value is read, and the type of the field it goes into (TYPE_ of it). */
enum arg_read {
	READ_INT,     /* an integer; the bit only when it is finite */
	READ_DOUBLE,  /* a number */
	READ_INT3,    /* up to three integers of an array (any other value: skipped) */
	READ_STRING,  /* a string */
	READ_PRESENT, /* nothing kept: the bit when the value is not null */
};
#define TYPE_READ_INT int64_t
#define TYPE_READ_DOUBLE double
#define TYPE_READ_INT3 int32_t *
#define TYPE_READ_STRING struct scan_str
#define TYPE_READ_PRESENT uint32_t

struct arg_key {
	const char *name;
	uint8_t len;
	uint8_t guard;  /* enum arg_guard */
	uint8_t read;   /* enum arg_read */
	uint16_t field; /* offset in struct scan_event */
	uint32_t bit;   /* SA_* */
};

/* The offset of FIELD in struct scan_event, which READ must fit (else a compile error). */
/* clang-format off */
#define FIELD_FOR(read, field)                                                                         \
	(offsetof(struct scan_event, field) +                                                          \
	 0 * sizeof(char[_Generic(((struct scan_event *)0)->field, TYPE_##read: 1, default: -1)]))
#define ARG(name, guard, read, field, bit) { name, sizeof name - 1, guard, read, FIELD_FOR(read, field), bit }
/* clang-format on */

static const struct arg_key arg_keys[] = {
	/* launches, kernels and operators, tied together */
	ARG("correlation", GUARD_NUMBER, READ_INT, correlation, SA_CORRELATION),
	ARG("External id", GUARD_NUMBER, READ_INT, external_id, SA_EXTERNAL_ID),
	ARG("external id", GUARD_NUMBER, READ_INT, external_id, SA_EXTERNAL_ID),
	/* where a kernel or a copy ran */
	ARG("device", GUARD_NUMBER, READ_INT, device, SA_DEVICE),
	ARG("stream", GUARD_NUMBER, READ_INT, stream, SA_STREAM),
	/* kernels */
	ARG("grid", GUARD_ANY, READ_INT3, grid, SA_GRID),
	ARG("block", GUARD_ANY, READ_INT3, block, SA_BLOCK),
	ARG("blocks per SM", GUARD_NUMBER, READ_DOUBLE, blocks_per_sm, SA_BLOCKS_PER_SM),
	ARG("est. achieved occupancy %", GUARD_NUMBER, READ_DOUBLE, occupancy, SA_OCCUPANCY),
	ARG("registers per thread", GUARD_NUMBER, READ_INT, regs, SA_REGS),
	ARG("shared memory", GUARD_NUMBER, READ_INT, smem, SA_SMEM),
	/* copies and memsets ("bytes"), [memory] events (the rest) */
	ARG("bytes", GUARD_NUMBER, READ_INT, bytes, SA_BYTES),
	ARG("Bytes", GUARD_NUMBER, READ_INT, bytes, SA_BYTES),
	ARG("Total Allocated", GUARD_NUMBER, READ_INT, total_allocated, SA_TOTAL_ALLOC),
	ARG("Total Reserved", GUARD_NUMBER, READ_INT, total_reserved, SA_TOTAL_RESERVED),
	ARG("Device Id", GUARD_NUMBER, READ_INT, device_id, SA_DEVICE_ID),
	ARG("Device Type", GUARD_NUMBER, READ_INT, device_type, SA_DEVICE_TYPE),
	ARG("Addr", GUARD_ANY, READ_PRESENT, have, SA_ADDR),
	/* operators (with_flops=True); a counter's "flops" is one of its values */
	ARG("flops", GUARD_NUMBER_NOT_C, READ_INT, flops, SA_FLOPS),
	/* collectives */
	ARG("Process Group Name", GUARD_STRING, READ_STRING, pg_name, SA_PG_NAME),
	/* metadata (M) events */
	ARG("name", GUARD_STRING, READ_STRING, m_name, SA_M_NAME),
	ARG("labels", GUARD_STRING, READ_STRING, m_labels, SA_M_LABELS),
	ARG("sort_index", GUARD_NUMBER, READ_INT, m_sort_index, SA_M_SORT),
};

#define NKEYS (sizeof arg_keys / sizeof arg_keys[0])
#define KEY_LEN_MAX 32 /* longer keys are not looked up; the table's are shorter */
#define SLOTS 64
/* clang-format off */
#define SLOT(len, first, last) (((unsigned)(len) * 3 + (unsigned char)(first) + (unsigned char)(last) * 2) & (SLOTS - 1))
/* clang-format on */

/* 1 + the index of the slot's first key and of the next key in the same slot, 0: none. */
static uint8_t slot_first[SLOTS];
static uint8_t slot_next[NKEYS];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static void slots_build(void)
{
	for (size_t i = NKEYS; i-- > 0;) {
		const struct arg_key *e = &arg_keys[i];
		if (e->len == 0 || e->len > KEY_LEN_MAX)
			BUG("an args key is empty or longer than KEY_LEN_MAX");
		unsigned slot = SLOT(e->len, e->name[0], e->name[e->len - 1]);
		slot_next[i] = slot_first[slot];
		slot_first[slot] = (uint8_t)(i + 1);
	}
}

void scan_args_prepare(void) { pthread_once(&slots_once, slots_build); }

/* Whether A[0..n) and B[0..n) hold the same bytes, with loads of 8 or 4 bytes that stay
 * inside them (a key's bytes are compared as memcmp with a constant length did, inline). */
static inline bool same_bytes(const char *a, const char *b, uint32_t n)
{
	uint64_t x, y;
	uint32_t i = 0, u, v;

	if (n >= 8) {
		for (; i + 8 <= n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return false;
		}
		if (i == n)
			return true;
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return false;
		memcpy(&u, a + n - 4, 4);
		memcpy(&v, b + n - 4, 4);
		return u == v;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static inline const struct arg_key *key_find(const struct scan_str *k)
{
	if (k->len == 0 || k->len > KEY_LEN_MAX)
		return NULL;
	for (unsigned i = slot_first[SLOT(k->len, k->p[0], k->p[k->len - 1])]; i != 0; i = slot_next[i - 1]) {
		const struct arg_key *e = &arg_keys[i - 1];
		if (e->len == k->len && same_bytes(e->name, k->p, k->len))
			return e;
	}
	return NULL;
}

static inline bool guard_passes(const struct arg_key *e, char c, bool counter)
{
	switch ((enum arg_guard)e->guard) {
	case GUARD_ANY: return true;
	case GUARD_NUMBER: return c != '"' && c != '{' && c != '[';
	case GUARD_NUMBER_NOT_C: return !counter && c != '"' && c != '{' && c != '[';
	case GUARD_STRING: return c == '"';
	}
	return false;
}

/* An array of up to three integers into OUT (more are read past); any other value is skipped. */
static enum scan_step lex_int3(struct scanner *s, const char **pp, int32_t out[3])
{
	const char *p = *pp;
	enum scan_step st;
	int i = 0;
	bool nf;

	if (*p != '[')
		return scan_skip_value(s, pp);
	p = skip_ws(p + 1);
	if (*p == ']') {
		*pp = p + 1;
		return ST_OK;
	}
	for (;;) {
		int64_t v;
		if (*p == '"' || *p == '{' || *p == '[')
			return scan_skip_value(s, pp); /* not a plain int array: skip whole */
		st = scan_lex_int(s, &p, &v, NULL, &nf);
		if (st != ST_OK)
			return st;
		if (i < 3)
			out[i] = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
		i++;
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == ']') {
			*pp = p + 1;
			return ST_OK;
		}
		return NEED_OR_FAIL(s, p, "expected ',' or ']' in an array");
	}
}

/* Reads the value at *pp into E's field of EV, and sets E's bit. */
static enum scan_step read_value(struct scanner *s, const char **pp, struct scan_event *ev, const struct arg_key *e)
{
	char *field = (char *)ev + e->field;
	enum scan_step st = ST_OK;
	bool nonfinite;

	switch ((enum arg_read)e->read) {
	case READ_INT:
		st = scan_lex_int(s, pp, (int64_t *)(void *)field, NULL, &nonfinite);
		if (!nonfinite)
			ev->have |= e->bit;
		return st;
	case READ_DOUBLE: st = scan_lex_double(s, pp, (double *)(void *)field); break;
	case READ_INT3: st = lex_int3(s, pp, (int32_t *)(void *)field); break;
	case READ_STRING:
		(*pp)++;
		st = scan_lex_string(s, pp, (struct scan_str *)(void *)field, true);
		break;
	case READ_PRESENT:
		if (**pp != 'n')
			ev->have |= e->bit;
		return scan_skip_value(s, pp);
	}
	ev->have |= e->bit;
	return st;
}

enum scan_step scan_parse_args(struct scanner *s, const char **pp, struct scan_event *ev)
{
	const char *p = *pp, *open = p;
	enum scan_step st;
	bool counter = ev->ph == 'C';

	p = skip_ws(p + 1);
	if (*p == '}') {
		p++;
		goto done;
	}
	for (;;) {
		struct scan_str k;
		if (*p != '"')
			return NEED_OR_FAIL(s, p, "expected a key in args");
		p++;
		st = scan_lex_key(s, &p, &k);
		if (st != ST_OK)
			return st;
		if (p[0] == ':' && p[1] == ' ' && !ws_table[(unsigned char)p[2]]) { /* most: "key": value */
			p += 2;
		} else {
			p = skip_ws(p);
			if (*p != ':')
				return NEED_OR_FAIL(s, p, "expected ':' after a key in args");
			p = skip_ws(p + 1);
		}
		const struct arg_key *e = key_find(&k);
		if (e != NULL && guard_passes(e, *p, counter)) {
			st = read_value(s, &p, ev, e);
		} else if (counter && ev->ncounter < SCAN_MAX_COUNTER_VALUES &&
		           (*p == '-' || (*p >= '0' && *p <= '9') || *p == 'i' || *p == 'I' || *p == 'N' ||
		            *p == 'n')) {
			double v;
			st = scan_lex_double(s, &p, &v);
			if (st == ST_OK) {
				ev->counter_key[ev->ncounter] = k;
				ev->counter_value[ev->ncounter] = v;
				ev->ncounter++;
			}
		} else {
			st = scan_skip_value(s, &p);
		}
		if (st != ST_OK)
			return st;
		if (p[0] == ',' && (p[1] == '"' || (p[1] == ' ' && p[2] == '"'))) { /* most: , "key" */
			p += 1 + (p[1] == ' ');
			continue;
		}
		p = skip_ws(p);
		if (*p == ',') {
			p = skip_ws(p + 1);
			continue;
		}
		if (*p == '}') {
			p++;
			break;
		}
		return NEED_OR_FAIL(s, p, "expected ',' or '}' in args");
	}
done:
	ev->args_offset = scan_offset(s, open);
	ev->args_len = (uint32_t)(p - open);
	ev->args_text = open;
	*pp = p;
	return ST_OK;
}
