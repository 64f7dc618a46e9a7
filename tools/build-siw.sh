#!/bin/bash
# Build soft-iWARP (siw.ko) for a Debian kernel and print the module's path:
#
#   tools/build-siw.sh KREL        e.g. 6.12.117+deb12-amd64, 6.1.0-57-amd64
#
# Debian's kernels are built without CONFIG_RDMA_SIW, so the tests' second
# transport (tests/run.sh --siw) needs it built out of tree: the sources
# drivers/infiniband/sw/siw come from Debian's linux-source-<major.minor>
# package (/usr/src/linux-source-X.Y.tar.xz, same Debian patch level as the
# headers) and are compiled with "make -C /usr/src/linux-headers-KREL M=...".
#
# Cached in build/siw/KREL/siw.ko: nothing is rebuilt while the source
# tarball, the headers package and this script are unchanged (.stamp).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# = 1 ] || { echo "usage: $0 KREL" >&2; exit 2; }
KREL=$1
KDIR=/usr/src/linux-headers-$KREL
# 6.12.117+deb12-amd64 -> 6.12, 6.1.0-57-amd64 -> 6.1
MM=$(echo "$KREL" | cut -d. -f1-2)
TARBALL=/usr/src/linux-source-$MM.tar.xz
OUT=$TOP/build/siw/$KREL

[ -f "$KDIR/Makefile" ] || { echo "build-siw: no $KDIR (tools/install-deps.sh)" >&2; exit 1; }
[ -f "$TARBALL" ] || { echo "build-siw: no $TARBALL (apt-get install linux-source-$MM, see tools/install-deps.sh)" >&2; exit 1; }
# The source should be the headers' Debian version (both come from the same
# upload; tools/install-deps.sh installs the newest of each).
src_ver=$(dpkg-query -W -f='${Version}' "linux-source-$MM" 2>/dev/null || true)
hdr_ver=$(dpkg-query -W -f='${Version}' "linux-headers-$KREL" 2>/dev/null || true)
[ "$src_ver" = "$hdr_ver" ] ||
	echo "build-siw: warning: linux-source-$MM is ${src_ver:-?}, linux-headers-$KREL is ${hdr_ver:-?}" >&2

# Key: the source tarball, the headers package (its Module.symvers and
# .config change with every ABI) and this script.
key=$( {
	stat -c '%n %s %Y' "$TARBALL"
	cat "$KDIR/Module.symvers" "$KDIR/.config"
	cat "${BASH_SOURCE[0]}"
} | sha256sum | cut -c1-16)

mkdir -p "$OUT"
exec 8>"$OUT/.lock"
flock 8		# one build at a time per kernel
if [ -f "$OUT/siw.ko" ] && [ "$(cat "$OUT/.stamp" 2>/dev/null)" = "$key" ]; then
	echo "$OUT/siw.ko"
	exit 0
fi

rm -rf "$OUT/src" "$OUT/siw.ko" "$OUT/.stamp"
mkdir -p "$OUT/src"
echo "build-siw: building siw.ko for $KREL from $TARBALL" >&2
t0=$(date +%s)
tar -xJf "$TARBALL" -C "$OUT/src" --strip-components=5 \
	"linux-source-$MM/drivers/infiniband/sw/siw" ||
	{ echo "build-siw: no drivers/infiniband/sw/siw in $TARBALL" >&2; exit 1; }
[ -f "$OUT/src/siw_main.c" ] || { echo "build-siw: extraction failed" >&2; exit 1; }
# In-tree the module is enabled by CONFIG_RDMA_SIW; ib_core and libcrc32c
# (its dependencies) are modules of every Debian kernel.
make -C "$KDIR" M="$OUT/src" CONFIG_RDMA_SIW=m modules >"$OUT/build.log" 2>&1 ||
	{ tail -n 30 "$OUT/build.log" >&2; echo "build-siw: build failed, see $OUT/build.log" >&2; exit 1; }
# Every symbol must resolve against this kernel (modpost only warns).
if grep -q 'undefined!' "$OUT/build.log"; then
	grep 'undefined!' "$OUT/build.log" >&2
	echo "build-siw: unresolved symbols, see $OUT/build.log" >&2
	exit 1
fi
[ "$(modinfo -F vermagic "$OUT/src/siw.ko" | cut -d' ' -f1)" = "$KREL" ] ||
	{ echo "build-siw: $OUT/src/siw.ko has the wrong vermagic" >&2; exit 1; }
cp "$OUT/src/siw.ko" "$OUT/siw.ko"
echo "$key" >"$OUT/.stamp"
echo "build-siw: siw.ko for $KREL built in $(( $(date +%s) - t0 ))s" >&2
echo "$OUT/siw.ko"
