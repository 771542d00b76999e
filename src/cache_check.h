/* cache_check.h: the checks of the values of a model read from a cache (src/cache_check.c):
 * whoever can write the file can recompute its checksums, so every value is checked as
 * strictly as the parser checks its input. */
#ifndef TT_CACHE_CHECK_H
#define TT_CACHE_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "src/builder.h"
#include "src/model.h"

/* A time as the builder keeps them (src/builder.h): within BUILDER_TIME_LIMIT of the base. */
static inline bool cache_time_ok(int64_t ts) { return ts > -BUILDER_TIME_LIMIT && ts < BUILDER_TIME_LIMIT; }

/* An id into something of N elements; NONE_OK: TT_NONE too. */
static inline bool cache_id_ok(uint32_t id, uint64_t n, bool none_ok) { return id < n || (none_ok && id == TT_NONE); }

/* Checks every index stored in T's bulk arrays (T: rebuilt from a cache, its tracks, rows
 * and counters already checked to lie within their sections), and every value against
 * what the parser and the index make: times within the builder's limits, bools and enums
 * in range, the orders and sums the index relies on. Checks the tracks on several threads
 * when PARALLEL. Returns false, with *CAUSE set as cache_refuse sets it, at the first
 * value that does not hold. */
bool cache_check_model(const struct trace *t, bool parallel, char **cause);

#endif
