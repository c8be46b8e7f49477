#!/bin/sh
# SPDX-License-Identifier: MIT
# Fail if any C source or header differs from clang-format's output.
set -eu
cf=${1:-clang-format}
bad=0
for f in $(git ls-files --cached --others --exclude-standard '*.c' '*.h' 2>/dev/null || find sim locks hypervisor tools tests -name '*.[ch]'); do
	[ -f "$f" ] || continue
	if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "not clang-format clean: $f" >&2
		bad=1
	fi
done
exit $bad
