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
#include <stdlib.h>

#include "sim/engine.h"

__thread struct sim *sim_self;

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
	fflush(stderr);
	abort();
}

void sim_init(struct sim *s, size_t arena_bytes, unsigned int line_bytes,
	      const struct sim_cost *cost, const struct sim_topo *topo,
	      size_t stack_bytes)
{
	memset(s, 0, sizeof(*s));
	sim_evq_init(&s->q);
	sim_mem_init(&s->mem, arena_bytes, line_bytes, cost, topo);
	s->stack_bytes = stack_bytes;
	sim_trace_init(&s->trace, 256);
}

void sim_destroy(struct sim *s)
{
	for (unsigned int i = 0; i < s->ncpus; i++) {
		sim_coro_destroy(s->cpus[i]->co);
		g_free(s->cpus[i]);
	}
	g_free(s->cpus);
	sim_evq_destroy(&s->q);
	sim_mem_destroy(&s->mem);
	sim_trace_free(&s->trace);
	if (sim_self == s)
		sim_self = NULL;
}

static void cpu_resume_ev(struct sim_event *ev);
static void unwatch_all(struct sim_cpu *c);

/* The running cpu is leaving the host CPU: drop its resume event unless
 * it re-queued it while it ran (it blocked, stopped or finished). */
static void cpu_drop_stale_event(struct sim_cpu *c)
{
	if (sim_event_queued(&c->ev) && c->ev.seq == c->resume_seq)
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
	c->resume_seq = ev->seq;
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
		if (next->fn == cpu_resume_ev)
			return next;
		sim_evq_pop(&s->q);
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
	c->co = sim_coro_create(cpu_main, c, s->stack_bytes);
	sim_event_init(&c->ev, cpu_resume_ev, c, SIM_PRIO_CPU);
	s->cpus = g_renew(struct sim_cpu *, s->cpus, s->ncpus + 1);
	s->cpus[s->ncpus++] = c;
	return c;
}

void sim_schedule(struct sim *s, struct sim_event *ev, sim_time_t t)
{
	sim_evq_push(&s->q, ev, t);
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

void sim_cpu_dispatch(struct sim_cpu *c, sim_time_t t, int pcpu)
{
	struct sim *s = c->sim;

	QSIM_BUG_ON(c->dispatched, "cpu %u dispatched twice", c->id);
	QSIM_BUG_ON(c->state != SIM_CPU_NEW && c->state != SIM_CPU_STOPPED &&
			    c->state != SIM_CPU_DONE,
		    "cpu %u dispatched in state %d", c->id, c->state);
	c->dispatched = true;
	c->pcpu = pcpu;
	sim_cpu_set_acct(c, c->wait.active ? SIM_ACCT_SPIN : SIM_ACCT_RUN, t);
	if (s->dispatch_hook)
		s->dispatch_hook(s->hook_data, c, true, t);
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

void sim_cpu_undispatch(struct sim_cpu *c, sim_time_t t, bool idle)
{
	struct sim *s = c->sim;

	QSIM_BUG_ON(!c->dispatched, "cpu %u undispatched twice", c->id);
	c->dispatched = false;
	sim_cpu_set_acct(c, idle ? SIM_ACCT_IDLE : SIM_ACCT_PREEMPTED, t);
	if (s->dispatch_hook)
		s->dispatch_hook(s->hook_data, c, false, t);
	switch (c->state) {
	case SIM_CPU_RUNNING:
		/* The cpu undispatches itself in a hypervisor call. */
		c->carry_ps = c->now_ps > t ? c->now_ps - t : 0;
		break;
	case SIM_CPU_READY:
		c->carry_ps = c->ev.time_ps > t ? c->ev.time_ps - t : 0;
		sim_evq_cancel(&s->q, &c->ev);
		break;
	case SIM_CPU_WAITING: {
		struct sim_wait *w = &c->wait;
		uint64_t k = grid_index_after(w, t);

		unwatch_all(c);
		sim_evq_cancel(&s->q, &c->ev);
		if (w->budget != SIM_BUDGET_NONE && k > w->budget) {
			/* Preempted in the last iteration: exhausted. */
			k = w->budget + 1;
			w->result = 0;
		} else if (w->budget != SIM_BUDGET_NONE) {
			w->result = w->budget - (k - 1);
		}
		c->carry_ps = grid_time(w, k) > t ? grid_time(w, k) - t : 0;
		break;
	}
	case SIM_CPU_NEW:
	case SIM_CPU_DONE:
		c->carry_ps = 0;
		return;
	case SIM_CPU_STOPPED:
		QSIM_BUG_ON(1, "cpu %u already stopped", c->id);
	}
	c->state = SIM_CPU_STOPPED;
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

void sim_report_violation(struct sim_cpu *c, const char *msg)
{
	struct sim *s = c->sim;

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

void coroutine_fn sim_access(struct sim_cpu *c, const void *p,
			     enum sim_access kind)
{
	struct sim_mem *m = &c->sim->mem;
	size_t line;

	QSIM_BUG_ON(!sim_mem_contains(m, p), "access outside the arena");
	sim_cpu_sync(c);
	line = sim_mem_line_of(m, p);
	c->access_ps = c->now_ps;
	c->now_ps = sim_mem_touch(m, line, c->pcpu, kind, c->now_ps);
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

static void wake_watchers(struct sim *s, size_t line, sim_time_t t)
{
	struct sim_watch *w = s->mem.lines[line].watchers;

	while (w) {
		struct sim_watch *next = w->next;
		struct sim_cpu *c = w->cpu;
		struct sim_wait *wt = &c->wait;
		/*
		 * The evaluation that reads this line at or after the write
		 * sees it; the line is read off_ps into each evaluation.
		 */
		uint64_t k = grid_index_after(wt, t >= w->off_ps ? t - w->off_ps
								 : 0);

		/* A read set holds each line once, so @next is another cpu's. */
		unwatch_all(c);
		c->wakeups++;
		if (wt->budget != SIM_BUDGET_NONE && k > wt->budget) {
			/* The timeout event at r_{budget+1} comes first. */
			w = next;
			continue;
		}
		if (wt->budget != SIM_BUDGET_NONE)
			wt->result = wt->budget - (k - 1);
		c->state = SIM_CPU_READY;
		sim_evq_push(&s->q, &c->ev, grid_time(wt, k));
		w = next;
	}
}

void sim_mem_written(struct sim *s, const void *p, sim_time_t t)
{
	size_t line = sim_mem_line_of(&s->mem, p);

	s->mem.lines[line].version++;
	if (s->mem.lines[line].watchers)
		wake_watchers(s, line, t);
}

void sim_mem_poke(struct sim *s, const void *p, sim_time_t t)
{
	if (!s->mem.sealed)
		return;
	sim_mem_written(s, p, t);
}

void sim_wait_begin(struct sim_cpu *c)
{
	QSIM_BUG_ON(c->wait.active, "nested wait on cpu %u", c->id);
	c->wait.active = true;
	c->wait.nlines = 0;
	c->wait.nreads = 0;
	sim_cpu_set_acct(c, SIM_ACCT_SPIN, c->now_ps);
	if (c->sim->spin_hook)
		c->sim->spin_hook(c->sim->spin_data, c, true, c->now_ps);
}

void sim_wait_end(struct sim_cpu *c)
{
	c->wait.active = false;
	c->wait.nlines = 0;
	c->wait.nreads = 0;
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

	QSIM_BUG_ON(!w->active || s->cur != c);
	w->fold_every = 0;
	c->now_ps += m->cost.relax_ps;
	if (budget != SIM_BUDGET_NONE && --budget == 0) {
		w->nlines = 0;
		w->nreads = 0;
		return 0;
	}
	w->grid0_ps = c->now_ps;
	w->period_ps = w->nreads * m->cost.hit_ps + m->cost.relax_ps;
	w->every = every;
	w->extra_ps = every ? w->fold_extra_ps : 0;
	if (every) /* normal evaluations read only the condition's lines */
		w->period_ps =
			w->fold_normal * m->cost.hit_ps + m->cost.relax_ps;
	if (!w->period_ps)
		w->period_ps = 1;
	w->budget = budget;
	w->result = budget;
	if (!w->nlines) {
		QSIM_BUG_ON(budget == SIM_BUDGET_NONE,
			    "unbounded wait on cpu %u reads no shared memory",
			    c->id);
		/* Nothing can change the outcome: spend the whole budget. */
		c->now_ps = grid_time(w, budget + 1);
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
