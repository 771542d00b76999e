/* scan_keys.h: 64-bit keys for what a scanned event names (parsers/chrome_scan.h): a pid
 * or tid (number or string), a string, a counter series; for the maps of the crop and merge
 * commands and the loader's map of where the events lie (src/event_blocks.h). */
#ifndef TT_SCAN_KEYS_H
#define TT_SCAN_KEYS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "parsers/chrome_scan.h"

static inline uint64_t key_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static inline uint64_t key_bytes(const char *p, uint32_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static inline uint64_t key_id(uint64_t h, const struct scan_id *id)
{
	if (!id->present)
		return key_mix(h, 1);
	return id->is_str ? key_mix(key_mix(h, 2), key_bytes(id->str.p, id->str.len))
	                  : key_mix(key_mix(h, 3), (uint64_t)id->num);
}

/* map64 keys may be anything but what marks an empty slot: never 0 */
static inline uint64_t key_nonzero(uint64_t k) { return k ? k : 1; }

/* Whether EV is a sample of a series whose last value before a window crop keeps: a counter
 * (C) event, its series its name, pid and id; or a [memory] instant, its series its pid and
 * device. Sets *KEY to the series' key (never 0) when it is. */
static inline bool key_series(const struct scan_event *ev, uint64_t *key)
{
	if (ev->ph == 'C') {
		uint64_t k = key_id(key_mix(0x43, key_bytes(ev->name.p, ev->name.len)), &ev->pid);
		*key = key_nonzero(ev->has_id ? key_mix(k, ev->id) : k);
		return true;
	}
	if ((ev->ph == 'i' || ev->ph == 'I') && ev->name.len == 8 && memcmp(ev->name.p, "[memory]", 8) == 0) {
		*key = key_nonzero(
			key_mix(key_mix(key_id(0x4d, &ev->pid), (uint64_t)ev->device_type), (uint64_t)ev->device_id));
		return true;
	}
	return false;
}

#endif
