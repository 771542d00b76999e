/* chrome_build.h: the Chrome trace-event rules, Kineto's quirks included: turns what the
 * scanner (parsers/chrome_scan.h) finds into calls on a model builder (src/builder.h).
 *
 * Use: chrome_build_init on a builder, chrome_build_sink for the scanner's sink (events
 * and header keys, in file order, from one thread), scan; then chrome_build_add_stats
 * with the scan's counts. The struct lives on the caller's side (a stack is fine) and
 * must not move between chrome_build_init and the end of the scan; it owns nothing. */
#ifndef TT_CHROME_BUILD_H
#define TT_CHROME_BUILD_H

#include "parsers/chrome_scan.h"
#include "src/builder.h"

struct chrome_build {
	struct builder *b;
	/* private: the track of the last (pid, tid), as the file wrote them; events come in
	 * runs on one thread, and comparing text is cheaper than interning it */
	uint32_t last_track;
	struct scan_id last_pid, last_tid;
	char last_pid_buf[64], last_tid_buf[64];
};

/* Prepares CB to feed builder B. */
void chrome_build_init(struct chrome_build *cb, struct builder *b);
/* Fills SINK's event and header callbacks (context CB); the others are left to the
 * caller. */
void chrome_build_sink(struct chrome_build *cb, struct scan_sink *sink);
/* Counts the scanner's oddities (ST) into B's quality counts. */
void chrome_build_add_stats(struct builder *b, const struct scan_stats *st);

#endif
