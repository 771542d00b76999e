/* timefmt.h: human-readable times and sizes (pure, no locale). */
#ifndef TT_TIMEFMT_H
#define TT_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

/* Formats a duration of NS nanoseconds with a unit that keeps 3-4 significant digits
 * ("0 ns", "850 ns", "12.3 us", "4.57 ms", "1.234 s", "2m03.5s"). Returns BUF. */
const char *timefmt_dur(int64_t ns, char *buf, size_t n);
/* Formats NS as a time offset with a sign, always in milliseconds so that offsets of any
 * size compare at a glance: "+1.234 ms", "+1089.354 ms", "+0.000250 ms" when there are
 * nanoseconds. Returns BUF. */
const char *timefmt_offset(int64_t ns, char *buf, size_t n);
/* Parses "500us", "2ms", "1.5s", "30000" (ns) ... into ns. Returns 0, or -1 when bad. */
int timefmt_parse_dur(const char *s, int64_t *ns);
/* Formats a byte count with 3 significant digits ("12.3 MB", decimal units). */
const char *timefmt_bytes(double bytes, char *buf, size_t n);

#endif
