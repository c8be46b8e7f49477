// SPDX-License-Identifier: MIT
/*
 * The cache-line cost model; see mem.h for the per-line state.
 */
#include <glib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/mem.h"

void sim_mem_init(struct sim_mem *m, size_t arena_bytes,
		  unsigned int line_bytes, const struct sim_cost *cost,
		  const struct sim_topo *topo)
{
	memset(m, 0, sizeof(*m));
	QSIM_BUG_ON(line_bytes < 16 || (line_bytes & (line_bytes - 1)),
		    "line size %u is not a power of two >= 16", line_bytes);
	m->line_shift = (unsigned int)__builtin_ctz(line_bytes);
	m->size = (arena_bytes + line_bytes - 1) & ~((size_t)line_bytes - 1);
	/* Lazily committed: only what setup touches costs memory. */
	m->base = mmap(NULL, m->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	QSIM_BUG_ON(m->base == MAP_FAILED, "arena mmap of %zu bytes failed",
		    m->size);
	m->cost = *cost;
	m->topo = *topo;
	QSIM_BUG_ON(m->topo.smt == 0 || m->topo.cores_per_chip == 0);
}

void sim_mem_destroy(struct sim_mem *m)
{
	if (m->base)
		munmap(m->base, m->size);
	g_free(m->lines);
	g_free(m->sharers);
	memset(m, 0, sizeof(*m));
}

void *sim_mem_alloc(struct sim_mem *m, size_t bytes, size_t align)
{
	size_t off;

	QSIM_BUG_ON(m->sealed, "arena allocation after seal");
	QSIM_BUG_ON(align == 0 || (align & (align - 1)));
	off = (m->used + align - 1) & ~(align - 1);
	QSIM_BUG_ON(off + bytes > m->size, "arena of %zu bytes exhausted",
		    m->size);
	m->used = off + bytes;
	return m->base + off;
}

void sim_mem_seal(struct sim_mem *m)
{
	size_t line = (size_t)1 << m->line_shift;

	m->nlines = (m->used + line - 1) / line + 1;
	m->lines = g_new0(struct sim_line, m->nlines);
	for (size_t i = 0; i < m->nlines; i++) {
		m->lines[i].owner_pcpu = -1;
		m->lines[i].src_pcpu = -1;
	}
	m->nwords = (m->topo.npcpus + 63) / 64;
	if (!m->nwords)
		m->nwords = 1;
	m->sharers = g_new0(uint64_t, m->nlines * m->nwords);
	m->sealed = true;
}

enum sim_dist sim_mem_dist(const struct sim_mem *m, int a, int b)
{
	unsigned int core_a, core_b;

	if (b < 0 || a < 0)
		return SIM_DIST_MEM;
	if (a == b)
		return SIM_DIST_HIT;
	core_a = (unsigned int)a / m->topo.smt;
	core_b = (unsigned int)b / m->topo.smt;
	if (core_a == core_b)
		return SIM_DIST_SMT;
	if (core_a / m->topo.cores_per_chip == core_b / m->topo.cores_per_chip)
		return SIM_DIST_CHIP;
	return SIM_DIST_REMOTE;
}

sim_time_t sim_mem_dist_cost(const struct sim_mem *m, enum sim_dist d)
{
	switch (d) {
	case SIM_DIST_HIT:
		return m->cost.hit_ps;
	case SIM_DIST_SMT:
		return m->cost.smt_ps;
	case SIM_DIST_CHIP:
		return m->cost.chip_ps;
	case SIM_DIST_REMOTE:
		return m->cost.remote_ps;
	case SIM_DIST_MEM:
		break;
	}
	return m->cost.mem_ps;
}

static inline uint64_t *sharer_words(struct sim_mem *m, size_t line)
{
	return m->sharers + line * m->nwords;
}

static inline bool is_sharer(struct sim_mem *m, size_t line, int pcpu)
{
	return sharer_words(m, line)[pcpu / 64] >> (pcpu % 64) & 1;
}

sim_time_t sim_mem_touch(struct sim_mem *m, size_t line, int pcpu,
			 enum sim_access kind, sim_time_t now)
{
	struct sim_line *l = &m->lines[line];
	uint64_t *w = sharer_words(m, line);
	sim_time_t start, cost;

	QSIM_BUG_ON(line >= m->nlines || pcpu < 0 ||
		    (unsigned int)pcpu >= m->topo.npcpus);
	if (kind == SIM_READ) {
		if (l->owner_pcpu == pcpu || is_sharer(m, line, pcpu))
			return now + m->cost.hit_ps;
		start = SIM_MAX(now, l->busy_until);
		cost = sim_mem_dist_cost(m, sim_mem_dist(m, pcpu, l->src_pcpu));
		if (l->owner_pcpu >= 0) {
			/* The modified copy is downgraded to shared. */
			w[l->owner_pcpu / 64] |= 1ULL << (l->owner_pcpu % 64);
			l->owner_pcpu = -1;
		}
		w[pcpu / 64] |= 1ULL << (pcpu % 64);
		return start + cost;
	}

	start = SIM_MAX(now, l->busy_until);
	if (l->owner_pcpu == pcpu) {
		cost = m->cost.hit_ps;
	} else if (l->src_pcpu == pcpu) {
		/* Upgrade of our shared copy: invalidate the other sharers. */
		bool others = false;

		for (unsigned int i = 0; i < m->nwords && !others; i++) {
			uint64_t mine = i == (unsigned int)pcpu / 64
						? 1ULL << (pcpu % 64)
						: 0;

			others = (w[i] & ~mine) != 0;
		}
		cost = others ? m->cost.chip_ps : m->cost.hit_ps;
	} else {
		cost = sim_mem_dist_cost(m, sim_mem_dist(m, pcpu, l->src_pcpu));
	}
	if (kind == SIM_RMW)
		cost += m->cost.atomic_ps;
	if (m->nwords == 1)
		w[0] = 0;
	else
		memset(w, 0, m->nwords * sizeof(*w));
	l->owner_pcpu = pcpu;
	l->src_pcpu = pcpu;
	l->busy_until = start + cost;
	return start + cost;
}
