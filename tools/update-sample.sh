#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Re-measure the sample run printed in README.md and docs/cli.md: run
# scenarios/2x-overcommit.ini with the built binary and put its summary in
# place of the old one (the block from "qsim: scenarios/2x-overcommit.ini"
# to "stored as run").  Run from the source tree after building:
#
#     tools/update-sample.sh [build-dir]
#
# The physics changes the figures; this keeps the docs in step: re-measure
# in the same commit as the change.
set -eu
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/qsim" run scenarios/2x-overcommit.ini --db "$tmp/results.db" |
	sed "s|$tmp/results.db|results.db|" >"$tmp/out"
for f in README.md docs/cli.md; do
	awk -v out="$tmp/out" '
		/^    qsim: scenarios\/2x-overcommit.ini, seed 1$/ && !done {
			while ((getline line < out) > 0)
				print (line == "" ? "" : "    " line)
			skip = 1; done = 1; next
		}
		skip && /^    stored as run/ { skip = 0; next }
		!skip { print }
	' "$f" >"$tmp/new"
	cp "$tmp/new" "$f"
done
git --no-pager diff --stat -- README.md docs/cli.md
