#!/bin/bash
# Put ib_srpt into a kernel tree as drivers/infiniband/ulp/srpt (replacing
# what is there) and build that directory the way the tree does, with its
# Kconfig and Makefile; fails on any warning:
#
#   tools/intree.sh [TREE]
#
# TREE: an unpacked kernel source tree (default: Debian's
# linux-source-6.12, unpacked once per machine into
# /var/tmp/ib_srpt-intree/<tarball size-mtime>/linux-source-6.12).
# The tree is configured from the Debian kernel's config (/boot/config-*
# of the same 6.12 series) with our Kconfig in place, so that olddefconfig
# reads it and CONFIG_INFINIBAND_SRPT=m comes from there, not from the
# command line; then modules_prepare, the directory's objects with W=1
# (make drivers/infiniband/ulp/srpt/), and ib_srpt.ko linked by modpost
# against the Debian kernel's Module.symvers (no undefined symbol).
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARBALL=/usr/src/linux-source-6.12.tar.xz
JOBS=${JOBS:-$(nproc)}
DIR=drivers/infiniband/ulp/srpt

tree=${1:-}
if [ -z "$tree" ]; then
	[ -f "$TARBALL" ] || { echo "intree: no $TARBALL (make deps)" >&2; exit 1; }
	# Kept outside the clone (a clean clone does not unpack it again),
	# one per version of the tarball.
	cache=${INTREE_CACHE:-/var/tmp/ib_srpt-intree}/$(stat -c %s-%Y "$TARBALL")
	tree=$cache/linux-source-6.12
	if [ ! -f "$tree/Makefile" ]; then
		echo "intree: unpacking $TARBALL into $tree" >&2
		rm -rf "$cache"
		mkdir -p "$cache"
		tar -xJf "$TARBALL" -C "$cache"
	fi
fi
[ -f "$tree/$DIR/../Makefile" ] || { echo "intree: $tree has no drivers/infiniband/ulp" >&2; exit 1; }
ver=$(make -s -C "$tree" kernelversion)
# The Debian kernel of the same series: its config and Module.symvers.
hdr=$(printf '%s\n' /usr/src/linux-headers-"${ver%.*}".*-amd64 | grep -v '\*' | sort -V | tail -n1)
cfg=/boot/config-${hdr#/usr/src/linux-headers-}
{ [ -n "$hdr" ] && [ -f "$cfg" ] && [ -f "$hdr/Module.symvers" ]; } ||
	{ echo "intree: no Debian kernel config/headers for $ver (make deps)" >&2; exit 1; }
log=$TOP/build/intree/build.log
mkdir -p "$(dirname "$log")"
: >"$log"

# Ours in place of what is there.
rm -rf "${tree:?}/$DIR"
mkdir -p "$tree/$DIR"
. "$TOP/tools/module-srcs.sh"
mapfile -t srcs < <(module_files "$TOP")
(cd "$TOP" && cp "${srcs[@]}" "$tree/$DIR/")
grep -q 'ulp/srpt/Kconfig' "$tree/drivers/infiniband/Kconfig" ||
	{ echo "intree: drivers/infiniband/Kconfig does not source $DIR/Kconfig" >&2; exit 1; }

step() {
	local what=$1
	shift
	echo "intree: $what" >&2
	echo "=== $what: $*" >>"$log"
	"$@" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; echo "intree: $what failed (log: $log)" >&2; exit 1; }
}
cd "$tree"
if ! cmp -s "$cfg" .config.debian 2>/dev/null || [ ! -f .config ]; then
	cp "$cfg" .config
	cp "$cfg" .config.debian
	# Debian's signing and trusted keys are not in the source package.
	scripts/config --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str MODULE_SIG_KEY "certs/signing_key.pem"
fi
step "olddefconfig (our Kconfig)" make olddefconfig
grep -qx 'CONFIG_INFINIBAND_SRPT=m' .config ||
	{ echo "intree: CONFIG_INFINIBAND_SRPT is $(grep INFINIBAND_SRPT .config || echo unset), not m" >&2; exit 1; }
step "modules_prepare" make -j"$JOBS" modules_prepare
rm -f "$DIR"/*.o "$DIR"/.*.cmd "$DIR"/*.ko "$DIR"/*.mod*
# From here on every line but the tree's own build tools (scripts/, e.g.
# genksyms' bison conflicts, built on first use) is about our directory:
# none may warn.
ours=$(wc -l <"$log")
step "build $DIR/ (W=1)" make -j"$JOBS" W=1 "$DIR/"
cp "$hdr/Module.symvers" Module.symvers
step "link ib_srpt.ko (modpost)" make -j"$JOBS" W=1 M="$DIR" modules
if tail -n +"$((ours + 1))" "$log" | grep -v '^scripts/' | grep -iE 'warning|error' >&2; then
	echo "intree: warnings above (log: $log)" >&2
	exit 1
fi
[ -f "$DIR/ib_srpt.ko" ] || { echo "intree: no $DIR/ib_srpt.ko" >&2; exit 1; }
echo "intree: $tree/$DIR/ib_srpt.ko built in-tree ($ver, Debian config), warning-free"
