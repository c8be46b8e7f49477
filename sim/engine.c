// SPDX-License-Identifier: MIT
/*
 * The discrete-event engine; the states, invariants and transitions are in
 * the design block of engine.h.
 *
 * The iteration grid of a spin wait (E4).  A real loop
 *
 *	for (;;) { if (cond) break; cpu_relax(); }
 *
 * whose evaluation failed at time r0 evaluates again at r1 = r0 + (cost of
 * its reads) + relax, and then every period p = (hit cost of each line
 * read) + relax, because every re-read of an unchanged line hits.  A write
 * at time tw is first seen by the evaluation at the first grid point after
 * tw: r_k with k = 1 if tw < r1, else k = (tw - r1) / p + 2.  A preemption
 * at time tp leaves the next evaluation at the first grid point after tp,
 * and the remaining part of that iteration is carried to the next
 * dispatch.  Ties (tw equal to a grid point) resolve as "not yet seen",
 * the same order the horizon rule gives a running reader (sim_cpu_sync
 * yields only when local time is strictly past the horizon).
 */
#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/mm.h"

__thread struct sim *sim_self;

/* The requests from one chip waiting for a line: a bit per cpu id, so
 * that they are in cpu order (the pick depends on the simulated state
 * alone) at a constant cost to add and remove; the pick reads them as an
 * array, rebuilt when they changed since the last. */
struct sim_lq_chip {
	uint64_t *bits;
	unsigned int nw; /* words in bits */
	unsigned int n;	 /* bits set */
	struct sim_cpu **v;
	unsigned int cap;
	bool dirty; /* v is not the bits' cpus */
};

static void lq_chip_add(struct sim_lq_chip *k, const struct sim_cpu *c)
{
	unsigned int w = c->id / 64;

	if (w >= k->nw) {
		unsigned int nw = SIM_MAX(w + 1, c->sim->ncpus / 64 + 1);

		k->bits = g_renew(uint64_t, k->bits, nw);
		memset(k->bits + k->nw, 0, (nw - k->nw) * sizeof(*k->bits));
		k->nw = nw;
	}
	k->bits[w] |= 1ULL << (c->id % 64);
	k->n++;
	k->dirty = true;
}

static void lq_chip_del(struct sim_lq_chip *k, const struct sim_cpu *c)
{
	uint64_t b = 1ULL << (c->id % 64);

	QSIM_BUG_ON(c->id / 64 >= k->nw || !(k->bits[c->id / 64] & b));
	k->bits[c->id / 64] &= ~b;
	k->n--;
	k->dirty = true;
}

/* @k's waiters in cpu order, as an array. */
static struct sim_cpu **lq_chip_array(struct sim *s, struct sim_lq_chip *k)
{
	unsigned int j = 0;

	if (!k->dirty)
		return k->v;
	if (k->n > k->cap) {
		k->cap = SIM_MAX(k->n, 2 * k->cap);
		k->v = g_renew(struct sim_cpu *, k->v, k->cap);
	}
	for (unsigned int i = 0; i < k->nw && j < k->n; i++)
		for (uint64_t b = k->bits[i]; b; b &= b - 1)
			k->v[j++] = s->cpus[i * 64 +
					    (unsigned int)__builtin_ctzll(b)];
	k->dirty = false;
	return k->v;
}

struct sim_lineq {
	struct sim_lineq *free_next;
	struct sim *s;
	size_t line;
	struct sim_lq_chip *chip; /* per chip */
	unsigned int *dom_n;	  /* waiting per cache domain */
	unsigned int n;		  /* waiting, on all chips */
	unsigned int ngranted;	  /* served, not yet run */
	struct sim_event ev;	  /* the source frees: serve */
};

__thread const char *sim_bug_context;

void sim_bug(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "qsim: internal error at %s:%d: %s", file, line, cond);
	if (fmt && *fmt) {
		fputs(": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	if (sim_bug_context) /* what this thread was running, to replay it */
		fprintf(stderr, "qsim: while running:\n%s\n", sim_bug_context);
	fflush(stderr);
	abort();
}

/* Core throughput with @x threads' worth of demand, percent of one
 * thread alone: linear between the preset's whole-thread points. */
static double core_tput(const struct sim_topo *t, double x)
{
	unsigned int n = t->smt;

	if (x <= 1.0)
		return 100.0 * x;
	if (x >= n)
		return t->smt_tput[n - 1];
	unsigned int i = (unsigned int)x;
	double f = x - i;

	return t->smt_tput[i - 1] * (1.0 - f) + t->smt_tput[i] * f;
}

/*
 * The SMT share (docs/cost-model.md): with nb busy and nl low-priority
 * threads on a core, demand is nb + w*nl threads' worth (w = hmt_low_pct),
 * the core delivers core_tput of it, split by weight; no thread runs
 * faster than alone.  With no busy thread the low ones share as equals.
 */
static void smt_tables(struct sim *s)
{
	const struct sim_topo *t = &s->mem.topo;
	double w = t->hmt_low_pct / 100.0;

	for (unsigned int nb = 0; nb <= SIM_SMT_MAX; nb++) {
		for (unsigned int nl = 0; nl <= SIM_SMT_MAX; nl++) {
			double busy = 1, low = 1;

			if (nb + nl > t->smt || !t->smt_tput[0]) {
				/* not a reachable state: full speed */
			} else if (nb == 0 && nl > 0) {
				low = core_tput(t, nl) / 100.0 / nl;
			} else if (nb > 0) {
				double d = nb + w * nl;
				double unit = core_tput(t, d) / 100.0 / d;

				busy = SIM_MIN(1.0, unit);
				low = SIM_MIN(1.0, w * unit);
			}
			s->slow_busy[nb][nl] = (uint32_t)(65536.0 / busy + 0.5);
			s->slow_low[nb][nl] =
				low > 0 ? (uint32_t)(65536.0 / low + 0.5)
					: 65536;
		}
	}
}

void sim_init(struct sim *s, size_t arena_bytes, unsigned int line_bytes,
	      const struct sim_cost *cost, const struct sim_topo *topo,
	      size_t stack_bytes)
{
	unsigned int cores;

	memset(s, 0, sizeof(*s));
	sim_evq_init(&s->q);
	sim_mem_init(&s->mem, arena_bytes, line_bytes, cost, topo);
	s->stack_bytes = stack_bytes;
	sim_trace_init(&s->trace, 256);
	QSIM_BUG_ON(topo->smt > SIM_SMT_MAX);
	s->ndoms = (topo->npcpus + s->mem.dom_threads - 1) / s->mem.dom_threads;
	if (!s->ndoms)
		s->ndoms = 1;
	s->nchips = (topo->npcpus + topo->smt * topo->cores_per_chip - 1) /
		    (topo->smt * topo->cores_per_chip);
	if (!s->nchips)
		s->nchips = 1;
	s->on_pcpu = g_new0(struct sim_cpu *, topo->npcpus ? topo->npcpus : 1);
	s->rspin_on = sim_coro_can_checkpoint();
	if (topo->smt > 1 && topo->smt_tput[0]) {
		cores = (topo->npcpus + topo->smt - 1) / topo->smt;
		s->level = g_new0(uint8_t, topo->npcpus);
		s->core_busy = g_new0(uint8_t, cores);
		s->core_low = g_new0(uint8_t, cores);
		smt_tables(s);
	}
}

/* The level a dispatched thread runs at with HMT priority @hmt_low, in a
 * wait (@waiting) or not. */
static enum sim_thread_level level_of(const struct sim *s, bool hmt_low,
				      bool waiting)
{
	if (hmt_low || (waiting && s->mem.topo.relax_yields))
		return SIM_THREAD_LOW;
	return SIM_THREAD_BUSY;
}

/* The level @c's thread runs at when dispatched. */
static enum sim_thread_level cpu_level(const struct sim_cpu *c)
{
	return level_of(c->sim, c->hmt_low, c->wait.active);
}

/* Hardware thread @pcpu now runs at @lv (the SMT share of its core), from
 * @t: a raw spin waiting on the core replays up to then. */
static void thread_level(struct sim *s, int pcpu, enum sim_thread_level lv,
			 sim_time_t t)
{
	unsigned int core, smt, lo;
	uint32_t before[SIM_SMT_MAX];
	uint8_t old;

	if (!s->level || pcpu < 0)
		return;
	old = s->level[pcpu];
	if (old == lv)
		return;
	smt = s->mem.topo.smt;
	core = (unsigned int)pcpu / smt;
	lo = core * smt;
	/* Each thread's speed before: only a thread whose own speed the
	 * change moves is re-timed (session 16; before, every waiting
	 * sibling was woken, also a pausing one whose speed never moves,
	 * and twice by a sibling's low-busy-low blip at one instant). */
	for (unsigned int i = 0; i < smt && lo + i < s->mem.topo.npcpus; i++)
		before[i] = s->on_pcpu[lo + i]
				    ? sim_cpu_slow(s->on_pcpu[lo + i])
				    : 0;
	if (old == SIM_THREAD_BUSY)
		s->core_busy[core]--;
	else if (old == SIM_THREAD_LOW)
		s->core_low[core]--;
	if (lv == SIM_THREAD_BUSY)
		s->core_busy[core]++;
	else if (lv == SIM_THREAD_LOW)
		s->core_low[core]++;
	s->level[pcpu] = (uint8_t)lv;
	/* A raw spin waiting on the core replays up to the change, and no
	 * earlier than the event being processed.  (Up to the event clock
	 * alone, a change made by a running cpu at its later local time t,
	 * inside an hcall say, let the rewound spinner act before t after
	 * that cpu had acted at t: a vCPU was then dispatched before the
	 * time it had been undispatched.) */
	/* (With raw spins off no sibling speculates: only its waits.) */
	sim_rspin_core_changed(s, pcpu, SIM_MAX(t, s->now_ps), before);
}

void sim_set_seed(struct sim *s, uint64_t seed)
{
	s->seed = seed;
	sim_rng_init(&s->arb_rng, seed, SIM_RNG_MACHINE, UINT32_MAX);
}

void sim_destroy(struct sim *s)
{
	struct sim_lineq *q;

	for (unsigned int i = 0; i < s->ncpus; i++)
		sim_rspin_free(s->cpus[i]);
	sim_mm_free(s);
	g_free(s->on_pcpu);

	for (size_t i = 0; s->mem.lines && i < s->mem.nlines; i++) {
		q = s->mem.lines[i].q;
		if (q) {
			q->free_next = s->lq_free;
			s->lq_free = q;
		}
	}
	while ((q = s->lq_free)) {
		s->lq_free = q->free_next;
		for (unsigned int k = 0; k < s->nchips; k++) {
			g_free(q->chip[k].bits);
			g_free(q->chip[k].v);
		}
		g_free(q->chip);
		g_free(q->dom_n);
		g_free(q);
	}
	for (unsigned int i = 0; i < s->ncpus; i++) {
		sim_coro_destroy(s->cpus[i]->co);
		g_free(s->cpus[i]);
	}
	g_free(s->cpus);
	g_free(s->level);
	g_free(s->core_busy);
	g_free(s->core_low);
	sim_evq_destroy(&s->q);
	sim_mem_destroy(&s->mem);
	sim_trace_free(&s->trace);
	if (sim_self == s)
		sim_self = NULL;
}

static void cpu_resume_ev(struct sim_event *ev);
static void unwatch_all(struct sim_cpu *c);
static void lineq_kick(struct sim_lineq *q, sim_time_t t);
static void lineq_remove(struct sim_lineq *q, struct sim_cpu *c);
static void line_taken(struct sim *s, size_t line, const struct sim_cpu *wr,
		       sim_time_t t);
static void tick_ev(struct sim_event *ev);
static void irq_ev(struct sim_event *ev);

/* The running cpu is leaving the host CPU: drop its resume event unless
 * it re-queued it while it ran (it blocked, stopped or finished). */
static void cpu_drop_stale_event(struct sim_cpu *c)
{
	if (sim_event_queued(&c->ev) && c->ev.gen == c->resume_gen)
		sim_evq_cancel(&c->sim->q, &c->ev);
}

/* Make @c the running cpu for its resume event @ev. */
static void cpu_enter(struct sim *s, struct sim_cpu *c, struct sim_event *ev)
{
	QSIM_BUG_ON(!c->dispatched, "cpu %u resumed while undispatched", c->id);
	if (c->state == SIM_CPU_WAITING) {
		/* The budget ran out before any watched line changed. */
		unwatch_all(c);
		c->wait.result = 0;
	}
	QSIM_BUG_ON(c->state != SIM_CPU_READY && c->state != SIM_CPU_WAITING,
		    "cpu %u resumed in state %d", c->id, c->state);
	c->state = SIM_CPU_RUNNING;
	c->now_ps = ev->time_ps;
	c->resume_gen = ev->gen;
	s->cur = c;
}

/*
 * The engine loop: run events in order up to the first cpu resume, and
 * return that (its time is now the global time); NULL at the end of the
 * run, a stop, or an empty queue.  A cpu's resume event stays queued while
 * the cpu runs, so that its yield re-keys it in place (sim_evq_horizon
 * skips it); every other event leaves the queue before it runs.
 */
static struct sim_event *run_to_cpu_event(struct sim *s)
{
	struct sim_event *next;

	while (!s->stop && (next = sim_evq_peek(&s->q)) &&
	       next->time_ps <= s->end_ps) {
		s->now_ps = next->time_ps;
		s->events++;
		if (__builtin_expect(++s->guard_n == SIM_GUARD_EVERY, 0)) {
			sim_guard(s, NULL, s->now_ps);
			if (s->stop)
				break;
		}
		if (next->fn == cpu_resume_ev)
			return next;
		sim_evq_pop(&s->q);
		s->ev_prio = next->prio;
		next->fn(next);
	}
	return NULL;
}

/*
 * The running cpu gives up the host CPU.  The loop's work is done right
 * here, on this cpu's stack: the events before the next cpu resume run in
 * place; then a switch straight to that cpu (one coroutine switch instead
 * of two through sim_run), or, when it is this cpu's own, no switch at
 * all.  Only the end of the run, a stop or an empty queue goes back to
 * sim_run.
 */
static void coroutine_fn cpu_switch_out(struct sim_cpu *c)
{
	struct sim *s = c->sim;
	struct sim_event *next;

	cpu_drop_stale_event(c);
	s->cur = NULL;
	next = run_to_cpu_event(s);
	if (!next) {
		sim_coro_yield();
		return;
	}
	cpu_enter(s, next->data, next);
	if (next->data != c) {
		s->switches++;
		sim_coro_transfer(((struct sim_cpu *)next->data)->co);
	}
}

static void cpu_main(void *arg)
{
	struct sim_cpu *c = arg;

	c->fn(c, c->arg);
	/* Its end is an operation too: a raw spin's speculation ends here,
	 * and whatever touches the cpu before is replayed. */
	sim_cpu_impure(c);
	c->state = SIM_CPU_DONE;
	cpu_drop_stale_event(c);
}

static void unwatch_all(struct sim_cpu *c)
{
	struct sim_line *lines = c->sim->mem.lines;

	for (unsigned int i = 0; i < c->wait.nwatch; i++) {
		struct sim_watch *w = &c->wait.watch[i];

		if (w->prev)
			w->prev->next = w->next;
		else
			lines[w->line].watchers = w->next;
		if (w->next)
			w->next->prev = w->prev;
		w->next = w->prev = NULL;
	}
	c->wait.nwatch = 0;
}

static void cpu_resume_ev(struct sim_event *ev)
{
	struct sim_cpu *c = ev->data;
	struct sim *s = c->sim;

	cpu_enter(s, c, ev);
	s->switches++;
	/* Returns when some cpu (perhaps another) yields to the loop. */
	sim_coro_resume(c->co);
	s->cur = NULL;
}

struct sim_cpu *sim_cpu_create(struct sim *s, sim_cpu_fn fn, void *arg)
{
	struct sim_cpu *c = g_new0(struct sim_cpu, 1);

	c->sim = s;
	c->id = s->ncpus;
	c->fn = fn;
	c->arg = arg;
	c->state = SIM_CPU_NEW;
	c->pcpu = -1;
	c->acct_state = SIM_ACCT_PREEMPTED;
	c->sleep_since = SIM_TIME_NEVER;
	c->relax_yields = s->mem.topo.relax_yields;
	c->co = sim_coro_create(cpu_main, c, s->stack_bytes);
	sim_event_init(&c->ev, cpu_resume_ev, c, SIM_PRIO_CPU);
	/* Cpus acting at the same time go in id order, whatever the order
	 * their events were pushed in (the rule sim_cpu_sync keeps). */
	c->ev.tie = c->id + 1;
	sim_rng_init(&c->mrng, s->seed, SIM_RNG_MACHINE, c->id);
	sim_rng_init(&c->irng, s->seed, SIM_RNG_IRQ, c->id);
	sim_mm_cpu_init(c);
	sim_event_init(&c->tick_ev, tick_ev, c, SIM_PRIO_HV);
	sim_event_init(&c->irq_ev, irq_ev, c, SIM_PRIO_HV);
	s->cpus = g_renew(struct sim_cpu *, s->cpus, s->ncpus + 1);
	s->cpus[s->ncpus++] = c;
	return c;
}

void sim_schedule(struct sim *s, struct sim_event *ev, sim_time_t t)
{
	sim_evq_push(&s->q, ev, t);
}

volatile sig_atomic_t sim_interrupt;

/*
 * The guard's look, every SIM_GUARD_EVERY accesses of cpu @c (or events
 * of the loop, @c NULL), at simulated time @now: the host-time deadline,
 * and whether time has moved since the last look.  A run past its
 * deadline is a hang; one whose time has not moved for SIM_GUARD_STUCK
 * looks does work that takes no time (a cost of zero, an event that
 * re-schedules itself at its own time): a model error, reported as a
 * hang with what was found.  From a cpu it never returns.
 */
void sim_guard(struct sim *s, struct sim_cpu *c, sim_time_t now)
{
	uint32_t *n = c ? &c->guard_n : &s->guard_n;
	uint32_t *stuck = c ? &c->guard_stuck : &s->guard_stuck;
	sim_time_t *at = c ? &c->guard_at : &s->guard_at;
	g_autofree char *msg = NULL;

	*n = 0;
	if (s->progress_fn)
		s->progress_fn(s->progress_data, now);
	if (sim_interrupt) {
		s->interrupted = true;
		s->stop = true;
		if (c && c == s->cur)
			sim_cpu_halt_run(c);
		return;
	}
	if (now != *at) {
		*at = now;
		*stuck = 0;
	} else if (++*stuck >= SIM_GUARD_STUCK) {
		msg = g_strdup_printf(
			"hang: simulated time stopped advancing at %.6f s: "
			"%u %s at one instant%s%u (a cost of zero, or work "
			"that takes no time?)",
			(double)now / (double)SIM_S,
			SIM_GUARD_EVERY * SIM_GUARD_STUCK,
			c ? "accesses" : "events", c ? " on cpu " : "",
			c ? c->id : 0);
	}
	if (!msg && s->host_deadline_us &&
	    g_get_monotonic_time() > s->host_deadline_us)
		msg = g_strdup_printf("hang: the host-time watchdog expired at "
				      "simulated time %.6f s",
				      (double)now / (double)SIM_S);
	if (!msg)
		return;
	if (s->hang_hook)
		s->hang_hook(s->hook_data, now, msg);
	g_clear_pointer(&msg, g_free); /* a halted cpu's frame never ends */
	s->stop = true;
	if (c && c == s->cur)
		sim_cpu_halt_run(c);
}

void sim_run(struct sim *s, sim_time_t end_ps)
{
	struct sim *saved = sim_self;

	struct sim_event *ev;

	sim_self = s;
	s->end_ps = end_ps;
	while ((ev = run_to_cpu_event(s)))
		cpu_resume_ev(ev);
	sim_self = saved;
}

void sim_cpu_set_acct(struct sim_cpu *c, enum sim_acct a, sim_time_t t)
{
	if (a == SIM_ACCT_IDLE && c->acct_state != SIM_ACCT_IDLE)
		c->sleep_since = t;
	else if (a != SIM_ACCT_IDLE)
		c->sleep_since = SIM_TIME_NEVER;
	if (t > c->acct_since) {
		c->acct_ps[c->acct_state] += t - c->acct_since;
		c->acct_since = t;
	}
	c->acct_state = a;
}

void sim_cpu_flush_acct(struct sim_cpu *c, sim_time_t t)
{
	sim_cpu_set_acct(c, c->acct_state, t);
}

static void ipi_ev(struct sim_event *ev)
{
	struct sim_ipi *ipi = ev->data;
	struct sim_cpu *c = ipi->to;
	struct sim *s = c->sim;
	sim_time_t t = ev->time_ps;

	if (ipi->acking) {
		/* csd_unlock: the handler's store, from the target's CPU. */
		ipi->acking = false;
		*ipi->flag = 0;
		if (c->pcpu >= 0) /* it ran: it has a last pCPU */
			(void)sim_mem_touch(&s->mem,
					    sim_mem_line_of(&s->mem, ipi->flag),
					    c->pcpu, SIM_WRITE, t, &c->mrng);
		sim_mem_poke(s, ipi->flag, t);
		return;
	}
	if (!c->dispatched) {
		struct sim_ipi **pp = &c->ipi_pending;

		while (*pp) /* in arrival order */
			pp = &(*pp)->next;
		ipi->next = NULL;
		*pp = ipi;
		if (s->irq_hook)
			s->irq_hook(s->irq_data, c, t, false);
		return;
	}
	c->ipis++;
	sim_cpu_steal(c, t, ipi->handler_ps);
	ipi->acking = true;
	sim_evq_push(&s->q, &ipi->ev, t + ipi->handler_ps);
}

void sim_cpu_sync_stores(struct sim_cpu *c)
{
	c->now_ps = SIM_MAX(c->now_ps, c->store_done_ps);
	if (c->mm)
		sim_mm_fence(c, SIM_FENCE_SYNC);
}

void sim_ipi_init(struct sim_ipi *ipi, struct sim_cpu *to, uint64_t *flag)
{
	memset(ipi, 0, sizeof(*ipi));
	sim_event_init(&ipi->ev, ipi_ev, ipi, SIM_PRIO_HV);
	ipi->to = to;
	ipi->flag = flag;
}

void sim_ipi_send(struct sim *s, struct sim_ipi *ipi, sim_time_t t,
		  sim_time_t handler_ps)
{
	QSIM_BUG_ON(sim_event_queued(&ipi->ev) || ipi->acking,
		    "a cross-call to cpu %u still in flight", ipi->to->id);
	ipi->handler_ps = handler_ps;
	sim_evq_push(&s->q, &ipi->ev, t);
}

void sim_cpu_dispatch(struct sim_cpu *c, sim_time_t t, int pcpu)
{
	struct sim *s = c->sim;

	QSIM_BUG_ON(c->dispatched, "cpu %u dispatched twice", c->id);
	QSIM_BUG_ON(c->state != SIM_CPU_NEW && c->state != SIM_CPU_STOPPED &&
			    c->state != SIM_CPU_DONE,
		    "cpu %u dispatched in state %d", c->id, c->state);
	c->dispatched = true;
	c->pcpu = pcpu;
	if (pcpu >= 0)
		c->core = (unsigned int)pcpu /
			  (s->mem.topo.smt ? s->mem.topo.smt : 1);
	sim_tl(s, t, SIM_TL_RUN, (int32_t)c->id, pcpu, 0);
	if (s->on_pcpu && pcpu >= 0)
		s->on_pcpu[pcpu] = c;
	thread_level(s, pcpu, cpu_level(c), t);
	sim_cpu_set_acct(c, sim_cpu_busy_acct(c), t);
	if (s->dispatch_hook)
		s->dispatch_hook(s->hook_data, c, true, t);
	/* Cross-calls that waited for it are taken as it comes in (by a
	 * finished cpu too: its handler still answers). */
	while (c->ipi_pending) {
		struct sim_ipi *ipi = c->ipi_pending;

		c->ipi_pending = ipi->next;
		ipi->next = NULL;
		sim_evq_push(&s->q, &ipi->ev, t);
	}
	if (c->state == SIM_CPU_DONE)
		return;
	c->state = SIM_CPU_READY;
	sim_evq_push(&s->q, &c->ev, t + c->carry_ps);
	c->carry_ps = 0;
}

/* First grid point strictly after @t, as an index k >= 1. */
static inline sim_time_t grid_time(const struct sim_wait *w, uint64_t k);

static inline uint64_t grid_index_after(const struct sim_wait *w, sim_time_t t)
{
	uint64_t lo, hi;

	if (t < w->grid0_ps)
		return 1;
	if (!w->every)
		return (t - w->grid0_ps) / w->period_ps + 2;
	/* Folded checks make the grid uneven: search it. */
	lo = 1;
	hi = w->budget + 1;
	if (grid_time(w, hi) <= t)
		return hi + 1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (grid_time(w, mid) > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Evaluation k (k >= 1) of the grid.  With folded checks (every != 0) the
 * evaluation at counter value c costs extra_ps more when c is a multiple
 * of every; evaluation j has counter budget - (j - 1).
 */
static inline sim_time_t grid_time(const struct sim_wait *w, uint64_t k)
{
	sim_time_t t = w->grid0_ps + (k - 1) * w->period_ps;

	if (w->every) {
		uint64_t m = w->budget;

		t += w->extra_ps * (m / w->every - (m - k + 1) / w->every);
	}
	return t;
}

/*
 * Whether waiting @c, acting at @t, comes before what acts now at @t:
 * the running cpu (the lower key at @t, E1), or the running event (cpus
 * come after the hypervisor's, the store buffers' and the lines' events
 * at equal time, before the checks).  So a spin wait's evaluation at the
 * very picosecond of a write, a stop or a change of its core's share is
 * ordered as the loop's own event there would be; before session 18 a
 * write and a share change came after it, a stop before, and a raw spin
 * saw every write and share change at its time.
 */
bool sim_cpu_first_at(const struct sim *s, const struct sim_cpu *c,
		      sim_time_t t)
{
	const struct sim_cpu *r = s->cur;

	if (!r)
		return s->ev_prio > SIM_PRIO_CPU;
	return sim_evq_key_at(&c->ev, t) < sim_evq_key_at(&r->ev, t);
}

/*
 * The evaluation of @c's wait grid that comes after an event at @t: the
 * first grid point after @x (where the evaluation reads what the event
 * touched), or @x itself if it is one and the event comes first there.
 */
static uint64_t grid_index_from(const struct sim_cpu *c, sim_time_t x,
				sim_time_t t)
{
	const struct sim_wait *w = &c->wait;
	uint64_t k = grid_index_after(w, x);

	if (k >= 2 && grid_time(w, k - 1) == x &&
	    !sim_cpu_first_at(c->sim, c, t))
		k--;
	return k;
}

/* Parked raw loop @c replays from @t0, the start of an iteration, up to
 * an event at @until (its reads at @until first if @reads_first), when it
 * next runs (sim/rspin.c's spec_park). */
static void park_replay_from(struct sim_cpu *c, sim_time_t t0, sim_time_t until,
			     bool reads_first)
{
	struct sim_rspin *rs = c->rs;

	rs->park_replay = true;
	rs->phase = SIM_RS_REWIND;
	rs->t0 = t0;
	rs->until = until;
	rs->until_reads = reads_first;
	rs->slow_after = rs->slow;
	rs->cut = false;
}

/*
 * Stop READY or WAITING @c at @t (its events off the queue) and return
 * what was left of its current step then: the rest of its computation,
 * or the time to its next spin evaluation (whose budget is settled now).
 */
static sim_time_t cpu_stop(struct sim_cpu *c, sim_time_t t)
{
	struct sim *s = c->sim;
	struct sim_wait *w = &c->wait;
	uint64_t k;

	if (c->state == SIM_CPU_READY) {
		sim_time_t left = c->ev.time_ps > t ? c->ev.time_ps - t : 0;
		struct sim_lineq *q;

		if (c->rs && c->rs->phase == SIM_RS_REWIND)
			c->rs->cut = true; /* rewound to here */

		sim_evq_cancel(&s->q, &c->ev);
		/* Served but not run: the line serves someone else; this
		 * cpu asks again when it runs. */
		q = c->lq_grant;
		if (q) {
			c->lq_grant = NULL;
			if (!--q->ngranted)
				lineq_kick(q, t);
		}
		return left;
	}
	if (c->lq) {
		/* Waiting for a line: it asks again when it runs. */
		struct sim_lineq *q = c->lq;

		lineq_remove(q, c);
		lineq_kick(q, t);
		return 0;
	}
	QSIM_BUG_ON(c->state != SIM_CPU_WAITING);
	k = grid_index_after(w, t);
	if (w->raw && k >= 2) {
		/*
		 * A parked raw loop stops inside iteration k - 1 (its reads
		 * or its relax): it replays that iteration from its start
		 * up to @t and goes on from there when it runs again, as
		 * the loop and a speculation rewound at @t do (session 20;
		 * it went on from the next iteration, and so skipped the
		 * rest of this one's reads).
		 */
		park_replay_from(c, grid_time(w, k - 1), t, false);
		c->rs->cut = true;
		unwatch_all(c);
		sim_evq_cancel(&s->q, &c->ev);
		return 0;
	}
	/* An evaluation due at @t itself has not begun if the stop comes
	 * first: it is the next one, at once. */
	k = grid_index_from(c, t, t);
	unwatch_all(c);
	sim_evq_cancel(&s->q, &c->ev);
	if (w->budget != SIM_BUDGET_NONE && k > w->budget) {
		/* Stopped in the last iteration: exhausted. */
		k = w->budget + 1;
		w->result = 0;
	} else if (w->budget != SIM_BUDGET_NONE) {
		w->result = w->budget - (k - 1);
	}
	return grid_time(w, k) > t ? grid_time(w, k) - t : 0;
}

void sim_cpu_undispatch(struct sim_cpu *c, sim_time_t t, bool idle)
{
	struct sim *s = c->sim;

	QSIM_BUG_ON(!c->dispatched, "cpu %u undispatched twice", c->id);
	sim_rspin_abort(c, t); /* a raw spin replays up to here */
	sim_mm_drain(c, t);    /* leaving the pCPU is a sync */
	sim_tl(s, t, SIM_TL_STOP, (int32_t)c->id, c->pcpu, idle);
	c->dispatched = false;
	if (s->on_pcpu && c->pcpu >= 0)
		s->on_pcpu[c->pcpu] = NULL;
	thread_level(s, c->pcpu, SIM_THREAD_IDLE, t);
	sim_cpu_set_acct(c, idle ? SIM_ACCT_IDLE : SIM_ACCT_PREEMPTED, t);
	if (s->dispatch_hook)
		s->dispatch_hook(s->hook_data, c, false, t);
	switch (c->state) {
	case SIM_CPU_RUNNING:
		/* The cpu undispatches itself in a hypervisor call. */
		c->carry_ps = c->now_ps > t ? c->now_ps - t : 0;
		break;
	case SIM_CPU_READY:
	case SIM_CPU_WAITING:
		c->carry_ps = cpu_stop(c, t);
		break;
	case SIM_CPU_NEW:
	case SIM_CPU_DONE:
		c->carry_ps = 0;
		return;
	case SIM_CPU_STOPPED:
		QSIM_BUG_ON(1, "cpu %u already stopped", c->id);
	}
	c->state = SIM_CPU_STOPPED;
}

/*
 * An interrupt takes @d of dispatched @c's time from @t: whatever it was
 * doing resumes @d later (a spin wait at its next evaluation, where it
 * looks at its lines afresh).
 */
void sim_cpu_steal(struct sim_cpu *c, sim_time_t t, sim_time_t d)
{
	sim_time_t left;

	if (!c->dispatched)
		return;
	sim_rspin_abort(c, t); /* a raw spin replays up to here */
	if (c->state != SIM_CPU_READY && c->state != SIM_CPU_WAITING)
		return;
	left = cpu_stop(c, t);
	c->state = SIM_CPU_READY;
	sim_evq_push(&c->sim->q, &c->ev, t + d + left);
	c->irqs++;
	c->irq_ps += d;
}

/* An exponential gap of mean @mean from @r. */
static sim_time_t exp_gap(struct sim_rng *r, sim_time_t mean)
{
	double u = 1.0 - sim_rng_unit(r); /* (0, 1] */

	return (sim_time_t)(-log(u) * (double)mean) + 1;
}

static void tick_ev(struct sim_event *ev)
{
	struct sim_cpu *c = ev->data;
	struct sim *s = c->sim;
	sim_time_t t = ev->time_ps;

	if (!c->dispatched && s->irq_hook)
		s->irq_hook(s->irq_data, c, t, true);
	sim_cpu_steal(c, t,
		      sim_mem_jitter(&s->mem, s->noise.tick_ps, &c->irng));
	sim_evq_push(&s->q, &c->tick_ev, t + s->noise.tick_period_ps);
}

static void irq_ev(struct sim_event *ev)
{
	struct sim_cpu *c = ev->data;
	struct sim *s = c->sim;
	sim_time_t t = ev->time_ps;

	if (!c->dispatched && s->irq_hook)
		s->irq_hook(s->irq_data, c, t, false);
	sim_cpu_steal(c, t, sim_mem_jitter(&s->mem, s->noise.irq_ps, &c->irng));
	sim_evq_push(&s->q, &c->irq_ev,
		     t + exp_gap(&c->irng, s->noise.irq_mean_ps));
}

void sim_noise_start(struct sim *s, sim_time_t t)
{
	for (unsigned int i = 0; i < s->ncpus; i++) {
		struct sim_cpu *c = s->cpus[i];

		if (s->noise.tick_period_ps && s->noise.tick_ps)
			sim_evq_push(
				&s->q, &c->tick_ev,
				t + 1 +
					sim_rng_below(&c->irng,
						      s->noise.tick_period_ps));
		if (s->noise.irq_mean_ps && s->noise.irq_ps)
			sim_evq_push(
				&s->q, &c->irq_ev,
				t + exp_gap(&c->irng, s->noise.irq_mean_ps));
	}
}

void coroutine_fn sim_cpu_park(struct sim_cpu *c)
{
	QSIM_BUG_ON(c->state != SIM_CPU_STOPPED || c->sim->cur != c);
	cpu_switch_out(c);
	QSIM_BUG_ON(c->state != SIM_CPU_RUNNING);
}

void coroutine_fn sim_cpu_yield(struct sim_cpu *c)
{
	QSIM_BUG_ON(c->sim->cur != c || c->state != SIM_CPU_RUNNING);
	c->state = SIM_CPU_READY;
	sim_evq_push(&c->sim->q, &c->ev, c->now_ps);
	cpu_switch_out(c);
}

/*
 * Running @c is about to change what its thread's level depends on (its
 * HMT priority, a wait's start or end) to @hmt_low and @waiting: if that
 * moves the level, it syncs first, so that the change takes effect at its
 * local time in the events' order (session 19).  Before, the change was
 * made at a local time past the horizon as soon as the cpu got there, so a
 * sibling whose event came earlier ran from it at the new speed, and at
 * an evaluation's very picosecond the change came first whatever the
 * keys.  The sync may see @c preempted and dispatched again: the caller
 * sets its state after this, then the level where it now runs.
 */
static void coroutine_fn cpu_level_sync(struct sim_cpu *c, bool hmt_low,
					bool waiting)
{
	struct sim *s = c->sim;

	if (s->cur != c || !c->dispatched || !s->level || c->pcpu < 0)
		return;
	if (level_of(s, hmt_low, waiting) != s->level[c->pcpu])
		sim_cpu_sync(c);
}

void coroutine_fn sim_cpu_set_hmt_low(struct sim_cpu *c, bool low)
{
	if (c->hmt_low != low) {
		sim_cpu_impure(c);
		cpu_level_sync(c, low, c->wait.active);
	}
	c->hmt_low = low;
	if (c->dispatched)
		thread_level(c->sim, c->pcpu, cpu_level(c), c->now_ps);
}

void sim_report_violation(struct sim_cpu *c, const char *msg)
{
	struct sim *s = c->sim;

	if (c == s->cur)
		sim_cpu_impure(c); /* found by the running cpu's own code */

	if (s->violation_hook)
		s->violation_hook(s->hook_data, c, msg);
	s->stop = true;
}

void coroutine_fn sim_cpu_halt_run(struct sim_cpu *c)
{
	c->sim->stop = true;
	c->state = SIM_CPU_DONE;
	cpu_switch_out(c);
	QSIM_BUG_ON(1, "halted cpu %u resumed", c->id);
	__builtin_unreachable();
}

/* --- waiting for a busy line (E5) --- */

static void lineq_ev(struct sim_event *ev);

static struct sim_lineq *lineq_get(struct sim *s, size_t line)
{
	struct sim_line *l = &s->mem.lines[line];
	struct sim_lineq *q = l->q;

	if (q)
		return q;
	q = s->lq_free;
	if (q) {
		s->lq_free = q->free_next;
	} else {
		q = g_new0(struct sim_lineq, 1);
		q->s = s;
		q->chip = g_new0(struct sim_lq_chip, s->nchips);
		q->dom_n = g_new0(unsigned int, s->ndoms);
		sim_event_init(&q->ev, lineq_ev, q, SIM_PRIO_LINE);
	}
	q->line = line;
	l->q = q;
	return q;
}

/* Give @q back when nobody waits for its line any more. */
static void lineq_put(struct sim_lineq *q)
{
	struct sim *s = q->s;

	if (q->n || q->ngranted || sim_event_queued(&q->ev))
		return;
	s->mem.lines[q->line].q = NULL;
	q->free_next = s->lq_free;
	s->lq_free = q;
}

/* Serve the next request when the line's source frees (not before @t). */
static void lineq_kick(struct sim_lineq *q, sim_time_t t)
{
	struct sim *s = q->s;

	if (q->ngranted || !q->n) {
		lineq_put(q);
		return;
	}
	t = SIM_MAX(t, s->mem.lines[q->line].busy_until);
	if (sim_event_queued(&q->ev))
		sim_evq_cancel(&s->q, &q->ev);
	sim_evq_push(&s->q, &q->ev, t);
}

static unsigned int chip_of(const struct sim *s, int pcpu)
{
	const struct sim_topo *t = &s->mem.topo;

	return (unsigned int)pcpu / (t->smt * t->cores_per_chip);
}

static void lineq_remove(struct sim_lineq *q, struct sim_cpu *c)
{
	lq_chip_del(&q->chip[chip_of(q->s, c->pcpu)], c);
	q->dom_n[sim_mem_domain(&q->s->mem, c->pcpu)]--;
	q->n--;
	c->lq = NULL;
}

/* Serve @w: it accesses the line when it runs, at @t. */
static void lineq_grant(struct sim_lineq *q, struct sim_cpu *w, sim_time_t t)
{
	lineq_remove(q, w);
	q->ngranted++;
	w->lq_grant = q;
	w->state = SIM_CPU_READY;
	sim_evq_push(&q->s->q, &w->ev, t);
}

/* A waiter of chip @k, at random, from domain @dom (-1: any) or from any
 * domain but @not_dom (-1: none); the chip has one. */
static struct sim_cpu *pick_in_chip(struct sim *s, struct sim_lq_chip *k,
				    int dom, int not_dom)
{
	struct sim_cpu **v = lq_chip_array(s, k);

	for (;;) {
		struct sim_cpu *c =
			v[k->n > 1 ? sim_rng_below(&s->arb_rng, k->n) : 0];
		int d = sim_mem_domain(&s->mem, c->pcpu);

		if ((dom < 0 || d == dom) && (not_dom < 0 || d != not_dom))
			return c;
	}
}

/*
 * The line's source is free: serve a waiting request.  Each requester
 * retries once per round trip to the data (its distance to the data's
 * source) at a random phase, and the first retry to arrive is served.
 * The distances fall in three classes: the data's own cache domain (smt),
 * the rest of its chip (chip), other chips (remote); with n requesters in
 * a class of distance L the first arrives at L * (1 - U^(1/n)); the
 * earliest class wins and one of its requesters, at random, is served.
 * With near_bias (percent) the race is held among the data's chip alone
 * that often.  A read is served together with every other read from its
 * cache domain: once the line is there they are hits.
 */
static void lineq_ev(struct sim_event *ev)
{
	struct sim_lineq *q = ev->data;
	struct sim *s = q->s;
	struct sim_mem *m = &s->mem;
	struct sim_line *l = &m->lines[q->line];
	sim_time_t t = ev->time_ps;
	int src = l->src_pcpu, sdom = -1;
	unsigned int n_class[3] = {0, 0, 0}, sch = 0, win = 3;
	const sim_time_t lat[3] = {m->cost.smt_ps, m->cost.chip_ps,
				   m->cost.remote_ps};
	double best = 0;
	struct sim_cpu *w;

	if (l->busy_until > t || l->protect_until > t || l->hold_until > t) {
		sim_evq_push(&s->q, &q->ev,
			     SIM_MAX(SIM_MAX(l->busy_until, l->protect_until),
				     l->hold_until));
		return;
	}
	if (!q->n || q->ngranted) {
		lineq_put(q);
		return;
	}
	if (src >= 0) {
		sdom = sim_mem_domain(m, src);
		sch = chip_of(s, src);
		n_class[0] = q->dom_n[sdom];
		n_class[1] = q->chip[sch].n - n_class[0];
		n_class[2] = q->n - q->chip[sch].n;
		if (m->cost.near_bias_pct && n_class[2] &&
		    n_class[0] + n_class[1] &&
		    sim_rng_below(&s->arb_rng, 100) < m->cost.near_bias_pct)
			n_class[2] = 0;
		for (unsigned int k = 0; k < 3; k++) {
			double x;

			if (!n_class[k])
				continue;
			if (n_class[k] ==
			    n_class[0] + n_class[1] + n_class[2]) {
				win = k; /* no race: one class asks */
				break;
			}
			x = sim_rng_unit(&s->arb_rng);
			if (n_class[k] > 1)
				x = pow(x, 1.0 / n_class[k]);
			x = (double)lat[k] * (1.0 - x);
			if (win == 3 || x < best) {
				win = k;
				best = x;
			}
		}
	}
	if (win == 0) {
		w = pick_in_chip(s, &q->chip[sch], sdom, -1);
	} else if (win == 1) {
		w = pick_in_chip(s, &q->chip[sch], -1, sdom);
	} else {
		/* Memory, or another chip: a chip by its requesters, then one
		 * of them. */
		uint64_t r = sim_rng_below(&s->arb_rng,
					   win == 2 ? n_class[2] : q->n);
		unsigned int k = 0;

		for (;; k++) {
			if (win == 2 && k == sch)
				continue;
			if (r < q->chip[k].n)
				break;
			r -= q->chip[k].n;
		}
		w = pick_in_chip(s, &q->chip[k], -1, -1);
	}
	lineq_grant(q, w, t);
	if (w->lq_kind == SIM_READ) {
		struct sim_lq_chip *k = &q->chip[chip_of(s, w->pcpu)];
		int d = sim_mem_domain(m, w->pcpu);

		for (unsigned int i = 0; i < k->nw && k->n; i++) {
			for (uint64_t b = k->bits[i]; b; b &= b - 1) {
				struct sim_cpu *o =
					s->cpus[i * 64 +
						(unsigned int)__builtin_ctzll(
							b)];

				if (o->lq_kind == SIM_READ &&
				    sim_mem_domain(m, o->pcpu) == d)
					lineq_grant(q, o, t);
			}
		}
	}
}

/*
 * Must @c's @kind access to @line wait for the line's source?  A read of
 * a copy in our cache does not, unless our own write to it is still in
 * flight; a store or atomic on a line modified in our cache does not
 * while nobody else waits for it.  Everything else (a miss, a store or
 * atomic that must invalidate other copies or that others wait for)
 * waits while the source is busy or others wait before it.  (A store
 * that waits here stalls its cpu: the store buffer is not modelled
 * beyond letting a store's own latency run on.)
 */
static bool line_blocked(struct sim_cpu *c, size_t line, enum sim_access kind)
{
	struct sim_mem *m = &c->sim->mem;
	struct sim_line *l = &m->lines[line];
	int holds = sim_mem_holds(m, line, c->pcpu);
	bool waiters = l->q && (l->q->n || l->q->ngranted);
	bool mine = holds == 2 && l->wbusy_until <= c->now_ps;

	if (l->q && c->lq_grant == l->q)
		return false;
	if (l->protect_until >= c->now_ps && l->protect_pcpu == c->pcpu)
		return false; /* our stcx. in our larx's window */
	if (l->hold_until > c->now_ps) {
		/* cost.hold: our cache's alone for now, whoever waits (the
		 * threads of a domain share its copy); anyone else's access
		 * that is not a read of a copy waits */
		if (holds == 2 && sim_mem_domain(&c->sim->mem, l->hold_pcpu) ==
					  sim_mem_domain(&c->sim->mem, c->pcpu))
			return false;
		if (!(kind == SIM_READ && holds))
			return true;
	}
	if (kind == SIM_READ && (holds == 1 || mine))
		return false;
	if (l->protect_until > c->now_ps)
		return true; /* another cpu's larx-to-stcx. window */
	if (mine && !waiters)
		return false;
	return waiters || l->busy_until > c->now_ps;
}

/* Wait until @line serves @c (E5); may switch coroutines. */
static void coroutine_fn line_wait(struct sim_cpu *c, size_t line,
				   enum sim_access kind)
{
	struct sim *s = c->sim;
	struct sim_lineq *q = lineq_get(s, line);

	/* In cpu order, whatever the order the requests came in, so that
	 * the pick (pick_in_chip) depends on the simulated state alone
	 * (session 19: the host's order of insertion differed between a
	 * speculated loop and the loop it stands for).  A bit per cpu: an
	 * array kept sorted cost tas runs 10-20% of their host time
	 * (session 21). */
	lq_chip_add(&q->chip[chip_of(s, c->pcpu)], c);
	q->dom_n[sim_mem_domain(&s->mem, c->pcpu)]++;
	q->n++;
	c->lq = q;
	c->lq_kind = kind;
	s->line_waits++;
	lineq_kick(q, c->now_ps);
	c->state = SIM_CPU_WAITING;
	cpu_switch_out(c);
	QSIM_BUG_ON(c->state != SIM_CPU_RUNNING);
}

/* Sync, then wait until the line serves this access if it must. */
static void coroutine_fn line_acquire(struct sim_cpu *c, size_t line,
				      enum sim_access kind)
{
	sim_cpu_sync(c);
	while (line_blocked(c, line, kind)) {
		line_wait(c, line, kind);
		sim_cpu_sync(c);
	}
}

/* The access @c was served for is done: serve the next one. */
static void line_release(struct sim_cpu *c, size_t line)
{
	struct sim_lineq *q = c->sim->mem.lines[line].q;

	if (!q || c->lq_grant != q)
		return;
	c->lq_grant = NULL;
	if (!--q->ngranted)
		lineq_kick(q, c->access_ps);
}

void coroutine_fn sim_access(struct sim_cpu *c, const void *p,
			     enum sim_access kind)
{
	struct sim_mem *m = &c->sim->mem;
	size_t line;
	sim_time_t done;

	QSIM_BUG_ON(!sim_mem_contains(m, p), "access outside the arena");
	line = sim_mem_line_of(m, p);
	if (__builtin_expect(++c->guard_n == SIM_GUARD_EVERY, 0))
		sim_guard(c->sim, c, c->now_ps);
	if (c->rs) {
		/* Raw spin loops (sim/rspin.c): a read of a held line runs
		 * ahead in a speculation or a replay; anything else ends
		 * one, and a miss is no spin. */
		if (kind != SIM_READ)
			sim_rspin_impure(c);
		else if (c->rs->phase != SIM_RS_OFF && sim_rspin_read(c, line))
			return;
	}
	c->larx_held = kind == SIM_RMW;
	if (kind == SIM_RMW || kind == SIM_RMW_RESV) {
		if (!m->topo.llsc) {
			/*
			 * A locked instruction: the line is ours throughout.
			 * It is not reordered with earlier stores (Intel SDM
			 * vol. 3A, 8.2.2: locked instructions have a total
			 * order), so it waits for the store buffer to drain.
			 */
			c->now_ps = SIM_MAX(c->now_ps, c->store_done_ps);
			line_acquire(c, line, SIM_RMW);
			c->larx_held = true;
			c->access_ps = c->now_ps;
			c->now_ps = sim_mem_touch(m, line, c->pcpu, SIM_RMW,
						  c->now_ps, &c->mrng);
			line_taken(c->sim, line, c, c->access_ps);
			line_release(c, line);
			return;
		}
		/* The larx: a read with a reservation; with the lock hint it
		 * asks for the line to modify it. */
		line_acquire(c, line, c->larx_held ? SIM_RMW : SIM_READ);
		c->larx_line = line;
		c->larx_stores = m->lines[line].stores;
		c->access_ps = c->now_ps;
		c->now_ps = sim_mem_touch(m, line, c->pcpu, SIM_READ, c->now_ps,
					  &c->mrng);
		/* The window is the first reserver's: a later larx in it
		 * will lose to that one's stcx. */
		if (m->lines[line].protect_until <= c->access_ps ||
		    m->lines[line].protect_pcpu == c->pcpu) {
			m->lines[line].protect_until =
				c->now_ps + m->cost.atomic_ps;
			m->lines[line].protect_pcpu = c->pcpu;
		}
		line_release(c, line);
		return;
	} else {
		/* A read that is not a plain hit is no spin (sim/rspin.c):
		 * judged in time order, before any wait for the line. */
		if (kind == SIM_READ && c->rs) {
			sim_cpu_sync(c);
			if (!sim_read_hits(c, line))
				sim_rspin_impure(c);
		}
		line_acquire(c, line, kind);
	}
	c->access_ps = c->now_ps;
	done = sim_mem_touch(m, line, c->pcpu, kind, c->now_ps, &c->mrng);
	if (kind == SIM_WRITE)
		line_taken(c->sim, line, c, c->access_ps);
	line_release(c, line);
	if (kind == SIM_WRITE) {
		/* The store waits in the store buffer; the cpu goes on. */
		c->store_done_ps = SIM_MAX(c->store_done_ps, done);
		c->wdone_ps = done;
		c->now_ps += m->cost.hit_ps;
		return;
	}
	c->now_ps = done;
	if (kind == SIM_READ && c->wait.active) {
		struct sim_wait *w = &c->wait;

		/* Each re-read of an unchanged line is a hit: count reads. */
		w->nreads++;
		for (unsigned int i = 0; i < w->nlines; i++)
			if (w->lines[i] == line)
				return;
		QSIM_BUG_ON(w->nlines == SIM_WAIT_MAX_LINES,
			    "wait condition reads more than %d lines",
			    SIM_WAIT_MAX_LINES);
		w->lines[w->nlines] = line;
		w->versions[w->nlines] = m->lines[line].version;
		/* Re-reads are hits: read i starts i hits into the round. */
		w->offs[w->nlines] = (w->nreads - 1) * m->cost.hit_ps;
		w->nlines++;
	}
}

bool coroutine_fn sim_access_stcx(struct sim_cpu *c, const void *p)
{
	struct sim_mem *m = &c->sim->mem;
	sim_time_t done;

	QSIM_BUG_ON(m->topo.llsc && c->larx_line != sim_mem_line_of(m, p),
		    "stcx. to another line than its larx");
	sim_cpu_impure(c);
	if (!m->topo.llsc)
		return true; /* the locked atomic did it all */
	/* The atomic's own work between its larx and its stcx. */
	c->now_ps += m->cost.atomic_ps;
	if (!c->larx_held) {
		/*
		 * Any store before now comes first.  A reservation already
		 * lost fails at once, in the core: no store is performed,
		 * so the line is not asked for (IBM assembler reference,
		 * stwcx.: "if no reservation exists ... storage is not
		 * altered").
		 */
		sim_cpu_sync(c);
		if (m->lines[c->larx_line].stores != c->larx_stores) {
			c->access_ps = c->now_ps;
			c->now_ps += m->cost.hit_ps;
			c->resv_lost++;
			return false;
		}
		line_acquire(c, c->larx_line, SIM_RMW);
	}
	/*
	 * With the lock hint the line was held from the larx, so nothing
	 * came between: the atomic takes effect at the larx's time, as a
	 * locked one does.
	 */
	done = sim_mem_stcx(m, c->larx_line, c->pcpu, c->larx_stores, c->now_ps,
			    &c->mrng);
	if (done == SIM_TIME_NEVER) {
		QSIM_BUG_ON(c->larx_held, "a held reservation was lost");
		c->access_ps = c->now_ps;
		line_release(c, c->larx_line);
		c->resv_lost++;
		return false;
	}
	/* Held from the larx, the line was the atomic's from then. */
	line_taken(c->sim, c->larx_line, c,
		   c->larx_held ? c->access_ps : c->now_ps);
	if (!c->larx_held) {
		c->access_ps = c->now_ps;
		line_release(c, c->larx_line);
	}
	c->now_ps = done;
	return true;
}

/* The relax that ends at evaluation @k of @c's wait, timed at @slow. */
static struct sim_stretch wait_relax(const struct sim_cpu *c, uint64_t k,
				     uint32_t slow)
{
	const struct sim_wait *w = &c->wait;
	sim_time_t end = grid_time(w, k), relax;
	struct sim_stretch st;

	if (k == 1)
		return w->rx;
	relax = sim_slow_scale(slow, w->relax_raw);
	sim_stretch_set(&st, end - SIM_MIN(relax, end), w->relax_raw);
	return st;
}

/* Waiting @c resumes at evaluation @k of its wait, the end of a relax:
 * that relax is its pending stretch, re-timed by a change of its core's
 * share before then (sim_work_share_changed) as the loop's is. */
static void wait_resume_at(struct sim_cpu *c, uint64_t k)
{
	c->work = wait_relax(c, k, sim_cpu_slow(c));
	c->work_end = grid_time(&c->wait, k);
	c->state = SIM_CPU_READY;
	sim_evq_push(&c->sim->q, &c->ev, c->work_end);
}

/* Parked raw loop @c is touched at @t: it replays the iteration @t falls
 * in up to @t (@reads_first: its reads at @t come first) and goes on from
 * there, as a speculation rewound at @t does. */
static void park_wake(struct sim_cpu *c, sim_time_t t, bool reads_first)
{
	struct sim_wait *w = &c->wait;

	park_replay_from(c, grid_time(w, grid_index_after(w, t) - 1), t,
			 reads_first);
	unwatch_all(c);
	c->state = SIM_CPU_READY;
	sim_evq_push(&c->sim->q, &c->ev, t);
}

/*
 * @wr's write (a store, an atomic, a stcx.) takes @line from every other
 * cache at @t: a raw spin that reads it (speculating, or parked) replays
 * up to @t and reads it from there as the loop does, a miss that waits
 * for the write (session 20: it learned of the write only when the value
 * changed, at the store's commit, and read the line as held in between;
 * the loop with an event per iteration missed).  An event-driven wait
 * learns at the commit, as before: its evaluations read values.
 */
static void line_taken(struct sim *s, size_t line, const struct sim_cpu *wr,
		       sim_time_t t)
{
	struct sim_watch *w = s->mem.lines[line].watchers;

	while (w) {
		struct sim_watch *next = w->next;
		struct sim_cpu *c = w->cpu;

		/* (A speculation that ended before @t stands as it ran.) */
		if (c != wr && w->rspin && t <= c->rs->te)
			sim_rspin_abort_at(c, t, sim_cpu_first_at(s, c, t));
		else if (c != wr && c->wait.raw && c->state == SIM_CPU_WAITING)
			park_wake(c, t, sim_cpu_first_at(s, c, t));
		w = next;
	}
}

static void wake_watchers(struct sim *s, size_t line, sim_time_t t)
{
	struct sim_watch *w = s->mem.lines[line].watchers;

	while (w) {
		struct sim_watch *next = w->next;
		struct sim_cpu *c = w->cpu;
		struct sim_wait *wt = &c->wait;

		if (w->rspin) {
			/* A raw spin read this line: it replays up to now. */
			c->wakeups++;
			sim_rspin_abort_at(c, t, sim_cpu_first_at(s, c, t));
			w = next;
			continue;
		}
		/*
		 * The evaluation that reads this line after the write sees
		 * it, and one that reads it at the write's very time if the
		 * writer comes first there; the line is read off_ps into
		 * each evaluation.
		 */
		uint64_t k = t >= w->off_ps
				     ? grid_index_from(c, t - w->off_ps, t)
				     : grid_index_after(wt, 0);

		/* A read set holds each line once, so @next is another cpu's. */
		unwatch_all(c);
		c->wakeups++;
		if (wt->raw) {
			/*
			 * A parked raw loop replays the iteration the write
			 * falls in from its start up to the write (its reads
			 * before it see the old bytes, the later ones, of this
			 * line or another, the new), as a speculation rewound
			 * there does (session 20; it resumed at the first
			 * iteration whose first read of the line came after
			 * the write, one late when the line was read twice).
			 */
			park_wake(c, t, sim_cpu_first_at(s, c, t));
			w = next;
			continue;
		}
		if (wt->budget != SIM_BUDGET_NONE && k > wt->budget) {
			/* The timeout event at r_{budget+1} comes first. */
			w = next;
			continue;
		}
		if (wt->budget != SIM_BUDGET_NONE)
			wt->result = wt->budget - (k - 1);
		wait_resume_at(c, k);
		w = next;
	}
}

/*
 * A raw spin loop in a steady state (sim/rspin.c) waits as an event-driven
 * wait does: evaluations every @period from now, reading @lines at @offs
 * into each; the first evaluation to see a change, a stop, or a change of
 * its core's share resumes it where it stands (the end of a relax, every
 * iteration's state being the same).
 */
void coroutine_fn sim_raw_park(struct sim_cpu *c, const size_t *lines,
			       const uint64_t *versions, const sim_time_t *offs,
			       unsigned int n, sim_time_t period,
			       sim_time_t relax_raw)
{
	struct sim *s = c->sim;
	struct sim_mem *m = &s->mem;
	struct sim_wait *w = &c->wait;
	sim_time_t relax = sim_cpu_scale(c, relax_raw);

	QSIM_BUG_ON(w->active || w->nwatch || n > SIM_WAIT_MAX_LINES || !n);
	for (unsigned int i = 0; i < n; i++)
		if (m->lines[lines[i]].version != versions[i])
			return; /* changed at the very end: just go on */
	w->grid0_ps = c->now_ps;
	w->period_ps = period ? period : 1;
	/* Each iteration: its reads, then its relax, which ends at a grid
	 * point; the one just done ended at grid0. */
	w->relax_raw = relax_raw;
	w->reads_ps = period - SIM_MIN(relax, period);
	sim_stretch_set(&w->rx, c->now_ps - SIM_MIN(relax, c->now_ps),
			relax_raw);
	w->every = 0;
	w->budget = SIM_BUDGET_NONE;
	w->result = SIM_BUDGET_NONE;
	for (unsigned int i = 0; i < n; i++) {
		struct sim_watch *wa = &w->watch[i];
		struct sim_line *l = &m->lines[lines[i]];

		wa->cpu = c;
		wa->line = lines[i];
		wa->off_ps = offs[i];
		wa->rspin = false;
		wa->prev = NULL;
		wa->next = l->watchers;
		if (l->watchers)
			l->watchers->prev = wa;
		l->watchers = wa;
	}
	w->nwatch = n;
	w->raw = true;
	s->rspin_parks++;
	c->state = SIM_CPU_WAITING;
	cpu_switch_out(c);
	QSIM_BUG_ON(c->state != SIM_CPU_RUNNING);
	w->raw = false;
}

/*
 * A waiting cpu whose core's share changed at @t, and with it this
 * thread's speed (from @old_slow): a parked raw loop, or an event-driven
 * wait.  The relax in progress at @t, or the next one if @t falls in an
 * evaluation's reads, is re-timed by the rule every stretch of pipeline
 * work follows (sim_stretch_retime: what was done by @t at the old speed,
 * the rest at the new), and the iterations after it go at the new share,
 * as the loop it stands for does (session 20).  Before, the evaluation
 * after @t kept its time and a relax issued after @t, inside that
 * evaluation's reads, kept the old share, where the loop with an event
 * per iteration timed it as of its last sync and the speculated loop's
 * replay at its issue (docs/design.md, "Raw spin loops").  Before
 * session 15 an event-driven wait kept the share it began at for the
 * whole wait: with SMT siblings changing state, its evaluations fell
 * behind or ahead of the loop's, and a steal race at a freed lock went
 * otherwise (ppc_qspinlock stole 6% less at 2x than the same loop
 * polling).
 *
 * An event-driven wait is re-timed in place (session 16): its grid is
 * re-based at the end of that relax and goes on from there at the new
 * period; the relax keeps its jitter draw, the watches stay, a bounded
 * wait's timeout moves with the grid.  A parked raw loop resumes at the
 * end of that relax: its period is the loop's own (sim/rspin.c), which
 * re-times itself.
 */
void sim_wait_share_changed(struct sim_cpu *c, sim_time_t t, uint32_t old_slow)
{
	struct sim_wait *w = &c->wait;
	struct sim_stretch st;
	sim_time_t period, end;
	uint64_t k;

	/* Blocked in the wait (watching its lines), not in a line's queue
	 * for one of its reads. */
	if (c->state != SIM_CPU_WAITING || !w->nwatch || !old_slow)
		return;
	/* The relax that ends at evaluation k is the one in progress at
	 * @t, or the next one.  A bounded wait whose timeout came first
	 * stands as it is. */
	k = grid_index_after(w, t);
	if (w->raw && k >= 2) {
		/* A parked raw loop replays the iteration it is in up to @t
		 * and goes on at the new share, as a speculation rewound at
		 * @t does (its reads after @t still see what they see). */
		park_wake(c, t, sim_cpu_first_at(c->sim, c, t));
		c->rs->slow_after = sim_cpu_slow(c);
		return;
	}
	if (w->budget != SIM_BUDGET_NONE && k > w->budget + 1)
		return;
	st = wait_relax(c, k, old_slow);
	end = sim_stretch_retime(&st, old_slow, sim_cpu_slow(c), t);
	period = w->reads_ps + sim_cpu_scale(c, w->relax_raw);
	if (!period)
		period = 1;
	if (period == w->period_ps && end == grid_time(w, k))
		return;
	/* Evaluation k becomes the grid's first; its counter, and every
	 * later one's, stays what it was (grid_time's folded checks). */
	w->grid0_ps = end;
	w->rx = st;
	w->period_ps = period;
	c->sim->wait_retimes++;
	if (w->budget == SIM_BUDGET_NONE)
		return;
	w->budget -= k - 1;
	w->result = w->budget;
	sim_evq_push(&c->sim->q, &c->ev, grid_time(w, w->budget + 1));
}

/*
 * A cpu whose pending event is the end of a stretch of work or of a relax
 * (it yielded at it: the stretch passed the horizon) and whose core's
 * share changed at @t before that end: re-timed by sim_stretch_retime
 * (session 16 for work; session 20 for relaxes, and for a stretch issued
 * after @t, which a cpu past the horizon timed before the change was
 * applied: it kept the old speed whole).  Ends not re-timed: a stretch
 * an interrupt or an undispatch cut (its rest is then a carry, timed at
 * the speed it had).  Unscaled work done is rounded down, so a change
 * and its reversal at one instant may move the end by a picosecond.
 */
void sim_work_share_changed(struct sim_cpu *c, sim_time_t t, uint32_t old_slow)
{
	/* (A cpu queued for a line is WAITING; one served, not yet run,
	 * has the serve as its event; a rewound speculation re-times its
	 * own relaxes in its replay, sim_relax.) */
	if (c->state != SIM_CPU_READY || c->lq_grant ||
	    !sim_event_queued(&c->ev) || c->ev.time_ps != c->work_end ||
	    t >= c->work_end || !old_slow ||
	    (c->rs && c->rs->phase != SIM_RS_OFF))
		return;
	c->work_end =
		sim_stretch_retime(&c->work, old_slow, sim_cpu_slow(c), t);
	sim_evq_push(&c->sim->q, &c->ev, c->work_end);
}

void sim_mem_written_by(struct sim *s, struct sim_cpu *w, const void *p,
			sim_time_t t)
{
	size_t line = sim_mem_line_of(&s->mem, p);

	s->mem.lines[line].version++;
	if (s->mem.lines[line].watchers)
		wake_watchers(s, line, t);
	if (s->mem.observed && s->mem.observed[line])
		s->write_hook(s->write_data, w, p);
}

void sim_mem_written(struct sim *s, const void *p, sim_time_t t)
{
	sim_mem_written_by(s, s->cur, p, t);
}

void sim_wait_stale(struct sim_cpu *c, size_t line)
{
	struct sim_wait *w = &c->wait;

	if (!w->active)
		return;
	for (unsigned int i = 0; i < w->nlines; i++)
		if (w->lines[i] == line)
			w->versions[i] = c->sim->mem.lines[line].version - 1;
}

void sim_mem_observe(struct sim *s, const void *p)
{
	QSIM_BUG_ON(!s->mem.sealed, "observing before the arena is sealed");
	if (!s->mem.observed)
		s->mem.observed = g_new0(uint8_t, s->mem.nlines);
	s->mem.observed[sim_mem_line_of(&s->mem, p)] = 1;
}

void sim_mem_poke(struct sim *s, const void *p, sim_time_t t)
{
	if (!s->mem.sealed)
		return;
	sim_mem_written(s, p, t);
}

void coroutine_fn sim_wait_begin(struct sim_cpu *c)
{
	sim_cpu_impure(c);
	QSIM_BUG_ON(c->wait.active, "nested wait on cpu %u", c->id);
	cpu_level_sync(c, c->hmt_low, true);
	c->wait.active = true;
	c->wait.spin = false;
	c->wait.nlines = 0;
	c->wait.nreads = 0;
	thread_level(c->sim, c->pcpu, cpu_level(c), c->now_ps);
	sim_cpu_set_acct(c, SIM_ACCT_SPIN, c->now_ps);
	if (c->sim->spin_hook)
		c->sim->spin_hook(c->sim->spin_data, c, true, c->now_ps);
}

void coroutine_fn sim_wait_begin_spin(struct sim_cpu *c)
{
	sim_wait_begin(c);
	c->wait.spin = true;
}

void coroutine_fn sim_wait_end(struct sim_cpu *c)
{
	cpu_level_sync(c, c->hmt_low, false);
	c->wait.active = false;
	c->wait.nlines = 0;
	c->wait.nreads = 0;
	thread_level(c->sim, c->pcpu, cpu_level(c), c->now_ps);
	sim_cpu_set_acct(c, SIM_ACCT_RUN, c->now_ps);
	if (c->sim->spin_hook)
		c->sim->spin_hook(c->sim->spin_data, c, false, c->now_ps);
}

/*
 * Block with folded periodic checks: the evaluation just done (counter
 * @budget, a multiple of @every) made @normal_reads reads for its condition
 * and the rest of the read set's reads for its check; evaluations whose
 * counter is a multiple of @every repeat the check.  While no line of the
 * read set changes, those checks read the same values and fail again, so
 * they are folded into the grid as extra time instead of waking the cpu.
 */
uint64_t coroutine_fn sim_wait_block_every(struct sim_cpu *c, uint64_t budget,
					   uint32_t every,
					   unsigned int normal_reads)
{
	struct sim_wait *w = &c->wait;

	QSIM_BUG_ON(!every || budget == SIM_BUDGET_NONE ||
		    normal_reads > w->nreads);
	w->fold_every = every;
	w->fold_normal = normal_reads;
	w->fold_extra_ps = (sim_time_t)(w->nreads - normal_reads) *
			   c->sim->mem.cost.hit_ps;
	return sim_wait_block(c, budget);
}

uint64_t coroutine_fn sim_wait_block(struct sim_cpu *c, uint64_t budget)
{
	struct sim *s = c->sim;
	struct sim_mem *m = &s->mem;
	struct sim_wait *w = &c->wait;
	bool changed = false;
	uint32_t every = w->fold_every;
	sim_time_t relax, hit;

	QSIM_BUG_ON(!w->active || s->cur != c);
	w->fold_every = 0;
	/* One iteration's pipeline time at this thread's SMT share (a low
	 * priority spinner's), with the seeded jitter, for the whole wait. */
	w->relax_raw = sim_mem_jitter(
		m, w->spin ? m->cost.spin_relax_ps : m->cost.relax_ps,
		&c->mrng);
	relax = sim_cpu_scale(c, w->relax_raw);
	/* A read that hits costs what it costs in the loop: the cache's
	 * latency, not stretched by the SMT share (sim_access; session 15:
	 * the wait stretched it and so ran slower than the loop it stands
	 * for). */
	hit = m->cost.hit_ps;
	/* The relax is a stretch as the loop's is (sim_relax): past the
	 * horizon, the cpu syncs at its end, where a change of the share
	 * that came before re-times it. */
	sim_stretch_set(&w->rx, c->now_ps, w->relax_raw);
	c->work = w->rx;
	c->now_ps += relax;
	c->work_end = c->now_ps;
	if (budget != SIM_BUDGET_NONE && --budget == 0) {
		w->nlines = 0;
		w->nreads = 0;
		sim_cpu_sync(c);
		return 0;
	}
	w->grid0_ps = c->now_ps;
	w->reads_ps = w->nreads * hit;
	w->every = every;
	w->extra_ps = every ? w->fold_extra_ps : 0;
	if (every) /* normal evaluations read only the condition's lines */
		w->reads_ps = w->fold_normal * hit;
	w->period_ps = w->reads_ps + relax;
	if (!w->period_ps)
		w->period_ps = 1;
	w->budget = budget;
	w->result = budget;
	if (!w->nlines) {
		QSIM_BUG_ON(budget == SIM_BUDGET_NONE,
			    "unbounded wait on cpu %u reads no shared memory",
			    c->id);
		/* Nothing can change the outcome: spend the whole budget
		 * (its last relax the pending stretch). */
		c->now_ps = c->work_end = grid_time(w, budget + 1);
		c->work = wait_relax(c, budget + 1, sim_cpu_slow(c));
		sim_cpu_sync(c);
		return 0;
	}
	for (unsigned int i = 0; i < w->nlines; i++)
		if (m->lines[w->lines[i]].version != w->versions[i])
			changed = true;
	if (changed) {
		w->nlines = 0;
		w->nreads = 0;
		sim_cpu_sync(c);
		return budget;
	}
	for (unsigned int i = 0; i < w->nlines; i++) {
		struct sim_watch *wa = &w->watch[i];
		struct sim_line *l = &m->lines[w->lines[i]];

		wa->cpu = c;
		wa->line = w->lines[i];
		wa->off_ps = w->offs[i];
		wa->prev = NULL;
		wa->next = l->watchers;
		if (l->watchers)
			l->watchers->prev = wa;
		l->watchers = wa;
	}
	w->nwatch = w->nlines;
	w->nlines = 0;
	w->nreads = 0;
	c->state = SIM_CPU_WAITING;
	if (budget != SIM_BUDGET_NONE)
		sim_evq_push(&s->q, &c->ev, grid_time(w, budget + 1));
	cpu_switch_out(c);
	QSIM_BUG_ON(c->state != SIM_CPU_RUNNING);
	return w->result;
}

bool sim_cpu_check_invariants(const struct sim_cpu *c)
{
	if (c->state == SIM_CPU_WAITING && !c->dispatched)
		return false;
	if (c->state == SIM_CPU_STOPPED && c->dispatched)
		return false;
	if (c->state != SIM_CPU_WAITING && c->wait.nwatch)
		return false;
	return true;
}
