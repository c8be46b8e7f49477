// SPDX-License-Identifier: MIT
/*
 * Raw spin loops without an event per iteration: speculation from a
 * checkpoint, and replay when something touches the cpu before the
 * speculation's end.  The mechanism and its invariants (R1, R2) are in
 * sim/engine.h; the decisions in docs/design.md, "Raw spin loops".
 */
#include <glib.h>
#include <string.h>

#include "sim/engine.h"

#define RSPIN_CAP_MIN 64
#define RSPIN_CAP_MAX (1u << 20)

static struct sim_rspin *rspin_of(struct sim_cpu *c)
{
	if (!c->rs) {
		c->rs = g_new0(struct sim_rspin, 1);
		c->rs->cap = RSPIN_CAP_MIN;
	}
	return c->rs;
}

void sim_rspin_free(struct sim_cpu *c)
{
	if (!c->rs)
		return;
	sim_coro_ckpt_free(&c->rs->ck);
	g_free(c->rs->old);
	g_free(c->rs->cur);
	g_free(c->rs->snap);
	g_free(c->rs);
	c->rs = NULL;
}

void sim_rspin_reset_stats(struct sim_cpu *c, sim_time_t t)
{
	struct sim_rspin *rs = c->rs;

	if (!rs || rs->phase == SIM_RS_OFF)
		return;
	memset(rs->acct_ps, 0, sizeof(rs->acct_ps));
	memset(rs->counters, 0, sizeof(rs->counters));
	memset(rs->snap_counters, 0, sizeof(rs->snap_counters));
	if (rs->acct_since < t)
		rs->acct_since = t;
}

static size_t line_bytes(const struct sim_mem *m)
{
	return (size_t)1 << m->line_shift;
}

static uint8_t *line_addr(const struct sim_mem *m, size_t line)
{
	return m->base + (line << m->line_shift);
}

static int find_line(const struct sim_rspin *rs, size_t line)
{
	for (unsigned int i = 0; i < rs->nlines; i++)
		if (rs->lines[i] == line)
			return (int)i;
	return -1;
}

/* --- the checkpoint's cpu state --- */

static void save_cpu(struct sim_cpu *c, struct sim_rspin *rs)
{
	rs->t0 = c->now_ps;
	rs->access_ps = c->access_ps;
	rs->store_done_ps = c->store_done_ps;
	rs->acct_state = (int)c->acct_state;
	rs->acct_since = c->acct_since;
	memcpy(rs->acct_ps, c->acct_ps, sizeof(rs->acct_ps));
	memcpy(rs->counters, c->counters, sizeof(rs->counters));
	rs->mrng = c->mrng;
	rs->spin_acct_saved = rs->spin_acct;
}

static void restore_cpu(struct sim_cpu *c, struct sim_rspin *rs)
{
	c->now_ps = rs->t0;
	c->access_ps = rs->access_ps;
	c->store_done_ps = rs->store_done_ps;
	c->acct_state = (enum sim_acct)rs->acct_state;
	c->acct_since = rs->acct_since;
	memcpy(c->acct_ps, rs->acct_ps, sizeof(rs->acct_ps));
	memcpy(c->counters, rs->counters, sizeof(rs->counters));
	c->mrng = rs->mrng;
	rs->spin_acct = rs->spin_acct_saved;
	/* The checkpoint's switch to spin accounting, done again. */
	if (rs->spin_acct_ck) {
		sim_cpu_set_acct(c, SIM_ACCT_SPIN, rs->t0);
		rs->spin_acct = true;
	}
}

/* Spin accounting: from the checkpoint of a raw loop to its first
 * operation that is not a read or a relax. */
static void spin_acct_end(struct sim_cpu *c, struct sim_rspin *rs)
{
	if (!rs->spin_acct)
		return;
	rs->spin_acct = false;
	if (c->acct_state == SIM_ACCT_SPIN && !c->wait.active)
		sim_cpu_set_acct(c, SIM_ACCT_RUN, c->now_ps);
}

/* --- watches on the lines a speculation read --- */

static void watch_lines(struct sim_cpu *c, struct sim_rspin *rs)
{
	struct sim_line *lines = c->sim->mem.lines;

	for (unsigned int i = 0; i < rs->nlines; i++) {
		struct sim_watch *w = &rs->watch[i];
		struct sim_line *l = &lines[rs->lines[i]];

		w->cpu = c;
		w->line = rs->lines[i];
		w->off_ps = 0;
		w->rspin = true;
		w->prev = NULL;
		w->next = l->watchers;
		if (l->watchers)
			l->watchers->prev = w;
		l->watchers = w;
	}
	rs->nwatch = rs->nlines;
}

static void unwatch_lines(struct sim_cpu *c, struct sim_rspin *rs)
{
	struct sim_line *lines = c->sim->mem.lines;

	for (unsigned int i = 0; i < rs->nwatch; i++) {
		struct sim_watch *w = &rs->watch[i];

		if (w->prev)
			w->prev->next = w->next;
		else
			lines[w->line].watchers = w->next;
		if (w->next)
			w->next->prev = w->prev;
		w->next = w->prev = NULL;
	}
	rs->nwatch = 0;
}

/* --- replay --- */

/* Put the old bytes of the lines that changed since the checkpoint in
 * memory (@in), or the current ones back (!@in).  Nobody else runs in
 * between (R1). */
static void swap_lines(struct sim_cpu *c, struct sim_rspin *rs, bool in)
{
	const struct sim_mem *m = &c->sim->mem;
	size_t lb = line_bytes(m);

	for (unsigned int i = 0; i < rs->nlines; i++) {
		uint8_t *mem = line_addr(m, rs->lines[i]);

		if (m->lines[rs->lines[i]].version == rs->versions[i])
			continue;
		if (in) {
			memcpy(rs->cur + i * lb, mem, lb);
			memcpy(mem, rs->old + i * lb, lb);
		} else {
			memcpy(mem, rs->cur + i * lb, lb);
		}
	}
	rs->swapped = in;
}

/* The replay has reached the event that stopped the speculation: the
 * event takes effect here (its delay is added) and the cpu goes on. */
static void replay_check(struct sim_cpu *c, struct sim_rspin *rs)
{
	if (c->now_ps < rs->until)
		return;
	/* Its reads at the event's very time came before the event. */
	if (c->now_ps == rs->until && rs->until_reads)
		return;
	if (rs->swapped)
		swap_lines(c, rs, false);
	c->now_ps += rs->resume_ps - rs->until;
	rs->phase = SIM_RS_OFF;
	/* Still in the loop, as iterating would be. */
	rs->pure_steps = 2;
	rs->step_impure = false;
}

static void replay_start(struct sim_cpu *c, struct sim_rspin *rs)
{
	rs->resume_ps = c->now_ps; /* when it was resumed: set on entry */
	c->now_ps = rs->t0;
	swap_lines(c, rs, true);
	rs->phase = SIM_RS_REPLAY;
	replay_check(c, rs);
}

/* --- speculation --- */

/*
 * The speculation ends at local time te (the code is about to do
 * something other than read a held line or relax, or the cap is
 * reached).  Unless nothing can come before te, wait there watching the
 * lines read; an event before te rewinds the cpu (sim_rspin_abort) and
 * this never returns.  Returned: the speculation was the truth.
 */
static void coroutine_fn spec_end(struct sim_cpu *c, struct sim_rspin *rs,
				  bool cap)
{
	rs->te = c->now_ps;
	if (sim_cpu_past_horizon(c)) {
		watch_lines(c, rs);
		rs->phase = SIM_RS_WAIT;
		sim_cpu_yield(c);
		if (rs->phase == SIM_RS_REWIND)
			sim_coro_jump(&rs->ck); /* back into spec_start */
		unwatch_lines(c, rs);
	}
	rs->phase = SIM_RS_OFF;
	rs->step_impure = false;
	if (cap) {
		/* Still spinning: speculate again at the next relax, on a
		 * longer leash. */
		rs->pure_steps = 2;
		rs->cap = SIM_MIN(rs->cap * 2, (uint64_t)RSPIN_CAP_MAX);
	} else {
		rs->pure_steps = 0;
		rs->cap = RSPIN_CAP_MIN;
		spin_acct_end(c, rs);
	}
}

/* The speculation was steady: once it is known to be the truth, park. */
static void coroutine_fn spec_park(struct sim_cpu *c, struct sim_rspin *rs)
{
	sim_time_t period = c->now_ps - rs->snap_t;

	spec_end(c, rs, true);
	rs->cap = RSPIN_CAP_MIN;
	sim_raw_park(c, rs->lines, rs->versions, rs->iter_off, rs->nlines,
		     period, rs->loop_cost);
	if (rs->park_replay) {
		/* Woken inside an iteration (engine.c's park_replay_from):
		 * replay it from its start, t0. */
		rs->park_replay = false;
		rs->resume_ps = c->now_ps;
		c->now_ps = rs->t0;
		swap_lines(c, rs, true);
		rs->phase = SIM_RS_REPLAY;
		replay_check(c, rs);
	}
}

static void iter_reset(struct sim_cpu *c, struct sim_rspin *rs)
{
	rs->iter_start = c->now_ps;
	rs->iter_read = 0;
	rs->iter_filled = false;
}

/*
 * Steady state.  A speculation snapshots the caller's whole state (its
 * registers and frames, from @frame up: sim_coro_frame_call) at its first
 * relax and compares it at its second.  Equal, with the same lock-event
 * counts, the same lines read (each once more, all hits), and no clock
 * read, every later iteration is the same as this one: same reads of the
 * same bytes, same time.  The loop then waits as an event-driven wait
 * does (sim_raw_park), with this iteration's period and read offsets,
 * until a line it reads changes or something stops it, and goes on from
 * here.  Not equal (a counter, a timestamp), it runs on.
 */
static bool coroutine_fn steady(struct sim_cpu *c, struct sim_rspin *rs,
				const void *frame)
{
	const char *top = sim_coro_stack_top(c->co);
	size_t len = (size_t)(top - (const char *)frame);

	if (rs->iters == 1) {
		if (len > rs->snap_cap) {
			rs->snap_cap = len * 2;
			rs->snap = g_realloc(rs->snap, rs->snap_cap);
		}
		memcpy(rs->snap, frame, len);
		rs->snap_len = len;
		rs->snap_frame = frame;
		rs->snap_t = c->now_ps;
		memcpy(rs->snap_counters, c->counters, sizeof(c->counters));
		rs->snap_nlines = rs->nlines;
		rs->timed = false;
		return false;
	}
	if (rs->iters != 2 || frame != rs->snap_frame || rs->timed ||
	    rs->iter_filled || !rs->nlines || rs->nlines != rs->snap_nlines ||
	    rs->nlines > SIM_WAIT_MAX_LINES ||
	    rs->iter_read != (1u << rs->nlines) - 1 || len != rs->snap_len ||
	    memcmp(frame, rs->snap, len) ||
	    memcmp(c->counters, rs->snap_counters, sizeof(c->counters)))
		return false;
	return true;
}

static void coroutine_fn spec_start(struct sim_cpu *c, struct sim_rspin *rs)
{
	size_t lb = line_bytes(&c->sim->mem);

	if (!rs->old) {
		rs->old = g_malloc(SIM_RSPIN_LINES * lb);
		rs->cur = g_malloc(SIM_RSPIN_LINES * lb);
	}
	save_cpu(c, rs);
	rs->nlines = 0;
	rs->iters = 0;
	c->sim->rspin_specs++;
	if (sim_coro_checkpoint(&rs->ck)) {
		replay_start(c, rs);
		return;
	}
	rs->spin_acct_ck = !rs->spin_acct && c->acct_state == SIM_ACCT_RUN;
	if (rs->spin_acct_ck) {
		sim_cpu_set_acct(c, SIM_ACCT_SPIN, c->now_ps);
		rs->spin_acct = true;
	}
	rs->phase = SIM_RS_SPEC;
	iter_reset(c, rs);
}

/* The end of a relax outside a speculation: past the horizon, the loop
 * syncs at the relax's end, its pending event (a change of the share
 * before then re-times it, sim_work_share_changed); from its second pure
 * step it speculates. */
static void coroutine_fn relax_end_off(struct sim_cpu *c, struct sim_rspin *rs)
{
	sim_cpu_sync(c);
	if (rs->pure_steps < 2 || !c->dispatched)
		return;
	if (c->sim->rspin_on) {
		rs->slow = sim_cpu_slow(c);
		spec_start(c, rs);
	} else if (!rs->spin_acct && c->acct_state == SIM_ACCT_RUN) {
		/* The same accounting without speculation. */
		sim_cpu_set_acct(c, SIM_ACCT_SPIN, c->now_ps);
		rs->spin_acct = true;
	}
}

void coroutine_fn sim_relax(struct sim_cpu *c, sim_time_t base_ps,
			    const void *frame)
{
	struct sim *s = c->sim;
	struct sim_rspin *rs = rspin_of(c);
	sim_time_t cost;

	if (rs->phase == SIM_RS_OFF) {
		if (rs->step_impure)
			rs->pure_steps = 0;
		else
			rs->pure_steps++;
		rs->step_impure = false;
	}
	/* A raw loop's relaxes all cost the same, drawn at its second (as
	 * an event-driven wait draws one per wait). */
	if (rs->phase != SIM_RS_OFF || rs->pure_steps > 2) {
		cost = rs->loop_cost;
	} else {
		cost = sim_mem_jitter(&s->mem, base_ps, &c->mrng);
		if (rs->pure_steps == 2)
			rs->loop_cost = cost;
	}
	/* A relax is a stretch of pipeline work (sim_stretch_retime).  In a
	 * replay the core's share is the checkpoint's up to the event that
	 * ended the speculation, and from it slow_after: a relax across it,
	 * or issued after it, is re-timed there as the loop's is. */
	sim_stretch_set(&c->work, c->now_ps, cost);
	if (rs->phase == SIM_RS_REPLAY) {
		sim_time_t end = c->now_ps + sim_slow_scale(rs->slow, cost);

		if (end > rs->until && rs->slow_after != rs->slow)
			end = sim_stretch_retime(&c->work, rs->slow,
						 rs->slow_after, rs->until);
		c->now_ps = end;
	} else {
		c->now_ps += sim_cpu_scale(c, cost);
	}
	c->work_end = c->now_ps;
	switch (rs->phase) {
	case SIM_RS_SPEC:
		s->rspin_relaxes++;
		++rs->iters;
		if (frame && steady(c, rs, frame)) {
			spec_park(c, rs);
			return;
		}
		if (rs->iters >= rs->cap)
			spec_end(c, rs, true);
		else
			iter_reset(c, rs);
		return;
	case SIM_RS_REPLAY:
		replay_check(c, rs);
		/* A replay that ends in this relax goes on as the loop does
		 * (session 21: it ran two more iterations with an event each
		 * before speculating again). */
		if (rs->phase == SIM_RS_OFF)
			relax_end_off(c, rs);
		return;
	case SIM_RS_OFF:
		relax_end_off(c, rs);
		return;
	case SIM_RS_WAIT:
	case SIM_RS_REWIND:
		break;
	}
	QSIM_BUG_ON(1, "relax while waiting at a speculation's end");
}

bool coroutine_fn sim_rspin_read(struct sim_cpu *c, size_t line)
{
	struct sim_rspin *rs = c->rs;
	const struct sim_mem *m = &c->sim->mem;
	int i;

	if (rs->phase == SIM_RS_REPLAY) {
		replay_check(c, rs);
		if (rs->phase != SIM_RS_REPLAY)
			return false;
		i = find_line(rs, line);
		if (i < 0 && c->now_ps == rs->until && rs->until_reads) {
			/*
			 * The read the speculation ended at (a miss, not
			 * recorded), at the event's very time: it is the
			 * speculation's end, done for real after the event,
			 * as an impure operation there is.  A cpu that came
			 * first would have run at its event there; one that
			 * was aborted at its end comes after the change by
			 * the keys there, as the loop would (docs/design.md,
			 * "Equal time").  Found by session 18's kernel-tree
			 * runs, when a sibling's level change could still be
			 * made ahead of the event clock.
			 */
			rs->until_reads = false;
			replay_check(c, rs);
			return false;
		}
		QSIM_BUG_ON(i < 0,
			    "cpu %u: raw spin replay read another line "
			    "(%zu; the speculation read %u, first %zu) at %lu, "
			    "checkpoint %lu, until %lu",
			    c->id, line, rs->nlines, rs->lines[0],
			    (unsigned long)c->now_ps, (unsigned long)rs->t0,
			    (unsigned long)rs->until);
	} else {
		QSIM_BUG_ON(rs->phase != SIM_RS_SPEC);
		i = find_line(rs, line);
		if (i < 0) {
			const struct sim_line *l = &m->lines[line];
			int dom = sim_mem_domain(m, c->pcpu);

			/* A miss changes the line, and a read of a line whose
			 * write by this cache is still in flight waits for it
			 * (line_blocked): neither is a spin. */
			if (!sim_read_hits(c, line) ||
			    rs->nlines == SIM_RSPIN_LINES) {
				/* Ended here, still in the loop: whether this
				 * read is a spin is judged when it is done for
				 * real (sim_access), in time order, where a
				 * sibling's miss may have begun a fill of the
				 * line into this cache (session 20: the loop
				 * was taken as left, its relax drawn afresh). */
				spec_end(c, rs, true);
				rs->cap = RSPIN_CAP_MIN;
				return false;
			}
			i = (int)rs->nlines++;
			rs->lines[i] = line;
			rs->versions[i] = l->version;
			memcpy(rs->old + (size_t)i * line_bytes(m),
			       line_addr(m, line), line_bytes(m));
			rs->fill_ps[i] = l->fill_dom == dom ? l->fill_until : 0;
		}
	}
	if (rs->phase == SIM_RS_SPEC) {
		if (!(rs->iter_read & (1u << i))) {
			rs->iter_read |= 1u << i;
			rs->iter_off[i] = c->now_ps - rs->iter_start;
		}
		if (rs->fill_ps[i] > c->now_ps + m->cost.hit_ps)
			rs->iter_filled = true;
	}
	/* A hit, as sim_mem_touch gives it for a line the cache holds (not
	 * a sibling's store unread by this thread: sim_read_hits). */
	c->access_ps = c->now_ps;
	c->now_ps = SIM_MAX(c->now_ps + m->cost.hit_ps, rs->fill_ps[i]);
	return true;
}

void coroutine_fn sim_rspin_impure(struct sim_cpu *c)
{
	struct sim_rspin *rs = c->rs;

	switch (rs->phase) {
	case SIM_RS_OFF:
		rs->step_impure = true;
		rs->pure_steps = 0;
		spin_acct_end(c, rs);
		return;
	case SIM_RS_SPEC:
		spec_end(c, rs, false);
		return;
	case SIM_RS_REPLAY:
		/* Not a read: the replay ends here even at the write's time
		 * (where a cpu that came first would not have been aborted:
		 * it waited at its speculation's end, an event there). */
		rs->until_reads = false;
		replay_check(c, rs);
		QSIM_BUG_ON(
			rs->phase == SIM_RS_REPLAY,
			"cpu %u: raw spin replay left the loop early: at %lu, "
			"until %lu, checkpoint %lu, speculation end %lu",
			c->id, (unsigned long)c->now_ps,
			(unsigned long)rs->until, (unsigned long)rs->t0,
			(unsigned long)rs->te);
		rs->step_impure = true;
		spin_acct_end(c, rs);
		return;
	case SIM_RS_WAIT:
	case SIM_RS_REWIND:
		break;
	}
	QSIM_BUG_ON(1, "cpu %u acts while waiting at a speculation's end",
		    c->id);
}

bool sim_rspin_abort_at(struct sim_cpu *c, sim_time_t x, bool reads_first)
{
	struct sim_rspin *rs = c->rs;
	struct sim *s = c->sim;

	if (!rs || rs->phase != SIM_RS_WAIT)
		return false;
	QSIM_BUG_ON(x > rs->te,
		    "cpu %u: an event at %lu reached a raw spin "
		    "that waits at %lu",
		    c->id, (unsigned long)x, (unsigned long)rs->te);
	unwatch_lines(c, rs);
	sim_evq_cancel(&s->q, &c->ev);
	/* Its stack may be in use right now (events run on the stack of
	 * the cpu that yielded): it rewinds itself when it next runs. */
	restore_cpu(c, rs);
	rs->phase = SIM_RS_REWIND;
	rs->until = SIM_MAX(x, rs->t0);
	rs->until_reads = reads_first && x >= rs->t0;
	rs->slow_after = rs->slow;
	rs->cut = false;
	/* It ran too far: start the next one on a short leash again. */
	rs->cap = RSPIN_CAP_MIN;
	s->rspin_aborts++;
	/* Ready to replay up to the event; the caller applies it. */
	c->state = SIM_CPU_READY;
	sim_evq_push(&s->q, &c->ev, rs->until);
	return true;
}

bool sim_rspin_abort(struct sim_cpu *c, sim_time_t x)
{
	return sim_rspin_abort_at(c, x, false);
}

void sim_rspin_core_changed(struct sim *s, int pcpu, sim_time_t t,
			    const uint32_t *before)
{
	unsigned int smt = s->mem.topo.smt ? s->mem.topo.smt : 1;
	unsigned int lo = (unsigned int)pcpu / smt * smt;

	for (unsigned int p = lo; p < lo + smt && p < s->mem.topo.npcpus; p++) {
		struct sim_cpu *o = s->on_pcpu[p];

		/* Its own speed did not move: its loop runs as it ran. */
		if (o && sim_cpu_slow(o) == before[p - lo])
			continue;
		if (o && o->rs && o->rs->phase == SIM_RS_WAIT) {
			/* A speculation that ended before the change stands
			 * as it ran.  (Until session 19 a running sibling
			 * changed its level ahead of the event clock, past
			 * such an end; it now syncs first, so t <= te here
			 * and this is a guard.) */
			if (t <= o->rs->te &&
			    sim_rspin_abort_at(o, t, sim_cpu_first_at(s, o, t)))
				o->rs->slow_after = sim_cpu_slow(o);
		} else if (o && o->rs && o->rs->phase == SIM_RS_REWIND) {
			/* Rewound at t by an earlier event there that did not
			 * cut what it was doing (a write, a change of the
			 * share): its replay goes on from t at this share. */
			if (t == o->rs->until && !o->rs->cut)
				o->rs->slow_after = sim_cpu_slow(o);
		} else if (o) {
			sim_wait_share_changed(o, t, before[p - lo]);
			sim_work_share_changed(o, t, before[p - lo]);
		}
	}
}
