#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The cross-call rate of a workload, for workload.ipi_prob and
# ipi_targets (docs/scenarios.md, "Cross-calls"): runs COMMAND and prints,
# per CPU and in all, the interrupts /proc/interrupts counts as function
# calls (CAL: smp_call_function, TLB shootdowns on current x86 kernels
# among them), TLB shootdowns (TLB, where the kernel counts them apart)
# and reschedules (RES) a second, with the CPUs' busy share from
# /proc/stat over the same time.  Run it in the guest whose workload a
# scenario stands for, as in:
#
#	tools/ipi-rate.sh make -j32
#
# Linux only; the lines a kernel lacks (powerpc names them differently:
# "Function call interrupts" is there too) are left out.
set -eu

if [ $# -eq 0 ]; then
	echo "usage: tools/ipi-rate.sh COMMAND [ARG...]" >&2
	exit 1
fi

snap() {
	awk '
	/^ *CPU/ { ncpu = NF; next }
	$1 == "CAL:" || $1 == "TLB:" || $1 == "RES:" {
		line = $1
		for (i = 2; i <= ncpu + 1; i++)
			line = line " " $i
		print line
	}' /proc/interrupts
	awk '$1 == "cpu" { print "STAT", $2 + $3 + $4 + $7 + $8, $5 + $6 }' \
		/proc/stat
}

before=$(mktemp)
after=$(mktemp)
trap 'rm -f "$before" "$after"' EXIT
snap >"$before"
t0=$(date +%s.%N)
rc=0
"$@" || rc=$?
t1=$(date +%s.%N)
snap >"$after"

awk -v t0="$t0" -v t1="$t1" -v rc="$rc" '
FNR == NR { for (i = 2; i <= NF; i++) b[$1, i] = $i; n[$1] = NF; next }
{
	el = t1 - t0
	if ($1 == "STAT") {
		busy = $2 - b[$1, 2]; idle = $3 - b[$1, 3]
		stat = sprintf("busy %.1f%% of the CPUs", \
			       100 * busy / (busy + idle))
		next
	}
	sum = 0
	line = sprintf("%-4s", $1)
	for (i = 2; i <= NF; i++) {
		d = $i - b[$1, i]
		sum += d
		line = line sprintf(" %8.1f", d / el)
	}
	printf "%s   all %.1f/s, per CPU %.2f/s\n", line, sum / el, \
	       sum / el / (NF - 1)
}
END {
	printf "%.1f s, exit %d, %s\n", t1 - t0, rc, stat
}' "$before" "$after"
exit "$rc"
