/* scan_event.h: the Chrome trace scanner's parser of one trace event, and the resync after
 * a malformed one (parsers/scan_window.h has the rules of the window it parses in). */
#ifndef TT_SCAN_EVENT_H
#define TT_SCAN_EVENT_H

#include "parsers/scan_window.h"

/* Parses the event object at *pp ('{') into EV; on ST_OK *pp is past its '}'. EV's strings
 * point into the window or the scanner's scratch (reset here), valid until the next call. */
enum scan_step scan_parse_event(struct scanner *s, const char **pp, struct scan_event *ev);

/* After a malformed event starting at FROM, finds the next "}, {" boundary and returns a
 * pointer to its '{', or the ']' closing the array ("} ]"), or NULL when the window ends
 * first (the caller refills and retries from *scan_point). */
const char *scan_resync(struct scanner *s, const char *from, const char **scan_point);

#endif
