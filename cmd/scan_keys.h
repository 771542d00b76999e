/* scan_keys.h: 64-bit keys for what a scanned event names (parsers/chrome_scan.h): a pid
 * or tid (number or string), a string; for the maps of the crop and merge commands. */
#ifndef TT_CMD_SCAN_KEYS_H
#define TT_CMD_SCAN_KEYS_H

#include <stdint.h>

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

#endif
