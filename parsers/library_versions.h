/* library_versions.h: the versions of the libraries the parsers link (cJSON, zstd, zlib),
 * as they say them at run time, for --version. */
#ifndef TT_LIBRARY_VERSIONS_H
#define TT_LIBRARY_VERSIONS_H

#include <stddef.h>

/* "zstd 1.5.4, zlib 1.2.13, cJSON 1.7.15" into BUF (N bytes). */
void parser_library_versions(char *buf, size_t n);

#endif
