#!/bin/sh
# A one-node Slurm cluster on this machine, for the tests of
# `qsim sweep --emit-jobs` (tests/test_cluster.c): munged, slurmctld and
# slurmd, all under DIR with their own socket, ports, state and logs, run
# as the current user (root in CI).  Prints the SLURM_CONF to export.
#
#   tools/slurm-node.sh start DIR    start, wait until the node is idle
#   tools/slurm-node.sh stop DIR     stop the daemons
set -u
cmd=${1:?start or stop}
d=${2:?a directory}
case $cmd in
stop)
	# Signal each daemon and wait (up to 10 s) until it has gone: slurmctld
	# writes its state files as it exits, into a folder the caller may be
	# about to remove.
	pids=
	for p in slurmd slurmctld munged; do
		[ -f "$d/$p.pid" ] || continue
		pid=$(cat "$d/$p.pid")
		kill "$pid" 2>/dev/null && pids="$pids $pid"
	done
	for _ in $(seq 100); do
		alive=
		for pid in $pids; do
			kill -0 "$pid" 2>/dev/null && alive=1
		done
		[ -z "$alive" ] && break
		sleep 0.1
	done
	exit 0 ;;
start) ;;
*) echo "slurm-node.sh: start or stop" >&2; exit 1 ;;
esac
for t in munged slurmctld slurmd sinfo; do
	command -v "$t" >/dev/null 2>&1 ||
		[ -x "/usr/sbin/$t" ] || { echo "slurm-node.sh: no $t" >&2; exit 1; }
done
PATH=$PATH:/usr/sbin
mkdir -p "$d/state" "$d/spool" "$d/munge" || exit 1
chmod 700 "$d/munge"
host=$(hostname -s)
user=$(id -un)
# Ports from the directory's name, so that two test runs do not collide.
base=$(( 20000 + $(printf '%s' "$d" | cksum | cut -d' ' -f1) % 20000 ))
[ -f "$d/munge/key" ] ||
	dd if=/dev/urandom of="$d/munge/key" bs=1024 count=1 2>/dev/null
chmod 600 "$d/munge/key"
munged --socket="$d/munge/socket" --key-file="$d/munge/key" \
	--pid-file="$d/munged.pid" --log-file="$d/munged.log" \
	--seed-file="$d/munge/seed" --force || exit 1
cpus=$(nproc)
cat > "$d/slurm.conf" <<CONF
ClusterName=qsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/socket
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$d/slurm.conf"
slurmctld -f "$SLURM_CONF" || { cat "$d/slurmctld.log" >&2; exit 1; }
slurmd -f "$SLURM_CONF" || { cat "$d/slurmd.log" >&2; exit 1; }
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	if [ $i -gt 60 ]; then
		echo "slurm-node.sh: the node did not come up" >&2
		tail -5 "$d/slurmctld.log" "$d/slurmd.log" >&2
		exit 1
	fi
	sleep 0.5
done
echo "$SLURM_CONF"
