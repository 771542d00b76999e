/* settings.c: the grammar of the recorder's numeric settings (see settings.h). */
#include "record/settings.h"

#include <stddef.h>

bool record_parse_seconds(const char *s, double *v)
{
	uint64_t whole = 0;
	uint32_t ns = 0;
	int digits = 0, frac_digits = 0;
	bool dot = false, over = false, frac_nonzero = false;
	for (const char *p = s; *p != '\0'; p++) {
		if (*p == '.') {
			if (dot)
				return false;
			dot = true;
			continue;
		}
		if (*p < '0' || *p > '9')
			return false;
		unsigned d = (unsigned)(*p - '0');
		digits++;
		if (!dot) {
			if (whole > RECORD_SECONDS_MAX)
				over = true; /* stop before it could overflow */
			else
				whole = whole * 10 + d;
		} else {
			frac_nonzero |= d != 0;
			if (frac_digits < 9) {
				ns = ns * 10 + d;
				frac_digits++;
			}
		}
	}
	if (digits == 0 || over || whole > RECORD_SECONDS_MAX || (whole == RECORD_SECONDS_MAX && frac_nonzero))
		return false;
	for (; frac_digits < 9; frac_digits++)
		ns *= 10;
	*v = (double)whole + ns / 1e9;
	return true;
}

bool record_parse_uint(const char *s, uintmax_t max, uintmax_t *v)
{
	uintmax_t n = 0;
	if (*s == '\0')
		return false;
	for (const char *p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return false;
		unsigned d = (unsigned)(*p - '0');
		if (d > max || n > (max - d) / 10)
			return false; /* n * 10 + d > max */
		n = n * 10 + d;
	}
	*v = n;
	return true;
}
