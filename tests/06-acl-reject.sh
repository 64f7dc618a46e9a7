#!/bin/bash
# (f) An initiator that is not in the target's ACLs is refused: add_target
# fails and no disk appears.  Adding the ACL then lets the same initiator in.
. "$PROJECT/tools/guest-lib.sh"

setup_transport
load_target secret:16M acl:00000000000000000002c90300a1b2c3   # somebody else
if disks=$(SRP_EXPECT=1 srp_login); then
	fail "login succeeded without an ACL: $disks"
fi
[ -z "$(srp_disks)" ] || fail "a disk appeared for a rejected initiator"
[ -z "$(srp_hosts)" ] || fail "an ib_srp SCSI host stayed after the rejected login"
log "rejected as expected: $(dmesg | grep -i 'srp' | tail -n 2 | tr '\n' ' ')"

make_acl
dev=$(srp_login) || fail "login with the ACL in place failed"
log "with ACL ib.$INI_PORT_ID: $dev"
srp_logout || fail "logout"

# initiator_ext is part of the port ID: a different extension is another
# initiator and must be refused as well.
if SRP_EXPECT=1 srp_login "initiator_ext=00000000000000aa" >/dev/null; then
	fail "login with initiator_ext=aa succeeded without an ACL for it"
fi
srp_logout
pass "initiator without ACL refused, allowed after make_acl"
