/* pyframe.c: a Python frame's file and line (see pyframe.h). */
#include "src/pyframe.h"

#include <ctype.h>
#include <string.h>

bool pyframe_parse(const char *frame, char *file, size_t n, int *line)
{
	if (frame[0] == '<')
		return false;
	/* the first "(DIGITS):" or "(DIGITS)" at the end: paths rarely hold one */
	for (const char *p = strchr(frame, '('); p != NULL; p = strchr(p + 1, '(')) {
		const char *q = p + 1;
		long v = 0;
		while (isdigit((unsigned char)*q) && v < 100000000)
			v = v * 10 + (*q++ - '0');
		if (q == p + 1 || *q != ')' || (q[1] != ':' && q[1] != '\0') || p == frame)
			continue;
		if (file != NULL) {
			if ((size_t)(p - frame) >= n)
				return false;
			memcpy(file, frame, (size_t)(p - frame));
			file[p - frame] = '\0';
		}
		if (line != NULL)
			*line = (int)v;
		return true;
	}
	return false;
}
