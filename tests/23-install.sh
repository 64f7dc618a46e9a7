#!/bin/bash
# An admin installs ib_srpt from its sources over the distribution's module,
# with `make install` and with dkms, and modprobe loads ours afterwards -
# also after the kernel headers are updated (dkms builds it again).
#
# The module sources are copied to /tmp/ib_srpt as from a release tarball
# (the project share is read-only).  For each way in:
#   - before: modprobe would take Debian's ib_srpt (kernel/...);
#   - make install: /lib/modules/<release>/updates/ib_srpt.ko, modinfo and
#     the loaded module's srcversion are ours, and a LUN is served to
#     ib_srp with read-back; make uninstall: Debian's again;
#   - make dkms-install: dkms builds and installs it for every kernel with
#     headers (6.12 and 6.1 here, checked by the file's vermagic); modprobe
#     loads ours from updates/dkms; then a simulated header update (the
#     module removed for this kernel, then the hook the headers package
#     runs, /etc/kernel/header_postinst.d/dkms) builds it again and
#     modprobe loads ours; make dkms-uninstall: Debian's again, no dkms
#     package left.
# Each build runs in the guest (TCG): a few minutes in all.
# timeout: 2700 (TCG: the builds, and depmod -a about 75 s each time)
# stock: skip installs our module
# debug: skip the debug kernel has no headers package to build against
# default: skip four module builds under TCG (about 20 min): make check-install
. "$PROJECT/tools/guest-lib.sh"

K=$(uname -r)
SRC=/tmp/ib_srpt
mkdir -p $SRC
(cd "$PROJECT" && cp -p ./*.c ./*.h Makefile Kconfig dkms.conf $SRC/) || fail "copy the sources"
rm -f $SRC/*.mod.c
# Ours (vm.sh's copy for this kernel) by its description; Debian's is in-tree.
WANT=$(modinfo -F description "$PROJECT/build/modules/$K/updates/ib_srpt.ko") ||
	fail "no module of vm.sh for $K"
DKMS_VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $SRC/dkms.conf)
# dkms replaces the distribution's module only for another version.
[ "$(modinfo -F version "$PROJECT/build/modules/$K/updates/ib_srpt.ko")" = "$DKMS_VER" ] ||
	fail "MODULE_VERSION is not dkms.conf's PACKAGE_VERSION $DKMS_VER"

# Which file modprobe takes, and whether it is ours.
srpt_file() { modinfo -n ib_srpt; }
is_ours() { [ "$(modinfo -F description ib_srpt)" = "$WANT" ] && [ -z "$(modinfo -F intree ib_srpt)" ]; }
is_debians() { [[ $(srpt_file) == /lib/modules/$K/kernel/* ]] && ! is_ours; }
# The loaded module is ours: out of tree (taint O) with our rdma_cm_port.
loads_ours() {
	modprobe ib_srpt || fail "modprobe ib_srpt ($(srpt_file))"
	{ grep -q O /sys/module/ib_srpt/taint && [ -e /sys/module/ib_srpt/parameters/rdma_cm_port ]; } ||
		fail "the loaded ib_srpt is not ours (taint $(cat /sys/module/ib_srpt/taint))"
}
timed() {
	local what=$1 t0=$SECONDS
	shift
	"$@" >/tmp/step.out 2>&1 || { tail -n 30 /tmp/step.out; fail "$what"; }
	cp /tmp/step.out "$RESULTS/${what// /-}.log"
	log "$what: $((SECONDS - t0)) s"
}

is_debians || fail "before: modprobe would load $(srpt_file)"
log "before: $(srpt_file)"

# --- make install
timed "make install" make -C $SRC -j"$(nproc)" install
[ "$(srpt_file)" = "/lib/modules/$K/updates/ib_srpt.ko" ] || fail "after make install: $(srpt_file)"
is_ours || fail "updates/ib_srpt.ko is not ours"
loads_ours
# The installed module serves a LUN: load_target finds it loaded.
MODULES_INSTALLED=1
standard_setup blk:16M:block
dev=$(srp_login) || fail "ib_srp login to the installed module"
verify_io "$dev" 4 || fail "read-back through the installed module"
srp_logout || fail "logout"
unload_target || fail "unload: $UNLOAD_ERR"
timed "make uninstall" make -C $SRC uninstall
is_debians || fail "after make uninstall: $(srpt_file)"
log "make install: ours from updates/, LUN served; make uninstall: $(srpt_file)"

# --- dkms
timed "make dkms-install" make -C $SRC dkms-install
n=0
for d in /lib/modules/*/build; do
	[ -e "$d/include" ] || continue
	k=$(basename "$(dirname "$d")")
	f=$(find "/lib/modules/$k/updates/dkms" -name 'ib_srpt.ko*' 2>/dev/null | head -n1)
	[ -n "$f" ] || fail "dkms installed nothing for $k"
	[ "$(modinfo -F vermagic "$f" | cut -d' ' -f1)" = "$k" ] || fail "$f is not built for $k"
	log "dkms: $f"
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "dkms built for $n kernels; 6.12 and 6.1 have headers here"
[[ $(srpt_file) == /lib/modules/$K/updates/dkms/* ]] || fail "after dkms install: $(srpt_file)"
loads_ours
rmmod ib_srpt || fail "rmmod"

# A kernel update without our module, then the headers package's hook.
dkms uninstall "ib_srpt/$DKMS_VER" -k "$K" >/tmp/step.out 2>&1 || { cat /tmp/step.out; fail "dkms uninstall -k $K"; }
is_debians || fail "without the dkms module for $K: $(srpt_file)"
timed "header update hook" /etc/kernel/header_postinst.d/dkms "$K"
[[ $(srpt_file) == /lib/modules/$K/updates/dkms/* ]] || fail "after the header hook: $(srpt_file)"
loads_ours
rmmod ib_srpt || fail "rmmod"

timed "make dkms-uninstall" make -C $SRC dkms-uninstall
is_debians || fail "after make dkms-uninstall: $(srpt_file)"
[ -z "$(dkms status ib_srpt 2>/dev/null)" ] || fail "dkms still lists: $(dkms status ib_srpt)"
pass "make install/uninstall and dkms (for $n kernels, rebuilt by the header hook) load ours over Debian's"
