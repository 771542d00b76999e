#!/bin/sh
# quickstart.sh [run|check]: installs what a Debian/Ubuntu machine lacks, builds ttrace,
# then opens the bundled example trace (run, the default) or runs the whole test suite
# (check). Needs root or sudo for the install step only.
set -e
cd "$(dirname "$0")"
need="autoconf automake make gcc pkg-config libncurses-dev libcjson-dev libzstd-dev zlib1g-dev gzip zstd tmux python3"
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
case "${1:-run}" in
run) exec ./ttrace examples/dlrm-rank0-v100-nccl.pt.trace.json.gz ;;
check) make -s -j"$jobs" check ;;
*) echo "usage: $0 [run|check]" >&2; exit 2 ;;
esac
