/* SPDX-License-Identifier: MIT */
/*
 * One simulation run: build the machine, hypervisor, locks and workload
 * from a validated config, run it, and return every figure as a results
 * struct.  No file or database I/O happens here (docs/design.md).
 *
 * The result columns are declared once, below, and drive the struct, the
 * store's tables and the report: X(name, kind, help) with kind I (integer)
 * or R (real).
 */
#ifndef QSIM_TOOLS_MODEL_H
#define QSIM_TOOLS_MODEL_H

#include "hypervisor/hv.h"
#include "locks/lock_events.h"
#include "sim/workload.h"
#include "tools/config.h"

#define QSIM_LOCK_COLS(X)                                                      \
	X(acquisitions, I, "acquisitions after the warm-up")                   \
	X(throughput, R, "acquisitions per simulated second")                  \
	X(lat_mean_ns, R, "mean acquisition latency: lock() called to held")   \
	X(lat_p50_ns, R, "acquisition latency, median")                        \
	X(lat_p90_ns, R, "acquisition latency, 90th percentile")               \
	X(lat_p99_ns, R, "acquisition latency, 99th percentile")               \
	X(lat_p999_ns, R, "acquisition latency, 99.9th percentile")            \
	X(lat_max_ns, R, "acquisition latency, maximum")                       \
	X(hold_mean_ns, R, "mean hold time: held to unlock()")                 \
	X(handoffs, I, "releases with waiters that led to an acquisition")     \
	X(handoff_mean_ns, R, "mean release-to-next-acquire with waiters")     \
	X(handoff_p99_ns, R, "hand-off latency, 99th percentile")              \
	X(lhp_events, I, "lock-holder preemptions: holder undispatched")       \
	X(lhp_total_ns, R, "total time holders spent undispatched")            \
	X(lhp_max_ns, R, "longest single holder preemption")                   \
	X(lhp_waiter_ns, R, "waiter time spent while the holder was out")      \
	X(lwp_events, I, "hand-offs delayed by the next holder not running")   \
	X(lwp_total_ns, R, "total hand-off delay from waiter preemption")      \
	X(lwp_max_ns, R, "longest hand-off delay from waiter preemption")      \
	X(read_acquisitions, I, "of them as a reader (rwlocks; schema 3)")     \
	X(write_acquisitions, I, "of them as a writer or plain locker")        \
	X(read_lat_mean_ns, R, "readers' mean acquisition latency")            \
	X(read_lat_p99_ns, R, "readers' acquisition latency, 99th percentile") \
	X(write_lat_mean_ns, R, "writers' mean acquisition latency")           \
	X(write_lat_p99_ns, R,                                                 \
	  "writers' acquisition latency, 99th percentile")                     \
	X(long_holds, I, "write acquisitions held for long_hold (schema 8)")   \
	X(nested, I,                                                           \
	  "acquisitions made holding a lock of lower index (nest_prob, "       \
	  "schema 13)")                                                        \
	X(unfinished_waits, I,                                                 \
	  "waits under way at the end, in the latency at their wait so far "   \
	  "(schema 15)")

#define QSIM_VCPU_COLS(X)                                                   \
	X(acquisitions, I, "lock acquisitions after the warm-up")           \
	X(run_ns, R, "dispatched, doing useful work")                       \
	X(spin_ns, R, "dispatched, spinning in a lock wait")                \
	X(hcall_ns, R, "dispatched, inside hcalls")                         \
	X(preempted_ns, R, "runnable but not dispatched")                   \
	X(idle_ns, R, "ceded or halted: not runnable")                      \
	X(spin_wakeups, I, "spin waits woken by a write to a watched line") \
	X(read_acquisitions, I, "of them as a reader (schema 3)")           \
	X(write_acquisitions, I, "of them as a writer or plain locker")     \
	X(units, I, "units of work finished, the workload's figure (schema 10)")

#define QSIM_COL_TYPE_I int64_t
#define QSIM_COL_TYPE_R double

struct qsim_lock_result {
#define X(name, kind, help) QSIM_COL_TYPE_##kind name;
	QSIM_LOCK_COLS(X)
#undef X
	struct sim_hist latency, hold, handoff, read_latency, write_latency;
};

struct qsim_vcpu_result {
#define X(name, kind, help) QSIM_COL_TYPE_##kind name;
	QSIM_VCPU_COLS(X)
#undef X
	struct hv_vcpu_stats hv;
	uint64_t lock_events[LOCKEVENT_NUM];
};

/* lparstat-style figures per partition (0 = the guest under test). */
struct qsim_partition_result {
	unsigned int vcpus;
	uint64_t acquisitions; /* of its locks, 0 for hogs */
	double entitlement;    /* processing units */
	bool capped;
	unsigned int weight;
	double physc;	 /* physical CPUs consumed, on average */
	double entc_pct; /* physc as a percentage of the entitlement */
};

struct qsim_counter {
	const char *name;
	uint64_t value;
};

struct qsim_results {
	/* Stopped by a signal (sim_interrupt) at interrupted_ps: the
	 * figures cover the measured time before it. */
	bool interrupted;
	sim_time_t interrupted_ps;
	enum wl_violation status;
	sim_time_t violation_ps;
	char *violation_msg;
	char *report; /* the full violation report, or NULL */
	char *replay; /* command line that reproduces this run */
	char *trace;  /* every traced event kept, on a violation */
	sim_time_t measured_ps;
	unsigned int nlocks, nvcpus, npcpus, nparts;
	struct qsim_partition_result *parts;
	struct qsim_lock_result *locks;
	struct qsim_vcpu_result *vcpus;
	GArray *counters; /* struct qsim_counter */
	GArray *dtl;	  /* struct hv_dtl_record, when run.dtl_records */
	uint64_t lock_events[LOCKEVENT_NUM]; /* totals over vCPUs */
	/* kernel-style derived averages (0 when the divisor is 0) */
	double pv_hash_hops_avg, pv_latency_kick_ns, pv_latency_wake_ns;
	uint64_t events, switches;
	double host_seconds;
	/* pCPU time split over the measured interval, fractions of P*T */
	double util_run, util_spin, util_hcall, util_dispatch, util_idle;
	/* fairness over per-vCPU acquisitions */
	int64_t acq_min, acq_max;
	double acq_mean, jain;
	uint64_t units; /* units of work over all the guest's vCPUs */
	char *stat_log; /* locktorture's statistics lines, or NULL */
};

/* Run @cfg.  Returns false only on internal errors (@error set). */
/* The engine's machine as @cfg describes it. */
void qsim_model_topo(const struct qsim_config *cfg, struct sim_topo *topo);
bool qsim_model_run(const struct qsim_config *cfg, struct qsim_results *res,
		    GError **error);
/* What a tool may watch while a run goes (each NULL: not watched). */
struct qsim_hooks {
	sim_tl_fn tl_fn; /* every timeline record (sim/engine.h) */
	/* the statistics lines every stat_interval, as made (and then for
	 * any workload type) */
	void (*stat_fn)(void *data, const char *block);
	/* the simulated time, a few times a host millisecond */
	void (*progress_fn)(void *data, sim_time_t now);
	void *data;
};

/* The same, watched by @hooks. */
bool qsim_model_run_hooks(const struct qsim_config *cfg,
			  struct qsim_results *res,
			  const struct qsim_hooks *hooks, GError **error);
void qsim_results_clear(struct qsim_results *res);
/* Exit code per docs/cli.md: 0 ok, 2 violation. */
int qsim_results_exit_code(const struct qsim_results *res);
char *qsim_replay_command(const struct qsim_config *cfg);
/* A run's status and violation kind as the runs table and --json have
 * them: "ok" or "violation", and the kind (NULL when ok). */
const char *qsim_status_text(enum wl_violation v);
const char *qsim_violation_kind(enum wl_violation v);
/* @path as typed when the shell would read it so, else quoted. */
char *qsim_shell_word(const char *path);

#endif
