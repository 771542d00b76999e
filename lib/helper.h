/* helper.h: one helper thread that runs the tasks handed to it, one at a time, for the
 * stages of a load that split their work in two (a file's second part, the merge of the
 * parts, the index: parsers/load_job.c, src/index.c). Between tasks it spins a while
 * before it sleeps, and a task handed over is waited for the same way: on the virtual
 * machines this project measures on, a thread made for a stage waited 2-3 ms for the idle
 * core about every other time, as long as some stages took (bench/RESULTS.md, "Issue 33 on
 * a new machine", "The index's helper thread"). */
#ifndef TT_HELPER_H
#define TT_HELPER_H

#include <stdbool.h>

struct helper;

/* Starts a helper thread; NULL when none can be made (the caller then does the work). */
struct helper *helper_start(void);
/* Hands FN(ARG) to H (which must be idle: helper_wait first). */
void helper_run(struct helper *h, void (*fn)(void *), void *arg);
/* Waits until H's task is done. */
void helper_wait(struct helper *h);
/* Waits for H's task, ends the thread and frees H (NULL: nothing). */
void helper_stop(struct helper *h);

#endif
