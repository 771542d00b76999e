/* glibc_floor.h: forced into every file of the portable recorder library that
 * `./quickstart.sh static` builds (gcc -include), so that the library binds to the oldest
 * glibc symbol versions that do the same job, not to the build machine's newest: glibc 2.32
 * to 2.34 moved pthread_* and dl* into libc.so.6 under new versions, and 2.33 turned
 * fstat/lstat into symbols of their own; the library is loaded into other programs on GPU
 * nodes whose glibc may be older than Debian 12's (RHEL 8: 2.28). With this header the
 * newest version it needs is GLIBC_2.17 (tests/static.sh reads it from the symbol table).
 * The old versions are in libc.so.6 beside the new ones, and in libpthread.so.0 and
 * libdl.so.2 on an older glibc: the library is linked with both (stubs on a newer one).
 * Not used by the normal build, whose library runs where it was built. */
#ifndef TTRACE_RECORD_GLIBC_FLOOR_H
#define TTRACE_RECORD_GLIBC_FLOOR_H

#include <sys/stat.h>

#if defined(__x86_64__)
#define TT_GLIBC_BASE "GLIBC_2.2.5"
#define TT_STAT_VER 1 /* _STAT_VER_LINUX */
#elif defined(__aarch64__)
#define TT_GLIBC_BASE "GLIBC_2.17"
#define TT_STAT_VER 0 /* the generic struct stat */
#else
#error "glibc_floor.h knows the base glibc version of x86_64 and aarch64 only"
#endif

#define TT_GLIBC_OLD(f) __asm__(".symver " #f ", " #f "@" TT_GLIBC_BASE)
TT_GLIBC_OLD(dlopen);
TT_GLIBC_OLD(dlsym);
TT_GLIBC_OLD(dlerror);
TT_GLIBC_OLD(pthread_create);
TT_GLIBC_OLD(pthread_join);
TT_GLIBC_OLD(pthread_once);
TT_GLIBC_OLD(pthread_sigmask);
TT_GLIBC_OLD(__fxstat);
TT_GLIBC_OLD(__lxstat);

/* fstat and lstat as glibc before 2.33 provided them: inline calls of __fxstat/__lxstat */
int __fxstat(int ver, int fd, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
static inline int tt_fstat(int fd, struct stat *st) { return __fxstat(TT_STAT_VER, fd, st); }
static inline int tt_lstat(const char *path, struct stat *st) { return __lxstat(TT_STAT_VER, path, st); }
#define fstat tt_fstat
#define lstat tt_lstat

#endif
