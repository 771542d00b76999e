/* test_timefmt.c: durations, offsets and sizes as text. */
#include "lib/timefmt.h"
#include "tests/unit/tap.h"

int main(void)
{
	char b[64];
	int64_t ns;
	is_str(timefmt_dur(0, b, sizeof b), "0 ns", "zero");
	is_str(timefmt_dur(850, b, sizeof b), "850 ns", "ns");
	is_str(timefmt_dur(1500, b, sizeof b), "1.50 us", "us, 3 digits");
	is_str(timefmt_dur(12345, b, sizeof b), "12.3 us", "12.3 us");
	is_str(timefmt_dur(4567890, b, sizeof b), "4.57 ms", "ms");
	is_str(timefmt_dur(1234000000, b, sizeof b), "1.234 s", "s");
	is_str(timefmt_dur(123500000000, b, sizeof b), "2m03.5s", "minutes");
	is_str(timefmt_dur(-2500, b, sizeof b), "-2.50 us", "negative");
	/* one unit, milliseconds, however large: a column of them never mixes us and s */
	/* ruler ticks: timefmt_dur's form, with the decimals the step needs */
	is_str(timefmt_tick(16400000, 50000, b, sizeof b), "16.40 ms", "tick: 50 us steps at 16.4 ms need 2 decimals");
	is_str(timefmt_tick(16450000, 50000, b, sizeof b), "16.45 ms", "tick: the next one differs");
	is_str(timefmt_tick(15000000, 5000000, b, sizeof b), "15.0 ms", "tick: a coarse step reads as timefmt_dur");
	is_str(timefmt_tick(1502000, 2000, b, sizeof b), "1.502 ms", "tick: 2 us steps at 1.5 ms");
	is_str(timefmt_tick(250000, 10000, b, sizeof b), "250 us", "tick: no decimals needed");
	is_str(timefmt_tick(250010, 10, b, sizeof b), "250.01 us", "tick: 10 ns steps at 250 us");
	is_str(timefmt_tick(850, 50, b, sizeof b), "850 ns", "tick: nanoseconds as they are");
	is_str(timefmt_tick(1234500000, 500000, b, sizeof b), "1.2345 s", "tick: seconds, one more decimal");
	is_str(timefmt_tick(123500000000, 500000000, b, sizeof b), "2m03.5s", "tick: minutes as timefmt_dur");
	is_str(timefmt_tick(123550000000, 50000000, b, sizeof b), "2m03.55s", "tick: minutes, 50 ms steps");
	is_str(timefmt_tick(-16450000, 50000, b, sizeof b), "-16.45 ms", "tick: negative");
	is_str(timefmt_tick(1000000001, 1, b, sizeof b), "1.000000001 s", "tick: nanosecond steps in seconds");
	is_str(timefmt_tick(INT64_MIN, 1, b, sizeof b), "-153722867m16.854775808s", "tick: the int64 limit");
	is_str(timefmt_offset(1234000, b, sizeof b), "+1.234 ms", "offset below 1 s, whole microseconds");
	is_str(timefmt_offset(1089354000, b, sizeof b), "+1089.354 ms", "offset above 1 s: still ms");
	is_str(timefmt_offset(-12345678901, b, sizeof b), "-12345.678901 ms", "negative, with nanoseconds");
	is_str(timefmt_offset(250, b, sizeof b), "+0.000250 ms", "below a microsecond");
	is_str(timefmt_offset(0, b, sizeof b), "+0.000 ms", "zero");
	ok(timefmt_parse_dur("500us", &ns) == 0 && ns == 500000, "parse 500us");
	ok(timefmt_parse_dur("1.5ms", &ns) == 0 && ns == 1500000, "parse 1.5ms");
	ok(timefmt_parse_dur("2s", &ns) == 0 && ns == 2000000000, "parse 2s");
	ok(timefmt_parse_dur("30000", &ns) == 0 && ns == 30000, "bare number is ns");
	ok(timefmt_parse_dur("5 parsecs", &ns) < 0, "unknown unit rejected");
	ok(timefmt_parse_dur("-1ms", &ns) < 0, "negative rejected");
	is_str(timefmt_bytes(999, b, sizeof b), "999 B", "bytes");
	is_str(timefmt_bytes(9780000, b, sizeof b), "9.78 MB", "MB");
	is_str(timefmt_bytes(53700000, b, sizeof b), "53.7 MB", "53.7 MB");
	return done_testing();
}
