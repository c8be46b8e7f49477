// SPDX-License-Identifier: MIT
/*
 * The cache-line cost model; see mem.h for the per-line state.
 */
#include <glib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/mem.h"
#include "sim/rng.h"

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
	m->dom_threads =
		m->topo.smt * (m->topo.cache_cores ? m->topo.cache_cores : 1);
	QSIM_BUG_ON(m->dom_threads > 64, "more than 64 threads share a cache");
}

void sim_mem_destroy(struct sim_mem *m)
{
	if (m->base)
		munmap(m->base, m->size);
	g_free(m->lines);
	g_free(m->sharers);
	g_free(m->observed);
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
		m->lines[i].owner_dom = -1;
		m->lines[i].fill_dom = -1;
		m->lines[i].src_pcpu = -1;
	}
	m->nwords =
		((m->topo.npcpus + m->dom_threads - 1) / m->dom_threads + 63) /
		64;
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
	if (sim_mem_domain(m, a) == sim_mem_domain(m, b))
		return SIM_DIST_SMT;
	core_a = (unsigned int)a / m->topo.smt;
	core_b = (unsigned int)b / m->topo.smt;
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

sim_time_t sim_mem_jitter(const struct sim_mem *m, sim_time_t cost,
			  struct sim_rng *rng)
{
	sim_time_t span;

	if (!rng || !m->cost.jitter_pct || !cost)
		return cost;
	span = cost * m->cost.jitter_pct / 100;
	return cost - span + sim_rng_below(rng, 2 * span + 1);
}

static inline uint64_t *sharer_words(struct sim_mem *m, size_t line)
{
	return m->sharers + line * m->nwords;
}

static inline bool is_sharer(struct sim_mem *m, size_t line, int dom)
{
	return sharer_words(m, line)[dom / 64] >> (dom % 64) & 1;
}

int sim_mem_holds(const struct sim_mem *m, size_t line, int pcpu)
{
	int dom = sim_mem_domain(m, pcpu);

	if (m->lines[line].owner_dom == dom)
		return 2;
	return (m->sharers[line * m->nwords + (unsigned int)dom / 64] >>
		(dom % 64)) &
	       1;
}

unsigned int sim_mem_copies(const struct sim_mem *m, size_t line)
{
	const uint64_t *w = m->sharers + line * m->nwords;
	unsigned int n = m->lines[line].owner_dom >= 0;

	for (unsigned int i = 0; i < m->nwords; i++)
		n += (unsigned int)__builtin_popcountll(w[i]);
	return n;
}

/*
 * What a write by @pcpu waits for (M4): the data from its source unless
 * its domain holds a copy, and the invalidation of every other domain's
 * copy, which takes as long as reaching the farthest one plus inval_ps
 * for each further one.  0 when its domain owns the line.
 */
static sim_time_t write_latency(struct sim_mem *m, size_t line, int pcpu)
{
	struct sim_line *l = &m->lines[line];
	const uint64_t *w = sharer_words(m, line);
	int dom = sim_mem_domain(m, pcpu);
	enum sim_dist far = SIM_DIST_HIT;
	unsigned int n = 0;
	bool mine = is_sharer(m, line, dom);
	sim_time_t data = 0, inv = 0;

	if (l->owner_dom == dom)
		return 0;
	if (l->owner_dom >= 0) {
		n = 1;
		far = sim_mem_dist(m, pcpu, l->src_pcpu);
	}
	for (unsigned int i = 0; i < m->nwords; i++) {
		uint64_t bits = w[i];

		while (bits) {
			int b = (int)(i * 64) + __builtin_ctzll(bits);
			enum sim_dist d;

			bits &= bits - 1;
			if (b == dom)
				continue;
			/* Distance to that domain's first thread. */
			d = sim_mem_dist(m, pcpu, b * (int)m->dom_threads);
			far = d > far ? d : far;
			n++;
		}
	}
	if (!mine)
		data = sim_mem_dist_cost(m, sim_mem_dist(m, pcpu, l->src_pcpu));
	if (n)
		inv = sim_mem_dist_cost(m, far) + (n - 1) * m->cost.inval_ps;
	return SIM_MAX(data, inv);
}

/*
 * cost.hold: a line that came to @pcpu exclusive from another cache
 * (@lat, its transfer, more than a hit) serves @pcpu alone until one
 * more transfer after it arrived at @start + @lat: a directory takes the
 * next request only after this one's completion reaches it, and that
 * request's forward reaches the new owner a transfer after the data did.
 */
static void hold_line(struct sim_mem *m, struct sim_line *l, int pcpu,
		      sim_time_t start, sim_time_t lat)
{
	if (!m->cost.hold || lat <= m->cost.hit_ps)
		return;
	l->hold_until = start + 2 * lat;
	l->hold_pcpu = pcpu;
}

/* @pcpu's domain now holds @line modified, every other copy gone. */
static void take_exclusive(struct sim_mem *m, size_t line, int pcpu)
{
	struct sim_line *l = &m->lines[line];
	uint64_t *w = sharer_words(m, line);

	if (m->nwords == 1)
		w[0] = 0;
	else
		memset(w, 0, m->nwords * sizeof(*w));
	l->stores++; /* M5: every reservation on it is gone */
	l->fill_dom = -1;
	l->owner_dom = sim_mem_domain(m, pcpu);
	l->src_pcpu = pcpu;
	l->dom_read = 0;
}

sim_time_t sim_mem_touch(struct sim_mem *m, size_t line, int pcpu,
			 enum sim_access kind, sim_time_t now,
			 struct sim_rng *rng)
{
	struct sim_line *l = &m->lines[line];
	uint64_t *w = sharer_words(m, line);
	sim_time_t start, lat, occ;

	QSIM_BUG_ON(line >= m->nlines || pcpu < 0 ||
		    (unsigned int)pcpu >= m->topo.npcpus);
	QSIM_BUG_ON(kind == SIM_RMW_RESV, "a larx is a read");
	if (kind == SIM_READ) {
		int dom = sim_mem_domain(m, pcpu);

		if (l->owner_dom == dom || is_sharer(m, line, dom)) {
			/* In our cache: a hit, but a sibling's store reaches
			 * us through the shared cache at our first read of
			 * it (until session 17 every re-read paid that, so a
			 * polling loop ran slower than its event-driven wait,
			 * which counts re-reads as hits); a sibling's miss
			 * still in flight brings it for us too. */
			bool first = sim_mem_first_read(m, line, pcpu);
			sim_time_t t = now + sim_mem_dist_cost(
						     m, first ? SIM_DIST_SMT
							      : SIM_DIST_HIT);

			if (first)
				l->dom_read |= sim_mem_thread_bit(m, pcpu);

			if (l->fill_dom == dom && l->fill_until > t)
				t = l->fill_until;
			return t;
		}
		start = SIM_MAX(now, l->busy_until);
		lat = sim_mem_jitter(
			m,
			sim_mem_dist_cost(m,
					  sim_mem_dist(m, pcpu, l->src_pcpu)),
			rng);
		/* M3: the source serves read_fanout reads at once. */
		occ = lat / (m->cost.read_fanout ? m->cost.read_fanout : 1);
		l->busy_until = start + occ;
		if (l->owner_dom >= 0) {
			/* The modified copy is downgraded to shared. */
			w[l->owner_dom / 64] |= 1ULL << (l->owner_dom % 64);
			l->owner_dom = -1;
		}
		w[dom / 64] |= 1ULL << (dom % 64);
		l->fill_dom = dom;
		l->fill_until = start + lat;
		return start + lat;
	}

	start = SIM_MAX(now, l->busy_until);
	lat = write_latency(m, line, pcpu);
	lat = lat ? sim_mem_jitter(m, lat, rng) : m->cost.hit_ps;
	hold_line(m, l, pcpu, start, lat);
	if (kind == SIM_RMW)
		lat += m->cost.atomic_ps;
	take_exclusive(m, line, pcpu);
	l->busy_until = start + lat;
	l->wbusy_until = start + lat;
	return start + lat;
}

sim_time_t sim_mem_stcx(struct sim_mem *m, size_t line, int pcpu,
			uint64_t stores, sim_time_t now, struct sim_rng *rng)
{
	struct sim_line *l = &m->lines[line];
	sim_time_t start, lat;

	if (l->stores != stores)
		return SIM_TIME_NEVER;
	/* The upgrade: every other copy (the readers since) invalidated. */
	start = SIM_MAX(now, l->busy_until);
	lat = write_latency(m, line, pcpu);
	lat = lat ? sim_mem_jitter(m, lat, rng) : m->cost.hit_ps;
	hold_line(m, l, pcpu, start, lat);
	take_exclusive(m, line, pcpu);
	l->busy_until = start + lat;
	l->wbusy_until = start + lat;
	return start + lat;
}
