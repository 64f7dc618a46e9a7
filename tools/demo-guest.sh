#!/bin/bash
# Guest side of tools/demo.sh: one LUN over SRP/RDMA-CM on soft-RoCE, a short
# verified fio run, and a look at what the target and the initiator see.
. "$PROJECT/tools/guest-lib.sh"
TEST_NAME=demo

step() { echo; echo "==== $*"; }

step "1. soft-RoCE: veth pair + rdma_rxe"
setup_rxe
rdma link show

step "2. target: $([ "$STOCK" = 1 ] && echo "Debian's stock ib_srpt" || echo "our ib_srpt.ko"), LUN + ACL with targetcli"
load_target
make_lun demo 64M
make_acl
log "RDMA/CM port: $(cat "$SRPT_DIR/discovery_auth/rdma_cm_port")"
targetcli ls /srpt

step "3. initiator: ib_srp login"
echo "echo id_ext=$ID_EXT,ioc_guid=$IOC_GUID,dest=$TGT_IP:$SRP_PORT,ch_count=2 > $(srp_add_target_path)"
dev=$(srp_login ch_count=2) || fail "login failed"
lsscsi
echo "disk: $dev ($(blockdev --getsize64 "$dev") bytes)"
sg_inq "$dev" | grep -E 'Vendor|Product|revision'

step "4. fio: 32 MiB random read/write, 4k-64k, qd32, crc32c verify"
fio --name=demo --filename="$dev" --ioengine=libaio --direct=1 --rw=randrw \
	--bssplit=4k/50:16k/30:64k/20 --iodepth=32 --size=32M --runtime=10 \
	--verify=crc32c --verify_fatal=1 --eta=never --output=/tmp/fio.out
rc=$?
grep -E 'err=|IOPS=|READ:|WRITE:' /tmp/fio.out
[ $rc = 0 ] || fail "fio failed (rc=$rc)"

step "5. the target's view (configfs)"
echo "$TPG_DIR (enable=$(cat "$TPG_DIR/enable" 2>/dev/null)):"
find "$TPG_DIR" -maxdepth 4 \( -path '*/statistics*' -o -path '*/attrib/*' -o -path '*/param/*' -o -path '*/auth/*' \) -prune -o -print |
	sed "s,^$SRPT_DIR/,  ," | sort
cat "$TPG_DIR"/lun/lun_0/statistics/scsi_tgt_port/in_cmds 2>/dev/null |
	sed 's/^/commands received on lun_0 port: /'
echo "ib_srp host: $(srp_hosts) ch_count=$(cat /sys/class/scsi_host/"$(srp_hosts | head -n1)"/ch_count) req_lim=$(cat /sys/class/scsi_host/"$(srp_hosts | head -n1)"/req_lim)"

step "6. logout"
srp_logout || fail "logout"
pass "demo finished: login over RDMA/CM, verified fio, logout"
