/* SPDX-License-Identifier: MIT */
/*
 * Simulated shared memory and its cost: the cache-line model.
 *
 * Guest-shared memory (lock words, per-CPU queue nodes, hash tables, lppaca
 * areas) is carved from one arena in a fixed order at setup, so a line's
 * identity is its offset in the arena and never depends on host addresses.
 * After setup the arena is sealed and per-line state is allocated:
 *
 *   owner_pcpu    the pCPU holding the line modified (exclusive), or -1
 *   sharers       bitset of pCPUs holding a clean copy
 *   src_pcpu      where the newest data lives (last writer), -1 = memory
 *   version       bumped on every write that changes a byte; spin waiters
 *                 sleep on it (engine.c)
 *   busy_until    writes and atomics serialize through this
 *
 * Costs are by distance between pCPUs: hit, same core (SMT sibling), same
 * chip, other chip, memory; atomics add a fixed cost.  docs/cost-model.md
 * gives the presets and the per-key overrides.
 */
#ifndef QSIM_SIM_MEM_H
#define QSIM_SIM_MEM_H

#include "sim/types.h"

struct sim_watch;

struct sim_cost {
	sim_time_t hit_ps;
	sim_time_t smt_ps;
	sim_time_t chip_ps;
	sim_time_t remote_ps;
	sim_time_t mem_ps;
	sim_time_t atomic_ps;
	sim_time_t relax_ps;
	sim_time_t barrier_ps;
};

struct sim_topo {
	unsigned int smt; /* hardware threads per core */
	unsigned int cores_per_chip;
	unsigned int npcpus; /* pCPUs the model may see */
};

struct sim_line {
	uint64_t version;
	sim_time_t busy_until;
	int32_t owner_pcpu;
	int32_t src_pcpu;
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
	size_t nlines;
	struct sim_cost cost;
	struct sim_topo topo;
};

enum sim_access {
	SIM_READ,
	SIM_WRITE,
	SIM_RMW,
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

/*
 * Apply one access by @pcpu starting no earlier than @now to @line and
 * return its completion time.  Updates owner, sharers and busy time; the
 * caller bumps the version when the access changed the bytes.
 */
sim_time_t sim_mem_touch(struct sim_mem *m, size_t line, int pcpu,
			 enum sim_access kind, sim_time_t now);

#endif
