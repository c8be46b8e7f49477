// SPDX-License-Identifier: MIT
/*
 * The locktest workload, its metrics and its always-on checks; see
 * workload.h.  All times are the vCPU's local time after a sync, so they
 * are in global order and never ahead of an event not yet processed.
 */
#include <glib.h>
#include <stdarg.h>
#include <string.h>

#include "sim/workload.h"
#include "sim/mm.h"

#define WL_WATCHDOG_MIN_PS (10 * SIM_US)

static void watchdog_ev(struct sim_event *ev);
static void stat_ev(struct sim_event *ev);

static const struct {
	const char *name, *unit;
	unsigned int steps;
} wl_types[WL_NTYPES] = {
	[WL_LOCKTEST] = {"locktest", "acquisitions", 1},
	[WL_LOCKTORTURE] = {"locktorture", "acquisitions", 1},
	[WL_EBIZZY] = {"ebizzy", "records", 4},
	[WL_KBUILD] = {"kbuild", "jobs", 32},
	[WL_NETPERF] = {"netperf", "transactions", 2},
};

const char *wl_type_name(enum wl_type t)
{
	return t < WL_NTYPES ? wl_types[t].name : NULL;
}

const char *wl_unit_name(enum wl_type t)
{
	return wl_types[t].unit;
}

unsigned int wl_default_steps(enum wl_type t)
{
	return wl_types[t].steps;
}

enum wl_type wl_type_parse(const char *name)
{
	for (int t = 0; t < WL_NTYPES; t++)
		if (strcmp(wl_types[t].name, name) == 0)
			return (enum wl_type)t;
	return WL_LOCKTEST;
}

void wl_init(struct wl *w, struct sim *s, const struct wl_params *p,
	     const struct wl_lock_iface *ops, void **lock_addrs,
	     unsigned int nvcpus)
{
	memset(w, 0, sizeof(*w));
	w->p = *p;
	w->ops = ops;
	w->sim = s;
	w->locks = g_new0(struct wl_lock, p->nlocks);
	for (unsigned int i = 0; i < p->nlocks; i++) {
		struct wl_lock *l = &w->locks[i];

		l->idx = i;
		l->addr = lock_addrs[i];
		if (p->cs_data) /* each on a line of its own */
			l->data = sim_mem_alloc(&s->mem, sizeof(uint64_t),
						(size_t)1 << s->mem.line_shift);
		sim_hist_init(&l->st.latency);
		sim_hist_init(&l->st.read_latency);
		sim_hist_init(&l->st.write_latency);
		sim_hist_init(&l->st.hold);
		sim_hist_init(&l->st.handoff);
	}
	w->nvcpus = nvcpus;
	w->vcpus = g_new0(struct wl_vcpu, nvcpus);
	for (unsigned int i = 0; i < nvcpus; i++) {
		struct wl_vcpu *v = &w->vcpus[i];

		v->wl = w;
		v->idx = i;
		v->pre_since = 0;
		v->ipi_since = SIM_TIME_NEVER;
		sim_rng_init(&v->rng, p->seed, SIM_RNG_WORKLOAD, i);
	}
	if (p->ipi_prob > 0 && nvcpus > 1) {
		size_t n = (size_t)nvcpus * nvcpus;

		w->ipis = g_new0(struct sim_ipi, n);
		for (size_t k = 0; k < n; k++) /* bound to targets in wl_bind */
			w->ipis[k].flag =
				sim_mem_alloc(&s->mem, sizeof(uint64_t),
					      (size_t)1 << s->mem.line_shift);
	}
	if (!w->p.steps)
		w->p.steps = wl_default_steps(w->p.type);
	sim_event_init(&w->watchdog, watchdog_ev, w, SIM_PRIO_CHECK);
	sim_event_init(&w->stat_ev, stat_ev, w, SIM_PRIO_CHECK);
	w->stat_log = g_string_new(NULL);
}

void wl_destroy(struct wl *w)
{
	for (unsigned int i = 0; i < w->p.nlocks; i++) {
		sim_hist_free(&w->locks[i].st.latency);
		sim_hist_free(&w->locks[i].st.read_latency);
		sim_hist_free(&w->locks[i].st.write_latency);
		sim_hist_free(&w->locks[i].st.hold);
		sim_hist_free(&w->locks[i].st.handoff);
	}
	g_free(w->locks);
	g_free(w->vcpus);
	g_free(w->ipis);
	g_free(w->violation_msg);
	if (w->stat_log)
		g_string_free(w->stat_log, TRUE);
	memset(w, 0, sizeof(*w));
}

void *wl_vcpu_arg(struct wl *w, unsigned int i)
{
	return &w->vcpus[i];
}

void wl_bind(struct wl *w, unsigned int i, struct sim_cpu *c)
{
	w->vcpus[i].cpu = c;
	c->workload = &w->vcpus[i];
	for (unsigned int k = 0; w->ipis && k < w->nvcpus; k++) {
		struct sim_ipi *ipi = &w->ipis[(size_t)k * w->nvcpus + i];

		sim_ipi_init(ipi, c, ipi->flag);
	}
}

const char *wl_violation_name(enum wl_violation v)
{
	switch (v) {
	case WL_OK:
		return "ok";
	case WL_VIOL_MUTEX:
		return "mutual-exclusion";
	case WL_VIOL_HANG:
		return "hang";
	case WL_VIOL_DEADLOCK:
		return "deadlock";
	case WL_VIOL_LOCK:
		return "lock-invariant";
	case WL_VIOL_LOST_WAKEUP:
		return "lost-wakeup";
	case WL_VIOL_STARVATION:
		return "starvation";
	case WL_VIOL_STALE_DATA:
		return "stale-data";
	}
	return "?";
}

void wl_violation(struct wl *w, enum wl_violation kind, sim_time_t t,
		  const char *fmt, ...)
{
	va_list ap;

	if (w->violation != WL_OK)
		return; /* the first one is the one to replay */
	w->violation = kind;
	w->violation_ps = t;
	va_start(ap, fmt);
	w->violation_msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	w->sim->stop = true;
}

/* --- LHP accounting: waiter time lost while a holder is out --- */

static void lhp_account(struct wl_lock *l, sim_time_t t)
{
	if (l->lhp_n && t > l->lhp_acc_ps) {
		l->st.lhp_waiter_ps += (t - l->lhp_acc_ps) * l->nwaiters;
		l->lhp_acc_ps = t;
	}
}

/* A holder of @l was undispatched (@out) or dispatched again at @t. */
static void lhp_change(struct wl_lock *l, struct wl_vcpu *v, bool out,
		       sim_time_t t)
{
	lhp_account(l, t);
	if (out) {
		if (!l->lhp_n++)
			l->lhp_acc_ps = t;
		v->lhp_since = t;
		l->st.lhp_events++;
	} else {
		sim_time_t d = t > v->lhp_since ? t - v->lhp_since : 0;

		l->st.lhp_total_ps += d;
		if (d > l->st.lhp_max_ps)
			l->st.lhp_max_ps = d;
		l->lhp_n--;
	}
}

static sim_time_t pre_total_at(const struct wl_vcpu *v, sim_time_t t)
{
	sim_time_t tot = v->pre_total_ps;

	if (v->pre_since != SIM_TIME_NEVER && t > v->pre_since)
		tot += t - v->pre_since;
	return tot;
}

/*
 * A waiter's undispatched total at the awaited lock's last release (its
 * hand-off delay counts what it loses after that), taken lazily: a
 * release does not visit every waiter (that was O(waiters) per
 * acquisition); the value is brought up to date before the waiter's
 * dispatch state changes and when it acquires, the only times it can
 * differ from what the release would have recorded.  Its state is the
 * same since that release, so pre_total_at() of the release time gives
 * what the release would have seen.
 */
static void pre_at_rel_sync(struct wl_vcpu *v)
{
	const struct wl_lock *l = v->waiting;

	if (l && v->rel_seen != l->releases) {
		v->pre_at_rel = pre_total_at(v, l->rel_ps);
		v->rel_seen = l->releases;
	}
}

static void dispatch_hook(void *data, struct sim_cpu *c, bool on, sim_time_t t)
{
	struct wl_vcpu *v = c->workload;

	if (!v)
		return;
	pre_at_rel_sync(v);
	if (on) {
		if (v->pre_since != SIM_TIME_NEVER && t > v->pre_since)
			v->pre_total_ps += t - v->pre_since;
		v->pre_since = SIM_TIME_NEVER;
	} else {
		v->pre_since = t;
	}
	if (v->holding)
		lhp_change(v->holding, v, !on, t);
	if (v->outer)
		lhp_change(v->outer, v, !on, t);
}

/* --- the per-vCPU loop --- */

static struct wl_lock *pick_lock(struct wl *w, struct wl_vcpu *v,
				 unsigned int step)
{
	if (w->p.nlocks == 1)
		return &w->locks[0];
	if (w->p.pick == WL_PICK_VCPU)
		return &w->locks[v->idx % w->p.nlocks];
	if (w->p.pick == WL_PICK_STEP)
		return &w->locks[step % w->p.nlocks];
	return &w->locks[sim_rng_below(&v->rng, w->p.nlocks)];
}

static void wait_begin(struct wl_lock *l, struct wl_vcpu *v, sim_time_t t)
{
	lhp_account(l, t);
	v->waiting = l;
	v->req_ps = t;
	v->releases_at_req = l->releases;
	/* A hand-off delay counts only time lost after we started waiting. */
	v->pre_at_rel = pre_total_at(v, t);
	v->rel_seen = l->releases;
	v->wprev = NULL;
	v->wnext = l->waiters;
	if (l->waiters)
		l->waiters->wprev = v;
	l->waiters = v;
	l->nwaiters++;
}

static void wait_end(struct wl_lock *l, struct wl_vcpu *v, sim_time_t t)
{
	lhp_account(l, t);
	if (v->wprev)
		v->wprev->wnext = v->wnext;
	else
		l->waiters = v->wnext;
	if (v->wnext)
		v->wnext->wprev = v->wprev;
	v->wnext = v->wprev = NULL;
	v->waiting = NULL;
	l->nwaiters--;
}

static void coroutine_fn acquired(struct wl *w, struct wl_lock *l,
				  struct wl_vcpu *v, bool read, sim_time_t t)
{
	pre_at_rel_sync(v);
	wait_end(l, v, t);
	/* A writer excludes everyone; readers exclude writers only. */
	if (l->writer || (!read && l->readers)) {
		wl_violation(w, WL_VIOL_MUTEX, t,
			     "mutual exclusion broken: vCPU %u entered lock %u "
			     "as a %s while %s (vCPU %u) is inside",
			     v->idx, l->idx, read ? "reader" : "writer",
			     l->writer ? "a writer" : "readers",
			     l->holder ? l->holder->idx : 0);
		sim_cpu_halt_run(v->cpu);
	}
	if (read)
		l->readers++;
	else
		l->writer = true;
	l->holder = v;
	v->holding = l;
	v->holding_read = read;
	v->acquisitions++;
	l->st.acquisitions++;
	sim_hist_record(&l->st.latency, t - v->req_ps);
	if (read)
		v->all_reads++;
	else
		v->all_writes++;
	if (read) {
		v->read_acquisitions++;
		l->st.read_acquisitions++;
		sim_hist_record(&l->st.read_latency, t - v->req_ps);
	} else {
		v->write_acquisitions++;
		l->st.write_acquisitions++;
		sim_hist_record(&l->st.write_latency, t - v->req_ps);
	}
	if (l->handoff_open) {
		sim_time_t lost = pre_total_at(v, t) - v->pre_at_rel;

		sim_hist_record(&l->st.handoff, t - l->rel_ps);
		if (lost) {
			l->st.lwp_events++;
			l->st.lwp_total_ps += lost;
			if (lost > l->st.lwp_max_ps)
				l->st.lwp_max_ps = lost;
		}
		l->handoff_open = false;
	}
	v->req_ps = t; /* now: start of the hold */
}

/*
 * The holder's accesses to the data its lock protects (cs_data): a
 * reader reads it, a writer reads and increments it.  What it reads must
 * be what the last writer left: the lock's acquire and release orderings
 * make it so under every memory model.
 */
static void coroutine_fn cs_data(struct wl *w, struct wl_lock *l,
				 struct wl_vcpu *v, struct sim_cpu *c,
				 bool read)
{
	uint64_t seen;

	if (!l->data)
		return;
	seen = sim_mm_read_u64(c, l->data);
	if (seen != l->data_n) {
		wl_violation(w, WL_VIOL_STALE_DATA, c->now_ps,
			     "stale data: vCPU %u holding lock %u as a %s read "
			     "%" PRIu64 " where the last writer left %" PRIu64,
			     v->idx, l->idx, read ? "reader" : "writer", seen,
			     l->data_n);
		sim_cpu_halt_run(c);
	}
	if (!read) {
		sim_mm_write_u64(c, l->data, seen + 1);
		l->data_n++;
	}
}

static void released(struct wl_lock *l, struct wl_vcpu *v, sim_time_t t)
{
	sim_hist_record(&l->st.hold, t - v->req_ps);
	if (v->holding_read)
		l->readers--;
	else
		l->writer = false;
	if (l->holder == v)
		l->holder = NULL;
	l->releases++;
	v->holding = NULL;
	if (l->nwaiters) {
		/* each waiter's pre_at_rel follows (pre_at_rel_sync) */
		l->handoff_open = true;
		l->rel_ps = t;
	}
}

/*
 * locktorture's stutter: in every second period of length stutter_ps
 * nobody takes a lock; a vCPU that finds itself in one stays idle to its
 * end (its think time is not owed again afterwards).
 */
static void coroutine_fn stutter_wait(struct wl *w, struct sim_cpu *c)
{
	sim_time_t s = w->p.stutter_ps, end;

	if (!s || (c->now_ps / s) % 2 == 0)
		return;
	end = (c->now_ps / s + 1) * s;
	if (w->ops->idle)
		w->ops->idle(c, end - c->now_ps);
	else
		sim_cpu_work(c, end - c->now_ps);
}

/* The critical section of this acquisition. */
static const struct sim_duration *cs_of(struct wl *w, struct wl_lock *l,
					bool read)
{
	if (read && w->p.read_cs)
		return w->p.read_cs;
	if (!read && w->p.write_cs)
		return w->p.write_cs;
	return w->p.lock_cs ? &w->p.lock_cs[l->idx] : &w->p.cs;
}

/*
 * Wait for @l and take it (as a reader if @read; inside @outer, or NULL),
 * with the accounting, timeline and trace of both, up to the holder's
 * own data (cs_data).
 */
static void coroutine_fn take(struct wl *w, struct wl_vcpu *v,
			      struct sim_cpu *c, struct wl_lock *l, bool read,
			      const struct wl_lock *outer)
{
	wait_begin(l, v, c->now_ps);
	sim_tl(c->sim, c->now_ps, SIM_TL_LOCK_WAIT, (int32_t)c->id, l->idx,
	       read);
	if (outer)
		sim_cpu_trace(c, "lock(%" PRId64 ") nested in %" PRId64, l->idx,
			      outer->idx);
	else
		sim_cpu_trace(c,
			      read ? "read_lock(%" PRId64 ")%.0" PRId64
				   : "lock(%" PRId64 ")%.0" PRId64,
			      l->idx, 0);
	if (read)
		w->ops->read_lock(l->addr);
	else
		w->ops->lock(l->addr);
	sim_cpu_sync(c);
	acquired(w, l, v, read, c->now_ps);
	if (outer)
		l->st.nested++;
	sim_tl(c->sim, c->now_ps, SIM_TL_LOCK_HOLD, (int32_t)c->id, l->idx,
	       read);
	if (outer)
		sim_cpu_trace(c, "holds lock %" PRId64 " nested in %" PRId64,
			      l->idx, outer->idx);
	else
		sim_cpu_trace(c, "holds lock %" PRId64 " (read %" PRId64 ")",
			      l->idx, read);
	sim_cpu_point(c, SIM_POINT_CS);
	cs_data(w, l, v, c, read);
}

/* Let @l go: the accounting, timeline and trace, then the unlock. */
static void coroutine_fn give(struct wl *w, struct wl_vcpu *v,
			      struct sim_cpu *c, struct wl_lock *l, bool read)
{
	released(l, v, c->now_ps);
	sim_tl(c->sim, c->now_ps, SIM_TL_LOCK_RELEASE, (int32_t)c->id, l->idx,
	       0);
	sim_cpu_trace(c, "unlock(%" PRId64 ")%.0" PRId64, l->idx, 0);
	if (read)
		w->ops->read_unlock(l->addr);
	else
		w->ops->unlock(l->addr);
}

/*
 * Holding @outer as a writer, take a lock of higher index (the fixed
 * order that keeps nesting free of deadlock), hold it for its own
 * critical section, and let it go; then @outer is the one held again.
 */
static void coroutine_fn nested_step(struct wl *w, struct wl_vcpu *v,
				     struct sim_cpu *c, struct wl_lock *outer)
{
	struct wl_lock *l =
		&w->locks[outer->idx + 1 +
			  sim_rng_below(&v->rng, w->p.nlocks - outer->idx - 1)];
	sim_time_t hold = sim_duration_draw(cs_of(w, l, false), &v->rng);
	sim_time_t outer_since = v->req_ps; /* the outer hold's start */

	v->outer = outer;
	v->outer_read = false;
	v->holding = NULL;
	v->in_op = l;
	take(w, v, c, l, false, outer);
	sim_cpu_work(c, hold);
	give(w, v, c, l, false);
	v->holding = outer;
	v->holding_read = false;
	v->outer = NULL;
	v->in_op = outer;
	v->req_ps = outer_since;
}

/* Step @step of a unit: take a lock, hold it, let it go. */
static void coroutine_fn lock_step(struct wl *w, struct wl_vcpu *v,
				   struct sim_cpu *c, unsigned int step)
{
	struct wl_lock *l = pick_lock(w, v, step);
	sim_time_t hold;
	bool read;

	if (w->p.readers)
		read = v->idx < w->p.readers;
	else
		read = w->p.read_pct &&
		       sim_rng_below(&v->rng, 100) < w->p.read_pct;
	hold = sim_duration_draw(cs_of(w, l, read), &v->rng);
	if (!read && w->p.long_hold_prob > 0 &&
	    sim_rng_unit(&v->rng) < w->p.long_hold_prob) {
		hold = w->p.long_hold_ps;
		l->st.long_holds++;
	}
	v->in_op = l;
	w->in_ops++;
	take(w, v, c, l, read, NULL);
	if (!read && w->p.nest_prob > 0 && l->idx + 1 < w->p.nlocks &&
	    sim_rng_unit(&v->rng) < w->p.nest_prob)
		nested_step(w, v, c, l);
	sim_cpu_work(c, hold);
	give(w, v, c, l, read);
	v->in_op = NULL;
	if (--w->in_ops == 0 && w->draining)
		w->sim->stop = true; /* drained */
}

/*
 * A synchronous cross-call (Linux's smp_call_function_many with wait):
 * lock each target's csd (a store to a line of its own), make the stores
 * visible, send, then wait for each target in turn to unlock its csd
 * from its handler, spinning (a spin wait, which pause-loop exiting
 * sees).  The targets are ipi_targets others from a random place in the
 * partition, or all the others.  The send's own cost (an exit or
 * hypercall) is not modelled.
 */
static void coroutine_fn cross_call(struct wl *w, struct wl_vcpu *v,
				    struct sim_cpu *c)
{
	unsigned int n = w->nvcpus, others = n - 1;
	unsigned int k = w->p.ipi_targets && w->p.ipi_targets < others
				 ? w->p.ipi_targets
				 : others;
	unsigned int first = k < others ? sim_rng_below(&v->rng, others) : 0;
	struct sim_ipi *row = &w->ipis[(size_t)v->idx * n];
	sim_time_t t0;

#define CC_TARGET(i) ((v->idx + 1 + (first + (i)) % others) % n)
	for (unsigned int i = 0; i < k; i++)
		sim_mm_write_u64(c, row[CC_TARGET(i)].flag, 1);
	/* The stores are visible before the interrupts go out. */
	sim_cpu_sync_stores(c);
	sim_cpu_sync(c);
	t0 = c->now_ps;
	v->ipi_since = t0; /* the watchdog bounds the wait */
	for (unsigned int i = 0; i < k; i++)
		sim_ipi_send(w->sim, &row[CC_TARGET(i)], c->now_ps,
			     w->p.ipi_handler_ps);
	for (unsigned int i = 0; i < k; i++) {
		uint64_t *flag = row[CC_TARGET(i)].flag;

		sim_wait_begin(c);
		while (sim_mm_read_u64(c, flag) != 0)
			sim_wait_block(c, SIM_BUDGET_NONE);
		sim_wait_end(c);
	}
#undef CC_TARGET
	v->ipi_since = SIM_TIME_NEVER;
	w->ipi_calls++;
	w->ipi_wait_ps += c->now_ps - t0;
}

static void coroutine_fn work_or_idle(struct wl *w, struct sim_cpu *c,
				      sim_time_t d, bool idle)
{
	if (idle && w->ops->idle)
		w->ops->idle(c, d);
	else
		sim_cpu_work(c, d);
}

void coroutine_fn wl_vcpu_main(struct sim_cpu *c, void *arg)
{
	struct wl_vcpu *v = arg;
	struct wl *w = v->wl;

	for (;;) {
		/* A unit: steps x (work, lock step), then its idle time. */
		for (unsigned int k = 0; k < w->p.steps; k++) {
			work_or_idle(w, c,
				     sim_duration_draw(&w->p.think, &v->rng),
				     w->p.think_idle);
			stutter_wait(w, c);
			while (w->draining) /* no more lock operations */
				work_or_idle(w, c, SIM_S, true);
			if (w->ipis && sim_rng_unit(&v->rng) < w->p.ipi_prob)
				cross_call(w, v, c);
			lock_step(w, v, c, k);
		}
		v->units++;
		if (w->p.unit_idle)
			work_or_idle(w, c,
				     sim_duration_draw(w->p.unit_idle, &v->rng),
				     true);
	}
}

/*
 * locktorture's periodic statistics, as it prints them: per side, the
 * acquisitions since the start, the most and the fewest by one thread,
 * and the failures (always 0 here: a failure stops the run).  The
 * writers are every vCPU, or, with `readers`, those past the readers.
 */
bool wl_stat_imbalance(uint64_t max, uint64_t min)
{
	return max / 2 > min;
}

static void stat_side(struct wl *w, const char *label, bool reads)
{
	uint64_t total = 0, max = 0, min = UINT64_MAX;
	unsigned int n = 0;

	for (unsigned int i = 0; i < w->nvcpus; i++) {
		const struct wl_vcpu *v = &w->vcpus[i];
		uint64_t c = reads ? v->all_reads : v->all_writes;

		if (w->p.readers && (i < w->p.readers) != reads)
			continue;
		total += c;
		max = c > max ? c : max;
		min = c < min ? c : min;
		n++;
	}
	if (!n)
		return;
	/* The kernel's spacing, so its log parsers read these lines too. */
	g_string_append_printf(w->stat_log,
			       "%s:  Total: %" PRIu64 "  Max/Min: %" PRIu64
			       "/%" PRIu64 " %s  Fail: 0 \n",
			       label, total, max, min,
			       wl_stat_imbalance(max, min) ? "???" : "");
}

static void stat_ev(struct sim_event *ev)
{
	struct wl *w = ev->data;
	sim_time_t t = ev->time_ps;
	char buf[32];
	gsize from = w->stat_log->len;

	g_string_append_printf(w->stat_log, "[%s]\n",
			       sim_format_time(t, buf, sizeof(buf)));
	stat_side(w, "Writes", false);
	if (w->p.read_pct || w->p.readers)
		stat_side(w, "Reads ", true);
	if (w->p.stat_fn)
		w->p.stat_fn(w->p.stat_data, w->stat_log->str + from);
	sim_schedule(w->sim, &w->stat_ev, t + w->p.stat_interval_ps);
}

/* --- checks --- */

static sim_time_t watchdog_period(const struct wl *w)
{
	sim_time_t b = SIM_MIN(w->p.hang_bound_ps, w->p.sleep_bound_ps);

	return SIM_MAX(b / 4, WL_WATCHDOG_MIN_PS);
}

static void watchdog_ev(struct sim_event *ev)
{
	struct wl *w = ev->data;
	sim_time_t t = ev->time_ps;

	for (unsigned int i = 0; i < w->nvcpus; i++) {
		struct wl_vcpu *v = &w->vcpus[i];
		sim_time_t asleep = v->cpu->sleep_since;
		uint64_t rel;
		char a[16], b[16];

		if (v->ipi_since != SIM_TIME_NEVER && t > v->ipi_since &&
		    t - v->ipi_since > w->p.hang_bound_ps) {
			unsigned int to = 0;

			/* The first target that has not answered. */
			while (to < w->nvcpus &&
			       (to == i ||
				!*w->ipis[(size_t)i * w->nvcpus + to].flag))
				to++;
			wl_violation(
				w, WL_VIOL_HANG, t,
				"hang: vCPU %u's cross-call has waited %s "
				"for vCPU %u to answer (bound %s)",
				v->idx,
				sim_format_time(t - v->ipi_since, a, sizeof(a)),
				to,
				sim_format_time(w->p.hang_bound_ps, b,
						sizeof(b)));
			return;
		}
		if (!v->waiting)
			continue;
		if (asleep != SIM_TIME_NEVER && t > asleep &&
		    t - asleep > w->p.sleep_bound_ps) {
			wl_violation(w, WL_VIOL_LOST_WAKEUP, t,
				     "lost wakeup: vCPU %u has slept %s "
				     "(ceded or halted) waiting for lock %u "
				     "(bound %s)",
				     v->idx,
				     sim_format_time(t - asleep, a, sizeof(a)),
				     v->waiting->idx,
				     sim_format_time(w->p.sleep_bound_ps, b,
						     sizeof(b)));
			return;
		}
		/* A wait its cpu began at a local time past the watchdog's
		 * (it ran ahead and has not synced since) has not begun. */
		if (t <= v->req_ps || t - v->req_ps <= w->p.hang_bound_ps)
			continue;
		rel = v->waiting->releases - v->releases_at_req;
		sim_format_time(t - v->req_ps, a, sizeof(a));
		sim_format_time(w->p.hang_bound_ps, b, sizeof(b));
		if (rel)
			wl_violation(w, WL_VIOL_STARVATION, t,
				     "starvation: vCPU %u has waited %s for "
				     "lock %u (bound %s) while it was released "
				     "%" PRIu64 " times",
				     v->idx, a, v->waiting->idx, b, rel);
		else
			wl_violation(w, WL_VIOL_HANG, t,
				     "hang: vCPU %u has waited %s for lock %u "
				     "(bound %s), never released meanwhile",
				     v->idx, a, v->waiting->idx, b);
		return;
	}
	sim_schedule(w->sim, &w->watchdog, t + watchdog_period(w));
}

/* The drain's bound passed with vCPUs still inside a lock operation. */
static void drain_ev(struct sim_event *ev)
{
	struct wl *w = ev->data;
	sim_time_t t = ev->time_ps;
	char a[16], b[16];

	sim_format_time(t - w->drain_since, b, sizeof(b));
	for (unsigned int i = 0; i < w->nvcpus; i++) {
		struct wl_vcpu *v = &w->vcpus[i];
		sim_time_t asleep = v->cpu->sleep_since;

		if (!v->in_op)
			continue;
		if (v->waiting && asleep != SIM_TIME_NEVER && t > asleep)
			wl_violation(
				w, WL_VIOL_LOST_WAKEUP, t,
				"lost wakeup (drain): vCPU %u has slept "
				"%s (ceded or halted) waiting for lock %u, "
				"%s after the other vCPUs stopped taking "
				"locks",
				v->idx,
				sim_format_time(t - asleep, a, sizeof(a)),
				v->waiting->idx, b);
		else if (v->waiting)
			wl_violation(
				w, WL_VIOL_HANG, t,
				"hang (drain): vCPU %u has waited %s for "
				"lock %u, %s after the other vCPUs stopped "
				"taking locks",
				v->idx,
				sim_format_time(t > v->req_ps ? t - v->req_ps
							      : 0,
						a, sizeof(a)),
				v->waiting->idx, b);
		else
			wl_violation(
				w, WL_VIOL_HANG, t,
				"hang (drain): vCPU %u is still in its "
				"unlock of lock %u %s after the other vCPUs "
				"stopped taking locks",
				v->idx, v->in_op->idx, b);
		return;
	}
}

void wl_drain(struct wl *w, sim_time_t t, sim_time_t bound)
{
	w->draining = true;
	w->drain_since = t;
	if (!w->in_ops) {
		w->sim->stop = true;
		return;
	}
	sim_event_init(&w->drain_ev, drain_ev, w, SIM_PRIO_CHECK);
	sim_schedule(w->sim, &w->drain_ev, t + bound);
}

static void violation_hook(void *data, struct sim_cpu *c, const char *msg)
{
	struct wl *w = data;
	struct wl_vcpu *v = c->workload;

	wl_violation(w, WL_VIOL_LOCK, c->now_ps, "vCPU %u: %s",
		     v ? v->idx : c->id, msg);
}

static void hang_hook(void *data, sim_time_t t, const char *msg)
{
	wl_violation(data, WL_VIOL_HANG, t, "%s", msg);
}

void wl_start(struct wl *w, sim_time_t t)
{
	w->sim->violation_hook = violation_hook;
	w->sim->hang_hook = hang_hook;
	w->sim->dispatch_hook = dispatch_hook;
	w->sim->hook_data = w;
	sim_schedule(w->sim, &w->watchdog, t + watchdog_period(w));
	if ((w->p.type == WL_LOCKTORTURE || w->p.stat_any) &&
	    w->p.stat_interval_ps)
		sim_schedule(w->sim, &w->stat_ev, t + w->p.stat_interval_ps);
}

void wl_reset_stats(struct wl *w, sim_time_t t)
{
	w->ipi_calls = 0;
	w->ipi_wait_ps = 0;
	for (unsigned int i = 0; i < w->p.nlocks; i++) {
		struct wl_lock *l = &w->locks[i];
		struct wl_lock_stats *st = &l->st;

		st->unfinished = 0;
		sim_hist_reset(&st->latency);
		sim_hist_reset(&st->read_latency);
		sim_hist_reset(&st->write_latency);
		sim_hist_reset(&st->hold);
		sim_hist_reset(&st->handoff);
		st->acquisitions = 0;
		st->read_acquisitions = st->write_acquisitions = 0;
		st->lhp_events = l->lhp_n;
		st->lhp_total_ps = st->lhp_max_ps = st->lhp_waiter_ps = 0;
		st->lwp_events = 0;
		st->lwp_total_ps = st->lwp_max_ps = 0;
		st->long_holds = 0;
		st->nested = 0;
		l->lhp_acc_ps = t;
		l->handoff_open = false;
	}
	for (unsigned int i = 0; i < w->nvcpus; i++) {
		struct wl_vcpu *v = &w->vcpus[i];

		v->acquisitions = 0;
		v->units = 0;
		v->read_acquisitions = v->write_acquisitions = 0;
		if ((v->holding || v->outer) && v->pre_since != SIM_TIME_NEVER)
			v->lhp_since =
				t; /* an LHP under way counts from here */
	}
}

void wl_finish(struct wl *w, sim_time_t t)
{
	/*
	 * A wait still under way counts in the latency figures at what it
	 * has waited so far (a lower bound): left out, a lock that starves
	 * its waiters would show only its lucky ones, and a short run its
	 * longest waits least (the finished ones counted by side only).
	 */
	for (unsigned int i = 0; i < w->nvcpus; i++) {
		struct wl_vcpu *v = &w->vcpus[i];

		if (!v->waiting || t <= v->req_ps)
			continue;
		sim_hist_record(&v->waiting->st.latency, t - v->req_ps);
		v->waiting->st.unfinished++;
	}
	/* Close the LHP intervals still open (counted, not ended). */
	for (unsigned int i = 0; i < w->nvcpus; i++) {
		struct wl_vcpu *v = &w->vcpus[i];
		struct wl_lock *held[2] = {v->holding, v->outer};
		sim_time_t d;

		if (v->pre_since == SIM_TIME_NEVER)
			continue;
		for (unsigned int k = 0; k < 2; k++) {
			struct wl_lock *l = held[k];

			if (!l)
				continue;
			lhp_account(l, t);
			d = t > v->lhp_since ? t - v->lhp_since : 0;
			l->st.lhp_total_ps += d;
			if (d > l->st.lhp_max_ps)
				l->st.lhp_max_ps = d;
		}
	}
}

void wl_describe_locks(const struct wl *w, GString *out)
{
	for (unsigned int i = 0; i < w->p.nlocks; i++) {
		const struct wl_lock *l = &w->locks[i];

		g_string_append_printf(out, "  lock %u: ", l->idx);
		if (l->writer && l->holder)
			g_string_append_printf(out, "held by vCPU %u",
					       l->holder->idx);
		else if (l->readers)
			g_string_append_printf(out, "held by %u reader%s",
					       l->readers,
					       l->readers == 1 ? "" : "s");
		else
			g_string_append(out, "free");
		if (l->nwaiters) {
			g_string_append_printf(out,
					       "; %u waiting:", l->nwaiters);
			for (const struct wl_vcpu *v = l->waiters; v;
			     v = v->wnext)
				g_string_append_printf(out, " %u", v->idx);
		}
		g_string_append_c(out, '\n');
	}
}
