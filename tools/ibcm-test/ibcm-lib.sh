#!/bin/bash
# Helpers for guest scenarios that log in over the IB CM with srp_ibcm_test
# (see README here).  Source after tools/guest-lib.sh and setup_transport;
# build the module on the host first: tools/ibcm-test/build.sh <release>.
#
#   ibcm_load            insmod srp_ibcm_test for the running kernel
#   ibcm CMD...          run one command, print its result line; the status
#                        is the write()'s (1 for a malformed command)
#   ibcm_login [OPTS]    login with the rig's IDs (ibcm_login_opts) + OPTS
#   ibcm_unload          rmmod srp_ibcm_test
# shellcheck disable=SC2034  # variables are for the scenarios

IBCM_CMD=/sys/kernel/debug/srp_ibcm_test/cmd

ibcm_load() {
	local ko
	ko=$PROJECT/build/ibcm-test/$(uname -r)/srp_ibcm_test.ko
	[ -f "$ko" ] || fail "no $ko - run tools/ibcm-test/build.sh $(uname -r) on the host"
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
		fail "cannot mount debugfs"
	insmod "$ko" || fail "insmod $ko"
	[ -e "$IBCM_CMD" ] || fail "no $IBCM_CMD"
}

ibcm_unload() { rmmod srp_ibcm_test; }

# ibcm CMD...: the result line of CMD.  Commands running concurrently must
# not share this helper (it reads the global last result): use a file
# descriptor of their own, see README.
ibcm() {
	local rc=0
	{ echo "$*" >"$IBCM_CMD"; } 2>/dev/null || rc=1
	cat "$IBCM_CMD"
	return $rc
}

# Login options for the test rig: HCA0 carries target and initiator, the
# target listens on service ID = IOC GUID (IBCM_SERVICE_ID to override),
# the initiator port ID is ib_srp's (INI_PORT_ID, what make_acl allows).
ibcm_login_opts() {
	echo "dev=$HCA0 dgid=$(cat "/sys/class/infiniband/$HCA0/ports/1/gids/0")" \
		"service_id=${IBCM_SERVICE_ID:-$IOC_GUID} id_ext=$ID_EXT" \
		"ioc_guid=$IOC_GUID initiator_id=$INI_PORT_ID"
}

ibcm_login() { ibcm login "$(ibcm_login_opts)" "$@"; }
