#!/bin/bash
# Build (or reuse from cache) the tiny busybox initramfs for kernel release
# $1 and print its path.  The initramfs loads the 9p/virtio/overlay modules,
# mounts the host root read-only with a tmpfs overlay on top, mounts the
# project and results shares and switch_roots into tools/guest-init.sh.
set -euo pipefail

KREL=$1
CACHE=${VM_CACHE:-/var/tmp/ib_srpt-vm}
mkdir -p "$CACHE"

# Cache key: kernel release + this script (it contains the init).
key=$(cat "$0" /usr/bin/busybox | sha256sum | cut -c1-12)
out=$CACHE/initramfs-$KREL-$key.cpio.gz
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

command -v busybox >/dev/null || { echo "mkinitramfs: busybox-static missing" >&2; exit 1; }
file -L /usr/bin/busybox 2>/dev/null | grep -q 'statically linked' ||
	ldd /usr/bin/busybox 2>&1 | grep -q 'not a dynamic' ||
	{ echo "mkinitramfs: /usr/bin/busybox is not static (install busybox-static)" >&2; exit 1; }

work=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,dev,proc,sys,lower,rw,newroot,mods}
cp /usr/bin/busybox "$work/bin/busybox"

# Modules (and their dependencies, in load order) that are not built in.
declare -A seen=()
order=()
add_mod() {
	local m=$1 f deps d
	[ -n "${seen[$m]:-}" ] && return 0
	seen[$m]=1
	f=$(modinfo -k "$KREL" -F filename "$m" 2>/dev/null) || return 0
	case $f in ''|'(builtin)') return 0 ;; esac
	deps=$(modinfo -k "$KREL" -F depends "$m" 2>/dev/null || true)
	for d in ${deps//,/ }; do
		add_mod "$d"
	done
	order+=("$f")
}
for m in virtio_pci virtio_ring virtio 9pnet_virtio 9p overlay; do
	add_mod "$m"
done
: >"$work/mods/order"
for f in "${order[@]}"; do
	b=$(basename "$f")
	case $b in
	*.ko.xz) xz -dc "$f" >"$work/mods/${b%.xz}"; b=${b%.xz} ;;
	*.ko.zst) zstd -qdc "$f" >"$work/mods/${b%.zst}"; b=${b%.zst} ;;
	*.ko.gz) gzip -dc "$f" >"$work/mods/${b%.gz}"; b=${b%.gz} ;;
	*) cp "$f" "$work/mods/$b" ;;
	esac
	echo "$b" >>"$work/mods/order"
done

cat >"$work/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /mods/order); do
	insmod /mods/$m || echo "initramfs: insmod $m failed"
done
fail() { echo "initramfs: $*"; echo "VM-RESULT: rc=125"; poweroff -f; }
o=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o $o,ro,cache=loose hostroot /lower || fail "cannot mount hostroot"
mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	fail "cannot mount overlay"
mkdir -p /newroot/mnt/project /newroot/mnt/results
mount -t 9p -o $o,ro project /newroot/mnt/project || fail "cannot mount project"
mount -t 9p -o $o results /newroot/mnt/results || fail "cannot mount results"
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/bash /mnt/project/tools/guest-init.sh
EOF
chmod +x "$work/init"

(cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
