/* chrome_scan.h: a one-pass streaming scanner for Chrome trace-event JSON.
 *
 * The scanner reads bytes from an input (parsers/input.h) through a bounded window
 * (1 MiB, grown only for a single event larger than that), never holding the whole
 * file nor a DOM. For every element of `traceEvents` (or of a bare top-level array) it
 * extracts the fields the model needs into a struct scan_event and hands it to the sink;
 * every other top-level key is handed to the sink as raw JSON text (values above
 * SCAN_HEADER_MAX are skipped without being stored, and reported by key only).
 *
 * Leniency (real traces break the rules; see shared/traces/README.md): raw control
 * bytes inside strings are kept, invalid escapes keep their backslash, bare
 * inf/-inf/nan/Infinity/NaN are non-finite numbers, invalid UTF-8 passes through as
 * bytes; each is counted. A malformed event is skipped: the scanner resynchronises at the
 * next event and reports the first few with line:column and byte offset. A truncated
 * input keeps every complete event before the cut.
 *
 * Bounds (struct scan_limits): the window grows freely up to window_small; past it a
 * whole-document scan first takes a large grant from its input (input_hold_large), and
 * stops growing at event_max: an element larger than that is read past without being
 * kept, counted as malformed and reported at its start (a string without end costs a
 * read to the end of the input, never memory). A range scan never takes a grant: it ends
 * with SCAN_MISSED_STOP instead, and the caller scans the file in one piece. Values
 * nested deeper than depth_max stop the scan (SCAN_TRUNCATED, or SCAN_NOT_TRACE when no
 * event came before): no trace nests that deep, and skipping one costs a read to its end. */
#ifndef TT_CHROME_SCAN_H
#define TT_CHROME_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/input.h"

#define SCAN_HEADER_MAX (1u << 20)
#define SCAN_WINDOW_SMALL ((size_t)2 << 20)
#define SCAN_EVENT_MAX ((size_t)16 << 20)
#define SCAN_DEPTH_MAX 1000u

struct scan_limits {
	size_t window_small; /* window that needs no large grant */
	size_t event_max;    /* largest element kept; at least window_small */
	unsigned depth_max;  /* deepest nesting of values inside an element */
};

/* Sets the limits of scans started after the call (NULL: the SCAN_* defaults); for tests.
 * Sizes are rounded up to 4 KiB. */
void scan_set_limits(const struct scan_limits *limits);

/* A string as found in the input, unescaped. Valid only during the sink call. */
struct scan_str {
	const char *p;
	uint32_t len;
};

/* pid and tid may be JSON numbers or strings; strings of decimal digits are turned into
 * numbers (old files write the same tid both ways). */
struct scan_id {
	bool present;
	bool is_str;
	int64_t num;
	struct scan_str str;
};

/* Which selected args an event carried (bits of scan_event.have). */
enum {
	SA_CORRELATION = 1u << 0,
	SA_EXTERNAL_ID = 1u << 1,
	SA_DEVICE = 1u << 2,
	SA_STREAM = 1u << 3,
	SA_GRID = 1u << 4,
	SA_BLOCK = 1u << 5,
	SA_BLOCKS_PER_SM = 1u << 6,
	SA_OCCUPANCY = 1u << 7,
	SA_BYTES = 1u << 8, /* memcpy/memset "bytes", [memory] "Bytes" */
	SA_TOTAL_ALLOC = 1u << 9,
	SA_TOTAL_RESERVED = 1u << 10,
	SA_DEVICE_ID = 1u << 11,   /* [memory] "Device Id" */
	SA_DEVICE_TYPE = 1u << 12, /* [memory] "Device Type" */
	SA_M_NAME = 1u << 13,      /* M events: args.name */
	SA_M_SORT = 1u << 14,      /* M events: args.sort_index */
	SA_M_LABELS = 1u << 15,    /* M events: args.labels */
	SA_PG_NAME = 1u << 16,     /* collectives: "Process Group Name" (a string) */
	SA_ADDR = 1u << 17,        /* [memory] "Addr" (any value but null; only its presence is kept) */
	SA_REGS = 1u << 20,        /* kernels: "registers per thread" */
	SA_SMEM = 1u << 21,        /* kernels: "shared memory" (static + dynamic bytes) */
	SA_FLOPS = 1u << 22,       /* operators: "flops" (with_flops=True) */
};

#define SCAN_MAX_COUNTER_VALUES 8

/* One trace event. Times are int64 nanoseconds parsed from the decimal text as fixed
 * point (microseconds in the file; digits past the ns are rounded away). */
struct scan_event {
	char ph;    /* 'X', 'B', 'E', 'i', 'I', 'C', 's', 't', 'f', 'M', 'b', 'e', 'n', ... */
	char bp;    /* flow binding point: 'e' or 0 */
	char scope; /* instant scope 't', 'p', 'g' or 0 */
	bool has_ts, has_dur, has_id;
	bool ts_nonfinite; /* ts was inf/nan: treat as missing */
	struct scan_str name, cat;
	struct scan_id pid, tid;
	int64_t ts, dur;
	uint64_t id;           /* flow/async id: number, or hash of a string id */
	uint64_t offset;       /* byte offset of the event's '{' in the decompressed stream */
	uint64_t args_offset;  /* byte offset of the args object's '{', 0 when none */
	uint32_t args_len;     /* its length in bytes, 0 when none */
	const char *args_text; /* its bytes (args_len of them, not NUL-terminated), NULL when none */
	const char *text;      /* the whole event's bytes, '{' to '}' (text_len of them), as in the input */
	uint32_t text_len;
	uint32_t have; /* SA_* bits */
	int64_t correlation, external_id, device, stream;
	int32_t grid[3], block[3];
	double blocks_per_sm, occupancy;
	int64_t regs, smem;
	int64_t bytes, total_allocated, total_reserved, device_id, device_type;
	int64_t flops;
	int64_t m_sort_index;
	struct scan_str m_name, m_labels;
	struct scan_str pg_name;
	/* C events: numeric args, in file order (first SCAN_MAX_COUNTER_VALUES). */
	unsigned ncounter;
	struct scan_str counter_key[SCAN_MAX_COUNTER_VALUES];
	double counter_value[SCAN_MAX_COUNTER_VALUES];
};

/* Kinds of oddity the scanner counts (indices into scan_stats.count). */
/* The problems of each kind a scan reports through the sink (the rest are only counted). */
#define SCAN_PROBLEMS_REPORTED 5

enum scan_oddity {
	SO_MALFORMED_EVENT, /* skipped: could not be parsed */
	SO_CONTROL_CHAR,    /* raw byte < 0x20 inside a string, kept */
	SO_BAD_ESCAPE,      /* invalid escape, backslash kept */
	SO_NONFINITE,       /* bare inf/nan number */
	SO_INT_OVERFLOW,    /* an integer past the int64/uint64 range, clamped */
	SO_NOT_OBJECT,      /* an element of traceEvents that is not an object */
	SO__COUNT
};

struct scan_stats {
	uint64_t events; /* events handed to the sink */
	uint64_t bytes;  /* decompressed bytes scanned */
	uint64_t count[SO__COUNT];
	/* SCAN_NOT_TRACE for an input that is not a Chrome trace (empty, another kind of JSON,
	 * no traceEvents), not for one whose JSON is broken before its events */
	bool not_a_trace;
};

/* The sink: what the scanner calls. Pointers inside its arguments are valid only
 * during the call. Calls come in file order from the thread running scan_run(). */
struct scan_sink {
	void *ctx;
	/* One event of traceEvents. */
	void (*event)(void *ctx, const struct scan_event *ev);
	/* A top-level key other than traceEvents, with its value's raw JSON text (json is
	 * NULL and len the value's size when it exceeded SCAN_HEADER_MAX and was skipped). */
	void (*header)(void *ctx, const char *key, uint32_t keylen, const char *json, uint64_t len);
	/* A problem at a location: message is self-contained ("expected ',' or '}'").
	 * Called for the first few of each kind only; the counts are in scan_stats. */
	void (*problem)(void *ctx, enum scan_oddity kind, uint64_t offset, uint64_t line, uint64_t col,
	                const char *message);
	/* Optional progress call, about every MB: bytes scanned so far. */
	void (*progress)(void *ctx, uint64_t data_bytes, uint64_t file_bytes);
	/* Optional: when it becomes true, the scan ends at its next read of the input, as if
	 * the input had failed there (SCAN_TRUNCATED or SCAN_IO_ERROR, cause "cancelled"). */
	const _Atomic bool *cancel;
};

enum scan_result {
	SCAN_OK,          /* the whole document was scanned */
	SCAN_STOPPED,     /* a range scan stopped at its stop offset, as asked */
	SCAN_MISSED_STOP, /* a range scan found no element beginning at its stop offset */
	SCAN_TRUNCATED,   /* input ended early (cut file or stream): events before it kept */
	SCAN_NOT_TRACE,   /* not a Chrome trace: nothing usable */
	SCAN_IO_ERROR,    /* read error before anything usable */
};

/* Scans IN to its end, calling SINK. Returns the result; *cause is an allocated message
 * (with file, byte offset and line:column where they apply) for SCAN_TRUNCATED,
 * SCAN_NOT_TRACE and SCAN_IO_ERROR, else NULL. STATS is filled in all cases. */
enum scan_result scan_run(struct input *in, const struct scan_sink *sink, struct scan_stats *stats, char **cause);

/* A part of a file, for parsing one file on several threads. The caller positions the
 * input at START (0: the whole document from its beginning); when START > 0 it is the
 * '{' of an element of the events array, and TOP_IS_OBJECT says whether header keys may
 * follow the array. With STOP > 0 the scan ends with SCAN_STOPPED just before the element
 * that begins at STOP, or with SCAN_MISSED_STOP if no element begins there (STOP was not
 * an element boundary: the caller must scan that part again in one piece). Line numbers
 * in locations count from the file's start (the lines before START are counted, through
 * input_pread, only when a location is needed). START > 0 needs a seekable input. */
struct scan_range {
	uint64_t start, stop;
	bool top_is_object;
	/* When known (a part of a stream), the newlines before START and the offset just
	 * past the last of them; otherwise they are counted from the file when needed. */
	bool lines_known;
	uint64_t lines_before, last_nl_before;
	/* A thread that scans many small ranges (the chunks of a compressed stream) sets this:
	 * the scan keeps its window for the thread's next one, freed when the thread exits. */
	bool keep_window;
};

/* As scan_run, for the part of IN that RANGE describes (NULL: the whole input). */
enum scan_result scan_run_range(struct input *in, const struct scan_sink *sink, const struct scan_range *range,
                                struct scan_stats *stats, char **cause);

/* Parses a JSON number's text as fixed-point microseconds into nanoseconds.
 * Returns 0 and sets *ns, or -1 if the text is not a finite number or overflows. */
int scan_parse_us_as_ns(const char *p, const char *end, int64_t *ns);

#endif
