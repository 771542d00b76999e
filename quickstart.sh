#!/bin/sh
# quickstart.sh [run|check|static]: installs what a Debian/Ubuntu machine lacks, builds
# ttrace, then opens the bundled example trace (run, the default), runs the whole test suite
# (check), or links static/ttrace-x86_64, one file to copy to a node without root (static:
# see build_static below). Needs root or sudo for the install steps only.
set -e
cd "$(dirname "$0")"
need="autoconf automake make gcc pkg-config libncurses-dev libcjson-dev libzstd-dev zlib1g-dev gzip zstd tmux python3"
# a static build also needs dpkg-source, for cJSON's source package (Debian ships no
# static cJSON library)
[ "${1:-run}" != static ] || need="$need dpkg-dev"
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
# missing_of PACKAGES: those of them not installed, each after a space
missing_of() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || printf ' %s' "$p"
	done
}
missing=$(missing_of $need)
if [ -n "$missing" ]; then
	echo "quickstart: installing$missing"
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure -q
jobs=$(nproc 2>/dev/null || echo 2)
# at most 8 at once: the end-to-end tests poll a terminal with time limits, and dozens of
# them at once on a big machine only make each slower
[ "$jobs" -le 8 ] || jobs=8
make -s -j"$jobs"

# What is to copy lies in static/, what builds it in static/work/.
# The static binaries: static/ttrace-x86_64 (or the machine's own architecture) from the
# objects make built, and static/ttrace-aarch64 cross-compiled from a copy of the sources
# (Debian's cross compiler and arm64 multiarch packages, installed here), each linked with
# -static against Debian's static ncurses, zstd and zlib libraries and cJSON compiled from
# Debian's source package (deb-src entries are added when the machine has none); main.c
# compiled again to say so in --version. Each with its SHA-256 sum beside it. ISO C
# (-std=c11) keeps floating point uncontracted on both, so both print the same reports.
# ncurses is built from Debian's source package (static/work/ncurses-ARCH), not linked from
# libncurses-dev's static library: that one has no built-in terminal descriptions, and a
# node's terminfo may lack the terminal the user runs (tmux on RHEL 8) or be somewhere else.
# Ours looks where the machine keeps its own first (TERMINFO, ~/.terminfo, TERMINFO_DIRS,
# then the directories in TERMINFO_DIRS_BUILTIN below) and falls back to the descriptions
# in FALLBACK_TERMS, compiled in from ncurses' terminfo.src.
cjson_source() {
	if ! ls static/work/src/cjson-*/cJSON.c >/dev/null 2>&1; then
		mkdir -p static/work/src
		if ! apt-get source --print-uris cjson >/dev/null 2>&1; then
			echo "quickstart: adding deb-src entries for Debian's source packages"
			printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
				"$(. /etc/os-release && echo "$VERSION_CODENAME")" | as_root tee /etc/apt/sources.list.d/ttrace-deb-src.sources >/dev/null
			as_root apt-get update -qq
		fi
		(cd static/work/src && apt-get source -qq --download-only cjson >/dev/null 2>&1 &&
			dpkg-source -q --no-check -x cjson_*.dsc >/dev/null 2>&1) || {
			echo "quickstart: cannot get cJSON's source package (apt-get source cjson)" >&2
			exit 1
		}
	fi
	src=$(ls -d static/work/src/cjson-*/ | head -n 1)
	mkdir -p static/work/inc/cjson
	cp "$src/cJSON.h" static/work/inc/cjson/
}

FALLBACK_TERMS="xterm-256color,xterm,screen,screen-256color,tmux,tmux-256color,linux,vt100"
TERMINFO_DIRS_BUILTIN="/etc/terminfo:/lib/terminfo:/usr/share/terminfo:/usr/lib/terminfo"

ncurses_source() {
	if ! ls static/work/src/ncurses-*/ncurses/tinfo/MKfallback.sh >/dev/null 2>&1; then
		(cd static/work/src && apt-get source -qq --download-only ncurses >/dev/null 2>&1 &&
			dpkg-source -q --no-check -x ncurses_*.dsc >/dev/null 2>&1) || {
			echo "quickstart: cannot get ncurses' source package (apt-get source ncurses)" >&2
			exit 1
		}
	fi
	ncsrc=$(cd static/work/src && ls -d "$PWD"/ncurses-*/ | head -n 1)
}

# build_ncurses TRIPLET: static/work/ncurses-ARCH/lib/libncursesw.a and its headers, the wide
# library alone (no programs, no database to install), with the fallbacks; built once
build_ncurses() {
	triplet=$1 short=${1%%-*}
	nc=$PWD/static/work/ncurses-$short
	[ -f "$nc/lib/libncursesw.a" ] && [ -f "$nc/include/curses.h" ] && return 0
	rm -rf "$nc" && mkdir -p "$nc/build" "$nc/include"
	cross=""
	[ "$triplet" = "$(gcc -dumpmachine)" ] || cross="--host=$triplet --with-build-cc=gcc"
	(cd "$nc/build" && "$ncsrc/configure" -q $cross CC="$cc" CFLAGS="-O2" --without-shared --with-normal \
		--without-debug --without-profile --without-ada --without-cxx --without-cxx-binding \
		--without-progs --without-tests --without-manpages --disable-pc-files --enable-widec \
		--disable-db-install --disable-termcap --enable-const --disable-root-environ \
		--with-xterm-kbs=del --with-default-terminfo-dir=/usr/share/terminfo \
		--with-terminfo-dirs="$TERMINFO_DIRS_BUILTIN" --with-fallbacks="$FALLBACK_TERMS" &&
		make -s -j"$jobs" -C include && make -s -j"$jobs" -C ncurses) >"$nc/build.log" 2>&1 || {
		echo "quickstart: building ncurses for $short failed ($nc/build.log):" >&2
		tail -20 "$nc/build.log" >&2
		exit 1
	}
	mkdir -p "$nc/lib"
	cp "$nc/build/lib/libncursesw.a" "$nc/lib/"
	for h in curses.h ncurses_dll.h term.h unctrl.h termcap.h; do cp "$nc/build/include/$h" "$nc/include/"; done
	cp "$nc/include/curses.h" "$nc/include/ncurses.h"
	rm -rf "$nc/build"
}

# link_static CC TRIPLET BUILDDIR LIBDIR: static/ttrace-ARCH from BUILDDIR's objects
link_static() {
	cc=$1 triplet=$2 dir=$3 libdir=$4
	short=${triplet%%-*}
	build_ncurses "$triplet"
	$cc -O2 -std=c11 -c "$src/cJSON.c" -o "static/work/cJSON-$short.o"
	$cc -O2 -std=c11 -pthread -D_GNU_SOURCE -I"$dir" -I. -Istatic/work/inc -DTTRACE_STATIC_TARGET="\"$triplet\"" \
		-DTTRACE_STATIC_TERMINFO="\"$TERMINFO_DIRS_BUILTIN\"" -DTTRACE_STATIC_FALLBACKS="\"$FALLBACK_TERMS\"" \
		-c ui/main.c -o "static/work/main-$short.o"
	# ui/tty.c, the one file that includes curses.h, against the headers of the ncurses linked
	$cc -O2 -std=c11 -D_GNU_SOURCE -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=600 -Wall -Wextra \
		-DTTRACE_STATIC_FALLBACKS="\"$FALLBACK_TERMS\"" -I"$dir" -I. -I"$nc/include" -c ui/tty.c -o "static/work/tty-$short.o"
	# cmd/record.c: `ttrace record` finds the recorder library built for it beside it
	rec=""
	[ ! -f "static/libttrace-record-$short.so" ] || rec="-DTTRACE_STATIC_RECORDER=\"libttrace-record-$short.so\""
	$cc -O2 -std=c11 -pthread -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -I"$dir" -I. $rec \
		-DPKGLIBDIR="\"/usr/local/lib/ttrace\"" -c cmd/record.c -o "static/work/record-$short.o"
	$cc -static -s -pthread -o "static/ttrace-$short" "static/work/main-$short.o" "static/work/tty-$short.o" "static/work/record-$short.o" \
		"$dir/libttrace.a" "static/work/cJSON-$short.o" "$nc/lib/libncursesw.a" ${libdir:+-L"$libdir"} -lzstd -lz -lm
	(cd static && sha256sum "ttrace-$short" >"ttrace-$short.sha256")
	echo "quickstart: static/ttrace-$short ($(wc -c <"static/ttrace-$short") bytes; its SHA-256 in static/ttrace-$short.sha256)"
}

# build_recorder CC TRIPLET DIR LIBDIR: static/libttrace-record-ARCH.so, the recorder
# (record/) for GPU nodes: a shared library, since CUDA loads it into the program it
# records, linking nothing dynamically but glibc (zstd linked in), bound to glibc's oldest
# symbol versions (record/glibc_floor.h), and finding libcupti at run time. CUPTI's headers
# are the ones configure found here: cupti.h is the same text for both architectures.
build_recorder() {
	cc=$1 triplet=$2 dir=$3 libdir=$4
	short=${triplet%%-*}
	cupti_cflags=$(sed -n 's/^CUPTI_CFLAGS = //p' Makefile)
	if [ -z "$cupti_cflags" ]; then
		echo "quickstart: configure found no CUPTI here: no static/libttrace-record-$short.so (ttrace record needs it)"
		return 0
	fi
	# cross: CUPTI's directory searched after the target's own headers (it may be /usr/include)
	[ "$cc" = gcc ] || cupti_cflags=$(echo "$cupti_cflags" | sed 's/-I/-idirafter /g')
	$cc -O2 -std=c11 -fPIC -fvisibility=hidden -pthread -D_GNU_SOURCE -DTTRACE_PORTABLE_RECORDER -Wall -Wextra -Wno-unused-parameter \
		-include record/glibc_floor.h -I"$dir" -I. $cupti_cflags -shared -s -Wl,-soname,libttrace-record.so \
		-Wl,-z,defs -Wl,--exclude-libs,ALL -o "static/libttrace-record-$short.so" \
		record/inject.c record/trace_writer.c record/buf.c record/map64.c record/out.c record/occupancy.c \
		record/settings.c lib/escape.c lib/xalloc.c "$libdir/libzstd.a" -Wl,--no-as-needed -l:libpthread.so.0 -l:libdl.so.2
	(cd static && sha256sum "libttrace-record-$short.so" >"libttrace-record-$short.so.sha256")
	echo "quickstart: static/libttrace-record-$short.so ($(wc -c <"static/libttrace-record-$short.so") bytes; needs glibc $(objdump -T "static/libttrace-record-$short.so" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -n 1 | cut -d_ -f2) or later)"
}

build_static() {
	cjson_source
	ncurses_source
	build_recorder gcc "$(gcc -dumpmachine)" . "/usr/lib/$(gcc -dumpmachine)"
	link_static gcc "$(gcc -dumpmachine)" . ""
	[ "$(uname -m)" = x86_64 ] || return 0
	# aarch64 (Grace nodes): Debian's cross compiler and the arm64 libraries
	pkgs="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libncurses-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64 libcjson-dev:arm64 qemu-user-static libstdc++6:arm64"
	# (qemu and libstdc++6:arm64 for tests/static.sh: the recorder demangles through libstdc++)
	missing=$(missing_of $pkgs)
	if [ -n "$missing" ]; then
		echo "quickstart: installing$missing"
		dpkg --print-foreign-architectures | grep -qx arm64 || as_root dpkg --add-architecture arm64
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
	# a copy of the sources, configured for aarch64 (the tree itself is configured for this
	# machine); copied again each time, so that make rebuilds what changed
	b=static/work/build-aarch64
	mkdir -p "$b"
	if [ -d .git ]; then
		git ls-files -z | tar --null -T - -cf - | tar -C "$b" -xf -
	else
		tar --exclude=./static --exclude='*.o' --exclude='*.a' --exclude=./Makefile --exclude=./config.h \
			--exclude=./config.status -cf - . | tar -C "$b" -xf -
	fi
	(cd "$b" && { [ -f Makefile ] || { autoreconf -fi && PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		./configure -q --host=aarch64-linux-gnu; }; } && make -s -j"$jobs" ttrace) >static/work/build-aarch64.log 2>&1 || {
		echo "quickstart: the aarch64 cross build failed (static/work/build-aarch64.log):" >&2
		tail -20 static/work/build-aarch64.log >&2
		exit 1
	}
	build_recorder aarch64-linux-gnu-gcc aarch64-linux-gnu "$b" /usr/lib/aarch64-linux-gnu
	link_static aarch64-linux-gnu-gcc aarch64-linux-gnu "$b" /usr/lib/aarch64-linux-gnu
}

case "${1:-run}" in
run) exec ./ttrace examples/dlrm-rank0-v100-nccl.pt.trace.json.gz ;;
check) make -s -j"$jobs" check ;;
static) build_static ;;
*) echo "usage: $0 [run|check|static]" >&2; exit 2 ;;
esac
