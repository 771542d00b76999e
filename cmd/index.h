/* index.h: `ttrace index FILE|DIR...`: builds the binary caches of trace files
 * (parsers/cache_dir.h) without opening a screen, so that later opens and reports map them
 * instead of parsing; under Slurm each task takes its share of the files. */
#ifndef TT_CMD_INDEX_H
#define TT_CMD_INDEX_H

/* Runs the subcommand on ARGV[0..argc), where ARGV[0] is "index". Prints one line per
 * file (built, up to date, or why not). Returns 0 when every file's cache is there, 1 when
 * a file could not be loaded or its cache not written, 2 on a usage error. */
int index_main(int argc, char **argv);

#endif
