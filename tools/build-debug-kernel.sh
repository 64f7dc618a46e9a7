#!/bin/bash
# Build (once per machine) the debug guest kernel of `make check-debug` and
# print the directory that holds it:
#
#   tools/build-debug-kernel.sh [--print-only]
#
# Debian's linux-source-6.12 with x86_64_defconfig + tools/debug-kernel.config
# (KASAN, lockdep, kmemleak, DEBUG_LIST, DEBUG_OBJECTS, SLUB_DEBUG, and only
# the drivers the test guest needs).  Cached outside the project, keyed by
# the source package, the fragment, the compiler and RECIPE below:
#
#   $SRPT_DEBUG_CACHE (default /var/tmp/ib_srpt-debug-kernel)/<key>/
#       linux/          the built tree (also what modules build against:
#                       make -C <dir>/linux M=...)
#       root/lib/modules/<release>/   modules_install output
#       release         the kernel release, e.g. 6.12.117-srptdebug
#       build-seconds   how long the build took
#
# --print-only prints the directory if it is built and fails otherwise.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${SRPT_DEBUG_CACHE:-/var/tmp/ib_srpt-debug-kernel}
TARBALL=/usr/src/linux-source-6.12.tar.xz
FRAG=$TOP/tools/debug-kernel.config
JOBS=${JOBS:-$(nproc)}

[ -f "$TARBALL" ] || { echo "build-debug-kernel: no $TARBALL (make deps)" >&2; exit 1; }
# Bump RECIPE when a change below alters the built kernel.
RECIPE=1
key=$( {
	stat -c '%n %s %Y' "$TARBALL"
	cat "$FRAG"
	gcc --version | head -n1
	echo "$RECIPE"
} | sha256sum | cut -c1-16)
OUT=$CACHE/$key

if [ -s "$OUT/release" ] && [ -f "$OUT/linux/arch/x86/boot/bzImage" ]; then
	echo "$OUT"
	exit 0
fi
[ "${1:-}" = --print-only ] && { echo "build-debug-kernel: not built yet ($OUT)" >&2; exit 1; }

mkdir -p "$CACHE"
exec 8>"$CACHE/.lock"
if ! flock -n 8; then
	echo "build-debug-kernel: waiting for another build" >&2
	flock 8
	[ -s "$OUT/release" ] && { echo "$OUT"; exit 0; }
fi

t0=$(date +%s)
rm -rf "$OUT"
mkdir -p "$OUT"
echo "build-debug-kernel: building in $OUT (log: $OUT/build.log); this takes a while" >&2
tar -xJf "$TARBALL" -C "$OUT"
mv "$OUT"/linux-source-6.12 "$OUT/linux"
cd "$OUT/linux"
{
	make x86_64_defconfig
	scripts/kconfig/merge_config.sh -m .config "$FRAG"
	make olddefconfig
} >"$OUT/build.log" 2>&1
# Every option of the fragment must have taken (merge_config only warns).
bad=0
while IFS= read -r l; do
	case $l in
	CONFIG_*=*) grep -qxF "$l" .config || { echo "build-debug-kernel: $l did not take: $(grep "^${l%%=*}=\|^# ${l%%=*} is" .config || echo unset)" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set")
		o=${l#\# }; o=${o%% *}
		grep -q "^$o=" .config && { echo "build-debug-kernel: $o is still set" >&2; bad=1; } ;;
	esac
done <"$FRAG"
[ $bad = 0 ] || exit 1
nice make -j"$JOBS" bzImage modules >>"$OUT/build.log" 2>&1 ||
	{ tail -n 40 "$OUT/build.log" >&2; echo "build-debug-kernel: build failed, see $OUT/build.log" >&2; exit 1; }
make modules_install INSTALL_MOD_PATH="$OUT/root" INSTALL_MOD_STRIP=1 >>"$OUT/build.log" 2>&1
rel=$(make -s kernelrelease)
secs=$(( $(date +%s) - t0 ))
echo "$secs" >"$OUT/build-seconds"
echo "$rel" >"$OUT/release"
echo "build-debug-kernel: $rel built in ${secs}s" >&2
# Builds of older recipes or configs (2-3 GB each) are not needed again.
find "$CACHE" -mindepth 1 -maxdepth 1 -type d ! -path "$OUT" -exec rm -rf {} +
echo "$OUT"
