/* SPDX-License-Identifier: MIT */
/*
 * The workloads and the lock metrics they measure (docs/scenarios.md,
 * "Workloads").
 *
 * locktest and locktorture: each vCPU loops: think, pick a lock, lock it,
 * hold it for a critical section, unlock; a unit of work is an
 * acquisition.  ebizzy, kbuild and netperf: a unit (a record, a job, a
 * transaction) is `steps` times work-then-lock-hold-unlock, then, if the
 * workload has it, idle time (ceded); units per second is the figure.
 *
 * locktest: each vCPU loops: think, pick a lock, lock it, hold it for a
 * critical section, unlock.  The workload sees locks only through wl_lock_iface,
 * and the hypervisor only through the engine's dispatch hook, which is
 * how it measures lock-holder preemption (LHP: a holder undispatched while
 * holding) and lock-waiter preemption (LWP: a hand-off delayed because the
 * vCPU that takes the lock next was not running).
 *
 * It also checks, always: mutual exclusion (occupancy of every critical
 * section is 0 or 1) and bounded progress (no vCPU waits for a lock longer
 * than the hang bound).  A violation stops the run and is a result.
 */
#ifndef QSIM_SIM_WORKLOAD_H
#define QSIM_SIM_WORKLOAD_H

#include <glib.h>

#include "sim/dist.h"
#include "sim/engine.h"
#include "sim/hist.h"

struct wl_lock_iface {
	void (*lock)(void *lock);
	void (*unlock)(void *lock);
	/* Reader side of a rwlock, or NULL. */
	void (*read_lock)(void *lock);
	void (*read_unlock)(void *lock);
	/* Spend @d idle (the think time with think_idle), or NULL. */
	void (*idle)(struct sim_cpu *c, sim_time_t d);
};

enum wl_pick {
	WL_PICK_RANDOM, /* uniformly at random, every acquisition */
	WL_PICK_VCPU,	/* vCPU i always takes lock i % nlocks */
	WL_PICK_STEP,	/* step k of a unit takes lock k % nlocks */
};

enum wl_type {
	WL_LOCKTEST,
	WL_LOCKTORTURE,
	WL_EBIZZY,
	WL_KBUILD,
	WL_NETPERF,
	WL_NTYPES,
};

/* The workload's name, the name of its unit ("acquisitions", ...) and its
 * default lock steps per unit. */
const char *wl_type_name(enum wl_type t);
const char *wl_unit_name(enum wl_type t);
/* locktorture's "???" on a statistics line: half the most acquisitions
 * by one thread, rounded down, above the fewest. */
bool wl_stat_imbalance(uint64_t max, uint64_t min);
unsigned int wl_default_steps(enum wl_type t);
/* The type named @name (locktest if none is). */
enum wl_type wl_type_parse(const char *name);

enum wl_violation {
	WL_OK,
	WL_VIOL_MUTEX,
	WL_VIOL_HANG,
	WL_VIOL_DEADLOCK,
	WL_VIOL_LOCK,	     /* an invariant inside the lock code */
	WL_VIOL_LOST_WAKEUP, /* asleep in a lock wait with nobody to wake it */
	WL_VIOL_STARVATION,  /* waited past the bound while others got it */
	WL_VIOL_STALE_DATA,  /* a holder saw the data of an older holder */
};

struct wl_params {
	enum wl_type type;
	unsigned int steps; /* lock steps per unit (0: the type's) */
	/* idle (ceded) time after each unit, or NULL: none */
	const struct sim_duration *unit_idle;
	/* locktorture: a statistics line every this long (0: none) */
	sim_time_t stat_interval_ps;
	bool stat_any; /* the lines for any workload type, not only it */
	/* each block of lines as it is made (or NULL) */
	void (*stat_fn)(void *data, const char *block);
	void *stat_data;
	struct sim_duration cs;
	const struct sim_duration *lock_cs;  /* per lock, or NULL: cs */
	const struct sim_duration *read_cs;  /* readers', or NULL: cs */
	const struct sim_duration *write_cs; /* writers', or NULL: cs */
	/* locktorture: a write acquisition holds for long_hold_ps with this
	 * probability; stutter: run stutter_ps, pause as long, ... */
	double long_hold_prob;
	sim_time_t long_hold_ps;
	/* A writer holding lock i takes, with this probability, a second
	 * lock j > i (ascending: no deadlock) and holds both. */
	double nest_prob;
	sim_time_t stutter_ps;
	unsigned int read_pct; /* share of acquisitions that read (rwlocks) */
	unsigned int readers; /* or: vCPUs 0..readers-1 only read, rest write */
	struct sim_duration think;
	bool think_idle; /* think time idle (ops->idle), not computing */
	unsigned int nlocks;
	enum wl_pick pick;
	sim_time_t warmup_end_ps;
	sim_time_t hang_bound_ps;
	sim_time_t sleep_bound_ps; /* asleep this long in a lock wait: lost */
	/* Each holder reads (and a writer increments) a counter in guest
	 * memory that its lock protects, through the memory model: a holder
	 * that sees an older holder's value is a violation (an ordering bug
	 * that a weak memory model exposes; docs/memory-model.md). */
	bool cs_data;
	/*
	 * Synchronous cross-calls (smp_call_function_many with wait, as a
	 * TLB shootdown): before a lock step, with this probability, a vCPU
	 * interrupts ipi_targets others of its partition (0: all) and spins
	 * until each has run its handler (ipi_handler_ps of its time).
	 */
	double ipi_prob;
	unsigned int ipi_targets;
	sim_time_t ipi_handler_ps;
	uint64_t seed;
};

struct wl_lock_stats {
	uint64_t acquisitions;
	uint64_t read_acquisitions, write_acquisitions;
	struct sim_hist latency; /* lock() called -> lock held */
	struct sim_hist read_latency, write_latency;
	struct sim_hist hold;	 /* lock held -> unlock() called */
	struct sim_hist handoff; /* release with waiters -> next acquire */
	uint64_t lhp_events;
	sim_time_t lhp_total_ps, lhp_max_ps;
	sim_time_t lhp_waiter_ps; /* sum over waiters of time lost to LHP */
	uint64_t lwp_events;
	sim_time_t lwp_total_ps, lwp_max_ps;
	uint64_t long_holds;
	uint64_t nested; /* acquisitions made holding a lower one */
	/* waits under way at the end (wl_finish), in latency at their wait
	 * so far */
	uint64_t unfinished;
};

struct wl_vcpu;

struct wl_lock {
	unsigned int idx;
	void *addr;		/* the lock in guest memory */
	unsigned int readers;	/* inside as readers */
	bool writer;		/* a writer (or plain locker) is inside */
	struct wl_vcpu *holder; /* the writer, or the latest reader */
	unsigned int nwaiters;
	struct wl_vcpu *waiters; /* doubly linked through wl_vcpu.wnext */
	bool handoff_open;
	sim_time_t rel_ps;
	uint64_t releases;  /* ever, not reset at warm-up */
	uint64_t *data;	    /* the counter it protects (cs_data), guest */
	uint64_t data_n;    /* the writers that incremented it so far */
	unsigned int lhp_n; /* holders undispatched right now */
	sim_time_t lhp_acc_ps;
	struct wl_lock_stats st;
};

struct wl_vcpu {
	struct wl *wl;
	unsigned int idx;
	struct sim_cpu *cpu;
	struct sim_rng rng;
	struct wl_lock *holding; /* the innermost lock held */
	bool holding_read;
	struct wl_lock *outer; /* the lock held around it (nest_prob) */
	bool outer_read;
	sim_time_t lhp_since; /* undispatched while holding, since */
	struct wl_lock *waiting;
	struct wl_lock *in_op; /* inside lock() .. unlock() of this lock */
	struct wl_vcpu *wnext, *wprev;
	sim_time_t req_ps;
	uint64_t releases_at_req; /* the awaited lock's releases then */
	sim_time_t pre_total_ps;  /* cumulative undispatched time */
	sim_time_t pre_since;	  /* SIM_TIME_NEVER while dispatched */
	sim_time_t pre_at_rel; /* pre_total when the awaited lock was freed */
	uint64_t rel_seen; /* the awaited lock's releases pre_at_rel is of */
	uint64_t acquisitions;
	uint64_t read_acquisitions, write_acquisitions;
	uint64_t units; /* units of work finished (since the warm-up) */
	/* locktorture: acquisitions since the start (never reset) */
	uint64_t all_reads, all_writes;
	sim_time_t ipi_since; /* in a cross-call since; NEVER otherwise */
};

struct wl {
	struct wl_params p;
	const struct wl_lock_iface *ops;
	struct wl_lock *locks;
	struct wl_vcpu *vcpus;
	unsigned int nvcpus;
	struct sim *sim;
	struct sim_event watchdog;
	/* The drain (wl_drain): no new acquisitions; the run ends when no
	 * vCPU is inside a lock operation, or fails at drain_ev. */
	bool draining;
	unsigned int in_ops; /* vCPUs inside a lock operation */
	sim_time_t drain_since;
	struct sim_event drain_ev;
	enum wl_violation violation;
	sim_time_t violation_ps;
	char *violation_msg;
	/* locktorture's statistics lines, as it prints them periodically */
	struct sim_event stat_ev;
	GString *stat_log;
	/* Cross-calls: sender i's call to target j is ipis[i * nvcpus + j],
	 * its csd flag on a line of its own; calls made and the time their
	 * senders spent from the first send to the last answer. */
	struct sim_ipi *ipis;
	uint64_t ipi_calls;
	sim_time_t ipi_wait_ps;
};

void wl_init(struct wl *w, struct sim *s, const struct wl_params *p,
	     const struct wl_lock_iface *ops, void **lock_addrs,
	     unsigned int nvcpus);
void wl_destroy(struct wl *w);
/*
 * The drain phase, from @t: no vCPU starts another lock operation; every
 * one inside one must finish it (every waiter get its lock, every sleeper
 * its wake-up) within @bound, else a violation.  Stops the engine when
 * the last finishes (at once if none is inside one).
 */
void wl_drain(struct wl *w, sim_time_t t, sim_time_t bound);
/* The per-vCPU entry to hand to the hypervisor, and its argument. */
void wl_vcpu_main(struct sim_cpu *c, void *arg);
void *wl_vcpu_arg(struct wl *w, unsigned int i);
/* Bind vCPU @i to its engine cpu once the hypervisor created it. */
void wl_bind(struct wl *w, unsigned int i, struct sim_cpu *c);
void wl_start(struct wl *w, sim_time_t t);
void wl_reset_stats(struct wl *w, sim_time_t t);
/* Close open intervals (LHP, preemption) at the end of the run. */
void wl_finish(struct wl *w, sim_time_t t);
/* Record a violation found outside the workload (deadlock). */
void wl_violation(struct wl *w, enum wl_violation kind, sim_time_t t,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *wl_violation_name(enum wl_violation v);
/* Append "who holds what, who waits for whom" to @out. */
void wl_describe_locks(const struct wl *w, GString *out);

#endif
