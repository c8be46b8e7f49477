/* SPDX-License-Identifier: MIT */
/*
 * The memory model: when a store becomes visible to other cpus and which
 * value a load may return (docs/memory-model.md).
 *
 *   sc     sequential consistency: every access takes effect in the
 *          engine's time order (no state here; the default)
 *   tso    each cpu's stores wait in a FIFO store buffer until their line
 *          is ours (the cost model's completion time) and become visible
 *          in program order; a cpu's loads see its own buffered stores
 *          (x86-TSO, Owens, Sarkar, Sewell, TPHOLs 2009)
 *   power  the stores of one cpu become visible in any order, each when
 *          its line is ours plus a seeded delay, except as barriers
 *          order them; a load may be satisfied early, returning the
 *          value its location had up to `window` ago, except as
 *          coherence, barriers and acquires forbid (Sarkar, Sewell,
 *          Alglave, Maranget, Williams, "Understanding POWER
 *          Multiprocessors", PLDI 2011)
 *
 * Memory (the arena's bytes) always holds the newest value in coherence
 * order; a store waiting in a buffer is not in it.  Every write that
 * becomes visible is logged per line with the bytes it replaced (the undo
 * log), so the value of a location at an earlier time is memory with the
 * later writes undone.  A load's "read time" t lies in
 *   [max(fence floor, the cpu's floor for the line, now - window,
 *        the line's oldest undoable time), now]
 * and the value is memory at t overlaid with the cpu's own buffered
 * stores.  The floors give:
 *   coherence  a cpu never reads a line older than it read it before, or
 *              than its own store to it that became visible (CoRR, CoWR)
 *   lwsync     (smp_rmb, smp_wmb, acquire, release) later loads read no
 *              older than any earlier load; later stores become visible
 *              after every earlier store
 *   sync       (smp_mb, fully ordered atomics) the buffer drains and
 *              later loads read no older than the sync
 * Atomics read and write the newest value (a larx/stcx. pair succeeds
 * only on it) and become visible at once; a cpu's own buffered stores to
 * the same bytes go first.  The model is multi-copy atomic: a store becomes
 * visible to every other cpu at one time (docs/memory-model.md lists the
 * POWER outcomes this forbids).
 */
#ifndef QSIM_SIM_MM_H
#define QSIM_SIM_MM_H

#include "sim/evq.h"
#include "sim/rng.h"
#include "sim/types.h"

struct sim;
struct sim_cpu;

enum sim_memory {
	SIM_MEMORY_SC,
	SIM_MEMORY_TSO,
	SIM_MEMORY_POWER,
};

/* Orderings of the shim's accesses. */
enum sim_order {
	SIM_ORD_RELAXED = 0,
	SIM_ORD_FULL = 1,    /* sync before and after */
	SIM_ORD_ACQUIRE = 2, /* later loads after this one (isync, lwsync) */
	SIM_ORD_RELEASE = 3, /* earlier accesses before this store (lwsync) */
};

/* Fences. */
enum sim_fence {
	SIM_FENCE_LW,	/* lwsync: orders all but store -> load */
	SIM_FENCE_SYNC, /* sync: orders everything */
};

#define SIM_MM_SB   16 /* store buffer entries */
#define SIM_MM_UNDO 8  /* undo log entries per line */
#define SIM_MM_SEEN 64 /* per-cpu coherence floors (direct mapped) */

struct sim_mm_store {
	sim_time_t commit; /* when it becomes visible */
	uint8_t *p;
	uint32_t size;
	uint8_t val[8];
};

struct sim_mm_cpu {
	struct sim_cpu *c;
	struct sim_mm_store sb[SIM_MM_SB]; /* in program order */
	unsigned int n;
	sim_time_t st_floor;	 /* stores from now on are visible no earlier */
	sim_time_t ld_floor;	 /* loads from now on read no older */
	sim_time_t ld_max;	 /* the latest read time so far */
	sim_time_t seen_evicted; /* floors pushed out of seen[] */
	struct {
		size_t line; /* + 1; 0: empty */
		sim_time_t t;
	} seen[SIM_MM_SEEN];
	struct sim_event ev; /* the buffer's next store becomes visible */
	struct sim_rng rng;
};

struct sim_mm_undo {
	sim_time_t t;
	uint16_t off;
	uint8_t size;
	uint8_t old[8];
};

struct sim_mm_line {
	struct sim_mm_undo u[SIM_MM_UNDO];
	uint8_t head, n;    /* u[head] is the oldest of n */
	sim_time_t evicted; /* time of the newest write dropped from u[] */
};

struct sim_mm {
	enum sim_memory kind;
	/* Who decides a store's delay: true holds it for all of @delay
	 * (the adversarial dispatcher), false draws it; NULL: drawn. */
	bool (*drain_late)(void *data, struct sim_cpu *c);
	void *drain_data;
	sim_time_t window; /* how early a load may be satisfied (power) */
	sim_time_t delay;  /* most extra delay of a store (power) */
	struct sim_mm_line *lines; /* one per line of the arena */
};

/* The name of model @k (enum sim_memory), or NULL past the last. */
const char *sim_memory_name(unsigned int k);

/* After the arena is sealed, before the run: the model for @s. */
void sim_mm_enable(struct sim *s, enum sim_memory kind, sim_time_t window,
		   sim_time_t delay);
void sim_mm_cpu_init(struct sim_cpu *c);
void sim_mm_set_drain(struct sim *s, bool (*late)(void *, struct sim_cpu *),
		      void *data);
void sim_mm_free(struct sim *s);

/* The shim's hooks, for cpus with c->mm (after sim_access). */
void sim_mm_load(struct sim_cpu *c, const volatile void *p, void *out,
		 size_t size);
void sim_mm_store(struct sim_cpu *c, volatile void *p, const void *val,
		  size_t size);
/* Before an atomic on @p (its larx): what its ordering needs first. */
void sim_mm_rmw_begin(struct sim_cpu *c, const volatile void *p, size_t size,
		      enum sim_order ord);
/* After it wrote @size bytes at @p over @old (it took effect at
 * c->access_ps). */
void sim_mm_rmw_written(struct sim_cpu *c, const volatile void *p,
			const void *old, size_t size);
/* After an atomic (written or not): its read, and acquire ordering (a
 * full one's trailing sync is the caller's sim_mm_fence). */
void sim_mm_rmw_end(struct sim_cpu *c, enum sim_order ord);
/* An acquire load (smp_load_acquire) was just made. */
void sim_mm_acquire(struct sim_cpu *c);
void sim_mm_fence(struct sim_cpu *c, enum sim_fence f);
/* Every buffered store of @c becomes visible at @t (it stops running:
 * a context switch is a sync). */
void sim_mm_drain(struct sim_cpu *c, sim_time_t t);

/*
 * A plain access of @size bytes at @p that the caller's compiled code
 * makes itself, on memory, after this (kernel-tree code's instrumented
 * loads and stores): the cpu's buffered stores become visible first, and
 * the access counts as reading (or writing, logged for early loads) the
 * newest value now.  Stronger than POWER, never weaker.
 */
void sim_mm_plain(struct sim_cpu *c, const volatile void *p, size_t size,
		  bool write);

/* Does a store to [p, p + size) wait in any cpu's buffer? */
bool sim_mm_pending(struct sim *s, const void *p, size_t size);

/* A load and a store of the running cpu's own (the workload's), costed
 * and through the model on every one (sc included). */
uint64_t sim_mm_read_u64(struct sim_cpu *c, uint64_t *p);
void sim_mm_write_u64(struct sim_cpu *c, uint64_t *p, uint64_t v);

#endif
