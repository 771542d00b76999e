/* timefmt.h: human-readable times and sizes (pure, no locale). */
#ifndef TT_TIMEFMT_H
#define TT_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* Formats a duration of NS nanoseconds with a unit that keeps 3-4 significant digits
 * ("0 ns", "850 ns", "12.3 us", "4.57 ms", "1.234 s", "2m03.5s"). Returns BUF. */
const char *timefmt_dur(int64_t ns, char *buf, size_t n);
/* Formats NS, a tick of a ruler whose ticks are STEP ns apart (NS a multiple of STEP), as
 * timefmt_dur does, with as many more decimals as STEP needs in that unit, so that two
 * ticks never read the same: "16.40 ms", "16.45 ms" for STEP 50 us. Returns BUF. */
const char *timefmt_tick(int64_t ns, int64_t step, char *buf, size_t n);
/* Formats NS as a time offset with a sign, always in milliseconds so that offsets of any
 * size compare at a glance: "+1.234 ms", "+1089.354 ms", "+0.000250 ms" when there are
 * nanoseconds. Returns BUF. */
const char *timefmt_offset(int64_t ns, char *buf, size_t n);
/* Parses "500us", "2ms", "1.5s", "30000" (ns) ... into ns. Returns 0, or -1 when bad. */
int timefmt_parse_dur(const char *s, int64_t *ns);
/* Formats a byte count with 3 significant digits ("12.3 MB", decimal units). */
const char *timefmt_bytes(double bytes, char *buf, size_t n);

#endif
