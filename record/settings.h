/* settings.h: the grammar of the recorder's numeric settings, one for `ttrace record`'s
 * options (cmd/record.c) and for the environment the recorder reads (record/inject.c),
 * so that a value the command accepts is one the recorder honours, and the other way
 * round. No locale, no sign, no spaces, no exponent, nothing after the number. */
#ifndef TTRACE_RECORD_SETTINGS_H
#define TTRACE_RECORD_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

/* The longest delay or duration: 365 days. The recorder's clock (CLOCK_MONOTONIC seconds
 * in a double) holds far more; this is the limit said and checked. */
#define RECORD_SECONDS_MAX 31536000u
#define RECORD_SECONDS_MAX_TEXT "31536000 (365 days)"

/* Parses S as decimal seconds: digits with at most one '.', at least one digit ("2",
 * "0.5", "10.", ".5"), at most RECORD_SECONDS_MAX (compared exactly, digit by digit; digits
 * past nanoseconds count for that and no more). True with *V, or false. */
bool record_parse_seconds(const char *s, double *v);

/* Parses S as a decimal integer, digits only, at most MAX. True with *V, or false. */
bool record_parse_uint(const char *s, uintmax_t max, uintmax_t *v);

#endif
