/* library_versions.c: the parsers' libraries' versions (see library_versions.h). */
#include "parsers/library_versions.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <zlib.h>
#include <zstd.h>

void parser_library_versions(char *buf, size_t n)
{
	snprintf(buf, n, "zstd %s, zlib %s, cJSON %s", ZSTD_versionString(), zlibVersion(), cJSON_Version());
}
