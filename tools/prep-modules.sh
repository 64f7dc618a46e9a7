#!/bin/bash
# Prepare, on the host, the module index a test guest needs to load our
# modules with modprobe:
#
#   tools/prep-modules.sh KREL OUTDIR MODULE.ko...
#
# OUTDIR gets updates/<the modules> and the modules.* files of
# "depmod -b" for kernel KREL with those modules in updates/ (so they win
# over the distribution's).  The guest copies OUTDIR over
# /lib/modules/KREL (its tmpfs overlay) instead of running depmod itself,
# which takes a minute under TCG on the 9p root and seconds here.  Nothing
# is redone while the modules are unchanged.
set -euo pipefail
KREL=$1 OUT=$2
shift 2
# MODSRC: the kernel's module tree when it is not installed here (the debug
# kernel's, see tools/build-debug-kernel.sh).
src=${MODSRC:-/lib/modules/$KREL}
[ -d "$src/kernel" ] || { echo "prep-modules: no $src (tools/install-deps.sh)" >&2; exit 1; }

stamp=$( { sha256sum "$@"; echo "$src"; } | sha256sum | cut -c1-16)
[ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$stamp" ] && exit 0

work=$(mktemp -d "${TMPDIR:-/tmp}/prep-modules.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/lib/modules/$KREL
mkdir -p "$root/updates"
# The distribution's tree by reference; only what depmod reads as input.
for f in kernel modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$src/$f" ] && ln -s "$src/$f" "$root/$f"
done
cp "$@" "$root/updates/"
depmod -b "$work" "$KREL"

rm -rf "$OUT"
mkdir -p "$OUT/updates"
cp "$root"/updates/*.ko "$OUT/updates/"
find "$root" -maxdepth 1 -name 'modules.*' -type f -exec cp {} "$OUT/" \;
echo "$stamp" >"$OUT/.stamp"
