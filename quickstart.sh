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
missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	echo "quickstart: installing$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure -q
jobs=$(nproc 2>/dev/null || echo 2)
# at most 8 at once: the end-to-end tests poll a terminal with time limits, and dozens of
# them at once on a big machine only make each slower
[ "$jobs" -le 8 ] || jobs=8
make -s -j"$jobs"

# The static binary: the objects make built, linked with -static against Debian's static
# ncurses, zstd and zlib libraries and cJSON compiled from Debian's source package (deb-src
# entries are added when the machine has none); main.c compiled again to say so in
# --version. Writes static/ttrace-ARCH and its SHA-256 sum beside it.
build_static() {
	arch=$(gcc -dumpmachine)
	short=${arch%%-*}
	mkdir -p static/src
	if ! ls static/src/cjson-*/cJSON.c >/dev/null 2>&1; then
		if ! apt-get source --print-uris cjson >/dev/null 2>&1; then
			SUDO=""
			[ "$(id -u)" -eq 0 ] || SUDO=sudo
			echo "quickstart: adding deb-src entries for Debian's source packages"
			printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
				"$(. /etc/os-release && echo "$VERSION_CODENAME")" | $SUDO tee /etc/apt/sources.list.d/ttrace-deb-src.sources >/dev/null
			$SUDO apt-get update -qq
		fi
		(cd static/src && apt-get source -qq --download-only cjson >/dev/null 2>&1 &&
			dpkg-source -q --no-check -x cjson_*.dsc >/dev/null 2>&1) || {
			echo "quickstart: cannot get cJSON's source package (apt-get source cjson)" >&2
			exit 1
		}
	fi
	src=$(ls -d static/src/cjson-*/ | head -n 1)
	mkdir -p static/inc/cjson
	cp "$src/cJSON.h" static/inc/cjson/
	gcc -O2 -std=c11 -ffp-contract=off -c "$src/cJSON.c" -o static/cJSON.o
	gcc -O2 -std=c11 -pthread -D_GNU_SOURCE -I. -Istatic/inc -DTTRACE_STATIC_TARGET="\"$arch\"" \
		-c ui/main.c -o static/main.o
	gcc -static -s -pthread -o "static/ttrace-$short" static/main.o ui/tty.o cmd/record.o libttrace.a static/cJSON.o \
		-lzstd -lz -lncursesw -ltinfo -lm
	(cd static && sha256sum "ttrace-$short" >"ttrace-$short.sha256")
	echo "quickstart: static/ttrace-$short ($(wc -c <"static/ttrace-$short") bytes; its SHA-256 in static/ttrace-$short.sha256)"
}

case "${1:-run}" in
run) exec ./ttrace examples/dlrm-rank0-v100-nccl.pt.trace.json.gz ;;
check) make -s -j"$jobs" check ;;
static) build_static ;;
*) echo "usage: $0 [run|check|static]" >&2; exit 2 ;;
esac
