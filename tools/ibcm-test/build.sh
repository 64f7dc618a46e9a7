#!/bin/bash
# Build srp_ibcm_test.ko for kernel release KREL out of the source tree:
#   tools/ibcm-test/build.sh KREL [make options, e.g. W=1]
# copies the sources to build/ibcm-test/KREL/ (relative to the repository
# root), builds there against /usr/src/linux-headers-KREL (or the tree in
# $KDIR) and prints the path of the module.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 KREL [make options]" >&2; exit 2; }
krel=$1
shift
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$src/../.." && pwd)
# KDIR: a kernel tree to build against instead (the debug kernel's).
kdir=${KDIR:-/usr/src/linux-headers-$krel}
out=$top/build/ibcm-test/$krel
[ -d "$kdir" ] || { echo "$0: no $kdir" >&2; exit 1; }
mkdir -p "$out"
cp "$src/srp_ibcm_test.c" "$src/Kbuild" "$out/"
make -C "$kdir" M="$out" "$@" modules >"$out/build.log" 2>&1 ||
	{ cat "$out/build.log" >&2; exit 1; }
if grep -E 'warning:|error:' "$out/build.log" >&2; then
	echo "$0: warnings above" >&2
fi
echo "$out/srp_ibcm_test.ko"
