/* record.h: `ttrace record`: runs a command with the CUPTI recorder (record/) injected,
 * then says which trace files its processes wrote, with a one-line summary of each. */
#ifndef TT_CMD_RECORD_H
#define TT_CMD_RECORD_H

#include <stdio.h>

/* Runs the subcommand on ARGV[0..argc), where ARGV[0] is "record" (main passes its own
 * argv from the subcommand's name on). Returns the exit status: the recorded command's
 * (128+N when signal N killed it), 126 or 127 when it cannot be run, 2 on a usage error or
 * when this build has no recorder (it then says how to get one). */
int record_main(int argc, char **argv);

/* Writes to F one line, "recorder: ...": the recorder library `ttrace record` would inject
 * (escaped), or why there is none (a build without CUPTI, or where it looked). For
 * --version. */
void record_say_library(FILE *f);

#endif
