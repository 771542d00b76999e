/* test_knobs.h: the environment variables that exist for tests and benchmarks, read in
 * one place and listed in ttrace(1), ENVIRONMENT.
 *
 * They slow a load or a frame down so that a test can act in the middle of it, split a
 * small file as a big one would be, or say how long something took. Users never need
 * them; a value that is not a whole number in range is as if the variable were unset. */
#ifndef TT_TEST_KNOBS_H
#define TT_TEST_KNOBS_H

#include <stdbool.h>
#include <stdint.h>

struct test_knobs {
	int parts;                 /* TTRACE_PARTS: parse every file in this many parts, whatever its
	                            * size (1: in one piece; 0: unset, as usual) */
	unsigned slow_load_us;     /* TTRACE_TEST_SLOW_LOAD: a loading thread waits this long every 1024 events */
	unsigned slow_snapshot_ms; /* TTRACE_TEST_SLOW_SNAPSHOT: each snapshot takes this much longer */
	const char *snapshots;     /* TTRACE_TEST_SNAPSHOTS: "first,every,growth,max" of the snapshot policy */
	long busy_ms;              /* TTRACE_TEST_BUSY_MS: the timeline spends this much more on a frame */
	bool defer_set;            /* TTRACE_TEST_DEFER_SLICES is set: ... */
	uint64_t defer_slices;     /* ... traces of this many slices draw their first frame first */
	const char *first_frame;   /* TTRACE_TEST_FIRST_FRAME: --dump-screen writes its first frame here */
	bool quit_loaded;          /* TTRACE_TEST_QUIT_LOADED: the timeline ends once the whole trace is drawn */
	long report_delay_ms;      /* TTRACE_TEST_REPORT_DELAY_MS: a report waits this long before it reads */
	unsigned cache_stall_s;    /* TTRACE_CACHE_TEST_STALL: a cache writer waits this long (1-9 s) */
	bool cache_times;          /* TTRACE_CACHE_TIMES: a cache read says how long its checks took */
	bool crop_hold_set;        /* TTRACE_TEST_CROP_HOLD is set: ... */
	uint64_t crop_hold;        /* ... crop holds at most this many bytes before it reads the file again */
	unsigned block_shift;      /* TTRACE_TEST_BLOCK_SHIFT: a load maps its events in blocks of 2^N bytes (6-30) */
	int crop_read;             /* TTRACE_TEST_CROP_READ: 1 "full": crop reads the whole file; 2 "blocks":
	                            * the blocks it needs, however many (0: as it judges) */
	bool index_split_set;      /* TTRACE_TEST_INDEX_SPLIT is set: ... */
	uint64_t index_split;      /* ... traces of this many slices or more index their tracks on two threads */
	bool analysis_split_set;   /* TTRACE_TEST_ANALYSIS_SPLIT is set: ... */
	uint64_t analysis_split;   /* ... analyses of traces of this many slices or more take threads of their own */
	bool no_map;               /* TTRACE_TEST_NO_MAP: plain files are read into the scanner's window, not mapped */
	bool narrow_blocks;        /* TTRACE_TEST_NARROW_BLOCKS: the scanner's skips read 16 bytes at a time
	                            * (SSE2) where the processor has AVX-512BW */
	bool gather_set;           /* TTRACE_TEST_GATHER_MIN is set: ... */
	uint64_t gather_min;       /* ... tracks of this many slices or more are put in order by a gather */
	bool row_span_set;         /* TTRACE_TEST_ROW_SPAN is set: ... */
	uint32_t row_span;         /* ... a row's block keeps 2-byte entries only within this of its first */
	bool sort_near_set;        /* TTRACE_TEST_SORT_NEAR is set: ... */
	uint32_t sort_near;        /* ... a track is sorted in place while no slice moves back further */
};

/* The knobs as the environment sets them now (read at each call: tests change them between
 * loads of one process). */
struct test_knobs test_knobs(void);

#endif
