/* map_guard.h: surviving a mapped file that is cut while it is mapped.
 *
 * Reading a page of a file mapping past the file's end raises SIGBUS: a binary cache
 * (src/cache.h) cut by someone while ttrace has it mapped would kill ttrace at its next
 * look at the cut part. The guard keeps a table of such mappings and a SIGBUS handler:
 * on a fault inside one, the whole mapping is replaced by zero-filled anonymous memory
 * (nothing is copied beforehand; one fault says the file is no longer what was mapped,
 * wherever the cut is), the mapping is marked lost
 * and map_guard_generation() moves; then, when the faulting thread armed the guard
 * (map_guard_arm), it jumps back to where it armed it; else the process's last word
 * (map_guard_on_lost) is said, if any; else the read goes on over zeros and the owner is
 * expected to check map_guard_lost before trusting what it read. A fault
 * anywhere else goes to the handler installed before (map_guard_install's FALLBACK), or
 * to the default action. A jump abandons what the code it leaves had allocated and not
 * yet freed (for the timeline: one frame's temporaries, once per cut cache). */
#ifndef TT_MAP_GUARD_H
#define TT_MAP_GUARD_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

/* Installs the SIGBUS handler (once; later calls only change FALLBACK): FALLBACK, or the
 * default action when NULL, handles the faults that are not in a guarded mapping. */
void map_guard_install(void (*fallback)(int));
/* Guards the mapping [BASE, BASE + LEN) (installing the handler if need be). Returns 0, or
 * -1 when the table is full (the mapping is then not guarded). */
int map_guard_add(void *base, size_t len);
/* Stops guarding the mapping at BASE (before it is unmapped). */
void map_guard_remove(const void *base);
/* True when a fault was seen in the mapping at BASE: its tail now reads as zeros. */
bool map_guard_lost(const void *base);
/* A count that moves at every fault handled in a guarded mapping. */
unsigned map_guard_generation(void);
/* The calling thread jumps to ENV (set by sigsetjmp(ENV, 1)) on a fault in a guarded
 * mapping, until map_guard_disarm. */
void map_guard_arm(sigjmp_buf *env);
void map_guard_disarm(void);
/* On a fault in a guarded mapping, a thread that has not armed the guard calls FN (from
 * the signal handler: async-signal-safe, and it must not return: _exit), when FN is not
 * NULL. For the reports, which cannot go on over a cut cache. */
void map_guard_on_lost(void (*fn)(void));

#endif
