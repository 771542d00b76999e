/* scan_file.h: one scan of a trace file through a scanner sink (parsers/chrome_scan.h), for
 * the commands that copy events from their inputs (crop, merge): the open, the scan, the
 * close, and what a failure or a truncated input says. */
#ifndef TT_CMD_SCAN_FILE_H
#define TT_CMD_SCAN_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "parsers/chrome_scan.h"

/* How scan_file opens its file. */
enum scan_file_open {
	SCAN_FILE_ANY,   /* as it is: a file, a pipe or a device */
	SCAN_FILE_FIRST, /* a file to be read again: its device and inode are kept */
	SCAN_FILE_AGAIN, /* the file kept by SCAN_FILE_FIRST, reopened: not another one */
};

/* Scans PATH through SINK, opened as HOW says (the file's *DEV and *INO set by
 * SCAN_FILE_FIRST, checked by SCAN_FILE_AGAIN; DEV and INO may be NULL for SCAN_FILE_ANY);
 * *EVENTS (may be NULL): the events scanned. Returns true when the scan reached the end or
 * a truncated input's cut, *TRUNCATED (may be NULL: not said) then the cut's description
 * (allocated) or NULL; false with *CAUSE (allocated) when the file could not be opened or
 * read, or, for SCAN_FILE_FIRST, is not a file (the message then says that COMMAND reads
 * its input twice). */
bool scan_file(const char *path, enum scan_file_open how, const char *command, uint64_t *dev, uint64_t *ino,
               const struct scan_sink *sink, uint64_t *events, char **truncated, char **cause);

#endif
