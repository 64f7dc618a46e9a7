#!/bin/bash
# Sourced: the module's own source files, as the Makefile's KO_SRCS lists
# them (no git needed: a release tarball builds and tests too).
#
#   module_srcs DIR    the C sources and headers at the top of DIR (not
#                      kbuild's generated *.mod.c), one a line
#   module_files DIR   the same plus Makefile and Kconfig: what a copy of
#                      the sources that builds the module holds
module_srcs() {
	local f
	for f in "$1"/*.c "$1"/*.h; do
		[ -e "$f" ] || continue
		f=${f##*/}
		[[ $f == *.mod.c ]] || echo "$f"
	done
}
module_files() {
	module_srcs "$1"
	echo Makefile
	echo Kconfig
}
