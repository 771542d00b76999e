/* fake_cupti.h: the test program's handles on the stand-in CUPTI (fake_cupti.c). */
#ifndef TTRACE_TESTS_FAKE_CUPTI_H
#define TTRACE_TESTS_FAKE_CUPTI_H

#include <stddef.h>
#include <stdint.h>

void fake_cupti_context(uint32_t ctx, int created);
void fake_cupti_add(const void *record, size_t size);
void fake_cupti_complete(void);
void fake_cupti_drop(size_t n);
void fake_cupti_set_clock(uint64_t ns);
const char *fake_cupti_log(void);

#endif
