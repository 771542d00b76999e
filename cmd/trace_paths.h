/* trace_paths.h: which files the command line names: a directory stands for the trace
 * files it holds, in the order of their rank numbers. */
#ifndef TT_TRACE_PATHS_H
#define TT_TRACE_PATHS_H

/* Expands directories among PATHS[0..n) into the .json, .json.gz and .json.zst files they
 * hold, sorted by name with runs of digits compared as numbers (rank2 before rank10); other
 * arguments are kept as they are; a directory without trace files is warned about on
 * stderr. Returns an allocated array of *NOUT allocated paths. */
char **trace_paths_expand(char **paths, int n, int *nout);

#endif
