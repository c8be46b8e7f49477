/* SPDX-License-Identifier: MIT */
/*
 * The hypervisor model: physical CPUs, partitions of vCPUs, a dispatcher
 * policy, and the SPLPAR hcalls H_CONFER, H_PROD and H_CEDE.
 *
 * vCPU states (hv_vcpu.state)
 *
 *            pick                 dispatch latency
 *   RUNNABLE ------> DISPATCHING -----------------> RUNNING
 *      ^  ^                                           |  |  |
 *      |  +--- slice end (preempt), H_CONFER yield ---+  |  |
 *      |                                                 |  |
 *      +-- WAKING <--- H_PROD (wake latency) --- CEDED <-+  |
 *                                    (H_CEDE, confer-to-self) |
 *
 * Invariants
 *   H1  lppaca.yield_count is even exactly while the vCPU is RUNNING; it
 *       starts at 1 and is bumped at every dispatch and undispatch.
 *   H2  A RUNNING or DISPATCHING vCPU owns exactly one pCPU and that
 *       pCPU's cur points back at it.
 *   H3  A vCPU is on the run queue iff it is RUNNABLE.
 *   H4  The prod latch is set only by an H_PROD that found its target not
 *       ceded, and cleared by the next cede or confer-to-any/self, which
 *       then returns at once.
 *   H5  Under whole-core dispatch every dispatched vCPU on a core belongs
 *       to the core's owner partition.
 *
 * Transitions are performed by: hv_pcpu_pick (RUNNABLE -> DISPATCHING),
 * dispatch_done (-> RUNNING), slice_end and hv_hcall_confer (RUNNING ->
 * RUNNABLE), hv_hcall_cede (RUNNING -> CEDED), hv_hcall_prod (CEDED ->
 * WAKING), wake_done (WAKING -> RUNNABLE).  docs/hypervisor.md documents
 * the semantics and every parameter.
 */
#ifndef QSIM_HV_HV_H
#define QSIM_HV_HV_H

#include "sim/engine.h"
#include "sim/rng.h"

/* hcall numbers and returns, as PAPR spells them. */
#define H_SUCCESS   0
#define H_PARAMETER (-4)
#define H_CEDE	    0xE0
#define H_CONFER    0xE4
#define H_PROD	    0xE8

struct hv;
struct hv_vcpu;
struct hv_pcpu;

/*
 * Shim points: places in guest lock code where a preemption hurts most.
 * The guest announces them (lk_point); the adversarial policy may
 * undispatch the vCPU right there.  X(name, scenario key, doc).
 */
#define HV_POINTS(X)                                                           \
	X(critical_section, p_cs, "inside a critical section")                 \
	X(state_stored, p_state_stored,                                        \
	  "after a waiter's state store, before the hcall that depends on it") \
	X(hashed, p_hashed, "between hashing and setting _Q_SLOW_VAL")         \
	X(unhashed, p_unhashed, "between unhash and the release store")        \
	X(released, p_released, "between the release store and the kick")      \
	X(handed_off, p_handed_off, "right after an MCS hand-off store")       \
	X(tail_published, p_tail_published,                                    \
	  "after publishing the tail, before linking to the predecessor")

enum hv_point {
#define X(name, key, doc) HV_PT_##name,
	HV_POINTS(X)
#undef X
		HV_PT_NR,
};

extern const char *const hv_point_names[HV_PT_NR];

/* Per-vCPU hypervisor counters, in one list for struct, store and report. */
#define HV_VCPU_STATS(X)                                                       \
	X(dispatches, "dispatches onto a pCPU")                                \
	X(preemptions, "undispatched at the end of a time slice")              \
	X(confers_directed, "H_CONFER calls naming a target vCPU")             \
	X(confers_undirected, "H_CONFER(-1) calls")                            \
	X(confers_stale, "directed confers ignored: yield count changed")      \
	X(confers_ignored, "confers that returned at once for another reason") \
	X(confers_yielded, "confers that gave up the pCPU")                    \
	X(prods, "H_PROD calls made")                                          \
	X(prods_latched, "H_PROD calls that set the target's prod latch")      \
	X(cedes, "H_CEDE calls (and confers to self) that slept")              \
	X(latch_returns, "cede/confer calls cut short by a set prod latch")    \
	X(halts, "KVM halts that slept")                                       \
	X(kicks, "KVM kick hypercalls made")                                   \
	X(kicks_latched, "kicks that found the target awake (pv_unhalt set)")  \
	X(kick_returns, "halts cut short by a pending kick")                   \
	X(spurious_returns, "cedes/halts the adversary returned at once")      \
	X(dtl_preempt, "DTL records: undispatched by the hypervisor")          \
	X(dtl_cede, "DTL records: undispatched by a cede or halt")             \
	X(dtl_confer, "DTL records: undispatched by a confer")                 \
	X(dtl_wait_ready_ps, "DTL: ceded, waiting to be made ready (ps)")      \
	X(dtl_ready_enqueue_ps, "DTL: from ready to queued (ps)")              \
	X(dtl_enqueue_dispatch_ps, "DTL: from queued to running (ps)")         \
	X(steal_ps, "steal: ready but not running (ps)")                       \
	X(cpu_time_ps, "CPU time dispatched (ps); physc = this / measured")    \
	X(ple_exits, "pause-loop exits: spun ple_window without a break")      \
	X(ple_yields, "pause-loop exits that yielded to a preempted vCPU")     \
	X(halt_polls_ok, "KVM halts a wake ended while the host polled")       \
	X(halt_polls_missed, "KVM halts that polled in vain, then slept")      \
	X(irq_wakes, "cedes and halts a tick or interrupt ended")              \
	X(kick_yields, "KVM kicks that yielded to the kicked, waiting vCPU")

/* Why a vCPU was undispatched (the DTL record's reason). */
enum hv_dtl_reason {
	HV_DTL_PREEMPT,
	HV_DTL_CEDE,
	HV_DTL_CONFER,
};

/*
 * One dispatch trace log record: a vCPU's time off a pCPU, from
 * undispatch to dispatch, split into waiting to be made ready (ceded,
 * until a prod or kick), ready to queued (the wake latency) and queued to
 * running (steal, including the dispatch latency).  Times are clipped to
 * the measured interval.
 */
struct hv_dtl_record {
	uint32_t vcpu; /* gid */
	uint8_t reason;
	sim_time_t undispatched_ps, ready_ps, enqueued_ps, dispatched_ps;
};

struct hv_vcpu_stats {
#define X(name, doc) uint64_t name;
	HV_VCPU_STATS(X)
#undef X
};

enum hv_vcpu_state {
	HV_RUNNABLE,
	HV_DISPATCHING,
	HV_RUNNING,
	HV_CEDED,
	HV_WAKING,
};

/*
 * The guest-visible per-vCPU area, one per cache line: PAPR's lppaca (VPA)
 * yield count and idle hint, and, for a KVM guest, its steal-time area's
 * `preempted` byte (set by the host when it takes the pCPU from the vCPU
 * while it can run, cleared when it runs again).
 */
struct hv_lppaca {
	uint32_t yield_count;
	uint8_t idle;
	uint8_t preempted;
};

struct hv_vcpu {
	struct hv *hv;
	struct hv_partition *part;
	unsigned int idx; /* the guest's CPU number */
	unsigned int gid; /* index over all partitions */
	struct sim_cpu *cpu;
	struct hv_lppaca *lppaca;
	enum hv_vcpu_state state;
	bool prod_latch;
	bool kick_latch; /* KVM's pending unhalt */
	struct hv_pcpu *pcpu;
	int last_pcpu;
	struct hv_vcpu *rq_next, *rq_prev;
	bool on_rq;
	struct sim_event wake_ev;
	struct sim_event ple_ev;   /* pause-loop exit due */
	struct sim_event timer_ev; /* the idle loop's timer */
	struct sim_event win_ev;   /* its dispatch window begins (powervm) */
	int home_pcpu;		   /* powervm: the pCPU it has affinity to */
	sim_time_t ple_spin_end;   /* when its last spin wait ended */
	sim_time_t ple_cur_ps;	   /* its PLE window now (grows per exit) */
	struct hv_vcpu_stats st;
	/* CPU time: since dispatch, this dispatch window, since the stats
	 * were reset (physc). */
	sim_time_t dispatched_at;
	sim_time_t win_used_ps;
	sim_time_t run_ps;
	sim_time_t cpu_ps; /* since the start, never reset */
	/* The pCPU whose conferred slice it last paid for (powervm). */
	struct hv_pcpu *paying;
	/* The open DTL record: when and why undispatched, made ready, queued
	 * (dtl_open false before the first dispatch).  dtl_first: queued
	 * since the start and not yet dispatched; that wait counts as steal
	 * (queued) from the dtl_* times, with no record. */
	bool dtl_open, dtl_first;
	uint8_t dtl_reason;
	sim_time_t dtl_undispatched_ps, dtl_ready_ps, dtl_enqueued_ps;
	int64_t vrt_off; /* kvm: vruntime placement offset */
	/* kvm: the pCPU whose run queue holds it (-1: none, or a policy
	 * with one queue), and the one its wake-up chose. */
	int rq_cpu;
	int wake_cpu;
	/* KVM halt polling: this vCPU's poll window (grows and shrinks), the
	 * pCPU polling for it now, and when it halted. */
	sim_time_t halt_poll_ps;
	struct hv_pcpu *poll_pcpu;
	sim_time_t halted_at;
	bool in_idle;	    /* in the guest's idle loop (hv_idle): ticks stop */
	bool timer_pending; /* its idle timer fired while it was awake */
	bool boost_pending; /* kicked while waking: run next when queued */
	/*
	 * PAPR's confer structure of an H_CONFER(-1): the partition's other
	 * vCPUs that were preempted then, with their yield counts; before
	 * this vCPU is dispatched again each pending entry still preempted
	 * with the same count gets the dispatch instead (docs/hypervisor.md).
	 */
	struct hv_confer_entry {
		struct hv_vcpu *v;
		uint32_t yield_count;
	} * confer;
	unsigned int confer_n, confer_next;
	uint64_t confer_none_gen; /* hv->gen its last confer found nobody */
};

enum hv_pcpu_ev {
	HV_PCPU_DISPATCH_DONE,
	HV_PCPU_SLICE_END,
	HV_PCPU_POLL_END, /* a halted vCPU stops polling (halt_poll) */
};

struct hv_pcpu {
	struct hv *hv;
	unsigned int id;
	struct hv_vcpu *cur;
	struct sim_event ev;
	enum hv_pcpu_ev ev_kind;
	sim_time_t idle_since; /* SIM_TIME_NEVER while busy */
	sim_time_t idle_ps;
	sim_time_t dispatch_ps;	 /* spent in dispatch latency */
	sim_time_t slice_end_ps; /* of the current dispatch */
	bool inherit;		 /* the dispatch under way continues a slice */
	/* Whose dispatch-window time the running vCPU uses: its own, or,
	 * on a slice handed over by a confer, the conferring vCPU's. */
	struct hv_vcpu *payer;
	int last_part; /* the partition it ran last (-1: none yet) */
	/* KVM halt polling: the halted vCPU this pCPU polls for, or NULL. */
	struct hv_vcpu *polling;
	sim_time_t poll_since;
	/* kvm: Linux's buddies: the vCPU a directed yield wants to run next
	 * here, and the one that yielded (run it last). */
	struct hv_vcpu *next_buddy, *skip_buddy;
	/* kvm: its run queue (vCPUs with rq_cpu == id): how many, their
	 * summed weight, and its least vruntime (never goes back). */
	unsigned int nr_queued;
	uint64_t rq_load;
	int64_t min_vruntime;
};

#define HV_MAX_PARTS 128
/* Pause-loop exiting: waits this close together are one spin loop.  The
 * hardware's gap is 128 cycles between PAUSEs, but a failed atomic on a
 * contended line between two spins takes a memory latency, so this is
 * one memory latency. */
#define HV_PLE_GAP (200 * SIM_NS)
/* The largest PLE window: KVM's is UINT_MAX cycles, about a second. */
#define HV_PLE_WINDOW_MAX SIM_S

struct hv_partition {
	unsigned int id;
	unsigned int nvcpus;
	/* hv->gen at which no queued vCPU of it was a confer target (none
	 * queued, or all conferring): an H_CONFER(-1) by any of its vCPUs
	 * finds nobody until the hypervisor moves (0: never). */
	uint64_t confer_empty_gen;
	/* hv->gen at which every queued confer target of it was lent to
	 * another pCPU (not whole-core): only a pCPU running one of them's
	 * slice may give it that slice back (hv_vcpu_lent). */
	uint64_t confer_lent_gen;
	bool shared; /* SPLPAR: shared processors */
	/* A KVM guest: vcpu_is_preempted reads the steal-time preempted
	 * flag, not the yield count. */
	bool kvm_guest;
	struct hv_vcpu **vcpus;
	void *guest; /* the guest kernel's lock globals (its own per partition) */
	/* PowerVM: entitled capacity in hundredths of a processing unit
	 * (0.05 granularity), capping, and the uncapped weight. */
	unsigned int entitlement_cpu;
	bool capped;
	unsigned int weight;
	/* PowerVM: spare (beyond-entitlement) CPU time used, in ps scaled
	 * by HV_SPARE_SCALE / weight: the uncapped share's virtual time. */
	uint64_t spare_vt;
	bool spare_wanting;    /* at the last spare pick: wanted spare time */
	unsigned int ple_next; /* pause-loop exits: next vCPU to consider */
};

#define HV_SPARE_SCALE 256u

struct hv_params {
	const char *policy;
	unsigned int npcpus;
	sim_time_t slice_ps;
	sim_time_t dispatch_latency_ps;
	/* Added when the pCPU last ran another partition, and when the
	 * vCPU last ran on another pCPU. */
	sim_time_t partition_switch_ps, vcpu_migrate_ps;
	sim_time_t hcall_ps;
	sim_time_t wake_latency_ps;
	bool prod_cuts_directed_confer;
	double spurious_wake;  /* cede/halt returns at once, probability */
	double drain_late;     /* adversarial: a buffered store held longest */
	double point_prob[16]; /* adversarial: preempt at each shim point */
	bool no_latch;	       /* mutant: prods and kicks are never latched */
	sim_time_t window_ps;  /* powervm: the dispatch window */
	/* powervm: every vCPU's window at a random phase of its own (the
	 * model); false: all aligned at time 0 (hand-derived tests). */
	bool window_phase;
	sim_time_t min_granularity_ps;	  /* kvm: shortest slice */
	sim_time_t wakeup_granularity_ps; /* kvm: wake-up preemption lead */
	bool keep_dtl; /* keep every DTL record (hv->dtl), not only sums */
	/* Whole-core dispatch: the smt hardware threads of a core run vCPUs
	 * of one partition at a time. */
	bool whole_core;
	unsigned int smt;
	unsigned int cores_per_chip; /* a chip is a cache (LLC) domain */
	/* kvm: the load balancer's interval (0: one millisecond per pCPU,
	 * as Linux sizes a domain's) and how long after it ran a vCPU is
	 * cache hot (sched_migration_cost). */
	sim_time_t balance_interval_ps;
	sim_time_t migration_cost_ps;
	/* Pause-loop exiting (KVM): a vCPU spinning this long without a
	 * break exits and yields to a preempted vCPU of its guest; 0: off. */
	sim_time_t ple_window_ps;
	/* KVM's boost: a pause-loop exit may yield to a vCPU woken by a kick
	 * (not only to a preempted one). */
	bool kick_boost;
	/* KVM's kick hypercall yields to the kicked vCPU if it waits. */
	bool kick_yield;
	/* KVM halt polling: the longest poll window (halt_poll_ns_max);
	 * 0: off.  After a halt longer than it the window is divided by
	 * halt_poll_shrink (halt_poll_ns_shrink; 0: reset to 0). */
	sim_time_t halt_poll_ps;
	unsigned int halt_poll_shrink;
};

struct hv_policy_ops {
	const char *name;
	const char *desc;
	/* Queue a RUNNABLE vCPU. */
	void (*enqueue)(struct hv *hv, struct hv_vcpu *v);
	/* Choose the next vCPU for @p, or NULL to idle.  Must dequeue it. */
	struct hv_vcpu *(*pick)(struct hv *hv, struct hv_pcpu *p);
	/* At the end of a slice: should the running vCPU make room? */
	bool (*should_preempt)(struct hv *hv, struct hv_pcpu *p);
	/* Length of the next slice of @v (NULL: the fixed slice). */
	sim_time_t (*slice)(struct hv *hv, struct hv_vcpu *v);
	/* The guest reached a shim point (NULL: nothing happens). */
	void (*at_point)(struct hv *hv, struct hv_vcpu *v, enum hv_point pt);
	/* @v's dispatch window began: its entitlement is refilled (NULL:
	 * the policy has no windows).  Each vCPU's window has a phase of
	 * its own, drawn from the dispatcher's stream. */
	void (*window)(struct hv *hv, struct hv_vcpu *v, sim_time_t t);
	/* @v woke from a sleep and is about to be queued (NULL: nothing). */
	void (*woken)(struct hv *hv, struct hv_vcpu *v);
	/* @v woke and waits on the run queue: the pCPU whose vCPU it should
	 * preempt now, or NULL (NULL hook: never). */
	struct hv_pcpu *(*wake_preempt)(struct hv *hv, struct hv_vcpu *v);
	/* The pCPU that should look at queued @v now if it is free (NULL
	 * hook: its previous pCPU, else any free one). */
	struct hv_pcpu *(*target)(struct hv *hv, struct hv_vcpu *v);
	/* The run begins (NULL: nothing): schedule the policy's events. */
	void (*start)(struct hv *hv, sim_time_t t);
	/* Directed yield as Linux's yield_to (a KVM host): the target runs
	 * next on its own pCPU, preempting what runs there, and the yielder
	 * gives way only to someone queued on its own pCPU.  false: the
	 * target takes the yielder's pCPU and the rest of its slice
	 * (PowerVM's H_CONFER). */
	bool yield_in_place;
	/* One run queue for the pool: whichever pCPU is free takes a
	 * queued vCPU it may run, so a vCPU preempted into the queue is
	 * offered to the idle pCPUs too (they may have idled when nothing
	 * queued was eligible). */
	bool shared_queue;
	/* Whole-core dispatch: wake_preempt may name a pCPU of a core that
	 * runs another partition, having checked that every running thread
	 * of that core may be preempted; the whole core is then preempted
	 * (hv_pcpu_preempt_for).  Without it only that thread is. */
	bool whole_core_preempt;
};

struct hv {
	struct sim *sim;
	struct hv_params p;
	const struct hv_policy_ops *ops;
	struct hv_pcpu *pcpus;
	struct hv_partition **parts;
	unsigned int nparts;
	struct hv_vcpu **vcpus;
	unsigned int nvcpus;
	struct hv_vcpu *rq_head, *rq_tail;
	unsigned int rq_len;
	struct sim_rng rng;
	sim_time_t stats_since;
	struct sim_event balance_ev; /* kvm: the periodic load balance */
	unsigned int balance_runs;
	GArray *dtl; /* of struct hv_dtl_record, NULL: not kept */
	/* Whole-core dispatch: per core, the partition whose vCPUs it runs
	 * (-1: none) and how many of its threads are dispatched. */
	int *core_owner;
	unsigned int *core_busy;
	bool kicking;
	/* Bumped whenever what an H_CONFER(-1) looks at may have changed
	 * (the run queue, a dispatch or undispatch, a yield count, a
	 * confer structure): a vCPU whose confer to all found nobody at
	 * generation g finds nobody again until it moves. */
	uint64_t gen;
};

/*
 * Tests only: an H_CONFER(-1) always walks the run queue, never answering
 * "nobody" from what an earlier walk at the same generation found (the
 * caches must give the same simulation; test_determinism checks it).
 */
extern bool hv_confer_rescan;

/* A vCPU's share weight (its partition's; 0 counts as 1). */
static inline unsigned int hv_vcpu_weight(const struct hv_vcpu *v)
{
	return v->part->weight ? v->part->weight : 1;
}

/*
 * PowerVM: does @part take spare capacity?  Uncapped with a weight above
 * 0: an uncapped weight of 0 gets no unused capacity, as if capped (the
 * HMC's uncapped-weight help; docs/hypervisor.md, "Spare capacity").
 */
static inline bool hv_part_takes_spare(const struct hv_partition *part)
{
	return !part->capped && part->weight > 0;
}

/* Is @p free to take a vCPU (running none, polling for none)? */
static inline bool hv_pcpu_free(const struct hv_pcpu *p)
{
	return !p->cur && !p->polling;
}

/*
 * Is @v's dispatch lent, on a pCPU other than @p: does another pCPU run
 * another vCPU on @v's bill (a slice @v conferred, or one its confer
 * structure gave away)?  A virtual processor has one dispatch at a time;
 * PAPR's confer gives away "the remainder of the current dispatch", so
 * @v is not dispatched elsewhere until that slice ends; on the pCPU that
 * runs its slice it may be (a confer back to it: its own dispatch again).
 * docs/hypervisor.md, "Slices and confers".
 */
static inline bool hv_vcpu_lent(const struct hv_vcpu *v,
				const struct hv_pcpu *p)
{
	const struct hv_pcpu *q = v->paying;

	return q && q != p && q->payer == v && q->cur && q->cur != v;
}

/*
 * Is @v still conferring to all: has an entry of its confer structure
 * not had a dispatch since (its yield count unchanged)?  PAPR: once every
 * vCPU recorded has been dispatched, it is a preempted vCPU like any
 * other (a confer target again).  Entries that were dispatched never
 * become pending again, so they are dropped here.
 */
static inline bool hv_vcpu_conferring(struct hv_vcpu *v)
{
	while (v->confer_next < v->confer_n) {
		const struct hv_confer_entry *e = &v->confer[v->confer_next];

		if (e->v->lppaca->yield_count == e->yield_count)
			return true;
		v->confer_next++;
	}
	v->confer_n = v->confer_next = 0;
	return false;
}

/* May @p dispatch @v now (its dispatch is not lent elsewhere;
 * whole-core dispatch: its core is free or runs @v's partition)? */
static inline bool hv_may_dispatch(const struct hv *hv, const struct hv_pcpu *p,
				   const struct hv_vcpu *v)
{
	int owner;

	if (hv_vcpu_lent(v, p))
		return false;
	if (!hv->p.whole_core)
		return true;
	owner = hv->core_owner[p->id / hv->p.smt];
	return owner < 0 || owner == (int)v->part->id;
}

extern const struct hv_policy_ops hv_policy_rr;
extern const struct hv_policy_ops hv_policy_adversarial;
extern const struct hv_policy_ops hv_policy_powervm;
extern const struct hv_policy_ops hv_policy_kvm;
const struct hv_policy_ops *hv_policy_find(const char *name);
/* NULL-terminated list, for `qsim list` and config validation. */
extern const struct hv_policy_ops *const hv_policies[];

void hv_init(struct hv *hv, struct sim *s, const struct hv_params *p,
	     uint64_t seed);
void hv_destroy(struct hv *hv);
/* Setup: a partition of @nvcpus, each running fn(cpu, arg[i]). */
struct hv_partition *hv_partition_add(struct hv *hv, unsigned int nvcpus,
				      bool shared, sim_cpu_fn fn,
				      void *const *args);
/* Put every vCPU on the run queue and let the pCPUs pick. */
void hv_start(struct hv *hv, sim_time_t t);
void hv_reset_stats(struct hv *hv, sim_time_t t);
void hv_flush_stats(struct hv *hv, sim_time_t t);

/* How long a RUNNING @v has run since its dispatch (0 if not running):
 * CPU time not yet charged to its accounts. */
static inline sim_time_t hv_uncharged(const struct hv *hv,
				      const struct hv_vcpu *v)
{
	sim_time_t now = hv->sim->now_ps;

	return v->state == HV_RUNNING && now > v->dispatched_at
		       ? now - v->dispatched_at
		       : 0;
}

/* The vCPU whose entitlement @v's current dispatch uses (itself unless it
 * runs on a slice conferred to it). */
static inline struct hv_vcpu *hv_payer(struct hv_vcpu *v)
{
	return v->pcpu && v->pcpu->payer ? v->pcpu->payer : v;
}

/* A vCPU's entitlement per dispatch window, in ps of CPU time. */
sim_time_t hv_vcpu_entitlement(const struct hv *hv, const struct hv_vcpu *v);

/* Of @d more CPU time on @payer's bill, which has @before of this window
 * used, the part beyond its entitlement (spare capacity), scaled by
 * HV_SPARE_SCALE / weight: what it adds to the partition's spare_vt. */
static inline uint64_t hv_spare_vt_of(const struct hv *hv,
				      const struct hv_vcpu *payer,
				      sim_time_t before, sim_time_t d)
{
	sim_time_t ent = hv_vcpu_entitlement(hv, payer);

	return before + d > ent ? (before + d - SIM_MAX(before, ent)) *
					  HV_SPARE_SCALE / hv_vcpu_weight(payer)
				: 0;
}
/* Let @p choose a vCPU now (it must be free). */
void hv_pcpu_pick(struct hv_pcpu *p, sim_time_t t);
/* Let every idle pCPU look for work (after eligibility changed). */
void hv_kick_idle_pcpus(struct hv *hv, sim_time_t t);

/* Run-queue helpers for policies. */
void hv_rq_push_tail(struct hv *hv, struct hv_vcpu *v);
void hv_rq_remove(struct hv *hv, struct hv_vcpu *v);
/* Dequeue and return the first queued vCPU @p may dispatch, or NULL. */
struct hv_vcpu *hv_rq_take_first(struct hv *hv, struct hv_pcpu *p);

/* The vCPU the running coroutine is, or NULL. */
struct hv_vcpu *hv_current_vcpu(void);

/* hcalls, made by the running vCPU; may switch coroutines. */
long coroutine_fn hv_hcall_cede(struct hv_vcpu *v);
long coroutine_fn hv_hcall_confer(struct hv_vcpu *v, long target,
				  uint32_t yield_count);
long coroutine_fn hv_hcall_prod(struct hv_vcpu *v, long target);
/* A shim point reached by the running vCPU; may switch coroutines. */
void coroutine_fn hv_point(struct hv_vcpu *v, enum hv_point pt);
/* For policies: undispatch the running vCPU now, to the run queue. */
void coroutine_fn hv_preempt_self(struct hv_vcpu *v);
/*
 * The guest's idle loop for @d: cede (H_CEDE) until a timer, @d from now,
 * ends the idle period; a prod ends one cede early and it cedes again.
 */
void coroutine_fn hv_idle(struct hv_vcpu *v, sim_time_t d);
/* The KVM flavour: halt until kicked, with the pending-kick latch. */
long coroutine_fn hv_hcall_halt(struct hv_vcpu *v);
long coroutine_fn hv_hcall_kick(struct hv_vcpu *v, long target);

bool hv_check_invariants(const struct hv *hv);

/* The adversarial dispatcher's drain choice (sim_mm_set_drain). */
bool hv_adversary_drain(void *data, struct sim_cpu *c);

#endif
