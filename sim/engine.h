/* SPDX-License-Identifier: MIT */
/*
 * The discrete-event engine: virtual time, the event queue, and execution
 * contexts ("cpus": one per simulated vCPU) that run as coroutines.
 *
 * Terms
 *   global time   time of the event being processed (sim->now_ps)
 *   local time    a running cpu's own clock (cpu->now_ps); it runs ahead
 *                 of global time while the cpu computes
 *   horizon       time of the earliest queued event of anyone else, or
 *                 the end of the run (sim_run's end_ps) if that is earlier
 *
 * Invariants
 *   E1  Every shared-memory access happens at a local time <= horizon, so
 *       accesses are applied in global time order (sequential consistency).
 *       sim_cpu_sync() enforces it by yielding when local time has passed
 *       the horizon.
 *   E2  A cpu is in exactly one run state:
 *
 *         NEW --dispatch--> READY --event--> RUNNING --yield--> READY
 *                             ^                |  \
 *                             |     write/timeout  block
 *                             |                |     \
 *                             +------------ WAITING   \
 *         any of READY/WAITING/RUNNING --undispatch--> STOPPED
 *         STOPPED --dispatch--> READY        RUNNING --return--> DONE
 *
 *   E3  A WAITING cpu is on the watcher list of every line it read in the
 *       failed evaluation of its wait condition and of nothing else.
 *   E4  Spinning costs host time only when a watched line changes: a
 *       waiter wakes at the first point of its iteration grid after the
 *       write, with exactly the iteration count a real loop would have.
 *   E5  A cpu whose access needs a busy line's source waits (WAITING, on
 *       the line's queue, watching nothing); when the source frees, the
 *       line serves one waiter, drawn from the seeded stream, which then
 *       accesses the line at that time (mem.h, M2).
 *
 * Transitions
 *   sim_cpu_dispatch      NEW/STOPPED -> READY         (hypervisor)
 *   sim_cpu_undispatch    READY/WAITING/RUNNING -> STOPPED (hypervisor)
 *   sim_cpu_sync          RUNNING -> READY -> RUNNING   (horizon, E1)
 *   sim_wait_block        RUNNING -> WAITING -> READY   (spin waits)
 *   sim_cpu_park          RUNNING (already STOPPED) -> off the host CPU
 *
 * The engine knows nothing of locks or hypervisors: the hypervisor drives
 * dispatch through the calls above, and the shim calls the access and wait
 * primitives.  docs/design.md has the full discussion.
 */
#ifndef QSIM_SIM_ENGINE_H
#define QSIM_SIM_ENGINE_H

#include <signal.h>

#include "sim/coro.h"
#include "sim/evq.h"
#include "sim/mem.h"
#include "sim/rng.h"
#include "sim/trace.h"

#define SIM_WAIT_MAX_LINES 4
#define SIM_CPU_COUNTERS   48 /* per-cpu event counter slots, named above */
#define SIM_BUDGET_NONE	   UINT64_MAX

/* Event priorities at equal time: hypervisor first, then cpus, then checks. */
enum sim_prio {
	SIM_PRIO_HV = 10,
	SIM_PRIO_STORE = 12, /* a buffered store becomes visible (sim/mm.h) */
	SIM_PRIO_LINE = 15,  /* a busy line serves its next request */
	SIM_PRIO_CPU = 20,
	SIM_PRIO_CHECK = 30,
};

enum sim_run_state {
	SIM_CPU_NEW,
	SIM_CPU_READY,
	SIM_CPU_RUNNING,
	SIM_CPU_WAITING,
	SIM_CPU_STOPPED,
	SIM_CPU_DONE,
};

/* What a cpu's time is spent on, for the per-vCPU time split. */
enum sim_acct {
	SIM_ACCT_RUN,	    /* dispatched, doing useful work */
	SIM_ACCT_SPIN,	    /* dispatched, inside a spin wait */
	SIM_ACCT_HCALL,	    /* dispatched, inside a hypervisor call */
	SIM_ACCT_PREEMPTED, /* runnable but not dispatched */
	SIM_ACCT_IDLE,	    /* not runnable: ceded or halted */
	SIM_ACCT_NR,
};

struct sim;
struct sim_cpu;

struct sim_watch {
	struct sim_watch *next, *prev;
	struct sim_cpu *cpu;
	size_t line;
	sim_time_t off_ps; /* when in an evaluation this line is read */
	bool rspin;	   /* a raw spin's watch (sim/rspin.c) */
};

/*
 * Raw spin loops without an event per iteration (sim/rspin.c,
 * docs/design.md "Raw spin loops").  Code that spins as
 * `while (...) { READ_ONCE(...); cpu_relax(); }`, with or without a
 * count, would cost an event per iteration.  Two cpu_relax() in a row
 * with only reads of lines the cpu's cache holds between them make the
 * engine take a checkpoint (the coroutine's stack, sim/coro.h, and the
 * cpu state a loop changes), run ahead without syncing while the code
 * only reads held lines and relaxes (speculation), and wait at the first
 * other operation, watching the lines read.  If nothing touches the cpu
 * before then, the speculation was the truth.  If something does at x (a
 * write to a watched line, an interrupt, an undispatch, a change of its
 * core's SMT share), the cpu is rewound and replays the loop, with the
 * lines' old bytes, up to x, where the event takes effect.
 *
 *   R1  A cpu in speculation or replay performs no operation visible to
 *       another cpu, and no other cpu runs meanwhile.
 *   R2  The reads, times and counts are exactly those of iterating with
 *       an event per iteration.
 */
#define SIM_RSPIN_LINES 8

enum sim_rspin_phase {
	SIM_RS_OFF,    /* running normally */
	SIM_RS_SPEC,   /* running ahead from the checkpoint */
	SIM_RS_WAIT,   /* suspended at the speculation's end, watching */
	SIM_RS_REPLAY, /* rewound: running the loop again up to an event */
	SIM_RS_REWIND, /* to be rewound when it next runs (waits as READY) */
};

struct sim_rspin {
	enum sim_rspin_phase phase;
	bool step_impure;	 /* a non-read since the last relax */
	unsigned int pure_steps; /* relaxes in a row with only reads */
	uint64_t cap;		 /* relaxes a speculation may run */
	uint64_t iters;		 /* relaxes in this speculation */
	struct sim_coro_ckpt ck;
	/* The cpu at the checkpoint (the rest of it a loop cannot change
	 * without leaving the speculation). */
	sim_time_t t0, access_ps, store_done_ps, acct_since;
	int acct_state;
	sim_time_t acct_ps[SIM_ACCT_NR];
	uint64_t counters[SIM_CPU_COUNTERS];
	struct sim_rng mrng;
	/* The lines read since: version, bytes, and when a read of each
	 * ends (a hit, but no earlier than the cache's own fill arrives). */
	unsigned int nlines;
	size_t lines[SIM_RSPIN_LINES];
	uint64_t versions[SIM_RSPIN_LINES];
	sim_time_t fill_ps[SIM_RSPIN_LINES];
	struct sim_watch watch[SIM_RSPIN_LINES];
	unsigned int nwatch;
	uint8_t *old, *cur; /* nlines x line bytes */
	bool swapped;	    /* replay: old bytes in memory */
	/* Replay: up to this time; the cpu was resumed at resume_ps. */
	sim_time_t until, resume_ps;
	/* An event at until that orders after this cpu (sim_cpu_first_at):
	 * its reads at until, before the event, are replayed too. */
	bool until_reads;
	sim_time_t te; /* where the speculation ended */
	uint32_t slow; /* the core's share at the checkpoint (sim_cpu_slow) */
	/* Its share from until on: slow, unless the event there changed it
	 * (a sibling's change of level; sim_rspin_core_changed). */
	uint32_t slow_after;
	/* Rewound by a stop or an interrupt at until (cpu_stop): what it
	 * was doing then is cut, its rest timed at the speed it had, as a
	 * stretch cut there is; later changes of the share do not touch it. */
	bool cut;
	sim_time_t loop_cost; /* the raw loop's relax (jittered once) */
	/* Steady-state detection: a snapshot of the caller's frames at the
	 * first relax of a speculation, compared at the second. */
	void *snap;
	size_t snap_len, snap_cap;
	const void *snap_frame;
	sim_time_t snap_t;
	uint64_t snap_counters[SIM_CPU_COUNTERS];
	unsigned int snap_nlines;
	sim_time_t iter_start, iter_off[SIM_RSPIN_LINES];
	/* A parked loop woken inside an iteration (a write, a stop, an
	 * interrupt, a change of its core's share): it replays that
	 * iteration from t0 up to the event (sim_raw_park's caller,
	 * spec_park). */
	bool park_replay;
	uint32_t iter_read; /* lines read in this iteration (bit i) */
	bool iter_filled;   /* a read waited for a fill this iteration */
	bool timed;	    /* the clock was read since the snapshot */
	/* Its time is accounted as spin (SIM_ACCT_SPIN) from the checkpoint
	 * to the first operation that is not a read or a relax. */
	bool spin_acct, spin_acct_ck, spin_acct_saved;
};

/* A stretch of unscaled pipeline work (a computation or a relax): from
 * @from, @ps and @frac / 2^32 ps of it (the fraction a re-timing part
 * way leaves: sim_stretch_retime). */
struct sim_stretch {
	sim_time_t from, ps;
	uint32_t frac;
};

/* A fresh stretch of @ps from @from. */
static inline void sim_stretch_set(struct sim_stretch *st, sim_time_t from,
				   sim_time_t ps)
{
	st->from = from;
	st->ps = ps;
	st->frac = 0;
}

struct sim_wait {
	bool active; /* between sim_wait_begin and sim_wait_end */
	bool raw;    /* a parked raw spin loop (sim_raw_park) */
	bool spin;   /* relaxes with spin_cpu_relax (sim_wait_begin_spin) */
	unsigned int nlines; /* read set of the current evaluation */
	unsigned int nreads; /* reads in it (a line may be read twice) */
	size_t lines[SIM_WAIT_MAX_LINES];
	uint64_t versions[SIM_WAIT_MAX_LINES];
	sim_time_t offs[SIM_WAIT_MAX_LINES]; /* first read, from its start */
	unsigned int nwatch;
	sim_time_t grid0_ps;  /* time of the next evaluation */
	sim_time_t period_ps; /* cost of one failed iteration */
	sim_time_t reads_ps;  /* its reads (hits, whatever the SMT share) */
	sim_time_t relax_raw; /* its relax, jittered, before the SMT share */
	/* The relax that ends at grid0 (the first evaluation): all of
	 * relax_raw from its issue, unless a change of the share re-timed
	 * it part way. */
	struct sim_stretch rx;
	uint64_t budget;     /* evaluations left from grid0, or NONE */
	uint32_t every;	     /* folded checks every this many, or 0 */
	sim_time_t extra_ps; /* cost of a folded check */
	uint32_t fold_every; /* sim_wait_block_every's request */
	unsigned int fold_normal;
	sim_time_t fold_extra_ps;
	uint64_t result; /* evaluations left when woken */
	struct sim_watch watch[SIM_WAIT_MAX_LINES];
};

typedef void (*sim_cpu_fn)(struct sim_cpu *cpu, void *arg);

/* What a hardware thread is doing, for the share of its core (SMT). */
enum sim_thread_level {
	SIM_THREAD_IDLE, /* no vCPU dispatched, or it ceded */
	SIM_THREAD_LOW,	 /* spinning at low SMT priority (HMT_low, pause) */
	SIM_THREAD_BUSY, /* running at normal priority */
};

/* What every event touches comes first (the fewest cache lines). */
struct sim_cpu {
	struct sim *sim;
	struct sim_coro *co;
	void *owner;	/* the hypervisor's vCPU */
	void *workload; /* the workload's per-vCPU state */
	enum sim_run_state state;
	bool dispatched;
	int pcpu; /* physical CPU (cost model), last one when stopped */
	unsigned int id;
	enum sim_acct acct_state;
	sim_time_t now_ps;
	sim_time_t access_ps;	  /* when the latest access took effect */
	sim_time_t store_done_ps; /* when its buffered stores complete */
	sim_time_t wdone_ps;	  /* when its latest store completes */
	sim_time_t carry_ps;	  /* work left over when undispatched */
	sim_time_t acct_since;
	struct sim_event ev; /* resume, or wait timeout */
	uint64_t resume_gen; /* ev's push count when it last resumed us */
	sim_time_t acct_ps[SIM_ACCT_NR];
	sim_time_t sleep_since; /* undispatched idle since; NEVER otherwise */
	uint64_t wakeups;	/* spin waits ended by a write */
	struct sim_wait wait;
	sim_cpu_fn fn;
	void *arg;
	struct sim_lineq *lq; /* the line whose source it waits for, or NULL */
	struct sim_lineq *lq_grant; /* the line that served it, not yet run */
	enum sim_access lq_kind;    /* the access it waits to make */
	/* The guard (sim_guard): accesses since the last look, and the
	 * local time and count of looks that found it unchanged. */
	uint32_t guard_n, guard_stuck;
	sim_time_t guard_at;
	/* The latest stretch of work or relax (sim_cpu_work, sim_relax) and
	 * its end as timed, to re-time what is left of it when its core's
	 * SMT share changes while it is the cpu's pending event
	 * (sim_work_share_changed). */
	struct sim_stretch work;
	sim_time_t work_end;
	bool hmt_low;	   /* at low SMT priority (HMT_low) */
	bool relax_yields; /* the machine's cpu_relax() yields (topo) */
	unsigned int core; /* pcpu / smt, set at dispatch */
	bool larx_held;	   /* the last larx holds the line through its stcx */
	size_t larx_line;  /* the last larx's line, and the stores it saw */
	uint64_t larx_stores;
	uint64_t resv_lost;  /* stcx. that failed: the reservation was lost */
	struct sim_rng mrng; /* machine noise: jitter, arbitration */
	struct sim_rng irng; /* interrupt arrivals */
	struct sim_event tick_ev, irq_ev;
	uint64_t irqs;		     /* interrupts and ticks taken */
	sim_time_t irq_ps;	     /* time they took */
	struct sim_ipi *ipi_pending; /* cross-calls waiting for its dispatch */
	uint64_t ipis;		     /* cross-call handlers it ran */
	/* Event counters; the lock layer names the slots (lock_events.h). */
	uint64_t counters[SIM_CPU_COUNTERS];
	struct sim_rspin *rs;  /* raw spin state, NULL until first needed */
	struct sim_mm_cpu *mm; /* store buffer etc. (sim/mm.h), or NULL: sc */
};

/*
 * The noise a guest CPU sees (docs/cost-model.md): a timer tick every
 * tick_period_ps at a random phase, taking tick_ps, and other interrupts
 * arriving at random (exponential gaps of mean irq_mean_ps), each taking
 * irq_ps.  Zero periods turn them off.
 */
struct sim_noise {
	sim_time_t tick_period_ps, tick_ps;
	sim_time_t irq_mean_ps, irq_ps;
};

/* Receiver of model violations found by lock code (the workload). */
typedef void (*sim_violation_hook)(void *data, struct sim_cpu *cpu,
				   const char *msg);

/*
 * The timeline (`qsim trace`): what a run does, as typed records, for a
 * receiver set in struct sim (off, it costs one test per record).  @cpu
 * is the engine cpu (the vCPU); a and b as below.
 */
enum sim_tl_kind {
	SIM_TL_DISPATCHING, /* a: pCPU; its dispatch latency begins */
	SIM_TL_RUN,	    /* a: pCPU; it runs there */
	SIM_TL_STOP,	  /* a: pCPU, b: 1 idle (ceded, halted), 0 preempted */
	SIM_TL_LOCK_WAIT, /* a: lock, b: 1 as a reader */
	SIM_TL_LOCK_HOLD, /* a: lock, b: 1 as a reader */
	SIM_TL_LOCK_RELEASE, /* a: lock */
	SIM_TL_HCALL,	     /* a: enum sim_tl_hcall, b: target vCPU or -1 */
	SIM_TL_SLEEP,	     /* a: 1 a KVM halt, 0 H_CEDE, 2 the idle loop's */
	SIM_TL_WAKE,	     /* a: the waker's cpu, -1 an interrupt or timer */
};

enum sim_tl_hcall {
	SIM_TL_CONFER,
	SIM_TL_PROD,
	SIM_TL_KICK,
};

typedef void (*sim_tl_fn)(void *data, sim_time_t t, enum sim_tl_kind k,
			  int32_t cpu, int64_t a, int64_t b);

/* Observer of dispatch changes (lock-holder preemption metrics). */
typedef void (*sim_dispatch_hook)(void *data, struct sim_cpu *cpu, bool on,
				  sim_time_t t);

struct sim {
	struct sim_evq q;
	sim_time_t now_ps;
	struct sim_cpu *cur;
	uint32_t ev_prio; /* the running event's, when no cpu runs */
	struct sim_cpu **cpus;
	unsigned int ncpus;
	struct sim_mem mem;
	size_t stack_bytes;
	uint64_t events;
	uint64_t switches;
	sim_time_t end_ps; /* of the current sim_run */
	bool stop;
	bool interrupted; /* stopped by sim_interrupt (a signal) */
	struct sim_trace trace;
	/* Preemption opportunities announced by guest code (the shim points
	 * of hypervisor/hv.h; SIM_POINT_CS is the workload's). */
	void (*point_hook)(void *data, struct sim_cpu *cpu, int point);
	void *point_data;
	/* A spin wait began (@begin) or ended on @cpu at its time @t (the
	 * hypervisor's pause-loop exiting watches these). */
	void (*spin_hook)(void *data, struct sim_cpu *cpu, bool begin,
			  sim_time_t t);
	void *spin_data;
	/* A tick (@tick) or interrupt for a cpu that is not dispatched (NULL:
	 * it is lost): the hypervisor may wake a halted vCPU. */
	void (*irq_hook)(void *data, struct sim_cpu *cpu, sim_time_t t,
			 bool tick);
	void *irq_data;
	sim_dispatch_hook dispatch_hook;
	sim_violation_hook violation_hook;
	void *hook_data;
	sim_tl_fn tl_fn; /* the timeline's receiver, or NULL */
	void *tl_data;
	/* Told the simulated time at each guard look (a few times a host
	 * millisecond), for a progress display; or NULL. */
	void (*progress_fn)(void *data, sim_time_t now);
	void *progress_data;
	/*
	 * The guard against runs that stop advancing: a host-time deadline
	 * (0: none), read every SIM_GUARD_EVERY accesses of a cpu and
	 * events of the loop whatever simulated time does, and a bound on
	 * work at one simulated instant.  Either stops the run through
	 * hang_hook (with hook_data), or sets stop if there is none.
	 */
	int64_t host_deadline_us;
	void (*hang_hook)(void *data, sim_time_t t, const char *msg);
	sim_time_t guard_at; /* the loop's: time of the last look */
	uint32_t guard_n, guard_stuck;
	/* Observers (sim/observe.c): called after every write to a line
	 * marked in mem.observed, with the writer (NULL: the hypervisor). */
	void (*write_hook)(void *data, struct sim_cpu *c, const void *p);
	void *write_data;
	uint64_t seed; /* of the machine-noise streams; set before cpus */
	struct sim_rng arb_rng;	   /* which waiting request a line serves */
	struct sim_lineq *lq_free; /* spare line queues */
	unsigned int ndoms;	   /* cache domains */
	unsigned int nchips;	   /* chips (sockets) */
	/* Raw spin loops (sim/rspin.c): on, and what it did. */
	bool rspin_on;
	uint64_t rspin_specs, rspin_aborts, rspin_relaxes, rspin_parks;
	uint64_t wait_retimes;	  /* waits re-timed in place (share changes) */
	struct sim_cpu **on_pcpu; /* the cpu dispatched on each pCPU */
	uint64_t line_waits;	  /* accesses that waited for a line */
	struct sim_noise noise;
	/* SMT: each hardware thread's level, each core's busy and low
	 * threads, and the slowdown of a busy and of a low thread (Q16,
	 * 65536 = one thread alone) by [busy][low] threads on its core. */
	uint8_t *level;
	uint8_t *core_busy, *core_low;
	uint32_t slow_busy[SIM_SMT_MAX + 1][SIM_SMT_MAX + 1];
	uint32_t slow_low[SIM_SMT_MAX + 1][SIM_SMT_MAX + 1];
	struct sim_mm *mm; /* the memory model (sim/mm.h), or NULL: sc */
};

/* One timeline record (sim_tl_kind), if anyone listens. */
static inline void sim_tl(struct sim *s, sim_time_t t, enum sim_tl_kind k,
			  int32_t cpu, int64_t a, int64_t b)
{
	if (G_UNLIKELY(s->tl_fn))
		s->tl_fn(s->tl_data, t, k, cpu, a, b);
}

void sim_init(struct sim *s, size_t arena_bytes, unsigned int line_bytes,
	      const struct sim_cost *cost, const struct sim_topo *topo,
	      size_t stack_bytes);
void sim_destroy(struct sim *s);
/* The seed of the machine-noise streams (before cpus are created). */
void sim_set_seed(struct sim *s, uint64_t seed);
struct sim_cpu *sim_cpu_create(struct sim *s, sim_cpu_fn fn, void *arg);

/* Set (to the signal's number) by a signal handler: every running sim
 * stops at its guard's next look, with interrupted set. */
extern volatile sig_atomic_t sim_interrupt;
/* Accesses (per cpu) or events (the loop) between two looks of the
 * guard, and the looks at one instant that make a run stuck: 2^16 x 16,
 * about a million accesses or events at one picosecond. */
#define SIM_GUARD_EVERY 0x10000u
#define SIM_GUARD_STUCK 16u
void sim_guard(struct sim *s, struct sim_cpu *c, sim_time_t now);

/* Run events until the queue is empty, sim->stop is set, or @end_ps. */
void sim_run(struct sim *s, sim_time_t end_ps);
void sim_schedule(struct sim *s, struct sim_event *ev, sim_time_t t);

/* The simulation this host thread is running, and its running cpu. */
extern __thread struct sim *sim_self;
static inline struct sim_cpu *sim_current(void)
{
	return sim_self ? sim_self->cur : NULL;
}

/* --- hypervisor side --- */
void sim_cpu_dispatch(struct sim_cpu *c, sim_time_t t, int pcpu);
/* @idle: the cpu is not runnable (ceded) rather than preempted. */
void sim_cpu_undispatch(struct sim_cpu *c, sim_time_t t, bool idle);
/* The running cpu gives up the host CPU after undispatching itself. */
void coroutine_fn sim_cpu_park(struct sim_cpu *c);
void sim_cpu_set_acct(struct sim_cpu *c, enum sim_acct a, sim_time_t t);
/* Bring accounting up to @t (end of run). */
void sim_cpu_flush_acct(struct sim_cpu *c, sim_time_t t);

/* Start every cpu's ticks and interrupts (sim->noise) at @t. */
void sim_noise_start(struct sim *s, sim_time_t t);
/* The running cpu's SMT priority: low (HMT_low) or back to normal; syncs
 * first when that moves its thread's level. */
void coroutine_fn sim_cpu_set_hmt_low(struct sim_cpu *c, bool low);

/* Take @d of a dispatched cpu's time at @t (an interrupt). */
void sim_cpu_steal(struct sim_cpu *c, sim_time_t t, sim_time_t d);

/* --- running-cpu side --- */
void coroutine_fn sim_cpu_yield(struct sim_cpu *c);

/*
 * @ps of pipeline work on @c's hardware thread, stretched by what the
 * other threads of its core take (the SMT share at this moment).
 */
/* The factor (65536 = 1) by which @c's work stretches now. */
static inline uint32_t sim_cpu_slow(const struct sim_cpu *c)
{
	const struct sim *s = c->sim;
	unsigned int nb, nl;

	if (!s->level || c->pcpu < 0)
		return 65536;
	/* A pause (x86 pause, POWER10 pause_short) is a fixed delay: the
	 * pausing thread's loop does not slow with its siblings' work. */
	if (!c->hmt_low && c->wait.active && c->relax_yields)
		return 65536;
	nb = s->core_busy[c->core];
	nl = s->core_low[c->core];
	return s->level[c->pcpu] == SIM_THREAD_LOW ? s->slow_low[nb][nl]
						   : s->slow_busy[nb][nl];
}

/* @ps of work at the speed factor @slow (65536 = 1). */
static inline sim_time_t sim_slow_scale(uint32_t slow, sim_time_t ps)
{
	return slow == 65536 ? ps : (ps * slow) >> 16;
}

static inline sim_time_t sim_cpu_scale(const struct sim_cpu *c, sim_time_t ps)
{
	return sim_slow_scale(sim_cpu_slow(c), ps);
}

/*
 * Stretch @st, timed at speed @old, whose core's share moves the speed to
 * @now at @t, before the stretch's end as timed: the part done by @t went
 * at the old speed, the rest goes at the new one, and a stretch issued at
 * or after @t (timed before the change was applied) goes wholly at the
 * new one.  @st becomes the rest; returns its end.  Every path (a
 * computation, a relax of the loop with an event per iteration, of a
 * speculated loop's replay, of a parked loop and of an event-driven wait)
 * re-times by this one rule and this arithmetic, so they agree to the
 * picosecond (session 20; before, a relax was timed at the share at its
 * issue and each path judged its issue differently: docs/design.md, "Raw
 * spin loops").  The work done is kept to 2^-32 ps: a change and its
 * reversal at one instant then give back the end as first timed exactly
 * (the error, under old / 2^48 ps, stays below the 2^-16 ps grain of a
 * timed end), so one re-timing for several changes at an instant (a
 * replay's) gives what re-timing for each (the loop's) gives.
 */
static inline sim_time_t sim_stretch_retime(struct sim_stretch *st,
					    uint32_t old, uint32_t now,
					    sim_time_t t)
{
	unsigned __int128 rest = ((unsigned __int128)st->ps << 32) | st->frac;

	if (t > st->from) {
		unsigned __int128 done =
			((unsigned __int128)(t - st->from) << 48) / old;

		rest = rest > done ? rest - done : 0;
		st->from = t;
	}
	st->ps = (sim_time_t)(rest >> 32);
	st->frac = (uint32_t)rest;
	return st->from + (sim_time_t)((rest * now) >> 48);
}

/* Raw spin loops (sim/rspin.c). */
/* One cpu_relax() of @base_ps (jittered, stretched by the SMT share).
 * @frame: where the caller's frames begin on the coroutine's stack, its
 * callee-saved registers pushed just below the return address (a relax
 * entry stub, lk_shim_relax), or NULL; with it a steady loop parks. */
void coroutine_fn sim_relax(struct sim_cpu *c, sim_time_t base_ps,
			    const void *frame);
/* The running cpu read the clock (a loop that does is not steady). */
static inline void sim_rspin_timed(struct sim_cpu *c)
{
	if (c->rs)
		c->rs->timed = true;
}
void coroutine_fn sim_raw_park(struct sim_cpu *c, const size_t *lines,
			       const uint64_t *versions, const sim_time_t *offs,
			       unsigned int n, sim_time_t period,
			       sim_time_t relax_raw);
/* @c's core's SMT share changed at @t, its speed from @old_slow: a parked
 * raw loop or an event-driven wait of @c re-times the relax it is in or
 * issues next (sim_stretch_retime) and goes on at the new share. */
void sim_wait_share_changed(struct sim_cpu *c, sim_time_t t, uint32_t old_slow);
/* @c's core's share changed at @t, its own speed from @old_slow: the
 * stretch of work or relax that is its pending event is re-timed
 * (sim_stretch_retime). */
void sim_work_share_changed(struct sim_cpu *c, sim_time_t t, uint32_t old_slow);
/* A read of @line in a speculation or replay: true if done. */
bool coroutine_fn sim_rspin_read(struct sim_cpu *c, size_t line);
/* Before any operation but a read of a held line or a relax. */
void coroutine_fn sim_rspin_impure(struct sim_cpu *c);
/* Whether waiting @c, acting at @t, comes before what acts now at @t (the
 * running cpu, by the keys there, E1; or the running event, by priority). */
bool sim_cpu_first_at(const struct sim *s, const struct sim_cpu *c,
		      sim_time_t t);
/* Something touches @c at @x: if it waits at a speculation's end, rewind
 * it to replay up to @x (it is then READY); false if it was not. */
bool sim_rspin_abort(struct sim_cpu *c, sim_time_t x);
/* The same for an event at @x that @c's reads at @x see only if they come
 * after it (a write, a change of its core's share); @reads_first: they
 * come before it (sim_cpu_first_at). */
bool sim_rspin_abort_at(struct sim_cpu *c, sim_time_t x, bool reads_first);
/* The SMT share of @pcpu's core changed at @t; @before: each thread's
 * sim_cpu_slow before the change (0 where no cpu is dispatched). */
void sim_rspin_core_changed(struct sim *s, int pcpu, sim_time_t t,
			    const uint32_t *before);
void sim_rspin_free(struct sim_cpu *c);
/* The statistics were reset at t (end of warmup): so is the checkpoint's
 * copy of them, or a rewind would bring the old figures back. */
void sim_rspin_reset_stats(struct sim_cpu *c, sim_time_t t);

/* The accounting state of a dispatched cpu that is not in an hcall:
 * spin inside a wait section or a raw spin loop, else run. */
static inline enum sim_acct sim_cpu_busy_acct(const struct sim_cpu *c)
{
	return c->wait.active || (c->rs && c->rs->spin_acct) ? SIM_ACCT_SPIN
							     : SIM_ACCT_RUN;
}

static inline void coroutine_fn sim_cpu_impure(struct sim_cpu *c)
{
	if (c->rs)
		sim_rspin_impure(c);
}

/* A read of @line by @c now is a plain hit: its cache holds the line,
 * with no write of its own still in flight (engine.c's line_blocked), and
 * it is not the thread's first read of a sibling's store. */
static inline bool sim_read_hits(const struct sim_cpu *c, size_t line)
{
	const struct sim_mem *m = &c->sim->mem;
	int holds = sim_mem_holds(m, line, c->pcpu);

	return (holds == 1 ||
		(holds == 2 && m->lines[line].wbusy_until <= c->now_ps)) &&
	       !sim_mem_first_read(m, line, c->pcpu);
}

/* Whether anything else comes before @c's present moment: an event
 * earlier, or at the same time with a lower priority or tie (E1); or the
 * end of the run (sim_run's @end_ps), which a cpu must not pass alone
 * either: what it did after the end would be counted in the run. */
static inline bool sim_cpu_past_horizon(const struct sim_cpu *c)
{
	return c->now_ps > c->sim->end_ps ||
	       sim_evq_key_at(&c->ev, c->now_ps) >
		       sim_evq_horizon_key(&c->sim->q, &c->ev);
}

static inline void coroutine_fn sim_cpu_sync(struct sim_cpu *c)
{
	if (__builtin_expect(c->rs != NULL && c->rs->phase != SIM_RS_OFF, 0))
		sim_rspin_impure(c);
	if (__builtin_expect(sim_cpu_past_horizon(c), 0))
		sim_cpu_yield(c);
}

/* Compute for @ps of CPU time (may be preempted part way); at a change
 * of the core's SMT share part way, the rest goes at the new speed. */
static inline void coroutine_fn sim_cpu_work(struct sim_cpu *c, sim_time_t ps)
{
	sim_stretch_set(&c->work, c->now_ps, ps);
	c->now_ps += sim_cpu_scale(c, ps);
	c->work_end = c->now_ps;
	sim_cpu_sync(c);
}

#define SIM_POINT_CS 0 /* inside a critical section */

static inline void coroutine_fn sim_cpu_point(struct sim_cpu *c, int point)
{
	sim_cpu_impure(c);
	if (c->sim->point_hook)
		c->sim->point_hook(c->sim->point_data, c, point);
}

static inline void sim_cpu_trace(struct sim_cpu *c, const char *fmt, int64_t a,
				 int64_t b)
{
	if (c->rs && c->rs->phase != SIM_RS_OFF)
		sim_rspin_impure(c); /* a trace ends a speculation (R1) */
	sim_trace_add(&c->sim->trace, c->now_ps, (int32_t)c->id, fmt, a, b);
}

/* A lock invariant broke on @c: hand it to the hook and stop the run. */
void sim_report_violation(struct sim_cpu *c, const char *msg);

/* Stop the simulation from inside a cpu; never returns. */
void coroutine_fn sim_cpu_halt_run(struct sim_cpu *c) __attribute__((noreturn));

/*
 * One access to shared memory at @p by the running cpu: sync, cost, and
 * bookkeeping.  The access takes effect at the synced local time (kept in
 * access_ps); the cost then runs on.  For writes the caller stores the
 * bytes right after and calls sim_mem_written(access_ps) if they changed:
 * a reader arriving later sees the new bytes, after waiting out the
 * line's busy time.
 */
void coroutine_fn sim_access(struct sim_cpu *c, const void *p,
			     enum sim_access kind);
/*
 * The stcx. of an atomic whose larx was sim_access(SIM_RMW_RESV): the
 * atomic's own time passes, then the store is tried at that time.  True
 * when it succeeded (access_ps is its time); false when another pCPU
 * wrote the line meanwhile, and the caller retries from the larx.  After
 * a held larx (SIM_RMW, c->larx_held) it is true at once.
 */
bool coroutine_fn sim_access_stcx(struct sim_cpu *c, const void *p);
void sim_mem_written(struct sim *s, const void *p, sim_time_t t);
/* The same for a write by @w that becomes visible outside it (a buffered
 * store, sim/mm.h). */
void sim_mem_written_by(struct sim *s, struct sim_cpu *w, const void *p,
			sim_time_t t);
/* Mark @p's line as watched by the sim's write_hook (after sealing). */
void sim_mem_observe(struct sim *s, const void *p);
/*
 * What a full barrier orders (sync, mfence): @c goes on no earlier than its
 * buffered stores complete, and under a weak memory model (sim/mm.h) they
 * are visible before anything later.  The barrier's own cost is the
 * caller's.
 */
void sim_cpu_sync_stores(struct sim_cpu *c);

/* A write from outside any cpu (the hypervisor updating an lppaca). */
void sim_mem_poke(struct sim *s, const void *p, sim_time_t t);

/*
 * One target of a synchronous cross-call (Linux's smp_call_function_many
 * with wait, docs/scenarios.md "Cross-calls"): the sender has set *flag
 * (the target's csd lock) and spins until it reads 0 again.  The target
 * takes the interrupt where it lands, if it is dispatched: its handler
 * takes handler_ps of its time, then stores 0 (csd_unlock).  A target
 * that is not dispatched takes it when it is next dispatched (a sleeping
 * one is woken first, through the irq hook): a preempted target keeps
 * its sender spinning until the hypervisor runs it again.
 */
struct sim_ipi {
	struct sim_event ev;
	struct sim_cpu *to;
	uint64_t *flag; /* in the arena, on a line of its own */
	sim_time_t handler_ps;
	struct sim_ipi *next; /* on to's pending list */
	bool acking;	      /* ev is the handler's end */
};

void sim_ipi_init(struct sim_ipi *ipi, struct sim_cpu *to, uint64_t *flag);
/* Deliver @ipi at @t (the sender's local time, synced), if not in flight. */
void sim_ipi_send(struct sim *s, struct sim_ipi *ipi, sim_time_t t,
		  sim_time_t handler_ps);

/*
 * Event-driven spin waits.  A wait section is
 *
 *	sim_wait_begin(c);
 *	while (budget && !cond)		// cond reads shared memory
 *		budget = sim_wait_block(c, budget);
 *	sim_wait_end(c);
 *
 * sim_wait_block charges one cpu_relax, then sleeps until a line read by
 * the failed evaluation changes or the budget runs out, and returns the
 * evaluations left, exactly as iterating "if (cond) break; cpu_relax();"
 * would have.  @budget counts the evaluation just done; SIM_BUDGET_NONE
 * waits without limit.
 */
void coroutine_fn sim_wait_begin(struct sim_cpu *c);
/* The same for a powerpc spin loop, whose iterations relax with
 * spin_cpu_relax() (cost.spin_relax, a nop before POWER10). */
void coroutine_fn sim_wait_begin_spin(struct sim_cpu *c);
/* The last read of @line in this evaluation returned an older value than
 * memory holds (sim/mm.h): the next evaluation must not wait for a write. */
void sim_wait_stale(struct sim_cpu *c, size_t line);
uint64_t coroutine_fn sim_wait_block(struct sim_cpu *c, uint64_t budget);
void coroutine_fn sim_wait_end(struct sim_cpu *c);
uint64_t coroutine_fn sim_wait_block_every(struct sim_cpu *c, uint64_t budget,
					   uint32_t every,
					   unsigned int normal_reads);

bool sim_cpu_check_invariants(const struct sim_cpu *c);

#endif
