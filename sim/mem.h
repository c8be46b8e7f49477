/* SPDX-License-Identifier: MIT */
/*
 * Simulated shared memory and its cost: the cache-line model.
 *
 * Guest-shared memory (lock words, per-CPU queue nodes, hash tables, lppaca
 * areas) is carved from one arena in a fixed order at setup, so a line's
 * identity is its offset in the arena and never depends on host addresses.
 * After setup the arena is sealed and per-line state is allocated:
 *
 *   owner_dom     the cache domain holding the line modified, or -1
 *   sharers       bitset of cache domains holding a clean copy
 *   src_pcpu      the hardware thread that wrote the newest data, -1 =
 *                 memory (distances are measured from it)
 *   version       bumped on every write that changes a byte; spin waiters
 *                 sleep on it (engine.c)
 *   busy_until    the line's source is busy serving requests until then
 *   wbusy_until   a write (or upgrade) to it is in flight until then
 *   q             the requests waiting for its source (engine.c), or NULL
 *   stores        stores to it so far (a larx reservation holds while
 *                 this has not moved)
 *
 * Terms
 *   domain     the hardware threads that share a cache (a core's threads
 *              share its L1; on POWER9 two cores share their L2): the
 *              unit that holds copies, so siblings fetch a line once
 *   latency    what the requester waits: the distance to the data's
 *              source (hit, same core, same chip, other chip, memory),
 *              plus for a write the invalidation of every other copy
 *   occupancy  how long the request keeps the line's source busy, so
 *              the next request to the line waits for it
 *
 * Invariants
 *   M1  A line is either modified in one domain (owner_dom >= 0, no
 *       sharers) or clean in zero or more (owner_dom < 0).
 *   M2  A request that needs the line's source while it is busy waits;
 *       when the source frees, one waiting request is served, drawn at
 *       random from the seeded stream (near_bias may favour the source's
 *       chip).  The access happens, and sees the memory, when served.
 *   M3  A read miss occupies the source for latency / read_fanout (the
 *       source serves that many reads at once); a write or atomic for its
 *       whole latency (the line moves exclusively, nothing else is served
 *       meanwhile).
 *   M4  A write to a line other caches hold waits for the farthest copy
 *       to be invalidated, and pays inval for every copy beyond the
 *       first, so a release that N spinners re-read costs more with N.
 *   M5  A larx is a read that takes a reservation; the stcx. is an
 *       upgrade to exclusive that fails if any store reached the line
 *       since (the atomic is then retried).  For forward progress the
 *       line serves no other store or atomic during the larx-to-stcx.
 *       window (atomic_ps) of a running cpu; a cpu stopped in between
 *       (preempted, interrupted) can lose its reservation.  A failed
 *       compare costs only the read.  On machines with locked atomics
 *       (x86) every atomic takes the line exclusive for its latency.
 *
 * Costs are in struct sim_cost, per machine preset, every figure with its
 * source in docs/cost-model.md; transfers carry a seeded jitter.
 */
#ifndef QSIM_SIM_MEM_H
#define QSIM_SIM_MEM_H

#include "sim/types.h"

struct sim_watch;
struct sim_lineq;

struct sim_rng;

struct sim_cost {
	sim_time_t hit_ps;
	sim_time_t smt_ps;
	sim_time_t chip_ps;
	sim_time_t remote_ps;
	sim_time_t mem_ps;
	sim_time_t atomic_ps;
	sim_time_t relax_ps;
	/* powerpc's spin_cpu_relax() and the loop around it (docs/cost-model.md) */
	sim_time_t spin_relax_ps;
	sim_time_t barrier_ps;
	sim_time_t inval_ps;	  /* each copy a write invalidates beyond one */
	unsigned int read_fanout; /* reads of one line served at once */
	unsigned int jitter_pct;  /* +- this percent on transfers etc. */
	unsigned int
		near_bias_pct; /* a same-chip request is served first (%) */
	/* A line that came exclusive from another cache serves its new
	 * owner alone for one more transfer (a directory's serialization;
	 * docs/cost-model.md, "Measuring a machine"). */
	bool hold;
};

#define SIM_SMT_MAX 8

struct sim_topo {
	unsigned int smt; /* hardware threads per core */
	unsigned int cores_per_chip;
	unsigned int cache_cores; /* cores sharing a cache domain (0: 1) */
	unsigned int npcpus;	  /* pCPUs the model may see */
	/* Core throughput with n threads busy, percent of one thread alone
	 * (smt_tput[0] is for one thread: 100). */
	unsigned int smt_tput[SIM_SMT_MAX];
	/* A thread spinning at low priority (HMT_low) weighs this percent of
	 * a busy thread in the share of the core. */
	unsigned int hmt_low_pct;
	/* Atomics are larx/stcx. pairs whose reservation can be lost (POWER),
	 * rather than locked instructions that hold the line (x86). */
	bool llsc;
	/* cpu_relax() gives the core to the siblings (x86 pause, POWER10
	 * pause_short), so every spin loop runs at low priority; otherwise
	 * only loops between HMT_low and HMT_medium do (POWER9). */
	bool relax_yields;
};

struct sim_line {
	uint64_t version;
	sim_time_t busy_until;
	sim_time_t wbusy_until;
	sim_time_t protect_until; /* a larx's window to its stcx. (M5) */
	int32_t protect_pcpu;
	/* cost.hold: the line serves hold_pcpu alone until hold_until */
	sim_time_t hold_until;
	int32_t hold_pcpu;
	int32_t fill_dom;      /* the domain of the last read miss, */
	sim_time_t fill_until; /* and when its data arrives */
	struct sim_lineq *q;
	int32_t owner_dom;
	int32_t src_pcpu;
	/* The threads of src_pcpu's cache domain that have read the line
	 * since its last store (bit: pcpu % dom_threads): a sibling's first
	 * read of its store pays the shared cache's latency, a re-read hits. */
	uint64_t dom_read;
	uint64_t stores;
	struct sim_watch *watchers;
};

struct sim_mem {
	uint8_t *base;
	size_t size;
	size_t used;
	unsigned int line_shift;
	bool sealed;
	struct sim_line *lines;
	uint64_t *sharers; /* nlines * nwords */
	unsigned int nwords;
	unsigned int dom_threads; /* hardware threads per cache domain */
	size_t nlines;
	uint8_t *observed; /* per line: an observer watches its writes */
	struct sim_cost cost;
	struct sim_topo topo;
};

enum sim_access {
	SIM_READ,
	SIM_WRITE,
	SIM_RMW,      /* an atomic that holds the line throughout: a locked
		       * instruction, or a larx/stcx. with the lock hint */
	SIM_RMW_RESV, /* a larx/stcx. pair that may lose its reservation */
};

enum sim_dist {
	SIM_DIST_HIT,
	SIM_DIST_SMT,
	SIM_DIST_CHIP,
	SIM_DIST_REMOTE,
	SIM_DIST_MEM,
};

void sim_mem_init(struct sim_mem *m, size_t arena_bytes,
		  unsigned int line_bytes, const struct sim_cost *cost,
		  const struct sim_topo *topo);
void sim_mem_destroy(struct sim_mem *m);
/* Setup only: carve @bytes (zeroed) aligned to @align from the arena. */
void *sim_mem_alloc(struct sim_mem *m, size_t bytes, size_t align);
void sim_mem_seal(struct sim_mem *m);

static inline bool sim_mem_contains(const struct sim_mem *m, const void *p)
{
	const uint8_t *b = p;

	return b >= m->base && b < m->base + m->used;
}

static inline size_t sim_mem_line_of(const struct sim_mem *m, const void *p)
{
	return (size_t)((const uint8_t *)p - m->base) >> m->line_shift;
}

static inline size_t sim_mem_offset(const struct sim_mem *m, const void *p)
{
	return (size_t)((const uint8_t *)p - m->base);
}

enum sim_dist sim_mem_dist(const struct sim_mem *m, int a, int b);
sim_time_t sim_mem_dist_cost(const struct sim_mem *m, enum sim_dist d);

/* @cost with the seeded jitter of @rng (NULL or jitter 0: exact). */
sim_time_t sim_mem_jitter(const struct sim_mem *m, sim_time_t cost,
			  struct sim_rng *rng);

/*
 * Apply one access by @pcpu starting no earlier than @now to @line and
 * return its completion time.  Updates owner, sharers and busy time; the
 * caller bumps the version when the access changed the bytes.  SIM_RMW
 * is a whole locked atomic; on a larx/stcx. machine the caller reads
 * instead (the larx) and finishes with sim_mem_stcx.
 */
sim_time_t sim_mem_touch(struct sim_mem *m, size_t line, int pcpu,
			 enum sim_access kind, sim_time_t now,
			 struct sim_rng *rng);
/*
 * The stcx. of @pcpu at @now on @line, whose larx saw @stores stores:
 * its completion time, or SIM_TIME_NEVER if a store came between (M5).
 */
sim_time_t sim_mem_stcx(struct sim_mem *m, size_t line, int pcpu,
			uint64_t stores, sim_time_t now, struct sim_rng *rng);
/* Does @pcpu's domain hold @line: 0 no, 1 a clean copy, 2 modified. */
int sim_mem_holds(const struct sim_mem *m, size_t line, int pcpu);
/* The cache domains holding a copy of @line (owner or sharers). */
unsigned int sim_mem_copies(const struct sim_mem *m, size_t line);
/* The cache domain of hardware thread @pcpu. */
static inline int sim_mem_domain(const struct sim_mem *m, int pcpu)
{
	return pcpu / (int)m->dom_threads;
}

/* @pcpu's bit in a line's dom_read. */
static inline uint64_t sim_mem_thread_bit(const struct sim_mem *m, int pcpu)
{
	return 1ULL << ((unsigned int)pcpu % m->dom_threads);
}

/* Whether a read of @line by @pcpu, whose cache holds it, is a sibling's
 * first read of another thread's store in the shared cache (it then
 * costs that cache's latency, `smt`; a re-read is a hit). */
static inline bool sim_mem_first_read(const struct sim_mem *m, size_t line,
				      int pcpu)
{
	const struct sim_line *l = &m->lines[line];

	return l->src_pcpu != pcpu && l->src_pcpu >= 0 &&
	       sim_mem_domain(m, l->src_pcpu) == sim_mem_domain(m, pcpu) &&
	       !(l->dom_read & sim_mem_thread_bit(m, pcpu));
}

#endif
