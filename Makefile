# SPDX-License-Identifier: GPL-2.0
ifneq ($(KERNELRELEASE),)
# Kbuild part: also used when this directory sits in a kernel tree as
# drivers/infiniband/ulp/srpt.
obj-$(CONFIG_INFINIBAND_SRPT) += ib_srpt.o
ib_srpt-y := srpt_main.o srpt_fabric.o srpt_fabric_stats.o srpt_dm.o srpt_ib_cm.o srpt_rdma_cm.o \
	     srpt_stats.o \
	     srpt_login.o srpt_ch.o srpt_recv.o srpt_cmd.o srpt_tasks.o srpt_sq.o srpt_life.o srpt_data.o srpt_buf.o srpt_proto.o \
	     srpt_names.o

# Kernel differences (6.1 vs 6.12), probed in the headers; see srpt_compat.h.
ccflags-y += $(if $(wildcard $(srctree)/include/linux/unaligned.h),-DSRPT_HAVE_LINUX_UNALIGNED)
ccflags-y += $(if $(shell grep -s direct_submit_supp $(srctree)/include/target/target_core_fabric.h),-DSRPT_HAVE_DIRECT_SUBMIT)
# srpt_trace.h is included through <trace/define_trace.h> from here.
CFLAGS_srpt_stats.o += -I$(src)

# kbuild cannot link a composite ib_srpt.o from a part named ib_srpt.o,
# so the main file ib_srpt.c is compiled as srpt_main.o.
# (A static pattern rule, so that KBUILD_MODNAME is still ib_srpt.)
$(obj)/srpt_main.o: $(obj)/%.o: $(src)/ib_srpt.c FORCE
	$(call if_changed_rule,cc_o_c)

else
# Out-of-tree build against Debian headers (default: newest 6.12).
KDIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-6.12.*-amd64)))
KDIR61 ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64)))

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_INFINIBAND_SRPT=m modules

# The module's sources (what a kernel tree or dkms gets).
KO_SRCS = $(filter-out %.mod.c,$(wildcard *.c)) $(wildcard *.h) Makefile Kconfig

# ib_srpt.ko for kernel tree $(1), built in a copy of the sources in $(2)
# (mtimes kept: an unchanged copy is not built again).
define build_ko
mkdir -p $(2)
cp -p $(KO_SRCS) $(2)/
$(MAKE) -C $(1) M=$(CURDIR)/$(2) CONFIG_INFINIBAND_SRPT=m modules
endef

# The modules under test: build/ko/<release>/ib_srpt.ko, built from a copy
# of the sources, for the 6.12 and the 6.1 kernel. tools/vm.sh ships only
# that file into a guest of <release>, after checking that its sources are
# the tree's (tests/run.sh builds them first; `make install` builds
# elsewhere, in build/install/).
KO612 = build/ko/$(patsubst linux-headers-%,%,$(notdir $(KDIR)))
KO61 = build/ko/$(patsubst linux-headers-%,%,$(notdir $(KDIR61)))
modules-6.12:
	@test -n "$(KDIR)" || { echo "no 6.12 headers (tools/install-deps.sh)"; exit 1; }
	$(call build_ko,$(KDIR),$(KO612))

modules-6.1:
	@test -n "$(KDIR61)" || { echo "no 6.1 headers (tools/install-deps.sh)"; exit 1; }
	$(call build_ko,$(KDIR61),$(KO61))

# make install [KERNEL=<release>]: ib_srpt.ko for that kernel (default: the
# running one), built against /lib/modules/<release>/build in
# build/install/<release>/ (not build/ko/: an installed build is never the
# module under test), into /lib/modules/<release>/updates/, then depmod:
# `modprobe ib_srpt` loads it instead of the distribution's module.
# make uninstall [KERNEL=<release>] removes it again.
KERNEL ?= $(shell uname -r)
install:
	@test -e /lib/modules/$(KERNEL)/build/include || \
		{ echo "install: no headers in /lib/modules/$(KERNEL)/build (linux-headers-$(KERNEL))"; exit 1; }
	$(call build_ko,/lib/modules/$(KERNEL)/build,build/install/$(KERNEL))
	install -D -m 644 build/install/$(KERNEL)/ib_srpt.ko /lib/modules/$(KERNEL)/updates/ib_srpt.ko
	depmod -a $(KERNEL)

uninstall:
	rm -f /lib/modules/$(KERNEL)/updates/ib_srpt.ko
	depmod -a $(KERNEL)

# make dkms-install: the module sources as dkms package ib_srpt/<version of
# dkms.conf> in /usr/src, built and installed for every kernel with headers;
# dkms builds it again for each kernel installed later. dkms-uninstall
# removes it from every kernel and /usr/src.
DKMS_VER = $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC = /usr/src/ib_srpt-$(DKMS_VER)
dkms-install: dkms-uninstall
	mkdir -p $(DKMS_SRC)
	cp $(KO_SRCS) dkms.conf $(DKMS_SRC)/
	dkms add ib_srpt/$(DKMS_VER)
	for k in $$(ls /lib/modules); do \
		[ ! -e /lib/modules/$$k/build/include ] || dkms install ib_srpt/$(DKMS_VER) -k $$k || exit 1; \
	done

dkms-uninstall:
	! dkms status ib_srpt/$(DKMS_VER) | grep -q . || dkms remove ib_srpt/$(DKMS_VER) --all
	rm -rf $(DKMS_SRC)

# The debug kernel (KASAN, lockdep, kmemleak, ...) of check-debug: built
# once per machine by tools/build-debug-kernel.sh (cached in
# /var/tmp/ib_srpt-debug-kernel), then ib_srpt.ko and the IB CM test module
# for it in build/ko/<release>/ and build/ibcm-test/<release>/.
modules-debug:
	@dbg=$$(bash tools/build-debug-kernel.sh) && rel=$$(cat $$dbg/release) && \
	out=build/ko/$$rel && mkdir -p $$out && cp -p $(KO_SRCS) $$out/ && \
	$(MAKE) -C $$dbg/linux M=$(CURDIR)/$$out CONFIG_INFINIBAND_SRPT=m modules && \
	KDIR=$$dbg/linux bash tools/ibcm-test/build.sh $$rel >/dev/null

# Every scenario of check on the debug kernel; fails on any KASAN, lockdep,
# DEBUG_OBJECTS, list corruption or kmemleak report (not part of check:
# takes about 6 times as long, 3.9 hours on 2 cores). TESTS="01 02 ..." runs
# only those scenarios (names as for tests/run.sh), to do it in parts.
TESTS ?=
check-debug: deps modules-debug tools
	bash tests/run.sh --debug $(TESTS)

# The fault scenario again and again (not part of check): make faults
# [REPEAT=20] [CYCLES=100] [FAULTS=a,b] [KVER=6.12|6.1|debug]; about 4.5
# minutes a round on the Debian kernel, plus the CYCLES logins (a few
# seconds each); the guest may take 10 minutes a round (30 on the debug
# kernel) plus 10 s a login cycle.  Each FAULT line also says how much of
# its time the vCPUs ran on the host and the host's steal (VM_HOST_CPU=1).
REPEAT ?= 20
CYCLES ?= 100
FAULTS ?= all
KVER ?= 6.12
faults: deps $(if $(filter debug,$(KVER)),modules-debug,modules-$(KVER)) tools
	VM_HOST_CPU=1 VM_TIMEOUT=$$(( 600 + $(REPEAT) * ($(if $(filter debug,$(KVER)),1800,600) + 10 * $(CYCLES)) )) bash tools/vm.sh --kver $(KVER) \
		tests/20-faults-under-io.sh REPEAT=$(REPEAT) CYCLES=$(CYCLES) FAULTS=$(FAULTS)

# The soak (tests/soak.sh, not part of check): make soak HOURS=N [SEED=S]
# mixes the wire fuzzer, every fault of tests/20 and 21 and verified fio
# for N hours (fractions allowed) on the debug kernel and ends with a
# one-line summary; SOAK_KVER=6.12 runs it on the Debian kernel instead.
HOURS ?= 1
SOAK_KVER ?= debug
SOAK_VM_TIMEOUT = $(shell awk 'BEGIN { printf "%d", $(HOURS) * 3600 + 1800 }')
soak: deps $(if $(filter debug,$(SOAK_KVER)),modules-debug,modules-6.12) tools
	VM_TIMEOUT=$(SOAK_VM_TIMEOUT) bash tools/vm.sh --kver $(SOAK_KVER) tests/soak.sh \
		HOURS=$(HOURS) SEED=$(SEED)

# Ours against Debian's ib_srpt and nvmet-rdma (tools/bench.sh, not part of
# check): make bench [ROUNDS=3] [RUNTIME=8] [TARGETS=ours,srq,stock,nvmet]
# [WORKLOADS=all] [CH_JOBS=all, e.g. 1:1,2:2] [BASE=<rev>: target "base" is
# the module as of that git rev] [TRACE=1: target CPU from the function_graph
# tracer] [GRAPH=f,g: and what these call, per call path, GRAPH_DEPTH=4
# levels]; build/bench/bench.md and bench.png.
ROUNDS ?= 3
RUNTIME ?= 8
TARGETS ?= ours,srq,stock,nvmet
WORKLOADS ?= all
CH_JOBS ?= all
BASE ?=
TRACE ?= 0
GRAPH ?=
GRAPH_DEPTH ?= 4
bench: deps modules-6.12 tools
	bash tools/bench.sh ROUNDS=$(ROUNDS) RUNTIME=$(RUNTIME) TARGETS=$(TARGETS) \
		WORKLOADS=$(WORKLOADS) CH_JOBS=$(CH_JOBS) BASE=$(BASE) TRACE=$(TRACE) \
		GRAPH=$(GRAPH) GRAPH_DEPTH=$(GRAPH_DEPTH)

# Both kernels, W=1 and sparse: what must stay warning-free.
lint:
	bash tools/lint.sh

# The default set on the Debian 6.12 kernel, then the core set (scenarios
# marked "# core:") on Debian 12's 6.1 kernel; tests/run.sh builds the
# modules under test (build/ko/<release>/) and the tools first.
check: deps unit intree
	bash tests/run.sh --check

# Every scenario of check on the 6.1 kernel.
check-6.1: deps
	bash tests/run.sh --kver 6.1

# The long stress scenarios, marked "# long:" (not part of check: with them
# the default run would not fit CI's 90 minutes on a slow 2-core machine).
check-long: deps
	bash tests/run.sh --long

# Ours as drivers/infiniband/ulp/srpt of Debian's linux-source-6.12 (unpacked
# once per machine into /var/tmp/ib_srpt-intree), built there with its Kconfig and Makefile and the
# Debian config; fails on any warning (tools/intree.sh).
intree:
	bash tools/intree.sh

# make install/uninstall and dkms inside a guest of each kernel
# (tests/23-install.sh, not part of check: about 14 minutes a kernel).
check-install: deps
	bash tests/run.sh 23-install
	bash tests/run.sh --kver 6.1 23-install

# Every scenario with the TPG's use_srq=1 (not part of check): channels
# receive through their device's shared receive queue.
check-srq: deps unit
	bash tests/run.sh --srq $(TESTS)

# The same scenarios on soft-iWARP instead of soft-RoCE (not part of check):
# siw.ko, which Debian's kernels lack, is built from Debian's linux-source
# by tools/build-siw.sh (cached in build/siw/<release>/).
check-siw: deps
	bash tools/build-siw.sh $(patsubst linux-headers-%,%,$(notdir $(KDIR)))
	bash tests/run.sh --siw

# A longer pass of tests/19-fuzz-under-io.sh (not part of check):
# make fuzz-long CASES=N [SEED=S] [IBCM_CASES=N] [FUZZ_KVER=debug], logs in
# build/logs/fuzz-long-<kernel>-seed<S> (one directory per seed); the VM
# may take FUZZ_VM_TIMEOUT seconds (default: 10 cases/s, 2 s an IB CM
# login, plus 10 minutes; 4 times that on the debug kernel).
CASES ?= 20000
SEED ?= 1
IBCM_CASES ?= 300
FUZZ_KVER ?= 6.12
FUZZ_VM_TIMEOUT ?= $(shell echo $$(( (600 + $(CASES) / 10 + 2 * $(IBCM_CASES)) * $(if $(filter debug,$(FUZZ_KVER)),4,1) )))
fuzz-long: deps $(if $(filter debug,$(FUZZ_KVER)),modules-debug,modules-6.12) tools
	VM_TIMEOUT=$(FUZZ_VM_TIMEOUT) bash tools/vm.sh --kver $(FUZZ_KVER) \
		--logdir build/logs/fuzz-long-$(FUZZ_KVER)-seed$(SEED) tests/19-fuzz-under-io.sh \
		CASES=$(CASES) SEED=$(SEED) IBCM_CASES=$(IBCM_CASES)

# User-space helpers the scenarios run inside the guest (it shares the
# host's root, so they are built here): the raw SRP initiator.
TOOLS_CFLAGS ?= -O2 -g -Wall -Wextra -Werror
tools: build/srp-client build/srp-fuzz build/srp-discover ibcm-test

# The IB CM test initiator (a kernel module the guest loads; RoCE has no SA
# for ib_srp's IB CM logins), for each kernel with headers here.
ibcm-test:
	for k in $(notdir $(KDIR) $(KDIR61)); do \
		bash tools/ibcm-test/build.sh $${k#linux-headers-} >/dev/null || exit 1; \
	done

# The raw SRP initiators share the connection and SCSI layers in tools/srp/.
SRP_LIB = tools/srp/srp-conn.c tools/srp/srp-scsi.c
SRP_LIB_H = tools/srp/srp-conn.h tools/srp/srp-scsi.h tests/unit/shim/scsi/srp.h

build/srp-client: tools/srp-client.c tools/srp-client-load.c tools/srp-client.h \
		$(SRP_LIB) $(SRP_LIB_H)
	@mkdir -p build
	$(CC) $(TOOLS_CFLAGS) -o $@ tools/srp-client.c tools/srp-client-load.c \
		$(SRP_LIB) -lrdmacm -libverbs

# The wire fuzzer (tests/19-fuzz-under-io.sh).
build/srp-fuzz: tools/srp-fuzz.c tools/srp-fuzz-iu.c tools/srp-fuzz.h \
		$(SRP_LIB) $(SRP_LIB_H)
	@mkdir -p build
	$(CC) $(TOOLS_CFLAGS) -o $@ tools/srp-fuzz.c tools/srp-fuzz-iu.c \
		$(SRP_LIB) -lrdmacm -libverbs

# SRP target discovery with DM MADs, for RoCE too (no SA needed).
build/srp-discover: tools/srp-discover.c
	@mkdir -p build
	$(CC) $(TOOLS_CFLAGS) -o $@ $< -libumad

# Packages the build and the tests need (idempotent apt-get install).
deps:
	bash tools/install-deps.sh

# User-space tests of the SRP wire format (srpt_proto.c), see tests/unit.
unit:
	$(MAKE) -C tests/unit test

fuzz:
	$(MAKE) -C tests/unit fuzz

demo:
	bash tools/demo.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tests/unit clean
	rm -f build/srp-client build/srp-fuzz build/srp-discover

.PHONY: all deps modules modules-6.12 modules-6.1 modules-debug intree install uninstall dkms-install dkms-uninstall lint check check-6.1 check-long check-debug check-install check-siw check-srq faults soak fuzz-long bench unit fuzz demo clean tools ibcm-test
endif
