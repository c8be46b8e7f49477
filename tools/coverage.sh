#!/bin/sh
# Line coverage of the lock files under torture (issue #16; docs/torture.md).
#
#   tools/coverage.sh [BUILD]    BUILD: a build configured with
#                                -DQSIM_COVERAGE=ON (default build-cov,
#                                configured and built here if missing)
#
# Runs `qsim torture` on pv_qspinlock under each pv mapping, on
# ppc_qspinlock and on qspinlock (SEEDS each, default 100), then gcov on
# the lock objects, and prints each file's line coverage and every line
# never executed.  CTest runs it as the `coverage` label of such a build.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-$src/build-cov}
seeds=${SEEDS:-100}
if [ ! -x "$b/qsim" ]; then
	cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Debug -DQSIM_COVERAGE=ON \
		>/dev/null
	cmake --build "$b" -j"$(nproc)" --target qsim >/dev/null
fi
b=$(cd "$b" && pwd)
obj=$b/CMakeFiles/qsim_locks.dir/locks
[ -f "$obj/pv_qspinlock.c.gcno" ] || {
	echo "coverage.sh: $b is not a -DQSIM_COVERAGE=ON build" >&2
	exit 1
}
find "$b" -name '*.gcda' -delete
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for m in splpar-undirected splpar-directed splpar-cede kvm; do
	"$b/qsim" torture --lock pv_qspinlock --mapping "$m" --seeds "$seeds" \
		--no-store --out "$out/t" >/dev/null 2>&1
done
"$b/qsim" torture --lock ppc_qspinlock --seeds "$seeds" --no-store \
	--out "$out/t" >/dev/null 2>&1
"$b/qsim" torture --lock qspinlock --seeds "$seeds" --no-store \
	--out "$out/t" >/dev/null 2>&1
for tu in pv_qspinlock ppc_qspinlock qspinlock; do
	mkdir -p "$out/$tu"
	(cd "$out/$tu" && gcov -l -o "$obj" "$obj/$tu.c.gcno" >/dev/null 2>&1)
done
# file (as compiled in which object): executed / executable lines
report() { # $1 object, $2 file
	f=$(ls "$out/$1/"*"##$2.gcov" 2>/dev/null | head -1)
	[ -n "$f" ] || return 0
	awk -v name="$2 (in $1.c)" -F: '
		$1 ~ /#####/ { miss++; lines = lines sprintf("    %5d: %s\n", $2, substr($0, index($0, $3))) }
		$1 ~ /^ *[0-9]+\*?$/ { hit++ }
		END { printf "%-44s %4d of %4d lines  %5.1f%%\n", name, hit, hit + miss, 100 * hit / (hit + miss);
		      printf "%s", lines }' "$f"
}
echo "line coverage under torture ($seeds seeds per lock and mapping):"
report pv_qspinlock pv_qspinlock.c
report pv_qspinlock qspinlock_slowpath.h
report qspinlock qspinlock_slowpath.h
report ppc_qspinlock ppc_qspinlock.c
