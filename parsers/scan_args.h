/* scan_args.h: the args of an event that the Chrome trace scanner keeps (the SA_* fields of
 * struct scan_event, parsers/chrome_scan.h), read inside the scanner's window
 * (parsers/scan_window.h). */
#ifndef TT_SCAN_ARGS_H
#define TT_SCAN_ARGS_H

#include "parsers/scan_window.h"

/* Builds the table's lookup once per process; call before scan_parse_args (thread-safe). */
void scan_args_prepare(void);

/* Parses the args object at *pp ('{') of EV (its ph already read, when the event has one
 * before its args): the selected keys into their fields and SA_* bits, a counter event's
 * numbers into its counter values, and the object's place and text into args_offset,
 * args_len and args_text. On ST_OK *pp is past its '}'. */
enum scan_step scan_parse_args(struct scanner *s, const char **pp, struct scan_event *ev);

#endif
