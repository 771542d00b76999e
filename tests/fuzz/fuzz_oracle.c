/* fuzz_oracle.c: picks the inputs that get a fuzz target's full oracle (fuzz_oracle.h). */
#include <stdlib.h>

#include "tests/fuzz/fuzz_oracle.h"

static unsigned default_every = FUZZ_ORACLE_EVERY_DEFAULT;

void fuzz_oracle_set_default(unsigned every) { default_every = every; }

static unsigned oracle_every(void)
{
	static unsigned every; /* read once: 0 until then */
	if (every == 0) {
		const char *e = getenv("FUZZ_ORACLE_EVERY");
		unsigned long n = e != NULL && e[0] != '\0' ? strtoul(e, NULL, 10) : default_every;
		every = n >= 1 && n <= 1u << 30 ? (unsigned)n : 1;
	}
	return every;
}

bool fuzz_oracle_sampled(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
	unsigned every = oracle_every();

	if (every == 1)
		return true;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3u;
	return h % every == 0;
}
