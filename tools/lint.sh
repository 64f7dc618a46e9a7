#!/bin/bash
# Static checks that must stay clean: W=1 + sparse builds against the
# Debian 6.12 and 6.1 headers, calls between files one way
# (tools/file-calls.py), kernel-doc, checkpatch --strict.
# Builds happen in copies under build/lint-<kver> so the tree's own
# ib_srpt.ko (6.12) is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
# The module's sources only (top level): tests/unit and tools/ are user space.
. tools/module-srcs.sh
mapfile -t srcs < <(module_files .)
mapfile -t csrcs < <(module_srcs .)
rc=0

kdirs=()
for pat in '6.12.*-amd64' '6.1.*-amd64'; do
	k=$(ls -d /usr/src/linux-headers-$pat 2>/dev/null | sort -V | tail -1)
	[ -n "$k" ] && kdirs+=("$k")
done
[ ${#kdirs[@]} -eq 2 ] || { echo "lint: need 6.12 and 6.1 headers (tools/install-deps.sh)"; exit 1; }

for k in "${kdirs[@]}"; do
	out=$top/build/lint-$(basename "$k")
	rm -rf "$out"
	mkdir -p "$out"
	cp "${srcs[@]}" "$out/"
	log=$out/build.log
	if ! make -C "$k" M="$out" CONFIG_INFINIBAND_SRPT=m W=1 C=2 modules >"$log" 2>&1; then
		echo "lint: build against $k failed:"; cat "$log"; rc=1; continue
	fi
	if grep -E "warning:|error:" "$log"; then
		echo "lint: $(basename "$k"): warnings above"; rc=1
	else
		echo "lint: $(basename "$k"): W=1 + sparse clean"
	fi
done

# Calls between the module's files go one way, each through its header.
if python3 tools/file-calls.py . >/dev/null; then
	echo "lint: file calls one way, through the files' headers"
else
	rc=1
fi

kdoc=${kdirs[0]}/scripts/kernel-doc
[ -x "$kdoc" ] || kdoc=$(ls /usr/src/linux-headers-6.12.*-common/scripts/kernel-doc 2>/dev/null | tail -1)
if "$kdoc" -none -Werror "${csrcs[@]}"; then
	echo "lint: kernel-doc clean"
else
	rc=1
fi

cp_dir=$top/build/checkpatch
if [ ! -f "$cp_dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$cp_dir"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$cp_dir" --strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch
fi
if perl "$cp_dir/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES -f "${csrcs[@]}"; then
	echo "lint: checkpatch --strict clean"
else
	rc=1
fi
exit $rc
