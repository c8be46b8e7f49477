// SPDX-License-Identifier: MIT
/*
 * The memory model (sim/mm.h): store buffers, the undo log of each line,
 * loads satisfied early, barriers.
 */
#include <glib.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/mm.h"

const char *sim_memory_name(unsigned int k)
{
	static const char *const n[] = {"sc", "tso", "power", NULL};

	return k < G_N_ELEMENTS(n) ? n[k] : NULL;
}

/* @p's offset in its line. */
static size_t line_off(const struct sim *s, const void *p)
{
	return sim_mem_offset(&s->mem, p) &
	       (((size_t)1 << s->mem.line_shift) - 1);
}

static void mm_due(struct sim_event *ev);

void sim_mm_enable(struct sim *s, enum sim_memory kind, sim_time_t window,
		   sim_time_t delay)
{
	QSIM_BUG_ON(!s->mem.sealed, "memory model before the arena is sealed");
	QSIM_BUG_ON(s->mm, "memory model set twice");
	if (kind == SIM_MEMORY_SC)
		return;
	s->mm = g_new0(struct sim_mm, 1);
	s->mm->kind = kind;
	s->mm->window = kind == SIM_MEMORY_POWER ? window : 0;
	s->mm->delay = delay;
	s->mm->lines = g_new0(struct sim_mm_line, s->mem.nlines);
	/* Raw spin loops run ahead on the arena's bytes: not with buffers. */
	s->rspin_on = false;
	for (unsigned int i = 0; i < s->ncpus; i++)
		sim_mm_cpu_init(s->cpus[i]);
}

void sim_mm_set_drain(struct sim *s, bool (*late)(void *, struct sim_cpu *),
		      void *data)
{
	if (!s->mm)
		return;
	s->mm->drain_late = late;
	s->mm->drain_data = data;
}

void sim_mm_cpu_init(struct sim_cpu *c)
{
	struct sim_mm_cpu *mc;

	if (!c->sim->mm || c->mm)
		return;
	mc = g_new0(struct sim_mm_cpu, 1);
	mc->c = c;
	sim_event_init(&mc->ev, mm_due, mc, SIM_PRIO_STORE);
	sim_rng_init(&mc->rng, c->sim->seed, SIM_RNG_MEMORY, c->id);
	c->mm = mc;
}

void sim_mm_free(struct sim *s)
{
	for (unsigned int i = 0; i < s->ncpus; i++) {
		g_free(s->cpus[i]->mm);
		s->cpus[i]->mm = NULL;
	}
	if (s->mm)
		g_free(s->mm->lines);
	g_free(s->mm);
	s->mm = NULL;
}

/* --- the undo log --- */

static void undo_log(struct sim *s, size_t line, sim_time_t t, const uint8_t *p,
		     const uint8_t *old, size_t size)
{
	struct sim_mm_line *l = &s->mm->lines[line];
	struct sim_mm_undo *u;

	if (l->n == SIM_MM_UNDO) {
		l->evicted = SIM_MAX(l->evicted, l->u[l->head].t);
		l->head = (uint8_t)((l->head + 1) % SIM_MM_UNDO);
		l->n--;
	}
	u = &l->u[(l->head + l->n) % SIM_MM_UNDO];
	l->n++;
	u->t = t;
	u->off = (uint16_t)line_off(s, p);
	u->size = (uint8_t)size;
	memcpy(u->old, old, size);
}

/*
 * The bytes [p, p + size) of @line as they were at @t: memory with every
 * logged write after @t undone.  Returns whether any was.
 */
static bool value_at(struct sim *s, size_t line, const uint8_t *p, size_t size,
		     sim_time_t t, uint8_t *out)
{
	struct sim_mm_line *l = &s->mm->lines[line];
	size_t off = line_off(s, p);
	bool undone = false;

	memcpy(out, p, size);
	for (unsigned int k = l->n; k-- > 0;) {
		const struct sim_mm_undo *u =
			&l->u[(l->head + k) % SIM_MM_UNDO];
		size_t lo, hi;

		if (u->t <= t)
			break;
		lo = SIM_MAX(off, (size_t)u->off);
		hi = SIM_MIN(off + size, (size_t)u->off + u->size);
		if (lo >= hi)
			continue;
		memcpy(out + (lo - off), u->old + (lo - u->off), hi - lo);
		undone = true;
	}
	return undone;
}

/* --- per-cpu coherence floors --- */

static sim_time_t seen_get(const struct sim_mm_cpu *mc, size_t line)
{
	unsigned int i = (unsigned int)(line % SIM_MM_SEEN);

	if (mc->seen[i].line == line + 1)
		return SIM_MAX(mc->seen[i].t, mc->seen_evicted);
	return mc->seen_evicted;
}

static void seen_set(struct sim_mm_cpu *mc, size_t line, sim_time_t t)
{
	unsigned int i = (unsigned int)(line % SIM_MM_SEEN);

	if (mc->seen[i].line != line + 1) {
		/* The slot's floor is kept for every line from now on. */
		if (mc->seen[i].line)
			mc->seen_evicted =
				SIM_MAX(mc->seen_evicted, mc->seen[i].t);
		mc->seen[i].line = line + 1;
		mc->seen[i].t = t;
		return;
	}
	mc->seen[i].t = SIM_MAX(mc->seen[i].t, t);
}

/* --- the store buffer --- */

static void rearm(struct sim_mm_cpu *mc)
{
	struct sim *s = mc->c->sim;
	sim_time_t first = SIM_TIME_NEVER;

	for (unsigned int i = 0; i < mc->n; i++)
		first = SIM_MIN(first, mc->sb[i].commit);
	if (sim_event_queued(&mc->ev))
		sim_evq_cancel(&s->q, &mc->ev);
	if (mc->n)
		sim_evq_push(&s->q, &mc->ev, first);
}

/* Entry @i becomes visible at @t. */
static void commit(struct sim_mm_cpu *mc, unsigned int i, sim_time_t t)
{
	struct sim_cpu *c = mc->c;
	struct sim *s = c->sim;
	struct sim_mm_store e = mc->sb[i];
	size_t line = sim_mem_line_of(&s->mem, e.p);
	bool changed = memcmp(e.p, e.val, e.size) != 0;

	memmove(&mc->sb[i], &mc->sb[i + 1],
		(mc->n - i - 1) * sizeof(mc->sb[0]));
	mc->n--;
	undo_log(s, line, t, e.p, e.p, e.size);
	memcpy(e.p, e.val, e.size);
	/* A store to the line kills any reservation on it (sim/mem.h M5). */
	s->mem.lines[line].stores++;
	seen_set(mc, line, t);
	if (changed)
		sim_mem_written_by(s, c, e.p, t);
}

/* The entry to make visible next: the earliest, in program order. */
static unsigned int next_due(const struct sim_mm_cpu *mc)
{
	unsigned int best = 0;

	for (unsigned int i = 1; i < mc->n; i++)
		if (mc->sb[i].commit < mc->sb[best].commit)
			best = i;
	return best;
}

static void mm_due(struct sim_event *ev)
{
	struct sim_mm_cpu *mc = ev->data;
	sim_time_t t = ev->time_ps;

	while (mc->n) {
		unsigned int i = next_due(mc);

		if (mc->sb[i].commit > t)
			break;
		commit(mc, i, t);
	}
	rearm(mc);
}

static bool overlaps(const struct sim_mm_store *e, const uint8_t *p,
		     size_t size)
{
	return e->p < p + size && p < e->p + e->size;
}

/*
 * Make visible at @t, earliest first, every buffered store to the bytes
 * [p, p + size) (p NULL: every one) or due by @upto.
 */
static void flush(struct sim_mm_cpu *mc, sim_time_t t, const uint8_t *p,
		  size_t size, sim_time_t upto)
{
	bool any = false;

	for (;;) {
		unsigned int best = SIM_MM_SB;

		for (unsigned int i = 0; i < mc->n; i++) {
			bool pick = !p || overlaps(&mc->sb[i], p, size) ||
				    mc->sb[i].commit <= upto;

			if (pick && (best == SIM_MM_SB ||
				     mc->sb[i].commit < mc->sb[best].commit))
				best = i;
		}
		if (best == SIM_MM_SB)
			break;
		commit(mc, best, t);
		any = true;
	}
	if (any)
		rearm(mc);
}

void sim_mm_drain(struct sim_cpu *c, sim_time_t t)
{
	if (c->mm && c->mm->n)
		flush(c->mm, t, NULL, 0, 0);
}

void sim_mm_store(struct sim_cpu *c, volatile void *p, const void *val,
		  size_t size)
{
	struct sim_mm_cpu *mc = c->mm;
	struct sim *s = c->sim;
	struct sim_mm *mm = s->mm;
	struct sim_mm_store *e;
	sim_time_t at;

	QSIM_BUG_ON(size > 8, "a store of %zu bytes", size);
	if (mc->n == SIM_MM_SB) {
		/* Full: the earliest entry drains now (the sync may have
		 * let it drain already). */
		sim_cpu_sync(c);
		if (mc->n == SIM_MM_SB) {
			commit(mc, next_due(mc), c->now_ps);
			rearm(mc);
		}
	}
	/*
	 * Visible when the line is ours (the cost model's completion), or
	 * for half the stores a random time later: how long a store waits
	 * in the buffer before it drains.
	 */
	at = SIM_MAX(c->wdone_ps, c->access_ps);
	if (mm->drain_late && mm->drain_late(mm->drain_data, c))
		at += mm->delay; /* the adversary holds it longest */
	else if (mm->delay && sim_rng_below(&mc->rng, 2))
		at += sim_rng_below(&mc->rng, mm->delay + 1);
	if (mm->kind == SIM_MEMORY_TSO) {
		for (unsigned int i = 0; i < mc->n; i++)
			at = SIM_MAX(at, mc->sb[i].commit);
	} else {
		at = SIM_MAX(at, mc->st_floor);
		/* Stores to one location become visible in program order
		 * (coherence); to different ones, in any. */
		for (unsigned int i = 0; i < mc->n; i++)
			if (overlaps(&mc->sb[i], (const uint8_t *)p, size))
				at = SIM_MAX(at, mc->sb[i].commit);
	}
	e = &mc->sb[mc->n++];
	e->commit = at;
	e->p = (uint8_t *)p;
	e->size = (uint32_t)size;
	memcpy(e->val, val, size);
	rearm(mc);
}

void sim_mm_load(struct sim_cpu *c, const volatile void *pv, void *out,
		 size_t size)
{
	struct sim_mm_cpu *mc = c->mm;
	struct sim *s = c->sim;
	struct sim_mm *mm = s->mm;
	const uint8_t *p = (const uint8_t *)pv;
	size_t line = sim_mem_line_of(&s->mem, p);
	sim_time_t now = c->access_ps, t = now;

	QSIM_BUG_ON(size > 8, "a load of %zu bytes", size);
	if (mm->kind == SIM_MEMORY_POWER) {
		sim_time_t lo = SIM_MAX(mc->ld_floor, seen_get(mc, line));

		lo = SIM_MAX(lo, mm->lines[line].evicted);
		if (now > mm->window)
			lo = SIM_MAX(lo, now - mm->window);
		if (lo < now && sim_rng_below(&mc->rng, 2))
			t = lo + sim_rng_below(&mc->rng, now - lo + 1);
	}
	if (value_at(s, line, p, size, t, out))
		sim_wait_stale(c, line);
	/* The cpu's own buffered stores, oldest first. */
	for (unsigned int i = 0; i < mc->n; i++) {
		const struct sim_mm_store *e = &mc->sb[i];
		const uint8_t *lo = SIM_MAX(p, e->p);
		const uint8_t *hi = SIM_MIN(p + size, e->p + e->size);

		if (lo >= hi)
			continue;
		memcpy((uint8_t *)out + (lo - p), e->val + (lo - e->p),
		       (size_t)(hi - lo));
	}
	seen_set(mc, line, t);
	mc->ld_max = SIM_MAX(mc->ld_max, t);
}

static void lw(struct sim_mm_cpu *mc)
{
	for (unsigned int i = 0; i < mc->n; i++)
		mc->st_floor = SIM_MAX(mc->st_floor, mc->sb[i].commit);
	mc->ld_floor = SIM_MAX(mc->ld_floor, mc->ld_max);
}

static void coroutine_fn sync_now(struct sim_mm_cpu *mc)
{
	struct sim_cpu *c = mc->c;

	/* Only a buffer to drain needs the cpu in time order (the sync
	 * may yield): with none, nothing here is seen by anyone else. */
	if (mc->n) {
		sim_cpu_sync(c);
		flush(mc, c->now_ps, NULL, 0, 0);
	}
	mc->ld_floor = SIM_MAX(mc->ld_floor, c->now_ps);
	mc->ld_max = SIM_MAX(mc->ld_max, c->now_ps);
	mc->st_floor = SIM_MAX(mc->st_floor, c->now_ps);
}

void sim_mm_fence(struct sim_cpu *c, enum sim_fence f)
{
	if (f == SIM_FENCE_SYNC)
		sync_now(c->mm);
	else
		lw(c->mm);
}

void sim_mm_acquire(struct sim_cpu *c)
{
	c->mm->ld_floor = SIM_MAX(c->mm->ld_floor, c->mm->ld_max);
}

void sim_mm_rmw_begin(struct sim_cpu *c, const volatile void *p, size_t size,
		      enum sim_order ord)
{
	struct sim_mm_cpu *mc = c->mm;

	/* On TSO every atomic is a locked instruction, which drains the
	 * store buffer first (x86-TSO: LOCK'd instructions are fences). */
	if (ord == SIM_ORD_FULL || c->sim->mm->kind == SIM_MEMORY_TSO) {
		sync_now(mc);
		return;
	}
	if (ord == SIM_ORD_RELEASE)
		lw(mc);
	if (!mc->n)
		return;
	/*
	 * The atomic's store is visible at once: the buffered stores to its
	 * bytes (coherence) and those a fence ordered before it go first.
	 */
	sim_cpu_sync(c);
	flush(mc, c->now_ps, (const uint8_t *)p, size,
	      ord == SIM_ORD_RELEASE ? SIM_TIME_NEVER : mc->st_floor);
}

void sim_mm_rmw_written(struct sim_cpu *c, const volatile void *p,
			const void *old, size_t size)
{
	struct sim *s = c->sim;
	size_t line = sim_mem_line_of(&s->mem, (const void *)p);

	undo_log(s, line, c->access_ps, (const uint8_t *)p, old, size);
	seen_set(c->mm, line, c->access_ps);
}

void sim_mm_rmw_end(struct sim_cpu *c, enum sim_order ord)
{
	struct sim_mm_cpu *mc = c->mm;

	/* The atomic read the newest value, at access_ps. */
	mc->ld_max = SIM_MAX(mc->ld_max, c->access_ps);
	if (ord == SIM_ORD_ACQUIRE)
		mc->ld_floor = SIM_MAX(mc->ld_floor, mc->ld_max);
}

void coroutine_fn sim_mm_plain(struct sim_cpu *c, const volatile void *pv,
			       size_t size, bool write)
{
	struct sim_mm_cpu *mc = c->mm;
	struct sim *s = c->sim;
	const uint8_t *p = (const uint8_t *)pv;
	const uint8_t *end = p + size;
	sim_time_t t;

	if (mc->n) {
		sim_cpu_sync(c);
		flush(mc, c->now_ps, NULL, 0, 0);
	}
	/* Done by the compiled code on its return: after those. */
	t = c->now_ps;
	/* Chunk by chunk of at most 8 bytes, none crossing a line. */
	while (p < end && sim_mem_contains(&s->mem, p)) {
		size_t line = sim_mem_line_of(&s->mem, p);
		size_t room = ((size_t)1 << s->mem.line_shift) - line_off(s, p);
		size_t n = SIM_MIN(SIM_MIN((size_t)(end - p), room), 8);

		/* A store: memory still holds the bytes it replaces. */
		if (write)
			undo_log(s, line, t, p, p, n);
		seen_set(mc, line, t);
		p += n;
	}
	mc->ld_max = SIM_MAX(mc->ld_max, t);
}

uint64_t coroutine_fn sim_mm_read_u64(struct sim_cpu *c, uint64_t *p)
{
	uint64_t v;

	sim_access(c, p, SIM_READ);
	v = *(volatile uint64_t *)p;
	if (c->mm)
		sim_mm_load(c, p, &v, sizeof(v));
	return v;
}

void coroutine_fn sim_mm_write_u64(struct sim_cpu *c, uint64_t *p, uint64_t v)
{
	sim_access(c, p, SIM_WRITE);
	if (c->mm) {
		sim_mm_store(c, p, &v, sizeof(v));
		return;
	}
	if (*(volatile uint64_t *)p == v)
		return;
	*(volatile uint64_t *)p = v;
	sim_mem_written(c->sim, p, c->access_ps);
}

bool sim_mm_pending(struct sim *s, const void *pv, size_t size)
{
	const uint8_t *p = pv;

	for (unsigned int k = 0; s->mm && k < s->ncpus; k++) {
		const struct sim_mm_cpu *mc = s->cpus[k]->mm;

		for (unsigned int i = 0; mc && i < mc->n; i++)
			if (overlaps(&mc->sb[i], p, size))
				return true;
	}
	return false;
}
