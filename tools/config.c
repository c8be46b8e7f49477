// SPDX-License-Identifier: MIT
/*
 * Scenario loading and validation; see config.h.  CFG_KEYS below is the
 * single declaration of every scenario key.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "tools/config.h"
#include "sim/mm.h"
#include "hypervisor/hv.h"
#include "locks/lock.h"
#include "sim/workload.h"

G_DEFINE_QUARK(qsim - config - error - quark, cfg_error)

enum cfg_type {
	CT_TIME,
	CT_DUR,
	CT_UINT,
	CT_U64,
	CT_BOOL,
	CT_ENUM,
	CT_PROB,   /* a probability: a decimal from 0 to 1 */
	CT_LIST,   /* comma-separated durations, checked in cross_checks */
	CT_PU,	   /* processing units, 0.05 steps, or auto (stored as 0) */
	CT_ODUR,   /* a duration, or nothing (struct cfg_odur) */
	CT_RATIO,  /* auto (stored as 0) or a decimal from 0.01 to 64 */
	CT_SHA256, /* nothing, or 64 hexadecimal digits (stored lower case) */
};

/* Defaults marked PRESET come from the machine preset. */
#define PRESET NULL

struct cfg_preset {
	const char *name;
	unsigned int smt, cores_per_chip, line_bytes, page_bytes;
	unsigned int cache_cores; /* cores sharing an L2 */
	const char *smt_tput;	  /* core throughput by busy threads, percent */
	unsigned int hmt_low;
	const char *atomics;
	bool relax_yields;
	sim_time_t ple_window_ps; /* KVM's PLE window, 0: no such hardware */
	struct sim_cost cost;
};

/* Every figure here has its source in docs/cost-model.md (calibration). */
static const struct cfg_preset presets[] = {
	{"power9",
	 4,
	 20,
	 128,
	 65536,
	 2,
	 "100,143,171,200",
	 14,
	 "llsc",
	 false,
	 0,
	 {.hit_ps = 1000,
	  .smt_ps = 4000,
	  .chip_ps = 55000,
	  .remote_ps = 85000,
	  .mem_ps = 90000,
	  .atomic_ps = 9000,
	  .relax_ps = 5000,
	  .spin_relax_ps = 5000,
	  .barrier_ps = 15000,
	  .inval_ps = 2000,
	  .read_fanout = 4,
	  .jitter_pct = 25,
	  .near_bias_pct = 0,
	  .hold = false}},
	{"power10",
	 8,
	 15,
	 128,
	 65536,
	 1,
	 "100,200,243,286,314,342,371,400",
	 5,
	 "llsc",
	 true,
	 0,
	 {.hit_ps = 1000,
	  .smt_ps = 4000,
	  .chip_ps = 55000,
	  .remote_ps = 85000,
	  .mem_ps = 90000,
	  .atomic_ps = 9000,
	  .relax_ps = 5000,
	  .spin_relax_ps = 5000,
	  .barrier_ps = 15000,
	  .inval_ps = 2000,
	  .read_fanout = 4,
	  .jitter_pct = 25,
	  .near_bias_pct = 0,
	  .hold = false}},
	{"x86",
	 2,
	 28,
	 64,
	 4096,
	 1,
	 "100,118",
	 5,
	 "locked",
	 true,
	 1365000,
	 {.hit_ps = 1000,
	  .smt_ps = 2000,
	  .chip_ps = 42000,
	  .remote_ps = 125000,
	  .mem_ps = 90000,
	  .atomic_ps = 7000,
	  .relax_ps = 45000,
	  .spin_relax_ps = 45000,
	  .barrier_ps = 11000,
	  .inval_ps = 2000,
	  .read_fanout = 1,
	  .jitter_pct = 25,
	  .near_bias_pct = 0,
	  .hold = true}},
};

const char *const cfg_presets[] = {"power9", "power10", "x86", NULL};

static const char *choice_preset(unsigned int i)
{
	return cfg_presets[i];
}

static const char *choice_policy(unsigned int i)
{
	return hv_policies[i] ? hv_policies[i]->name : NULL;
}

static const char *choice_lock(unsigned int i)
{
	return lk_registry[i] ? lk_registry[i]->name : NULL;
}

static const char *choice_mutant(unsigned int i)
{
	if (i == 0)
		return "none";
	return lk_mutants[i - 1] ? lk_mutants[i - 1]->mutant : NULL;
}

static const char *choice_atomics(unsigned int i)
{
	static const char *const m[] = {"llsc", "locked", NULL};

	return m[i];
}

static const char *choice_workload(unsigned int i)
{
	return i < WL_NTYPES ? wl_type_name((enum wl_type)i) : NULL;
}

static const char *choice_mapping(unsigned int i)
{
	return i < LK_PV_NR ? lk_pv_mapping_name((enum lk_pv_mapping)i) : NULL;
}

static const char *choice_wait_early(unsigned int i)
{
	static const char *const m[] = {"prev-state", "prev-preempted", "none",
					NULL};

	return m[i];
}

static const char *choice_backoff(unsigned int i)
{
	static const char *const m[] = {"percpu", "hashed", NULL};

	return m[i];
}

static const char *choice_steal(unsigned int i)
{
	static const char *const m[] = {"hybrid", "oneshot", "none", NULL};

	return m[i];
}

static const char *choice_pick(unsigned int i)
{
	static const char *const p[] = {"random", "vcpu", "step", NULL};

	return p[i];
}

struct cfg_key {
	const char *section;
	const char *key;
	enum cfg_type type;
	const char *def;
	uint64_t min, max;
	const char *(*choices)(unsigned int i);
	size_t off;
	const char *help;
};

#define OFF(f) offsetof(struct qsim_config, f)
#define T(x)   ((uint64_t)(x))

/* Section order here is the order of the resolved text and of the docs. */
static const struct cfg_key cfg_keys[] = {
	{"run", "duration", CT_TIME, "1s", T(SIM_US), T(1000 * SIM_S), NULL,
	 OFF(duration_ps), "simulated time measured, after the warm-up"},
	{"run", "warmup", CT_TIME, "100ms", 0, T(100 * SIM_S), NULL,
	 OFF(warmup_ps), "simulated time run before measuring"},
	{"run", "seed", CT_U64, "1", 0, CFG_SEED_MAX, NULL, OFF(seed),
	 "seed of every random stream (--seed overrides)"},
	{"run", "dtl_records", CT_BOOL, "false", 0, 0, NULL, OFF(dtl_records),
	 "store every dispatch trace log record (the sums always are)"},

	{"machine", "preset", CT_ENUM, "power9", 0, 0, choice_preset,
	 OFF(preset), "topology and cache-cost preset"},
	{"machine", "pcpus", CT_UINT, "16", 1, 4096, NULL, OFF(pcpus),
	 "physical CPUs (hardware threads) in the shared pool"},
	{"machine", "overcommit", CT_RATIO, "auto", 0, 0, NULL,
	 OFF(overcommit_req),
	 "vCPUs (every partition's) per pool pCPU; when set it derives "
	 "pcpus, rounded to the nearest (at least 1), and overrides it "
	 "(auto: pcpus as given)"},
	{"machine", "smt", CT_UINT, PRESET, 1, 8, NULL, OFF(smt),
	 "hardware threads per core"},
	{"machine", "cores_per_chip", CT_UINT, PRESET, 1, 256, NULL,
	 OFF(cores_per_chip), "cores per chip"},
	{"machine", "line_size", CT_UINT, PRESET, 16, 1024, NULL,
	 OFF(line_bytes), "cache line size in bytes (a power of two)"},
	{"machine", "stack_kib", CT_UINT, "64", 16, 8192, NULL, OFF(stack_kib),
	 "coroutine stack per vCPU, KiB"},
	{"machine", "page_size", CT_UINT, PRESET, 4096, 1 << 20, NULL,
	 OFF(page_bytes), "guest page size in bytes (sizes the pv hash)"},
	{"machine", "cache_cores", CT_UINT, PRESET, 1, 64, NULL,
	 OFF(cache_cores),
	 "cores sharing one cache (L2): its threads hold one copy of a "
	 "line"},
	{"machine", "smt_throughput", CT_LIST, PRESET, 0, 0, NULL,
	 OFF(smt_tput_text),
	 "a core's throughput with 1, 2, ... threads busy, percent of one "
	 "thread alone, comma separated (at least smt values)"},
	{"machine", "hmt_low", CT_UINT, PRESET, 0, 100, NULL, OFF(hmt_low_pct),
	 "weight of a thread spinning at low SMT priority, percent of a busy "
	 "one"},
	{"machine", "relax_yields", CT_BOOL, PRESET, 0, 0, NULL,
	 OFF(relax_yields),
	 "cpu_relax() yields the core (x86 pause, POWER10 pause_short): every "
	 "spin loop runs at low SMT priority, not only HMT_low ones"},
	{"machine", "raw_spin", CT_BOOL, "true", 0, 0, NULL, OFF(raw_spin),
	 "raw spin loops (READ_ONCE and cpu_relax) run ahead from a "
	 "checkpoint instead of an event per iteration, with the same "
	 "results (docs/design.md, Raw spin loops)"},
	{"machine", "memory", CT_ENUM, "sc", 0, 0, sim_memory_name, OFF(memory),
	 "memory model (docs/memory-model.md): sc, sequentially consistent; "
	 "tso, FIFO store buffers; power, stores visible out of order and "
	 "loads satisfied early, as barriers allow"},
	{"machine", "memory_window", CT_TIME, "1us", 0, T(SIM_MS), NULL,
	 OFF(memory_window_ps),
	 "memory = power: how long before its time a load may be satisfied "
	 "(returning an older value)"},
	{"machine", "store_delay", CT_TIME, "1us", 0, T(SIM_MS), NULL,
	 OFF(store_delay_ps),
	 "memory = tso or power: the most a store may become visible after "
	 "its line is ours (half the stores get a random share of it)"},
	{"machine", "atomics", CT_ENUM, PRESET, 0, 0, choice_atomics,
	 OFF(atomics),
	 "llsc: larx/stcx. pairs that can lose their reservation (POWER); "
	 "locked: locked instructions that hold the line (x86)"},

	{"cost", "hit", CT_TIME, PRESET, 0, T(SIM_MS), NULL, OFF(cost.hit_ps),
	 "access to a line this pCPU holds"},
	{"cost", "smt", CT_TIME, PRESET, 0, T(SIM_MS), NULL, OFF(cost.smt_ps),
	 "transfer from a thread of the same core"},
	{"cost", "chip", CT_TIME, PRESET, 0, T(SIM_MS), NULL, OFF(cost.chip_ps),
	 "transfer from another core of the same chip"},
	{"cost", "remote", CT_TIME, PRESET, 0, T(SIM_MS), NULL,
	 OFF(cost.remote_ps), "transfer from another chip"},
	{"cost", "memory", CT_TIME, PRESET, 0, T(SIM_MS), NULL,
	 OFF(cost.mem_ps), "fill of a line no cache holds"},
	{"cost", "atomic", CT_TIME, PRESET, 0, T(SIM_MS), NULL,
	 OFF(cost.atomic_ps), "extra cost of an atomic read-modify-write"},
	{"cost", "relax", CT_TIME, PRESET, 0, T(SIM_MS), NULL,
	 OFF(cost.relax_ps), "one cpu_relax() in a spin loop"},
	{"cost", "spin_relax", CT_TIME, PRESET, 0, T(SIM_MS), NULL,
	 OFF(cost.spin_relax_ps),
	 "one spin_cpu_relax() iteration of a powerpc spin loop beyond its "
	 "reads (POWER9: a nop; the loop's own instructions)"},
	{"cost", "barrier", CT_TIME, PRESET, 0, T(SIM_MS), NULL,
	 OFF(cost.barrier_ps), "a full barrier (smp_mb, sync)"},
	{"cost", "inval", CT_TIME, PRESET, 0, T(SIM_MS), NULL,
	 OFF(cost.inval_ps),
	 "a write's cost for each further copy it invalidates"},
	{"cost", "read_fanout", CT_UINT, PRESET, 1, 64, NULL,
	 OFF(cost.read_fanout),
	 "read misses of one line its source serves at once"},
	{"cost", "jitter", CT_UINT, PRESET, 0, 100, NULL, OFF(cost.jitter_pct),
	 "seeded noise on transfers, relax, barriers and interrupts, +- "
	 "percent"},
	{"cost", "near_bias", CT_UINT, "0", 0, 100, NULL,
	 OFF(cost.near_bias_pct),
	 "percent chance that, of the requests waiting for a busy line, one "
	 "from the chip holding it is served first (else a random one)"},
	{"cost", "hold", CT_BOOL, PRESET, 0, 0, NULL, OFF(cost.hold),
	 "a line that came exclusive from another cache serves its new owner "
	 "alone for one more transfer (a directory's serialization, as qsim "
	 "probe measured on an x86 host; x86 true, POWER's snooping fabric "
	 "false); false: the next request is served as soon as the line is "
	 "free"},

	{"guest", "hz", CT_UINT, "100", 0, 10000, NULL, OFF(hz),
	 "timer ticks per second on every busy vCPU (0: none)"},
	{"guest", "tick", CT_TIME, "5us", 0, T(SIM_MS), NULL, OFF(tick_ps),
	 "CPU time one tick takes"},
	{"guest", "irq_rate", CT_UINT, "60", 0, 1000000, NULL, OFF(irq_rate),
	 "other interrupts per second per vCPU, at random (0: none)"},
	{"guest", "irq", CT_TIME, "5us", 0, T(SIM_MS), NULL, OFF(irq_ps),
	 "CPU time one interrupt takes"},

	{"hypervisor", "policy", CT_ENUM, "rr", 0, 0, choice_policy,
	 OFF(policy), "dispatcher policy"},
	{"hypervisor", "slice", CT_TIME, "auto", T(SIM_US), T(SIM_S), NULL,
	 OFF(slice_ps),
	 "time slice of a dispatched vCPU; under kvm the scheduling period "
	 "(auto: 24ms under kvm, CFS's 6 ms latency scaled for 8 or more "
	 "CPUs; 10ms otherwise)"},
	{"hypervisor", "dispatch_latency", CT_TIME, "2us", 0, T(10 * SIM_MS),
	 NULL, OFF(dispatch_latency_ps),
	 "from a pCPU choosing a vCPU of the partition it ran last to the "
	 "vCPU running"},
	{"hypervisor", "partition_switch", CT_TIME, "auto", 0, T(10 * SIM_MS),
	 NULL, OFF(partition_switch_ps),
	 "added to the dispatch latency when the pCPU last ran another "
	 "partition (auto: 1us on POWER, half KVM-HV's exit-and-entry; 0 on "
	 "x86)"},
	{"hypervisor", "vcpu_migrate", CT_TIME, "0ns", 0, T(10 * SIM_MS), NULL,
	 OFF(vcpu_migrate_ps),
	 "added to the dispatch latency when the vCPU ran last on another "
	 "pCPU (its caches' refill is modelled anyway)"},
	{"hypervisor", "hcall", CT_TIME, "auto", 0, T(SIM_MS), NULL,
	 OFF(hcall_ps),
	 "cost of one hcall or hypercall, entry and exit (auto: 500ns under "
	 "powervm, rr and adversarial; under kvm 2us on POWER, KVM-HV's NULL "
	 "hcall, 700ns on x86, a VM exit and entry)"},
	{"hypervisor", "wake_latency", CT_TIME, "auto", 0, T(10 * SIM_MS), NULL,
	 OFF(wake_latency_ps),
	 "from H_PROD or a kick of a ceded or halted vCPU to it runnable "
	 "(auto: 5us; under kvm on POWER 29us, a KVM-HV guest's measured "
	 "shared-cede wake)"},
	{"hypervisor", "prod_cuts_directed_confer", CT_BOOL, "false", 0, 0,
	 NULL, OFF(prod_cuts_directed_confer),
	 "a latched prod also makes a directed H_CONFER return at once"},
	{"hypervisor", "window", CT_TIME, "10ms", T(SIM_MS), T(SIM_S), NULL,
	 OFF(window_ps), "powervm: the dispatch window"},
	{"hypervisor", "whole_core", CT_BOOL, "false", 0, 0, NULL,
	 OFF(whole_core),
	 "dispatch a core's SMT threads to one partition at a time"},
	{"hypervisor", "ple_window", CT_TIME, "auto", 0, T(SIM_S), NULL,
	 OFF(ple_window_ps),
	 "pause-loop exiting: spin this long, then yield to a preempted vCPU; "
	 "the window doubles at each exit and resets when the vCPU is "
	 "dispatched (0: off; auto: KVM's 4096 cycles under policy kvm on an "
	 "x86 preset, off otherwise)"},
	{"hypervisor", "kick_boost", CT_BOOL, "true", 0, 0, NULL,
	 OFF(kick_boost),
	 "a pause-loop exit may yield to a vCPU woken by a kick, not only to a "
	 "preempted one (KVM's boost of vCPUs delivering interrupts)"},
	{"hypervisor", "kick_yield", CT_BOOL, "true", 0, 0, NULL,
	 OFF(kick_yield),
	 "kvm: the kick hypercall yields to the kicked vCPU if it waits for "
	 "a CPU, so it runs next on its own (KVM_HC_KICK_CPU's "
	 "kvm_sched_yield)"},
	{"hypervisor", "halt_poll", CT_TIME, "auto", 0, T(SIM_S), NULL,
	 OFF(halt_poll_ps),
	 "KVM halt polling: the longest time a halted vCPU's host thread "
	 "polls for a wake-up before it sleeps (halt_poll_ns; auto: 200us "
	 "on x86, 10us on POWER; 0: off)"},
	{"hypervisor", "halt_poll_shrink", CT_UINT, "0", 0, 64, NULL,
	 OFF(halt_poll_shrink),
	 "KVM halt polling: after a halt longer than halt_poll the window "
	 "is divided by this, and reset below 10us (halt_poll_ns_shrink; "
	 "0: reset at once, KVM's default until 2024; newer KVM's is 2)"},
	{"hypervisor", "balance_interval", CT_TIME, "0ns", 0, T(SIM_S), NULL,
	 OFF(balance_interval_ps),
	 "kvm: load-balancing interval for idle pCPUs, 16 times it for busy "
	 "ones (0: 1 ms per pCPU, as Linux sizes a scheduling domain's)"},
	{"hypervisor", "migration_cost", CT_TIME, "500us", 0, T(SIM_S), NULL,
	 OFF(migration_cost_ps),
	 "kvm: a vCPU that ran this recently is cache hot: a pCPU going "
	 "idle does not pull it (sched_migration_cost_ns)"},
	{"hypervisor", "min_granularity", CT_TIME, "3ms", T(SIM_US), T(SIM_S),
	 NULL, OFF(min_granularity_ps), "kvm: the shortest slice"},
	{"hypervisor", "wakeup_granularity", CT_TIME, "4ms", 0, T(SIM_S), NULL,
	 OFF(wakeup_granularity_ps),
	 "kvm: vruntime lead a waking vCPU needs to preempt"},

	{"partition", "vcpus", CT_UINT, "32", 1, 4096, NULL, OFF(vcpus),
	 "vCPUs of the guest under test"},
	{"partition", "shared", CT_BOOL, "true", 0, 0, NULL, OFF(shared),
	 "what the guest is told: a shared-processor LPAR (SPLPAR), "
	 "paravirt lock paths on; false: dedicated, pv paths off "
	 "(the vCPUs are still dispatched as configured)"},
	{"partition", "entitlement", CT_PU, "auto", 0, 0, NULL,
	 OFF(entitlement_cpu),
	 "powervm: entitled capacity (auto: its vCPU share of the pool)"},
	{"partition", "capped", CT_BOOL, "false", 0, 0, NULL, OFF(capped),
	 "powervm: never run beyond the entitlement"},
	{"partition", "weight", CT_UINT, "128", 0, 255, NULL, OFF(weight),
	 "powervm: uncapped weight for spare capacity (0: none, as if "
	 "capped); kvm: CPU share weight (0 counts as 1)"},

	{"noise", "partitions", CT_UINT, "0", 0, CFG_MAX_NOISE, NULL,
	 OFF(noise_parts),
	 "noise partitions beside the guest, each running CPU hogs"},
	{"noise", "vcpus", CT_UINT, "8", 1, 4096, NULL, OFF(noise_vcpus),
	 "vCPUs of each noise partition"},
	{"noise", "entitlement", CT_PU, "auto", 0, 0, NULL,
	 OFF(noise_entitlement_cpu),
	 "entitled capacity of each (auto: its vCPU share of the pool)"},
	{"noise", "capped", CT_BOOL, "false", 0, 0, NULL, OFF(noise_capped),
	 "the noise partitions are capped"},
	{"noise", "weight", CT_UINT, "128", 0, 255, NULL, OFF(noise_weight),
	 "their uncapped weight (as [partition] weight)"},
	{"noise", "locktest", CT_BOOL, "false", 0, 0, NULL, OFF(noise_locktest),
	 "run the guest's lock workload ([lock], [workload]) on locks of "
	 "their own instead of CPU hogs"},

	{"lock", "type", CT_ENUM, "pv_qspinlock", 0, 0, choice_lock, OFF(lock),
	 "lock algorithm (qsim list locks)"},
	{"lock", "mutant", CT_ENUM, "none", 0, 0, choice_mutant, OFF(mutant),
	 "a deliberately broken build of the lock (qsim list mutants)"},
	{"lock", "pv_mapping", CT_ENUM, "splpar-undirected", 0, 0,
	 choice_mapping, OFF(pv_mapping),
	 "how pv_wait/pv_kick map onto the hypervisor (pv_qspinlock)"},
	{"lock", "SPIN_THRESHOLD", CT_UINT, "32768", 1, 1u << 30, NULL,
	 OFF(spin_threshold), "spins before a pv waiter calls pv_wait"},
	{"lock", "_Q_PENDING_LOOPS", CT_UINT, "512", 0, 1u << 30, NULL,
	 OFF(pending_loops),
	 "reads waiting out a pending->locked hand-over (qspinlock)"},
	{"lock", "wait_early", CT_ENUM, "prev-state", 0, 0, choice_wait_early,
	 OFF(wait_early),
	 "pv waiter halts early when prev is not running: prev-state (6.x), "
	 "prev-preempted (also prev's vCPU preempted, 4.15) or none (never, "
	 "before 4.5)"},
#define X(name, def, max, help)                                                \
	{"lock",	   "qspl_" #name,	  CT_UINT, #def, 0, max, NULL, \
	 OFF(qspl_##name), "ppc_qspinlock: " help},
	QSPL_TUNABLES(X)
#undef X
		{"lock", "backoff", CT_ENUM, "percpu", 0, 0, choice_backoff,
		 OFF(backoff),
		 "ticket_backoff: one delay per CPU (percpu) or per CPU and "
		 "lock hash (hashed)"},
	{"lock", "steal", CT_ENUM, "hybrid", 0, 0, choice_steal, OFF(steal),
	 "pv entry trylock: hybrid (unfair while the head sleeps), "
	 "oneshot, "
	 "none"},
	{"lock", "kernel_files_sha256", CT_SHA256, "", 0, 0, NULL,
	 OFF(kernel_files_sha256),
	 "kernel_* types: the kernel files the scenario was written for "
	 "(qsim version prints a binary's); a binary with other files "
	 "warns"},

	{"workload", "type", CT_ENUM, "locktest", 0, 0, choice_workload,
	 OFF(workload), "what every vCPU runs"},
	{"workload", "locks", CT_UINT, "1", 1, 1024, NULL, OFF(nlocks),
	 "number of locks"},
	{"workload", "cs", CT_DUR, "200ns", 0, T(SIM_S), NULL, OFF(cs),
	 "critical section: TIME, exp:MEAN or uniform:LO:HI"},
	{"workload", "think_idle", CT_BOOL, "false", 0, 0, NULL,
	 OFF(think_idle),
	 "spend think time idle: cede (H_CEDE) until a timer ends it"},
	{"workload", "think", CT_DUR, "1us", 0, T(SIM_S), NULL, OFF(think),
	 "time between critical sections, same syntax"},
	{"workload", "pick", CT_ENUM, "random", 0, 0, choice_pick, OFF(pick),
	 "how a vCPU picks a lock: random, vcpu (i mod locks), or step (a "
	 "unit's step k takes lock k mod locks)"},
	{"workload", "steps", CT_UINT, "0", 0, 100000, NULL, OFF(steps),
	 "ebizzy, kbuild, netperf: lock steps per unit of work, each after "
	 "a think time (0: the workload's own, 4, 32 and 2)"},
	{"workload", "idle", CT_ODUR, "", 0, T(SIM_S), NULL, OFF(unit_idle),
	 "idle (ceded) time after each unit (ebizzy, kbuild, netperf; "
	 "locktest, locktorture: each acquisition), e.g. waiting for I/O or "
	 "a reply (empty: none)"},
	{"workload", "stat_interval", CT_TIME, "auto", 0, T(1000 * SIM_S), NULL,
	 OFF(stat_interval_ps),
	 "locktorture's statistics lines every this long (auto: four over "
	 "the run, locktorture only; 0: none)"},
	{"workload", "read_pct", CT_UINT, "0", 0, 100, NULL, OFF(read_pct),
	 "percent of acquisitions taken as a reader (rwlocks only)"},
	{"workload", "readers", CT_UINT, "0", 0, 4096, NULL, OFF(readers),
	 "or: vCPUs 0..readers-1 always read, the others always write "
	 "(rwlocks only)"},
	{"workload", "lock_cs", CT_LIST, "", 0, T(SIM_S), NULL,
	 OFF(lock_cs_text),
	 "per-lock critical sections, comma separated, one per lock "
	 "(empty: cs for all)"},
	{"workload", "read_cs", CT_ODUR, "", 0, T(SIM_S), NULL, OFF(read_cs),
	 "critical section of a reader (rwlocks; empty: cs)"},
	{"workload", "write_cs", CT_ODUR, "", 0, T(SIM_S), NULL, OFF(write_cs),
	 "critical section of a writer (rwlocks; empty: cs)"},
	{"workload", "long_hold", CT_TIME, "100ms", 0, T(SIM_S), NULL,
	 OFF(long_hold_ps),
	 "length of locktorture's occasional long hold by a writer"},
	{"workload", "long_hold_prob", CT_PROB, "0", 0, 0, NULL,
	 OFF(long_hold_prob),
	 "probability that a write acquisition holds for long_hold (0: never)"},
	{"workload", "ipi_prob", CT_PROB, "0", 0, 0, NULL, OFF(ipi_prob),
	 "probability that a vCPU makes a synchronous cross-call (a TLB "
	 "shootdown's smp_call_function_many with wait) before a lock step "
	 "(0: never; at most 256 vCPUs a partition)"},
	{"workload", "ipi_targets", CT_UINT, "0", 0, 1024, NULL,
	 OFF(ipi_targets),
	 "vCPUs a cross-call interrupts, from a random place in the "
	 "partition (0: all the others)"},
	{"workload", "ipi_handler", CT_TIME, "5us", 0, T(SIM_MS), NULL,
	 OFF(ipi_handler_ps),
	 "CPU time a cross-call's handler takes on each target (as "
	 "guest.irq)"},
	{"workload", "nest_prob", CT_PROB, "0", 0, 0, NULL, OFF(nest_prob),
	 "probability that a writer, holding its lock, takes a second one of "
	 "a higher index (a fixed order) for a critical section of its own "
	 "(0: never)"},
	{"workload", "stutter", CT_TIME, "0ns", 0, T(100 * SIM_S), NULL,
	 OFF(stutter_ps),
	 "locktorture's stutter: run this long, then nobody takes a lock for "
	 "as long, and so on (0: off)"},

	{"check", "hang_bound", CT_TIME, "1s", T(SIM_US), T(1000 * SIM_S), NULL,
	 OFF(hang_bound_ps),
	 "a wait for a lock longer than this is a hang (violation)"},
	{"check", "drain", CT_BOOL, "true", 0, 0, NULL, OFF(drain),
	 "after the measured time, stop taking locks and let every waiter "
	 "get its lock (within hang_bound + sleep_bound): a wake-up lost "
	 "late in the run is caught (the figures stay the measured ones)"},
	{"check", "host_timeout", CT_UINT, "600", 1, 86400, NULL,
	 OFF(host_timeout_s), "host seconds before the run is declared hung"},
	{"check", "sleep_bound", CT_TIME, "1s", T(SIM_US), T(1000 * SIM_S),
	 NULL, OFF(sleep_bound_ps),
	 "ceded or halted this long while waiting for a lock: lost wakeup"},
	{"check", "trace_events", CT_UINT, "256", 0, 1u << 24, NULL,
	 OFF(trace_events), "recent events kept for violation reports"},

#define X(name, key, doc)               \
	{"adversarial",                 \
	 #key,                          \
	 CT_PROB,                       \
	 "0.02",                        \
	 0,                             \
	 0,                             \
	 NULL,                          \
	 OFF(point_prob[HV_PT_##name]), \
	 "policy adversarial: preempt " doc},
	HV_POINTS(X)
#undef X
		{"adversarial", "spurious_wake", CT_PROB, "0.01", 0, 0, NULL,
		 OFF(spurious_wake),
		 "policy adversarial: a cede or halt returns at once"},
	{"adversarial", "drain_late", CT_PROB, "0", 0, 0, NULL, OFF(drain_late),
	 "policy adversarial, memory tso or power: a buffered store is "
	 "held to the end of machine.store_delay"},
};

static const char *type_name(enum cfg_type t)
{
	switch (t) {
	case CT_TIME:
		return "time";
	case CT_DUR:
		return "duration";
	case CT_UINT:
	case CT_U64:
		return "integer";
	case CT_BOOL:
		return "bool";
	case CT_ENUM:
		return "name";
	case CT_PROB:
		return "prob";
	case CT_LIST:
		return "list";
	case CT_PU:
		return "PU";
	case CT_ODUR:
		return "duration";
	case CT_RATIO:
		return "ratio";
	case CT_SHA256:
		return "sha256";
	}
	return "?";
}

static bool section_known(const char *s)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++)
		if (strcmp(cfg_keys[i].section, s) == 0)
			return true;
	return false;
}

static const struct cfg_key *key_find(const char *s, const char *k)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++)
		if (strcmp(cfg_keys[i].section, s) == 0 &&
		    strcmp(cfg_keys[i].key, k) == 0)
			return &cfg_keys[i];
	return NULL;
}

static char *list_sections(void)
{
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++) {
		if (i &&
		    strcmp(cfg_keys[i].section, cfg_keys[i - 1].section) == 0)
			continue;
		g_string_append_printf(s, "%s[%s]", s->len ? ", " : "",
				       cfg_keys[i].section);
	}
	return g_string_free(s, FALSE);
}

static char *list_keys(const char *section)
{
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++)
		if (strcmp(cfg_keys[i].section, section) == 0)
			g_string_append_printf(s, "%s%s", s->len ? ", " : "",
					       cfg_keys[i].key);
	return g_string_free(s, FALSE);
}

bool cfg_key_check(const char *section, const char *key, GError **error)
{
	if (!section_known(section)) {
		g_autofree char *all = list_sections();

		g_set_error(error, CFG_ERROR, CFG_ERROR_UNKNOWN,
			    "no section [%s]; the sections are %s", section,
			    all);
		return false;
	}
	if (!key_find(section, key)) {
		g_autofree char *all = list_keys(section);

		g_set_error(error, CFG_ERROR, CFG_ERROR_UNKNOWN,
			    "[%s] has no key '%s'; its keys are %s", section,
			    key, all);
		return false;
	}
	return true;
}

/* In a tree lock's knobs ("qspl_NAME=DEFAULT" each), @name's default;
 * NULL if the tree has no such tunable. */
static const char *knob_default(char **have, const char *name)
{
	size_t n = strlen(name);

	for (char **h = have; *h; h++)
		if (strncmp(*h, name, n) == 0 && (*h)[n] == '=')
			return *h + n + 1;
	return NULL;
}

/*
 * A kernel tree's powerpc lock has its own tunables and defaults (its
 * debugfs knobs, as the tree sets them): the resolved scenario, stored
 * with each run and printed by check-config, says what the run used,
 * so a qspl_* key not set takes the tree's default and one the tree does
 * not have is left out.
 */
static void resolve_tree_knobs(GKeyFile *out, const struct qsim_config *cfg)
{
	const struct lk_ops *ops = lk_find(cfg->lock);
	g_auto(GStrv) have = NULL;
	unsigned int i = 0;

	if (!ops || !ops->knobs)
		return;
	have = ops->knobs(); /* "qspl_NAME=DEFAULT" each */
#define X(name, def, max, help)                                              \
	{                                                                    \
		const char *v = knob_default(have, "qspl_" #name);           \
                                                                             \
		if (!v)                                                      \
			g_key_file_remove_key(out, "lock", "qspl_" #name,    \
					      NULL);                         \
		else if (!(cfg->qspl_set & (1u << i)))                       \
			g_key_file_set_value(out, "lock", "qspl_" #name, v); \
	}                                                                    \
	i++;
	QSPL_TUNABLES(X)
#undef X
}

/* A time key whose default is "auto" (resolved by the model: SIM_TIME_NEVER
 * until then). */
static bool time_auto(const struct cfg_key *k)
{
	return k->type == CT_TIME && k->def && strcmp(k->def, "auto") == 0;
}

/* What a key accepts, for error messages and `qsim list`. */
static char *allowed_text(const struct cfg_key *k)
{
	char lo[32], hi[32];
	GString *s;

	switch (k->type) {
	case CT_TIME:
		return g_strdup_printf(
			"%sa time with a unit (ps, ns, us, ms, s; 0 needs "
			"none) from %s to %s",
			time_auto(k) ? "auto, or " : "",
			sim_format_time(k->min, lo, sizeof(lo)),
			sim_format_time(k->max, hi, sizeof(hi)));
	case CT_DUR:
		return g_strdup_printf("TIME, exp:MEAN or uniform:LO:HI, each "
				       "time with a unit, at most %s",
				       sim_format_time(k->max, hi, sizeof(hi)));
	case CT_UINT:
	case CT_U64:
		return g_strdup_printf("an integer from %" PRIu64
				       " to %" PRIu64,
				       k->min, k->max);
	case CT_BOOL:
		return g_strdup("true or false");
	case CT_PROB:
		return g_strdup("a probability from 0 to 1 (e.g. 0.05)");
	case CT_LIST:
		if (k->off == OFF(smt_tput_text))
			return g_strdup("one percentage (1 to 800) per busy "
					"thread count, comma separated, from "
					"100 for one thread, never falling");
		return g_strdup("nothing, or one duration per lock, comma "
				"separated (TIME, exp:MEAN, uniform:LO:HI)");
	case CT_PU:
		return g_strdup("auto, or processing units in steps of 0.05 "
				"(e.g. 1.5)");
	case CT_RATIO:
		return g_strdup(
			"auto, or a decimal from 0.01 to 64 (e.g. 1.5)");
	case CT_SHA256:
		return g_strdup("nothing, or a SHA-256 as 64 hexadecimal "
				"digits");
	case CT_ODUR:
		return g_strdup_printf("nothing, or TIME, exp:MEAN or "
				       "uniform:LO:HI, each time with a unit, "
				       "at most %s",
				       sim_format_time(k->max, hi, sizeof(hi)));
	case CT_ENUM:
		s = g_string_new("one of: ");
		for (unsigned int i = 0; k->choices(i); i++)
			g_string_append_printf(s, "%s%s", i ? ", " : "",
					       k->choices(i));
		return g_string_free(s, FALSE);
	}
	return g_strdup("?");
}

/*
 * The [noise] keys that take one value for every noise partition, or one
 * per partition, comma separated: their order in struct cfg_noise_part
 * copies.
 */
static const char *const noise_listable[5] = {"vcpus", "entitlement", "capped",
					      "weight", "locktest"};

static int noise_list_index(const struct cfg_key *k)
{
	if (strcmp(k->section, "noise"))
		return -1;
	for (int i = 0; i < 5; i++)
		if (!strcmp(k->key, noise_listable[i]))
			return i;
	return -1;
}

/* Copy key @li's scalar value in @cfg to noise partition @n. */
static void noise_store(struct qsim_config *cfg, int li, unsigned int n)
{
	struct cfg_noise_part *np = &cfg->noise[n];

	switch (li) {
	case 0:
		np->vcpus = cfg->noise_vcpus;
		break;
	case 1:
		np->entitlement_cpu = cfg->noise_entitlement_cpu;
		break;
	case 2:
		np->capped = cfg->noise_capped;
		break;
	case 3:
		np->weight = cfg->noise_weight;
		break;
	default:
		np->locktest = cfg->noise_locktest;
		break;
	}
}

static bool parse_value(const struct cfg_key *k, const char *v,
			struct qsim_config *cfg);

/* A listable [noise] key: one value, or one per partition. */
static bool parse_noise_value(const struct cfg_key *k, int li, const char *v,
			      struct qsim_config *cfg)
{
	g_auto(GStrv) parts = NULL;
	guint n;

	if (!strchr(v, ','))
		return parse_value(k, v, cfg);
	parts = g_strsplit(v, ",", -1);
	n = g_strv_length(parts);
	if (n > CFG_MAX_NOISE)
		return false;
	for (guint i = 0; i < n; i++) {
		if (!parse_value(k, g_strstrip(parts[i]), cfg))
			return false;
		noise_store(cfg, li, i);
	}
	cfg->noise_list_len[li] = n;
	g_free(cfg->noise_list_text[li]);
	cfg->noise_list_text[li] = g_strdup(v);
	return true;
}

bool cfg_parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!g_ascii_isdigit(*v))
		return false;
	/*
	 * Only ERANGE means overflow: a library call may leave any errno
	 * behind on success (GLib's first use of its C locale, racing with
	 * another thread's, left EAGAIN from a futex wait).
	 */
	errno = 0;
	*out = g_ascii_strtoull(v, &end, 10);
	return errno != ERANGE && *end == '\0';
}

/* Parse @v for @k into @cfg; false if it is not acceptable. */
static bool parse_value(const struct cfg_key *k, const char *v,
			struct qsim_config *cfg)
{
	char *field = (char *)cfg + k->off;
	uint64_t u;
	sim_time_t t;
	struct sim_duration d;

	switch (k->type) {
	case CT_TIME:
		if (time_auto(k) && strcmp(v, "auto") == 0) {
			*(sim_time_t *)field = SIM_TIME_NEVER;
			return true;
		}
		if (!sim_parse_time(v, &t) || t < k->min || t > k->max)
			return false;
		*(sim_time_t *)field = t;
		return true;
	case CT_DUR:
		if (!sim_parse_duration(v, &d) || d.a_ps > k->max ||
		    d.b_ps > k->max)
			return false;
		*(struct sim_duration *)field = d;
		return true;
	case CT_UINT:
		if (!cfg_parse_u64(v, &u) || u < k->min || u > k->max)
			return false;
		*(unsigned int *)field = (unsigned int)u;
		return true;
	case CT_U64:
		if (!cfg_parse_u64(v, &u) || u < k->min || u > k->max)
			return false;
		*(uint64_t *)field = u;
		return true;
	case CT_LIST:
		g_free(*(char **)field);
		*(char **)field = g_strdup(v);
		return true;
	case CT_ODUR: {
		struct cfg_odur *o = (struct cfg_odur *)field;

		o->set = *v != '\0';
		if (!o->set)
			return true;
		if (!sim_parse_duration(v, &d) || d.a_ps > k->max ||
		    d.b_ps > k->max)
			return false;
		o->d = d;
		return true;
	}
	case CT_PU: {
		g_autofree char *as_time = g_strconcat(v, "s", NULL);
		sim_time_t exact, hundredths;

		if (strcmp(v, "auto") == 0) {
			*(unsigned int *)field = 0;
			return true;
		}
		/* Exact decimal arithmetic: read "1.5" as the time 1.5 s. */
		if (!g_ascii_isdigit(*v) || !sim_parse_time(as_time, &exact))
			return false;
		hundredths = exact / (SIM_S / 100);
		if (hundredths * (SIM_S / 100) != exact)
			return false;
		if (!hundredths || hundredths % 5 || hundredths > 409600)
			return false;
		*(unsigned int *)field = (unsigned int)hundredths;
		return true;
	}
	case CT_RATIO: {
		char *end;
		double r;

		if (strcmp(v, "auto") == 0) {
			*(double *)field = 0;
			return true;
		}
		r = g_ascii_strtod(v, &end);
		if (!g_ascii_isdigit(*v) || *end || !(r >= 0.01 && r <= 64))
			return false;
		*(double *)field = r;
		return true;
	}
	case CT_PROB: {
		char *end;
		double pr = g_ascii_strtod(v, &end);

		if (end == v || *end || !(pr >= 0.0 && pr <= 1.0))
			return false;
		*(double *)field = pr;
		return true;
	}
	case CT_BOOL:
		if (strcmp(v, "true") == 0)
			*(bool *)field = true;
		else if (strcmp(v, "false") == 0)
			*(bool *)field = false;
		else
			return false;
		return true;
	case CT_SHA256:
		if (*v && strlen(v) != 64)
			return false;
		for (const char *c = v; *c; c++)
			if (!g_ascii_isxdigit(*c))
				return false;
		g_free(*(char **)field);
		*(char **)field = g_ascii_strdown(v, -1);
		return true;
	case CT_ENUM:
		for (unsigned int i = 0; k->choices(i); i++) {
			if (strcmp(k->choices(i), v) == 0) {
				g_free(*(char **)field);
				*(char **)field = g_strdup(v);
				return true;
			}
		}
		return false;
	}
	return false;
}

bool cfg_value_check(const char *section, const char *key, const char *value,
		     GError **error)
{
	const struct cfg_key *k = key_find(section, key);
	struct qsim_config *scratch;
	bool ok;

	if (!k)
		return cfg_key_check(section, key, error);
	scratch = g_new0(struct qsim_config, 1);
	ok = parse_value(k, value, scratch);
	cfg_free(scratch);
	if (!ok) {
		g_autofree char *what = allowed_text(k);

		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE, "expected %s",
			    what);
	}
	return ok;
}

static const struct cfg_preset *preset_find(const char *name)
{
	for (size_t i = 0; i < G_N_ELEMENTS(presets); i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

static bool power_preset(const struct qsim_config *cfg)
{
	return strncmp(cfg->preset, "power", 5) == 0;
}

sim_time_t cfg_hcall(const struct qsim_config *cfg)
{
	if (cfg->hcall_ps != SIM_TIME_NEVER)
		return cfg->hcall_ps;
	if (strcmp(cfg->policy, "kvm") != 0)
		return 500 * SIM_NS;
	return power_preset(cfg) ? 2 * SIM_US : 700 * SIM_NS;
}

sim_time_t cfg_wake_latency(const struct qsim_config *cfg)
{
	if (cfg->wake_latency_ps != SIM_TIME_NEVER)
		return cfg->wake_latency_ps;
	return strcmp(cfg->policy, "kvm") == 0 && power_preset(cfg)
		       ? 29 * SIM_US
		       : 5 * SIM_US;
}

sim_time_t cfg_partition_switch(const struct qsim_config *cfg)
{
	if (cfg->partition_switch_ps != SIM_TIME_NEVER)
		return cfg->partition_switch_ps;
	return power_preset(cfg) ? SIM_US : 0;
}

sim_time_t cfg_slice(const struct qsim_config *cfg)
{
	if (cfg->slice_ps != SIM_TIME_NEVER)
		return cfg->slice_ps;
	return strcmp(cfg->policy, "kvm") == 0 ? 24 * SIM_MS : 10 * SIM_MS;
}

sim_time_t cfg_halt_poll(const struct qsim_config *cfg)
{
	if (cfg->halt_poll_ps != SIM_TIME_NEVER)
		return cfg->halt_poll_ps;
	return power_preset(cfg) ? 10 * SIM_US : 200 * SIM_US;
}

static gint line_cmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void cfg_ktree_digest_add(GPtrArray *lines, const char *path,
			  const char *sha256)
{
	g_ptr_array_add(lines, g_strdup_printf("%s %s\n", path, sha256));
}

char *cfg_ktree_digest(GPtrArray *lines)
{
	g_autoptr(GChecksum) c = g_checksum_new(G_CHECKSUM_SHA256);

	g_ptr_array_sort(lines, line_cmp);
	for (guint i = 0; i < lines->len; i++) {
		const char *l = g_ptr_array_index(lines, i);

		g_checksum_update(c, (const guchar *)l, (gssize)strlen(l));
	}
	return g_strdup(g_checksum_get_string(c));
}

const char *cfg_ktree_files_sha256(void)
{
	static gsize once;
	static char *digest;

	if (g_once_init_enter(&once)) {
		const struct lk_ktree_identity *id = lk_ktree_identity();

		if (id) {
			g_autoptr(GPtrArray) lines =
				g_ptr_array_new_with_free_func(g_free);

			for (unsigned int i = 0; id->files[i][0]; i++)
				cfg_ktree_digest_add(lines, id->files[i][0],
						     id->files[i][1]);
			digest = cfg_ktree_digest(lines);
		}
		g_once_init_leave(&once, 1);
	}
	return digest;
}

char *cfg_ktree_name(const struct lk_ktree_identity *id)
{
	return g_strdup_printf("Linux %s from %s%s%s%s", id->version, id->path,
			       *id->describe ? " (" : "", id->describe,
			       *id->describe ? ")" : "");
}

char *cfg_ktree_mismatch(const struct qsim_config *cfg)
{
	const struct lk_ktree_identity *id = lk_ktree_of(cfg->lock);
	const char *have = cfg_ktree_files_sha256();

	if (!id || !have || !*cfg->kernel_files_sha256 ||
	    strcmp(cfg->kernel_files_sha256, have) == 0)
		return NULL;
	g_autofree char *name = cfg_ktree_name(id);

	return g_strdup_printf(
		"%s: [lock] kernel_files_sha256 = %.12s...: the scenario was "
		"written for other kernel files than this binary's, %s (kernel "
		"files %.12s...): the run tests this binary's files, so a "
		"failure found with the others may not come back, or may be "
		"fixed",
		cfg->path, cfg->kernel_files_sha256, name, have);
}

sim_time_t cfg_ple_window(const struct qsim_config *cfg)
{
	const struct cfg_preset *p = preset_find(cfg->preset);

	if (cfg->ple_window_ps != SIM_TIME_NEVER)
		return cfg->ple_window_ps;
	return p && strcmp(cfg->policy, "kvm") == 0 ? p->ple_window_ps : 0;
}

/* The default of @k as text, given the chosen preset. */
static char *default_text(const struct cfg_key *k, const struct cfg_preset *p)
{
	char buf[32];
	const sim_time_t *cost = NULL;

	if (k->def)
		return g_strdup(k->def);
	if (strcmp(k->section, "machine") == 0 && strcmp(k->key, "smt") == 0)
		return g_strdup_printf("%u", p->smt);
	if (strcmp(k->key, "cores_per_chip") == 0)
		return g_strdup_printf("%u", p->cores_per_chip);
	if (strcmp(k->key, "line_size") == 0)
		return g_strdup_printf("%u", p->line_bytes);
	if (strcmp(k->key, "page_size") == 0)
		return g_strdup_printf("%u", p->page_bytes);
	if (strcmp(k->key, "cache_cores") == 0)
		return g_strdup_printf("%u", p->cache_cores);
	if (strcmp(k->key, "smt_throughput") == 0)
		return g_strdup(p->smt_tput);
	if (strcmp(k->key, "hmt_low") == 0)
		return g_strdup_printf("%u", p->hmt_low);
	if (strcmp(k->key, "atomics") == 0)
		return g_strdup(p->atomics);
	if (strcmp(k->key, "relax_yields") == 0)
		return g_strdup(p->relax_yields ? "true" : "false");
	if (strcmp(k->section, "cost") == 0 && strcmp(k->key, "hold") == 0)
		return g_strdup(p->cost.hold ? "true" : "false");
	if (k->type == CT_UINT) /* [cost] counts and percentages */
		return g_strdup_printf(
			"%u", *(const unsigned int *)((const char *)&p->cost +
						      (k->off - OFF(cost))));
	/* [cost] times: the preset's value at the same offset. */
	cost = (const sim_time_t *)((const char *)&p->cost +
				    (k->off - OFF(cost)));
	return g_strdup(sim_format_time(*cost, buf, sizeof(buf)));
}

/* Where a key's value came from, for messages: the file or --set. */
static char *origin(const char *path, GHashTable *set_keys,
		    const struct cfg_key *k)
{
	g_autofree char *id = g_strdup_printf("%s.%s", k->section, k->key);

	if (set_keys && g_hash_table_contains(set_keys, id))
		return g_strdup_printf("--set %s", id);
	return g_strdup_printf("%s: [%s] %s", path, k->section, k->key);
}

static bool apply_overrides(GKeyFile *kf, char **overrides,
			    GHashTable *set_keys, GError **error)
{
	for (char **o = overrides; o && *o; o++) {
		const char *eq = strchr(*o, '=');
		const char *dot = strchr(*o, '.');
		g_autofree char *section = NULL, *key = NULL;

		if (!eq || !dot || dot > eq || dot == *o || eq == dot + 1) {
			g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX,
				    "--set %s: expected section.key=value", *o);
			return false;
		}
		section = g_strndup(*o, (gsize)(dot - *o));
		key = g_strndup(dot + 1, (gsize)(eq - dot - 1));
		if (!section_known(section)) {
			g_autofree char *all = list_sections();

			g_set_error(error, CFG_ERROR, CFG_ERROR_UNKNOWN,
				    "--set %s: unknown section [%s]; sections "
				    "are: %s",
				    *o, section, all);
			return false;
		}
		if (!key_find(section, key)) {
			g_autofree char *all = list_keys(section);

			g_set_error(error, CFG_ERROR, CFG_ERROR_UNKNOWN,
				    "--set %s: unknown key '%s' in [%s]; keys "
				    "are: %s",
				    *o, key, section, all);
			return false;
		}
		g_key_file_set_value(kf, section, key, eq + 1);
		g_hash_table_add(set_keys,
				 g_strdup_printf("%s.%s", section, key));
	}
	return true;
}

static bool check_unknown(GKeyFile *kf, const char *path, GError **error)
{
	g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);

	for (char **g = groups; *g; g++) {
		g_auto(GStrv) keys = NULL;

		if (!section_known(*g)) {
			g_autofree char *all = list_sections();

			g_set_error(
				error, CFG_ERROR, CFG_ERROR_UNKNOWN,
				"%s: unknown section [%s]; sections are: %s",
				path, *g, all);
			return false;
		}
		keys = g_key_file_get_keys(kf, *g, NULL, NULL);
		for (char **k = keys; k && *k; k++) {
			if (!key_find(*g, *k)) {
				g_autofree char *all = list_keys(*g);

				g_set_error(
					error, CFG_ERROR, CFG_ERROR_UNKNOWN,
					"%s: [%s] unknown key '%s'; keys in "
					"[%s] are: %s",
					path, *g, *k, *g, all);
				return false;
			}
		}
	}
	return true;
}

void cfg_free(struct qsim_config *cfg)
{
	if (!cfg)
		return;
	g_free(cfg->path);
	g_free(cfg->text);
	for (int i = 0; i < 5; i++)
		g_free(cfg->noise_list_text[i]);
	g_free(cfg->resolved);
	g_strfreev(cfg->overrides);
	g_free(cfg->preset);
	g_free(cfg->policy);
	g_free(cfg->lock);
	g_free(cfg->mutant);
	g_free(cfg->wait_early);
	g_free(cfg->steal);
	g_free(cfg->backoff);
	g_free(cfg->pv_mapping);
	g_free(cfg->kernel_files_sha256);
	g_free(cfg->workload);
	g_free(cfg->pick);
	g_free(cfg->lock_cs_text);
	g_free(cfg->lock_cs);
	g_free(cfg->smt_tput_text);
	g_free(cfg->atomics);
	g_free(cfg->memory);
	g_free(cfg);
}

/* auto: the partition's vCPU share of the pool, in 0.05 PU steps. */
static unsigned int fair_share(const struct qsim_config *cfg,
			       unsigned int vcpus)
{
	unsigned int total = cfg->vcpus + cfg_noise_vcpus(cfg);
	unsigned int e = (unsigned int)((uint64_t)cfg->pcpus * 100 * vcpus /
					total / 5 * 5);

	return SIM_MIN(SIM_MAX(e, 5 * vcpus), 100 * vcpus);
}

static bool check_entitlement(const char *path, const char *section,
			      unsigned int e, unsigned int vcpus,
			      GError **error)
{
	if (e < 5 * vcpus || e > 100 * vcpus) {
		g_set_error(
			error, CFG_ERROR, CFG_ERROR_VALUE,
			"%s: [%s] entitlement = %u.%02u: with %u vCPUs it "
			"must be from %u.%02u (0.05 per vCPU) to %u.00 (1.0 "
			"per vCPU)",
			path, section, e / 100, e % 100, vcpus, 5 * vcpus / 100,
			5 * vcpus % 100, vcpus);
		return false;
	}
	return true;
}

int cfg_memory(const struct qsim_config *cfg)
{
	for (int i = 0; sim_memory_name((unsigned int)i); i++)
		if (strcmp(cfg->memory, sim_memory_name((unsigned int)i)) == 0)
			return i;
	return 0;
}

unsigned int cfg_noise_vcpus(const struct qsim_config *cfg)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < cfg->noise_parts; i++)
		n += cfg->noise[i].vcpus;
	return n;
}

double cfg_overcommit(const struct qsim_config *cfg)
{
	return (double)(cfg->vcpus + cfg_noise_vcpus(cfg)) / cfg->pcpus;
}

/* Resolve each noise partition from the one value or its own. */
static bool resolve_noise(struct qsim_config *cfg, const char *path,
			  GError **error)
{
	for (int li = 0; li < 5; li++) {
		unsigned int n = cfg->noise_list_len[li];

		if (n && n != cfg->noise_parts) {
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [noise] %s = '%s': %u values for %u "
				    "noise partitions; give one value, or "
				    "one per partition",
				    path, noise_listable[li],
				    cfg->noise_list_text[li], n,
				    cfg->noise_parts);
			return false;
		}
		for (unsigned int i = 0; !n && i < cfg->noise_parts; i++)
			noise_store(cfg, li, i);
	}
	return true;
}

static bool check_partitions(struct qsim_config *cfg, const char *path,
			     GError **error)
{
	unsigned int sum;
	bool auto_ent;
	/* Entitlements are PowerVM's: rr and kvm do not read them, and
	 * their limits (0.05 to 1.0 PU a vCPU) would cap overcommit at 20x
	 * there. */
	bool pvm = strcmp(cfg->policy, "powervm") == 0;

	if (!resolve_noise(cfg, path, error))
		return false;
	if (cfg->overcommit_req > 0) {
		double p = (cfg->vcpus + cfg_noise_vcpus(cfg)) /
			   cfg->overcommit_req;

		cfg->pcpus = (unsigned int)SIM_MAX(1.0, floor(p + 0.5));
		if (cfg->pcpus > 4096) {
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [machine] overcommit = %g: gives %u "
				    "pCPUs, more than 4096",
				    path, cfg->overcommit_req, cfg->pcpus);
			return false;
		}
	}
	auto_ent = !cfg->entitlement_cpu;
	if (!cfg->entitlement_cpu)
		cfg->entitlement_cpu = fair_share(cfg, cfg->vcpus);
	for (unsigned int i = 0; i < cfg->noise_parts; i++)
		if (!cfg->noise[i].entitlement_cpu)
			cfg->noise[i].entitlement_cpu =
				fair_share(cfg, cfg->noise[i].vcpus);
	if (!pvm)
		return true;
	if (!check_entitlement(path, "partition", cfg->entitlement_cpu,
			       cfg->vcpus, error))
		return false;
	sum = cfg->entitlement_cpu;
	for (unsigned int i = 0; i < cfg->noise_parts; i++) {
		struct cfg_noise_part *np = &cfg->noise[i];

		if (!check_entitlement(path, "noise", np->entitlement_cpu,
				       np->vcpus, error))
			return false;
		sum += np->entitlement_cpu;
	}
	if (sum > 100 * cfg->pcpus) {
		g_autofree char *pool =
			cfg->overcommit_req > 0
				? g_strdup_printf(" ([machine] overcommit = %g "
						  "made it)",
						  cfg->overcommit_req)
				: g_strdup("");

		if (cfg->noise_parts)
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [partition] entitlement and [noise] "
				    "entitlement add up to %u.%02u processing "
				    "units, more than the %u pCPUs of the "
				    "pool%s: together at most %u.00",
				    path, sum / 100, sum % 100, cfg->pcpus,
				    pool, cfg->pcpus);
		else if (auto_ent) /* the least there is: 0.05 a vCPU */
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [partition] vcpus = %u: under powervm "
				    "each vCPU is entitled to at least 0.05 "
				    "processing units, %u.%02u in all, more "
				    "than the %u pCPUs of the pool%s; at most "
				    "%u vCPUs a pCPU",
				    path, cfg->vcpus, sum / 100, sum % 100,
				    cfg->pcpus, pool, 20);
		else
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [partition] entitlement = %u.%02u: "
				    "more processing units than the %u pCPUs "
				    "of the pool%s; at most %u.00",
				    path, sum / 100, sum % 100, cfg->pcpus,
				    pool, cfg->pcpus);
		return false;
	}
	return true;
}

/* [machine] smt_throughput: at least smt percentages, 100 first, never
 * falling (another busy thread never makes the core slower). */
static bool parse_smt_tput(struct qsim_config *cfg, const char *path,
			   GError **error)
{
	g_auto(GStrv) parts = g_strsplit(cfg->smt_tput_text, ",", -1);
	guint n = g_strv_length(parts);
	bool ok = n >= cfg->smt && n <= SIM_SMT_MAX;

	for (guint i = 0; ok && i < n; i++) {
		uint64_t v;

		ok = cfg_parse_u64(g_strstrip(parts[i]), &v) && v >= 1 &&
		     v <= 800 && (i ? v >= cfg->smt_tput[i - 1] : v == 100);
		if (ok)
			cfg->smt_tput[i] = (unsigned int)v;
	}
	if (!ok)
		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [machine] smt_throughput = '%s': expected at "
			    "least [machine] smt (%u) and at most %d "
			    "percentages, comma separated, the first 100 and "
			    "none below the one before (a core's throughput "
			    "with 1, 2, ... busy threads: set it with smt)",
			    path, cfg->smt_tput_text, cfg->smt, SIM_SMT_MAX);
	return ok;
}

/*
 * What the host allows, before anything runs (issue #15 D2): each vCPU's
 * coroutine stack is a mapping plus a guard page, two memory mappings,
 * and Linux caps a process's mappings (vm.max_map_count, 65,530 by
 * default); the stacks' address space must fit RLIMIT_AS.  Past either
 * the run used to abort in mmap or mprotect.
 */
static bool check_host_limits(const struct qsim_config *cfg, const char *path,
			      GError **error)
{
	uint64_t vcpus = cfg->vcpus, need, stacks;
	g_autofree char *max_text = NULL;
	struct rlimit rl;

	for (unsigned int n = 0; n < cfg->noise_parts; n++)
		vcpus += cfg->noise[n].vcpus;
	need = 2 * vcpus + 4096; /* the stacks, and the process's own */
	if (g_file_get_contents("/proc/sys/vm/max_map_count", &max_text, NULL,
				NULL)) {
		uint64_t max = g_ascii_strtoull(max_text, NULL, 10);

		if (max && need > max) {
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [partition] vcpus: %" PRIu64
				    " vCPUs in all need about %" PRIu64
				    " memory mappings (two per vCPU stack), "
				    "more than this host allows "
				    "(vm.max_map_count = %" PRIu64
				    "): use fewer vCPUs, or raise the limit "
				    "(sysctl -w vm.max_map_count=%" PRIu64 ")",
				    path, vcpus, need, max, need);
			return false;
		}
	}
	stacks = vcpus * ((uint64_t)cfg->stack_kib * 1024 + 65536);
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    stacks + ((uint64_t)1 << 30) > (uint64_t)rl.rlim_cur) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [machine] stack_kib = %u: %" PRIu64
			    " vCPU stacks need %" PRIu64
			    " MiB of address space, more than this process's "
			    "limit (RLIMIT_AS, ulimit -v: %" PRIu64
			    " MiB) leaves after 1 GiB for the rest: use "
			    "fewer vCPUs or a smaller stack_kib, or raise "
			    "the limit",
			    path, cfg->stack_kib, vcpus, stacks >> 20,
			    (uint64_t)rl.rlim_cur >> 20);
		return false;
	}
	return true;
}

/* Is hold @d (of @key) at least the hang bound, on average?  Says so. */
static bool hold_too_long(const struct qsim_config *cfg, const char *key,
			  const struct sim_duration *d, const char *path,
			  GError **error)
{
	char a[32], b[32];

	if (sim_duration_mean(d) < cfg->hang_bound_ps)
		return false;
	g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
		    "%s: [workload] %s = %s: a waiter behind one such hold "
		    "waits longer than [check] hang_bound = %s, which the "
		    "checks report as a hang (exit 2); make the hold shorter "
		    "than hang_bound, or raise hang_bound",
		    path, key, sim_format_duration(d, a, sizeof(a)),
		    sim_format_time(cfg->hang_bound_ps, b, sizeof(b)));
	return true;
}

/*
 * Whether the lock has a reader side.  read_pct, readers and read_cs act
 * only there: with another lock every acquisition is exclusive, as the
 * kernel's locktorture starts no reader threads for a lock type without
 * a read lock (a compare over lock types shares one scenario).
 */
bool cfg_lock_reads(const struct qsim_config *cfg)
{
	const struct lk_ops *ops = lk_find(cfg->lock);

	return ops && ops->read_lock;
}

/*
 * Holds (mean) the hang bound would report: with more than one vCPU,
 * someone waits behind each (session 14, a fresh-user audit: cs = 500ms
 * ran into a starvation violation).  The holds in use: lock_cs's, else
 * write_cs or cs; read_cs when set.
 */
static bool hold_checks(const struct qsim_config *cfg, const char *path,
			GError **error)
{
	if (cfg->vcpus < 2)
		return true;
	if (cfg->lock_cs) {
		for (unsigned int i = 0; i < cfg->nlocks; i++)
			if (hold_too_long(cfg, "lock_cs", &cfg->lock_cs[i],
					  path, error))
				return false;
	} else if (hold_too_long(cfg, cfg->write_cs.set ? "write_cs" : "cs",
				 cfg->write_cs.set ? &cfg->write_cs.d
						   : &cfg->cs,
				 path, error)) {
		return false;
	}
	return !(cfg->read_cs.set && cfg_lock_reads(cfg) &&
		 hold_too_long(cfg, "read_cs", &cfg->read_cs.d, path, error));
}

/*
 * [workload] combinations that cannot give what they ask for.  A key of
 * another workload type (steps for a locktest, say) or one with nothing
 * to act on (nest_prob with one lock) is ignored, as a [lock] key of
 * another lock type is: a sweep or compare varies the type or the locks
 * over one scenario.
 */
static bool workload_checks(struct qsim_config *cfg, const char *path,
			    GError **error)
{
	enum wl_type t = wl_type_parse(cfg->workload);
	bool lockstep = t == WL_LOCKTEST || t == WL_LOCKTORTURE;

	unsigned int steps = lockstep	  ? 1
			     : cfg->steps ? cfg->steps
					  : wl_default_steps(t);

	/* Locks nobody would take (session 15, a fresh-user audit:
	 * kbuild's 64 locks with pick = step and 32 steps left half idle);
	 * a nested step may take any lock above its outer one. */
	bool nesting = cfg->nest_prob > 0;

	if (strcmp(cfg->pick, "step") == 0 && steps < cfg->nlocks && !nesting) {
		g_autofree char *taken =
			steps == 1
				? g_strdup("lock 0")
				: g_strdup_printf("locks 0 to %u", steps - 1);

		g_set_error(
			error, CFG_ERROR, CFG_ERROR_VALUE,
			"%s: [workload] pick = step: step k of a unit takes "
			"lock k mod locks, and a %s unit has %u step%s, so "
			"only %s of the %u would be taken; use random or "
			"vcpu%s, nest_prob, or at most %u lock%s",
			path, cfg->workload, steps, steps == 1 ? "" : "s",
			taken, cfg->nlocks,
			lockstep ? " (or type ebizzy, kbuild or netperf)"
				 : ", steps at least locks",
			steps, steps == 1 ? "" : "s");
		return false;
	}
	if (strcmp(cfg->pick, "vcpu") == 0 && cfg->vcpus < cfg->nlocks &&
	    !nesting) {
		g_autofree char *taken =
			cfg->vcpus == 1 ? g_strdup("lock 0")
					: g_strdup_printf("locks 0 to %u",
							  cfg->vcpus - 1);

		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [workload] pick = vcpu: vCPU i takes lock i "
			    "mod locks, and [partition] vcpus = %u, so only "
			    "%s of the %u would be taken; use random or "
			    "step, nest_prob, or at most %u lock%s",
			    path, cfg->vcpus, taken, cfg->nlocks, cfg->vcpus,
			    cfg->vcpus == 1 ? "" : "s");
		return false;
	}
	if (cfg->stat_interval_ps != SIM_TIME_NEVER &&
	    cfg->stat_interval_ps > 0 && cfg->stat_interval_ps < SIM_US) {
		char a[32];

		g_set_error(
			error, CFG_ERROR, CFG_ERROR_VALUE,
			"%s: [workload] stat_interval = %s: statistics "
			"lines every less than 1us would be more output "
			"than simulation; give 0 (none), auto, or from 1us "
			"to 1000s",
			path,
			sim_format_time(cfg->stat_interval_ps, a, sizeof(a)));
		return false;
	}
	if (cfg->long_hold_prob > 0 &&
	    cfg->long_hold_ps >= cfg->hang_bound_ps) {
		char a[32], b[32];

		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [workload] long_hold = %s with long_hold_prob "
			    "= %g: a waiter behind a long hold waits longer "
			    "than [check] hang_bound = %s, which the checks "
			    "report as a hang; make long_hold shorter than "
			    "hang_bound, or raise hang_bound",
			    path,
			    sim_format_time(cfg->long_hold_ps, a, sizeof(a)),
			    cfg->long_hold_prob,
			    sim_format_time(cfg->hang_bound_ps, b, sizeof(b)));
		return false;
	}
	return true;
}

static bool cross_checks(struct qsim_config *cfg, const char *path,
			 GError **error)
{
	/* A cache is shared by cores of one chip: the engine's line queues
	 * order requesters by domain within chip (found by torture's
	 * one-core chips with power9's two-core caches). */
	if (cfg->cache_cores > cfg->cores_per_chip ||
	    cfg->cores_per_chip % cfg->cache_cores) {
		g_set_error(
			error, CFG_ERROR, CFG_ERROR_VALUE,
			"%s: [machine] cache_cores = %u: must divide "
			"[machine] cores_per_chip = %u (a cache is shared "
			"by cores of one chip); set both, or cores_per_chip "
			"to a multiple of %u (the preset's %s gives "
			"cache_cores %u)",
			path, cfg->cache_cores, cfg->cores_per_chip,
			cfg->cache_cores, cfg->preset, cfg->cache_cores);
		return false;
	}
	if (!check_partitions(cfg, path, error) ||
	    !check_host_limits(cfg, path, error))
		return false;
	/* A csd line per sender and target: n squared of them. */
	for (unsigned int n = 0; cfg->ipi_prob > 0 && n <= cfg->noise_parts;
	     n++) {
		bool guest = n == cfg->noise_parts;
		unsigned int v = guest ? cfg->vcpus : cfg->noise[n].vcpus;

		if ((guest || cfg->noise[n].locktest) &&
		    v > QSIM_IPI_MAX_VCPUS) {
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [workload] ipi_prob = %g: cross-calls "
				    "need at most %u vCPUs a partition (%s "
				    "vcpus = %u)",
				    path, cfg->ipi_prob, QSIM_IPI_MAX_VCPUS,
				    guest ? "[partition]" : "[noise]", v);
			return false;
		}
	}
	const struct lk_ops *ops = lk_find(cfg->lock);

	if (cfg->qspl_set && ops->knobs) {
		g_auto(GStrv) have = ops->knobs();
		unsigned int i = 0;

#define X(name, def, max, help)                                              \
	if ((cfg->qspl_set & (1u << i)) &&                                   \
	    !knob_default(have, "qspl_" #name)) {                            \
		g_autofree char *list = NULL;                                \
		const struct lk_ktree_identity *id = lk_ktree_identity();    \
                                                                             \
		for (char **h = have; *h; h++) /* the names */               \
			if (strchr(*h, '='))                                 \
				*strchr(*h, '=') = '\0';                     \
		list = g_strjoinv(", ", have);                               \
		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,               \
			    "%s: [lock] qspl_" #name                         \
			    ": lock %s (Linux %s) has no such tunable; its " \
			    "qspl_ tunables are: %s",                        \
			    path, cfg->lock, id ? id->version : "?",         \
			    *list ? list : "none");                          \
		return false;                                                \
	}                                                                    \
	i++;
		QSPL_TUNABLES(X)
#undef X
	}

	if ((cfg->read_cs.set || cfg->write_cs.set) && *cfg->lock_cs_text) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [workload] lock_cs = '%s' together with "
			    "read_cs or write_cs: give per-lock sections or "
			    "per-side sections, not both",
			    path, cfg->lock_cs_text);
		return false;
	}
	if (cfg->readers && cfg->read_pct) {
		g_set_error(
			error, CFG_ERROR, CFG_ERROR_VALUE,
			"%s: [workload] read_pct = %u together with readers "
			"= %u: give one of them (a share of every vCPU's "
			"acquisitions, or vCPUs that only read), the other "
			"0",
			path, cfg->read_pct, cfg->readers);
		return false;
	}
	if (cfg->readers > cfg->vcpus) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [workload] readers = %u: at most [partition] "
			    "vcpus (%u)",
			    path, cfg->readers, cfg->vcpus);
		return false;
	}
	if (!workload_checks(cfg, path, error))
		return false;
	/* a woken sleeper is away at least the wake latency: a bound at or
	 * below it makes every sleep a "lost wake-up" */
	if (cfg->sleep_bound_ps <= cfg_wake_latency(cfg)) {
		char a[32], b[32];

		g_set_error(
			error, CFG_ERROR, CFG_ERROR_VALUE,
			"%s: [check] sleep_bound = %s: at most [hypervisor] "
			"wake_latency (%s here), the least a woken sleeper "
			"is away, so every sleep would be a lost wake-up; "
			"give more than %s",
			path,
			sim_format_time(cfg->sleep_bound_ps, a, sizeof(a)),
			sim_format_time(cfg_wake_latency(cfg), b, sizeof(b)),
			b);
		return false;
	}
	if (cfg->ipi_targets && cfg->ipi_targets >= cfg->vcpus) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [workload] ipi_targets = %u: a cross-call "
			    "interrupts at most the partition's other vCPUs "
			    "(0 - %u; 0 = all the others)",
			    path, cfg->ipi_targets, cfg->vcpus - 1);
		return false;
	}
	if (*cfg->lock_cs_text) {
		g_auto(GStrv) parts = g_strsplit(cfg->lock_cs_text, ",", -1);
		guint n = g_strv_length(parts);

		if (n != cfg->nlocks) {
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [workload] lock_cs = '%s': %u "
				    "entr%s for %u lock%s; give one duration "
				    "per lock",
				    path, cfg->lock_cs_text, n,
				    n == 1 ? "y" : "ies", cfg->nlocks,
				    cfg->nlocks == 1 ? "" : "s");
			return false;
		}
		cfg->lock_cs = g_new0(struct sim_duration, n);
		for (guint i = 0; i < n; i++) {
			if (!sim_parse_duration(g_strstrip(parts[i]),
						&cfg->lock_cs[i]) ||
			    cfg->lock_cs[i].a_ps > SIM_S ||
			    cfg->lock_cs[i].b_ps > SIM_S) {
				g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
					    "%s: [workload] lock_cs entry %u "
					    "'%s': expected TIME, exp:MEAN or "
					    "uniform:LO:HI, at most 1s",
					    path, i + 1, parts[i]);
				return false;
			}
		}
	}
	if (!hold_checks(cfg, path, error))
		return false;
	if (strcmp(cfg->mutant, "none")) {
		const struct lk_ops *m = lk_find_mutant(cfg->mutant);

		if (strcmp(m->name, cfg->lock)) {
			g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
				    "%s: [lock] mutant = %s is a build of %s, "
				    "but type = %s; set type = %s",
				    path, cfg->mutant, m->name, cfg->lock,
				    m->name);
			return false;
		}
	}
	if (!parse_smt_tput(cfg, path, error))
		return false;
	if (cfg->line_bytes & (cfg->line_bytes - 1)) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [machine] line_size = %u: must be a power of "
			    "two from 16 to 1024",
			    path, cfg->line_bytes);
		return false;
	}
	if (cfg->page_bytes & (cfg->page_bytes - 1)) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_VALUE,
			    "%s: [machine] page_size = %u: must be a power of "
			    "two from 4096 to 1048576",
			    path, cfg->page_bytes);
		return false;
	}
	return true;
}

/* At most 60 characters of @s, control characters escaped (UTF-8 text
 * as it is), for an error message. */
static char *excerpt(const char *s)
{
	char high[129];
	size_t n = strlen(s);
	bool utf8 = g_utf8_validate(s, -1, NULL);
	glong chars = utf8 ? g_utf8_strlen(s, -1) : (glong)n;
	g_autofree char *head = NULL, *esc = NULL;

	for (int c = 0; c < 128; c++)
		high[c] = (char)(0x80 + c);
	high[128] = '\0';
	head = utf8 ? g_utf8_substring(s, 0, SIM_MIN(chars, 60))
		    : g_strndup(s, SIM_MIN(n, 60));
	esc = g_strescape(head, utf8 ? high : NULL);
	return chars > 60 ? g_strdup_printf("%s... (%zu bytes)", esc, n)
			  : g_steal_pointer(&esc);
}

/* The line @name was first seen on (0: never), noting @no if new. */
static unsigned int seen_at(GHashTable *h, const char *name, unsigned int no)
{
	unsigned int before = GPOINTER_TO_UINT(g_hash_table_lookup(h, name));

	if (!before)
		g_hash_table_insert(h, g_strdup(name), GUINT_TO_POINTER(no));
	return before;
}

/*
 * What GKeyFile lets pass silently: a section or a key given twice (it
 * keeps the last), and locale-specific keys (key[locale]), which it files
 * apart and never reports.  Each is an error naming both lines.
 */
/* Line @no of @path, @l, is malformed: say so, naming it. */
static bool line_error(const char *path, unsigned int no, const char *l,
		       const char *why, GError **error)
{
	g_autofree char *e = excerpt(l);

	g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX, "%s: line %u: '%s': %s",
		    path, no, e, why);
	return false;
}

static bool check_lines(const char *path, const char *text, GError **error)
{
	g_autoptr(GHashTable) sections =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) keys =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autofree char *section = NULL;

	for (unsigned int i = 0; lines[i]; i++) {
		char *l = g_strstrip(lines[i]);
		unsigned int no = i + 1, before;
		char *eq, *key;

		if (!*l || *l == '#')
			continue;
		if (*l == '[' && !strchr(l, ']'))
			return line_error(path, no, l,
					  "a section header needs its ']'",
					  error);
		if (*l != '[' && !strchr(l, '='))
			return line_error(path, no, l,
					  "not a [section], a key = value or a "
					  "# comment",
					  error);
		if (*l == '[') {
			char *end = strchr(l, ']');

			g_free(section);
			section = end ? g_strndup(l + 1, (size_t)(end - l - 1))
				      : g_strdup(l + 1);
			before = seen_at(sections, section, no);
			if (before) {
				g_autofree char *e = excerpt(section);

				g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX,
					    "%s: section [%s] appears twice "
					    "(lines %u and %u): give each "
					    "section once",
					    path, e, before, no);
				return false;
			}
			continue;
		}
		eq = strchr(l, '=');
		if (!section)
			return line_error(path, no, l,
					  "a key before any [section]", error);
		*eq = '\0';
		key = g_strstrip(l);
		if (strchr(key, '[')) {
			g_autofree char *e = excerpt(key);

			g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX,
				    "%s: line %u: [%s] %s: a key with a locale "
				    "(key[locale]) is not a scenario key",
				    path, no, section, e);
			return false;
		}
		{
			g_autofree char *full =
				g_strdup_printf("%s\n%s", section, key);

			before = seen_at(keys, full, no);
			if (before) {
				g_autofree char *e = excerpt(key);

				g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX,
					    "%s: [%s] %s is set twice (lines "
					    "%u and %u): set it once",
					    path, section, e, before, no);
				return false;
			}
		}
	}
	return true;
}

/*
 * A check across keys names them as "[section] key" after the file's
 * name; when a value it names came from --set, say so (the file was
 * blamed for it).
 */
static void blame_overrides(GError **error, GHashTable *set_keys)
{
	GHashTableIter it;
	gpointer id;
	GString *m;

	if (!error || !*error || !g_hash_table_size(set_keys))
		return;
	m = g_string_new((*error)->message);
	g_hash_table_iter_init(&it, set_keys);
	while (g_hash_table_iter_next(&it, &id, NULL)) {
		g_auto(GStrv) sk = g_strsplit(id, ".", 2);
		g_autofree char *named = NULL;

		if (!sk[0] || !sk[1])
			continue;
		named = g_strdup_printf("[%s] %s", sk[0], sk[1]);
		if (strstr((*error)->message, named))
			g_string_append_printf(m, " (%s was set by --set %s)",
					       named, (const char *)id);
	}
	g_free((*error)->message);
	(*error)->message = g_string_free(m, FALSE);
}

struct qsim_config *cfg_load_text(const char *path, const char *text,
				  char **overrides, GError **error)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autoptr(GKeyFile) out = g_key_file_new();
	g_autoptr(GHashTable) set_keys =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GError) local = NULL;
	g_autoptr(qsim_config) cfg = g_new0(struct qsim_config, 1);
	const struct cfg_preset *preset;

	cfg->path = g_strdup(path);
	cfg->text = g_strdup(text);
	cfg->overrides = g_strdupv(overrides);
	if (!g_utf8_validate(text, -1, NULL)) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX,
			    "%s: not a valid scenario file: not UTF-8 text",
			    path);
		return NULL;
	}
	/* A UTF-8 byte-order mark (some editors write one) is no text. */
	if (g_str_has_prefix(text, "\xEF\xBB\xBF"))
		text += 3;
	/* Line by line first: its errors name the line. */
	if (!check_lines(path, text, error))
		return NULL;
	if (!g_key_file_load_from_data(kf, text, (gsize)-1, G_KEY_FILE_NONE,
				       &local)) {
		g_autofree char *e = excerpt(local->message);

		g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX,
			    "%s: not a valid scenario file: %s", path, e);
		return NULL;
	}
	if (!check_unknown(kf, path, error) ||
	    !apply_overrides(kf, overrides, set_keys, error))
		return NULL;

	/* The preset first: other defaults depend on it. */
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++) {
			const struct cfg_key *k = &cfg_keys[i];
			bool is_preset = k->off == OFF(preset);
			g_autofree char *raw = NULL, *v = NULL;

			if (is_preset != (pass == 0))
				continue;
			raw = g_key_file_get_value(kf, k->section, k->key,
						   NULL);
			preset = cfg->preset ? preset_find(cfg->preset) : NULL;
			v = raw ? g_strstrip(g_strdup(raw))
				: default_text(k, preset);
			int li = noise_list_index(k);

			if (li >= 0 ? !parse_noise_value(k, li, v, cfg)
				    : !parse_value(k, v, cfg)) {
				g_autofree char *what = allowed_text(k);
				g_autofree char *where =
					origin(path, set_keys, k);

				g_autofree char *ve = excerpt(v);

				/* a kernel tree's lock in a build without it */
				bool ktree = strcmp(k->section, "lock") == 0 &&
					     strcmp(k->key, "type") == 0 &&
					     g_str_has_prefix(v, "kernel_");

				g_set_error(
					error, CFG_ERROR, CFG_ERROR_VALUE,
					"%s = '%s': expected %s%s%s", where, ve,
					what,
					li >= 0 ? ", or one such value per "
						  "noise partition, comma "
						  "separated"
						: "",
					ktree ? " (the kernel_* types come "
						"from a kernel tree given "
						"when qsim is configured, "
						"-DQSIM_KERNEL_TREE=DIR or "
						"tools/setup.sh --kernel-tree "
						"DIR, each from the files the "
						"tree has: docs/kernel-tree.md)"
					      : "");
				return NULL;
			}
			/* as parsed: one digest, one resolved text */
			if (k->type == CT_SHA256)
				g_key_file_set_value(
					out, k->section, k->key,
					*(char **)((char *)cfg + k->off));
			else
				g_key_file_set_value(out, k->section, k->key,
						     v);
		}
	}
	{
		unsigned int i = 0;

#define X(name, def, max, help)                                  \
	if (g_key_file_has_key(kf, "lock", "qspl_" #name, NULL)) \
		cfg->qspl_set |= 1u << i;                        \
	i++;
		QSPL_TUNABLES(X)
#undef X
	}
	if (!cross_checks(cfg, path, error)) {
		blame_overrides(error, set_keys);
		return NULL;
	}
	if (cfg->overcommit_req > 0) /* the pCPUs it derived */
		g_key_file_set_integer(out, "machine", "pcpus",
				       (gint)cfg->pcpus);
	resolve_tree_knobs(out, cfg);
	cfg->resolved = g_key_file_to_data(out, NULL, NULL);
	return g_steal_pointer(&cfg);
}

struct qsim_config *cfg_load(const char *path, char **overrides, GError **error)
{
	g_autofree char *text = NULL;
	g_autoptr(GError) local = NULL;
	const char *nul;
	GStatBuf st;
	gsize len;

	/* A FIFO or a device would block or never end: files only. */
	if (g_stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_IO,
			    "%s: cannot read scenario: not a regular file",
			    path);
		return NULL;
	}
	if (!g_file_get_contents(path, &text, &len, &local)) {
		g_set_error(error, CFG_ERROR, CFG_ERROR_IO,
			    "%s: cannot read scenario: %s", path,
			    local->message);
		return NULL;
	}
	nul = memchr(text, '\0', len);
	if (nul) {
		unsigned int line = 1;

		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		g_set_error(error, CFG_ERROR, CFG_ERROR_SYNTAX,
			    "%s: line %u: a NUL byte (offset %zu): a scenario "
			    "is text",
			    path, line, (size_t)(nul - text));
		return NULL;
	}
	return cfg_load_text(path, text, overrides, error);
}

char *cfg_key_default(const char *section, const char *key)
{
	const struct cfg_key *k = key_find(section, key);

	return k ? default_text(k, &presets[0]) : NULL;
}

/* One key of cfg_keys, as `qsim list keys` prints it. */
static void print_key(FILE *out, const struct cfg_key *k)
{
	g_autofree char *what = allowed_text(k);
	g_autofree char *def = default_text(k, &presets[0]);

	fprintf(out, "  %-26s %-8s default %-10s %s\n", k->key,
		type_name(k->type), def, k->help);
	fprintf(out, "  %-26s          accepts %s%s\n", "", what,
		k->def ? "" : " (default from machine.preset)");
}

bool cfg_print_section_keys(FILE *out, const char *section)
{
	if (!section_known(section))
		return false;
	fprintf(out, "[%s]\n", section);
	for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++)
		if (strcmp(cfg_keys[i].section, section) == 0)
			print_key(out, &cfg_keys[i]);
	return true;
}

char *cfg_section_names(void)
{
	return list_sections();
}

void cfg_print_keys(FILE *out)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cfg_keys); i++) {
		const struct cfg_key *k = &cfg_keys[i];

		if (!i || strcmp(k->section, cfg_keys[i - 1].section))
			fprintf(out, "[%s]\n", k->section);
		print_key(out, k);
	}
}
