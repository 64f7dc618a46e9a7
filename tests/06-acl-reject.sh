#!/bin/bash
# (f) An initiator that is not in the target's ACLs is refused: add_target
# fails, no disk appears, and the refusal is the one for "no ACL" - ib_srp
# logs SRP_LOGIN_REJ reason 0x00010003 (unable to associate the channel with
# the I_T nexus), the target port's counter rejected_unable_associate_channel
# grows by one and the target logs the initiator's port ID with "no ACL for
# it" (tools/guest-lib.sh: expect_refused).  Adding the ACL then lets the
# same initiator in; with another initiator_ext it is another initiator,
# refused the same way.
# The stock module (--stock) has no counters and no such log line, and
# answers "no ACL" with 0x00010006 (channel limit reached): there only the
# reason ib_srp logs is checked.
. "$PROJECT/tools/guest-lib.sh"

setup_transport
load_target secret:16M acl:00000000000000000002c90300a1b2c3   # somebody else
noacl=unable_associate_channel
[ "$STOCK" = 1 ] && noacl=channel_limit_reached	# the in-kernel module's choice
SRP_EXPECT=1 expect_refused $noacl "$INI_PORT_ID" 'no ACL for it' srp_login
[ -z "$(srp_disks)" ] || fail "a disk appeared for a rejected initiator"
[ -z "$(srp_hosts)" ] || fail "an ib_srp SCSI host stayed after the rejected login"

make_acl
dev=$(srp_login) || fail "login with the ACL in place failed"
log "with ACL ib.$INI_PORT_ID: $dev"
srp_logout || fail "logout"

# initiator_ext is part of the port ID: a different extension is another
# initiator and must be refused as well.
SRP_EXPECT=1 expect_refused $noacl "00000000000000aa$INI_PORT_GUID" 'no ACL for it' \
	srp_login "initiator_ext=00000000000000aa"
srp_logout
pass "initiator without ACL refused with ${REJ_CODE[$noacl]} ($noacl), allowed after make_acl"
