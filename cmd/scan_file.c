/* scan_file.c: one scan of a trace file through a scanner sink (see scan_file.h), shared
 * by the crop and merge commands. */
#include "cmd/scan_file.h"

#include <stdlib.h>

#include "lib/xalloc.h"
#include "parsers/input.h"

bool scan_file(const char *path, enum scan_file_open how, const char *command, uint64_t *dev, uint64_t *ino,
               const struct scan_sink *sink, uint64_t *events, char **truncated, char **cause)
{
	if (truncated != NULL)
		*truncated = NULL;
	struct input *in = how == SCAN_FILE_AGAIN ? input_reopen(path, *dev, *ino, cause) : input_open(path, cause);
	if (in == NULL)
		return false;
	if (how == SCAN_FILE_FIRST && !input_file_id(in, dev, ino)) {
		*cause = xasprintf("%s: %s reads its input twice: give a file, not a pipe or a device", path, command);
		input_close(in);
		return false;
	}
	struct scan_stats st;
	char *why = NULL;
	enum scan_result r = scan_run(in, sink, &st, &why);
	input_close(in);
	if (events != NULL)
		*events = st.events;
	if (r == SCAN_OK || r == SCAN_TRUNCATED) {
		if (r == SCAN_TRUNCATED && truncated != NULL)
			*truncated = why;
		else
			free(why);
		return true;
	}
	*cause = why != NULL ? why : xasprintf("cannot read %s", path);
	return false;
}
