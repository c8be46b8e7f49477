#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The cross-call rate of a workload, for workload.ipi_prob and
# ipi_targets (docs/scenarios.md, "Cross-calls"): runs COMMAND and prints,
# per CPU and in all, the interrupts a second that /proc/interrupts counts
# as function calls (CAL: smp_call_function's interrupts), TLB
# shootdowns (TLB) and reschedules (RES), and the CPUs' busy and steal
# shares from /proc/stat over the same time.  Run it in the guest whose
# workload a scenario stands for, as in:
#
#	tools/ipi-rate.sh make -j32
#
# Linux only.  Those three lines are x86's; a kernel without them (other
# architectures name their interrupts otherwise) gets a note to look for
# its own lines in /proc/interrupts, and the shares alone.
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
	# busy: user nice system irq softirq; idle: idle iowait; steal
	awk '$1 == "cpu" { print "STAT", $2 + $3 + $4 + $7 + $8, $5 + $6, $9 }' \
		/proc/stat
	# the clock, in seconds since boot (10 ms steps)
	awk '{ print "TIME", $1 }' /proc/uptime
}

before=$(mktemp)
after=$(mktemp)
trap 'rm -f "$before" "$after"' EXIT
snap >"$before"
rc=0
"$@" || rc=$?
snap >"$after"

awk -v rc="$rc" '
FNR == NR { for (i = 2; i <= NF; i++) b[$1, i] = $i; next }
$1 == "TIME" { el = $2 - b["TIME", 2]; next }
$1 == "STAT" {
	busy = $2 - b["STAT", 2]; idle = $3 - b["STAT", 3]
	steal = $4 - b["STAT", 4]; all = busy + idle + steal
	if (all > 0)
		stat = sprintf("busy %.1f%%, steal %.1f%% of the CPUs", \
			       100 * busy / all, 100 * steal / all)
	else
		stat = "busy and steal unknown (too short a run)"
	next
}
{
	lines++
	d[lines] = $0
}
END {
	for (k = 1; k <= lines; k++) {
		n = split(d[k], f, " ")
		sum = 0
		line = sprintf("%-4s", f[1])
		for (i = 2; i <= n; i++) {
			c = f[i] - b[f[1], i]
			sum += c
			if (el > 0)
				line = line sprintf(" %8.1f", c / el)
			else
				line = line sprintf(" %8d", c)
		}
		if (el > 0)
			printf "%s   all %.1f/s, per CPU %.2f/s\n", line, \
			       sum / el, sum / el / (n - 1)
		else
			printf "%s   (counts: too short for a rate)\n", line
	}
	if (!lines)
		print "no CAL, TLB or RES line in /proc/interrupts: look " \
		      "there for this architecture'"'"'s inter-processor interrupts"
	printf "%.2f s, exit %d, %s\n", el, rc, stat
}' "$before" "$after"
exit "$rc"
