#!/bin/bash
# The shared receive queue under load (use_srq=1, srpt_srq_size=16 buffers
# for every channel of the device):
# - ib_srp (never_register=1: see srq_load) with ch_count=2 runs fio
#   (queue depth 32 a job, one job each on a ramdisk, a fileio and a
#   block LUN, 30 s, crc32c verification): the channels hold more credits
#   than the SRQ has buffers, so initiators' sends find it empty and get
#   RNR NAKs (rxe's hw counter send_rnr_err must move: the path is
#   exercised); every block verifies.  The log line gives the RNR NAKs
#   and fio's longest completion: with the responder's RNR NAK timer left
#   at 0 (655.36 ms) every RNR NAK stalls a connection for 0.66 s;
#   ib_srpt sets a small one on both CMs.  No time is asserted.
# - an IB CM login (tools/ibcm-test) gets a REP with the SRQ bit set on the
#   SRQ, clear without it (use_srq=0);
# - an SRP_CRED_RSP finds a receive buffer: the raw client holds an
#   SRP_CRED_REQ unanswered (credits of READs a LU reset aborted), sends a
#   READ for every credit (slow LUN: they keep their buffers) and then the
#   SRP_CRED_RSP; all answered, the channel stays, and the device sends no
#   RNR NAK meanwhile - with the channel's own receive buffers (use_srq=0)
#   and on the SRQ (srp_credits 16 = srpt_srq_size).
# Failures of the three parts are collected and reported together.  On
# siw only the last part runs (iWARP has no RNR retry: an SRQ with fewer
# buffers than credits ends connections; and no IB CM); there a missing
# buffer for the SRP_CRED_RSP terminates the connection.
# stock: skip the in-kernel module sends no SRP_CRED_REQ and has no IB CM listener on RoCE
# timeout: 600
# long: 30 s of fio over an overcommitted SRQ plus two credit bursts, 2-4 minutes; kept out of the default run to keep it near 40 minutes
. "$PROJECT/tools/guest-lib.sh"
. "$PROJECT/tools/ibcm-test/ibcm-lib.sh"

RAW_ID=0000000000000000c1ea75e700000003
errs=()
bad() { log "FAILED: $*"; errs+=("$*"); }

echo "options ib_srpt srpt_srq_size=16" >/etc/modprobe.d/ib_srpt-34.conf
klog_start
standard_setup ram:64M:ramdisk file:64M:fileio blk:64M:block
rm -f /etc/modprobe.d/ib_srpt-34.conf
[ "$(cat /sys/module/ib_srpt/parameters/srpt_srq_size)" = 16 ] ||
	fail "srpt_srq_size $(cat /sys/module/ib_srpt/parameters/srpt_srq_size), not 16"
# LUN 3, the raw client's only: every I/O takes 4 s, TAS off (a LU reset
# from another channel aborts READs without a response: SRP_CRED_REQ).
slow=$(slow_blockdev slow 4000) || exit 1
echo "/backstores/block create slow $slow" | targetcli_batch || fail "block create slow"
echo 0 >/sys/kernel/config/target/core/iblock_*/slow/attrib/emulate_tas || fail "emulate_tas=0"
# Made after ib_srp's ACL, before the raw client's: only the latter maps it.
printf '%s\n' "/srpt/$TGT_WWN/luns create /backstores/block/slow lun=3 add_mapped_luns=false" \
	"/srpt/$TGT_WWN/acls create ib.$RAW_ID" |
	targetcli_batch || fail "slow LUN 3 for the raw client"
echo 1 >"$TPG_DIR/attrib/use_srq" || fail "use_srq=1"
raw_client_setup
CNT=/sys/class/infiniband/$HCA0/ports/1/hw_counters
rnr() { cat "$CNT/$1" 2>/dev/null || echo 0; }
# 1. fio over 2 channels on an SRQ of 16 buffers; sets sent and maxlat.
srq_load() {
	[ -r "$CNT/send_rnr_err" ] || fail "no RNR counters in $CNT"
	# ib_srp without memory registration (never_register=1: data and
	# indirect descriptor tables under its PD's global rkey). With it, the
	# first RNR NAK ends ib_srp's connection on soft-RoCE (6.1 and 6.12):
	# the retry rewinds the send queue to the oldest unacknowledged work
	# request and rxe_requester() executes every REG_MR behind it again
	# (it does not skip local operations already done), the MR is valid,
	# "rxe_reg_fast_mr: mr->lkey = ... not free", the QP goes to the error
	# state and ib_srp reconnects 10 s later. An initiator-side rxe defect
	# that any retry reaches; a target that sends an RNR NAK cannot avoid it.
	ib_srp_load never_register=1
	mapfile -t disks < <(SRP_EXPECT=3 srp_login "ch_count=2") || fail "ib_srp login"
	[ ${#disks[@]} = 3 ] || fail "disks: ${disks[*]}"
	[ "$(awk '/ srq 1 /' /sys/kernel/debug/ib_srpt/channels | wc -l)" = 2 ] ||
		{ cat /sys/kernel/debug/ib_srpt/channels; fail "ib_srp's 2 channels not on the SRQ"; }
	# srpt_srq_size is the SRQ's depth and nothing else: srp_credits each.
	cr=$(cat "$TPG_DIR/attrib/srp_credits")
	[ "$(awk -v c="$cr" '/ srq 1 / && $0 ~ " credits " c " "' /sys/kernel/debug/ib_srpt/channels | wc -l)" = 2 ] ||
		{ cat /sys/kernel/debug/ib_srpt/channels; fail "ib_srp's channels on the SRQ do not have srp_credits ($cr) credits"; }
	{
		printf '%s\n' "[global]" ioengine=libaio direct=1 iodepth=32 rw=randwrite \
			bssplit=4k/50:64k/50 size=8M verify=crc32c do_verify=1 randrepeat=0 \
			time_based=1 runtime=30
		for i in 0 1 2; do printf '[j%s]\nfilename=%s\n' "$i" "${disks[i]}"; done
	} >/tmp/srq32.fio
	s0=$(rnr send_rnr_err) r0=$(rnr rcvd_rnr_err)
	fio_verify srq32 /tmp/srq32.fio || bad "fio over an SRQ of 16 buffers (/tmp/fio-srq32.out)"
	sent=$(($(rnr send_rnr_err) - s0)) rcvd=$(($(rnr rcvd_rnr_err) - r0))
	# fio's longest completion of any job, in ms (clat lines are in n/u/msec,
	# a large value with a k or M suffix)
	maxlat=$(awk '/^ *clat \((nsec|usec|msec)\):/ {
			u = $2; sub(/.*\(/, "", u); sub(/\).*/, "", u)
			m = $0; sub(/.*max=/, "", m); sub(/,.*/, "", m)
			f = u == "nsec" ? 1e-6 : u == "usec" ? 1e-3 : 1
			if (m ~ /k$/) f *= 1e3; else if (m ~ /M$/) f *= 1e6
			if (m * f > x) x = m * f }
		END { printf "%.1f", x }' /tmp/fio-srq32.out)
	log "fio QD32 x 3 jobs, 30 s, ch_count=2 on an SRQ of 16: RNR NAKs sent $sent, received $rcvd; longest completion $maxlat ms"
	echo "rnr_naks_sent=$sent rnr_naks_rcvd=$rcvd max_clat_ms=$maxlat" >"$RESULTS/srq-load.txt" 2>/dev/null
	cp /tmp/fio-srq32.out "$RESULTS/" 2>/dev/null
	[ "$sent" -gt 0 ] || bad "no RNR NAK in 30 s of QD32 x 3 over an SRQ of 16 buffers: the RNR path was not exercised"
	srp_logout || fail "logout"
}

# 2. the SRQ bit of the IB CM REP
rep_srq_bit() {
	ibcm_load
	for srq in 1 0; do
		echo $srq >"$TPG_DIR/attrib/use_srq" || fail "use_srq=$srq"
		# shellcheck disable=SC2119  # no options
		r=$(ibcm_login)
		[[ $r == LOGIN_RSP* ]] || fail "IB CM login with use_srq=$srq: $r"
		st=$(ibcm state)
		[[ $st == *" rep_srq=$srq"* ]] || bad "IB CM login with use_srq=$srq: $st"
		log "IB CM login, use_srq=$srq: ${st##* }"
		ibcm dreq >/dev/null
		ibcm close >/dev/null
	done
	ibcm_unload
}

if [ "$TRANSPORT" = siw ]; then
	log "siw: the SRP_CRED_RSP part only"
else
	srq_load
	rep_srq_bit
fi

# 3. an SRP_CRED_RSP after a full-credit burst, with and without the SRQ
echo 16 >"$TPG_DIR/attrib/srp_credits" || fail "srp_credits=16"
for srq in 0 1; do
	echo $srq >"$TPG_DIR/attrib/use_srq" || fail "use_srq=$srq"
	c0=$(srpt_event cred_reqs) s0=$(rnr send_rnr_err)
	if raw_client "$RAW_ID" --lun 3 --timeout 30 cred-rsp-burst >/tmp/crb.out 2>&1; then
		log "use_srq=$srq: $(grep -E 'SRP_CRED_REQ held' /tmp/crb.out | sed 's/^ *//')"
	else
		sed 's/^/  /' /tmp/crb.out
		bad "use_srq=$srq: cred-rsp-burst ($(grep -m1 FAIL /tmp/crb.out)); RNR NAKs sent $(($(rnr send_rnr_err) - s0))"
	fi
	[ "$(srpt_event cred_reqs)" -gt "$c0" ] || bad "use_srq=$srq: the target counted no SRP_CRED_REQ"
done

resources_free || bad "at the end not every resource is 0: $(grep -v ' 0$' "$RES" | xargs)"
splats=$(klog_splats)
[ -z "$splats" ] || { echo "$splats" | head -n 20; bad "kernel splats"; }
((${#errs[@]} == 0)) || fail "${#errs[@]} failures: $(printf '%s; ' "${errs[@]}")"
[ "$TRANSPORT" = siw ] &&
	pass "SRP_CRED_RSP after a full-credit burst answered, the connection kept (own buffers and SRQ)"
pass "SRQ of 16 under fio QD32 x 3 (ch_count=2): verified, $sent RNR NAKs, longest completion $maxlat ms; IB CM REP SRQ bit 1/0 with use_srq 1/0; SRP_CRED_RSP after a full-credit burst answered without RNR NAK (own buffers and SRQ)"
