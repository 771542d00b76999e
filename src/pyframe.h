/* pyframe.h: a Python frame as Kineto names its python_function slices, "train.py(45):
 * step" or "/home/u/proj/model.py(40): forward"; built-ins ("<built-in method bmm of
 * ...>") and frozen modules ("<frozen importlib._bootstrap>(1050): _gcd_import") have no
 * file of their own. */
#ifndef TT_PYFRAME_H
#define TT_PYFRAME_H

#include <stdbool.h>
#include <stddef.h>

/* Whether FRAME names a file and a line ("FILE(LINE): NAME", or "FILE(LINE)" at its end,
 * FILE not starting with '<'); the file into FILE (N bytes; FILE may be NULL when only the
 * answer is wanted) and the line into *LINE (may be NULL). False too when FILE is too
 * short for the path. */
bool pyframe_parse(const char *frame, char *file, size_t n, int *line);

#endif
