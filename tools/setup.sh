#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Set up qsim on a Debian 12 machine: install the Debian packages it needs
# (only those missing), configure and build.  Used by both README commands.
#
#   tools/setup.sh            install, configure, build ./build/qsim
#   tools/setup.sh --test     ... then run the whole test suite, the
#                             unit tests again under ASan+UBSan, and the
#                             kernel-tree tests against the fixture tree
#                             (build-kfixture, label ktree)
#   tools/setup.sh --kernel-tree DIR
#                             build ./build/qsim with the lock types of the
#                             kernel tree DIR (docs/kernel-tree.md); a later
#                             setup without it keeps that tree, and
#                             --kernel-tree none drops it
#
# Warnings are errors when CI is set (as CI sets it) or with --werror.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

test=0
werror=OFF
ktree=""
[ "${CI:-}" = "true" ] && werror=ON
while [ $# -gt 0 ]; do
	case "$1" in
	--test) test=1 ;;
	--werror) werror=ON ;;
	--kernel-tree)
		[ $# -ge 2 ] || { echo "setup.sh: --kernel-tree needs a directory" >&2; exit 1; }
		# from the folder it was called in (resolved before the cd)
		if [ "$2" = none ]; then
			ktree=none
		elif [ -d "$2" ]; then
			ktree=$(cd "$2" && pwd)
		else
			echo "setup.sh: --kernel-tree $2: not a directory" >&2
			exit 1
		fi
		shift ;;
	-h|--help) sed -n '4,/^# Warnings/p' "$0"; exit 0 ;;
	*) echo "setup.sh: unknown option '$1'" >&2; exit 1 ;;
	esac
	shift
done
cd "$top"

packages=(gcc make cmake pkg-config libglib2.0-dev check libsubunit-dev
	  libsqlite3-dev libjson-glib-dev gnuplot-nox parallel clang-format
	  python3 git)
# The test run also fuzzes, with clang's libFuzzer, and runs sweeps under
# a one-node Slurm (tests/test_cluster.c).
[ "$test" -eq 1 ] && packages+=(clang libclang-rt-14-dev slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	sudo=""
	[ "$(id -u)" -ne 0 ] && sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
# Quiet but for what it found in a kernel tree (docs/kernel-tree.md, step
# 2: the version and lock files it builds, or that it has none of a kind).
# No --kernel-tree: the tree configured before stays (none on a clone).
kt_opt=()
[ "$ktree" = none ] && kt_opt=(-DQSIM_KERNEL_TREE=)
[ -n "$ktree" ] && [ "$ktree" != none ] && kt_opt=(-DQSIM_KERNEL_TREE="$ktree")
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQSIM_WERROR="$werror" \
	"${kt_opt[@]}" | { grep '^-- kernel tree' || true; }
cmake --build build -j"$jobs"

if [ "$test" -eq 1 ]; then
	(cd build && ctest --output-on-failure -j"$jobs" -LE bench)
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DQSIM_SANITIZE=ON \
		-DQSIM_WERROR="$werror" >/dev/null
	cmake --build build-asan -j"$jobs"
	# The unit tests, and the commands end to end (golden: every qsim
	# command a user types, its leaks included).
	(cd build-asan && ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j"$jobs" -L 'unit|golden')
	# Without the checks inside qsim's lock code: the observers outside
	# must still catch every catalogued mutant (docs/torture.md).
	cmake -S . -B build-nochecks -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DQSIM_WERROR="$werror" -DQSIM_LOCK_CHECKS=OFF >/dev/null
	cmake --build build-nochecks -j"$jobs" --target test_torture
	(cd build-nochecks && ctest --output-on-failure -j"$jobs" -L torture)
	# Kernel-tree mode, built against the fixture tree (no kernel code).
	cmake -S . -B build-kfixture -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DQSIM_WERROR="$werror" \
		-DQSIM_KERNEL_TREE="$top/tests/kernel-fixture" >/dev/null
	cmake --build build-kfixture -j"$jobs" --target qsim test_ktree
	(cd build-kfixture && ctest --output-on-failure -j"$jobs" -L ktree)
	# Fuzzing, bounded: each target from the committed seed corpus (a
	# scratch copy: the run adds to it), under ASan+UBSan and leak
	# checks; a crash, a finding or a leak fails the run.
	CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DQSIM_WERROR="$werror" -DQSIM_FUZZ=ON >/dev/null
	cmake --build build-fuzz -j"$jobs" --target fuzz_config fuzz_set
	for t in config set; do
		rm -rf "build-fuzz/corpus-$t"
		cp -r "tests/fuzz/corpus/$t" "build-fuzz/corpus-$t"
		"build-fuzz/tests/fuzz/fuzz_$t" -max_total_time="${QSIM_FUZZ_SECONDS:-60}" \
			-max_len=8192 -print_final_stats=1 \
			"build-fuzz/corpus-$t" 2>"build-fuzz/fuzz_$t.log" ||
			{ tail -40 "build-fuzz/fuzz_$t.log"; exit 1; }
		grep -E "^stat::number_of_executed_units|^stat::average_exec_per_sec" \
			"build-fuzz/fuzz_$t.log" | sed "s/^/fuzz_$t: /"
	done
fi
