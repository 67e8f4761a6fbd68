#!/usr/bin/env bash
# Build bench/ns3/dumbbell.cc against the system ns-3 (Debian's libns3-dev,
# ns-3 3.37) into bench/ns3/build/dumbbell.
#
# Idempotent: does nothing if the binary is newer than dumbbell.cc and this
# script.  Set FORCE=1 to rebuild anyway; CXX / CXXFLAGS may be overridden.
#
# Why no pkg-config: Debian 12's ns3-*.pc files exist but are unusable as is --
# their Cflags contain a stray "-I/usr\;" and a python include dir, and their
# Libs pull in /usr/lib/x86_64-linux-gnu/libgsl.so, which only libgsl-dev
# ships.  The ns-3 libraries are therefore named explicitly.  --no-as-needed
# keeps every listed library loaded even if no symbol is referenced directly,
# because ns-3 registers its TypeIds (e.g. ns3::TcpBbr) from library
# constructors and a TypeId lookup by name fails if the library was dropped.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/dumbbell.cc"
out_dir="$here/build"
out="$out_dir/dumbbell"

CXX="${CXX:-g++}"
CXXFLAGS="${CXXFLAGS:--O2 -std=c++17}"
NS3_LIBS="-lns3-applications -lns3-internet -lns3-point-to-point -lns3-traffic-control -lns3-network -lns3-bridge -lns3-stats -lns3-core"

if [[ ! -f /usr/include/ns3/core-module.h ]] || ! ls /usr/lib/*/libns3-core.so >/dev/null 2>&1; then
    echo "error: ns-3 development files not found (need /usr/include/ns3 and libns3-core.so)." >&2
    echo "       install them with: apt-get install libns3-dev" >&2
    exit 1
fi
if ! command -v "$CXX" >/dev/null 2>&1; then
    echo "error: C++ compiler '$CXX' not found (apt-get install g++)" >&2
    exit 1
fi

if [[ "${FORCE:-0}" != 1 && -x "$out" && "$out" -nt "$src" && "$out" -nt "${BASH_SOURCE[0]}" ]]; then
    echo "up to date: $out" >&2
    exit 0
fi

mkdir -p "$out_dir"
echo "compiling $src -> $out" >&2
# Compile to a temporary name so an interrupted build never leaves a stale binary
# that looks up to date.
# shellcheck disable=SC2086
"$CXX" $CXXFLAGS -I/usr/include "$src" -o "$out.tmp.$$" -Wl,--no-as-needed $NS3_LIBS
mv -f "$out.tmp.$$" "$out"
echo "built: $out" >&2
