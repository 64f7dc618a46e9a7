#!/bin/bash
# One-command demo: install deps, build ib_srpt.ko, boot a test VM, export a
# LUN with targetcli, log in with ib_srp over RDMA/CM (soft-RoCE), run a short
# verified fio and show what happened.
#
#   tools/demo.sh [--stock] [--kver 6.12|6.1]
#
# --stock demonstrates Debian's ib_srpt instead of ours.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP"
args=()
stock=0 kver=6.12
while [ $# -gt 0 ]; do
	case $1 in
	--stock) stock=1; shift ;;
	--kver) kver=$2; args+=(--kver "$2"); shift 2 ;;
	*) echo "usage: $0 [--stock] [--kver 6.12|6.1]" >&2; exit 2 ;;
	esac
done

echo "==== installing dependencies (tools/install-deps.sh)"
bash tools/install-deps.sh

if [ $stock = 0 ]; then
	echo "==== building ib_srpt.ko for the $kver guest (build/ko/<release>/)"
	make "modules-$kver" tools
fi
[ $stock = 1 ] && args+=(--stock)

echo "==== booting the test VM (qemu TCG, takes a minute)"
VM_VERBOSE=1 VM_TIMEOUT=600 tools/vm.sh "${args[@]}" --logdir build/logs/demo tools/demo-guest.sh |
	grep -Ev '^\[ *[0-9]+\.[0-9]+\]|SeaBIOS|Booting from|Probing EDD'
