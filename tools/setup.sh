#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Set up qsim on a Debian 12 machine: install the Debian packages it needs
# (only those missing), configure and build.  Used by both README commands.
#
#   tools/setup.sh            install, configure, build ./build/qsim
#   tools/setup.sh --test     ... then run the whole test suite, and the
#                             unit tests again under ASan+UBSan
#
# Warnings are errors when CI is set (as CI sets it) or with --werror.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

test=0
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
for arg in "$@"; do
	case "$arg" in
	--test) test=1 ;;
	--werror) werror=ON ;;
	-h|--help) sed -n '4,11p' "$0"; exit 0 ;;
	*) echo "setup.sh: unknown option '$arg'" >&2; exit 1 ;;
	esac
done

packages=(gcc make cmake pkg-config libglib2.0-dev check libsubunit-dev
	  libsqlite3-dev clang-format python3 git)
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
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQSIM_WERROR="$werror" >/dev/null
cmake --build build -j"$jobs"

if [ "$test" -eq 1 ]; then
	(cd build && ctest --output-on-failure -j"$jobs" -LE bench)
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DQSIM_SANITIZE=ON \
		-DQSIM_WERROR="$werror" >/dev/null
	cmake --build build-asan -j"$jobs"
	(cd build-asan && ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j"$jobs" -L unit)
fi
