/* fuzz_oracle.h: which inputs get a fuzz target's full (slow) oracle. Under libFuzzer the
 * cheap checks run on every input and the full oracle on a sample, so that the fuzzer
 * runs many times faster; the replay of the saved corpus (replay_main.c) runs the full
 * oracle on every input. FUZZ_ORACLE_EVERY=N in the environment picks one input in N (by
 * a hash of its bytes, so a given input always gets the same checks); 1 is every input. */
#ifndef TT_FUZZ_ORACLE_H
#define TT_FUZZ_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One input in this many gets the full oracle under libFuzzer, unless FUZZ_ORACLE_EVERY
 * says otherwise. */
#define FUZZ_ORACLE_EVERY_DEFAULT 16

/* Sets the sample rate used when FUZZ_ORACLE_EVERY is unset (the replay sets 1). */
void fuzz_oracle_set_default(unsigned every);

/* Whether the input DATA of SIZE bytes gets the full oracle. */
bool fuzz_oracle_sampled(const uint8_t *data, size_t size);

#endif
