#!/bin/bash
# Install everything the build, the demo and the tests need (idempotent);
# flex..libssl-dev build the debug guest kernel (tools/build-debug-kernel.sh);
# gnuplot-nox draws the chart of make bench, linux-perf measures its target CPU;
# dkms is for tests/23-install.sh.
set -euo pipefail
PKGS=(build-essential sparse
      linux-image-6.12-amd64 linux-headers-6.12-amd64
      linux-image-amd64 linux-headers-amd64 linux-source-6.12 linux-source-6.1
      qemu-system-x86 busybox-static cpio xz-utils kmod
      rdma-core ibverbs-utils rdmacm-utils srptools infiniband-diags
      librdmacm-dev libibverbs-dev libibumad-dev
      targetcli-fb python3-rtslib-fb dbus
      fio sg3-utils lsscsi xfsprogs e2fsprogs dmsetup iproute2 nvme-cli
      shellcheck gnuplot-nox linux-perf dkms
      clang libclang-rt-14-dev
      flex bison bc libelf-dev libssl-dev)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
