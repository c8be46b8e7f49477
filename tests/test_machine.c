// SPDX-License-Identifier: MIT
/*
 * The machine model's mechanisms against figures worked out by hand
 * (docs/cost-model.md): a test-and-set hand-off that grows with its
 * spinners, the SMT share of a core, and the seeded arbitration of a
 * busy line.  Costs are tests/testutil.c's: on-chip transfer 25300 ps,
 * other chip 90700, memory 100900, atomic 8100, no jitter, one read
 * served at a time (read_fanout 0 counts as 1), no per-copy
 * invalidation term.
 */
#include <math.h>

#include "qsim_kernel.h"
#include "tests/testutil.h"

#define CHIP   25300
#define REMOTE 90700
#define MEM    100900
#define ATOMIC 8100

/*
 * --- A test-and-set hand-off with N spinners ---
 *
 * vCPU 0 holds the tas lock to 100 us; N others spin on it, each on a
 * core of its own (one cache each), all on one chip, with locked atomics.
 * At the release store the N spinners hold copies: the store invalidates
 * them (CHIP, the line busy until then).  The spinners' re-reads wait for
 * the line and are served one at a time (each CHIP long), in an order
 * drawn at random; each reader sees the lock free and asks for it with
 * an atomic.  The first atomic served wins, CHIP + ATOMIC after its
 * grant (it invalidates the other copies).  So the hand-off is
 * CHIP * (1 + K) + CHIP + ATOMIC, K the reads served before the first
 * atomic.  Without jitter a reader's atomic arrives exactly when the line
 * frees after serving it, and the line's event at that time comes before
 * the cpu's (priorities at equal time: lines, then cpus; E1): so the
 * atomic misses that choice and joins the one after.  Each choice takes a
 * waiting atomic with probability a / (r + a), a read otherwise; E[K] by
 * that recursion, below, from N reads, no atomic.  (Before cpus kept the
 * priority order at equal times, the atomic joined at once: E[K] was 1.5
 * for two spinners, now 2.)
 */
static double reads_before_atomic(unsigned int r, unsigned int a,
				  unsigned int pending)
{
	if (!r)
		return 0;
	return (double)r / (r + a) *
	       (1 + reads_before_atomic(r - 1, a + pending, 1));
}

static struct tu_rig R;

static sim_time_t tas_handoff(unsigned int n, uint64_t seed)
{
	static const struct tu_step holder[] = {{TU_LOCK, 0},
						{TU_WORK, TU_US(98)},
						{TU_MARK, 0},
						{TU_UNLOCK, 0},
						{TU_END, 0}};
	static const struct tu_step spinner[] = {
		{TU_WORK, TU_US(10)}, {TU_LOCK, 0},   {TU_MARK, 0},
		{TU_WORK, TU_US(1)},  {TU_UNLOCK, 0}, {TU_END, 0}};
	struct tu_script sc[9];
	struct hv_params hp = tu_hv_params(n + 1);
	sim_time_t first = SIM_TIME_NEVER;

	ck_assert_uint_le(n + 1, G_N_ELEMENTS(sc));
	memset(sc, 0, sizeof(sc));
	sc[0].steps = holder;
	for (unsigned int i = 1; i <= n; i++)
		sc[i].steps = spinner;
	tu_rig_smt = 1;
	tu_rig_seed = seed;
	tu_rig_init(&R, &hp, "tas", NULL, false, sc, n + 1, 1);
	tu_rig_start(&R);
	sim_run(&R.s, 10 * SIM_MS);
	for (unsigned int i = 1; i <= n; i++)
		first = SIM_MIN(first, sc[i].marks[0]);
	tu_rig_destroy(&R);
	tu_rig_smt = 4;
	tu_rig_seed = 0;
	/* The release is the holder's unlock call, at its mark. */
	return first - sc[0].marks[0];
}

START_TEST(test_tas_handoff_grows)
{
	static const unsigned int spinners[] = {1, 2, 4, 8};
	double prev = 0;

	for (size_t k = 0; k < G_N_ELEMENTS(spinners); k++) {
		unsigned int n = spinners[k];
		double want = CHIP * (1 + reads_before_atomic(n, 0, 0)) + CHIP +
			      ATOMIC;
		double sum = 0;
		int seeds = n == 1 ? 1 : 300;

		for (int s = 1; s <= seeds; s++)
			sum += (double)tas_handoff(n, (uint64_t)s);
		/* One spinner: exactly 3 transfers and the atomic.  More: the
		 * mean over seeds within 5% of the expectation (K's spread
		 * is at most a few transfers). */
		if (n == 1)
			ck_assert_uint_eq((sim_time_t)sum, 3 * CHIP + ATOMIC);
		ck_assert_msg(fabs(sum / seeds - want) <= 0.05 * want,
			      "%u spinners: mean hand-off %.0f ps, expected "
			      "%.0f",
			      n, sum / seeds, want);
		ck_assert(sum / seeds > prev);
		prev = sum / seeds;
	}
}
END_TEST

/*
 * --- Two SMT siblings ---
 *
 * A core whose throughput is 143% with two threads busy (POWER8's SMT2
 * figure): two threads computing W each take W / 0.715; a thread alone
 * takes W; beside a sibling spinning at low priority (weight 14%) a
 * thread gets 1.43 interpolated at 1.14 threads, 1.0602, over 1.14: it
 * runs at 0.93.  (The engine keeps speeds in 1/65536 steps: the times
 * agree to 2e-5.)
 */
static struct sim S;

struct worker {
	sim_time_t work_ps;
	bool low;      /* spin at low priority instead (forever) */
	bool then_low; /* after its work, spin at low priority (forever) */
	bool blip;     /* as a sibling: blip to normal priority every 100 ns */
	bool by_wait;  /* as a reading sibling: go low by a wait, not HMT_low */
	sim_time_t done;
};

static void worker_main(struct sim_cpu *c, void *arg)
{
	struct worker *w = arg;

	if (w->low) {
		sim_cpu_set_hmt_low(c, true);
		sim_cpu_work(c, 10 * SIM_MS);
		return;
	}
	sim_cpu_work(c, w->work_ps);
	w->done = c->now_ps;
	if (w->then_low) {
		sim_cpu_set_hmt_low(c, true);
		sim_cpu_work(c, 10 * SIM_MS);
	}
}

/* One SMT2 core (of a chip of 8) with POWER8's SMT2 figure. */
static const struct sim_topo smt2 = {.smt = 2,
				     .cores_per_chip = 8,
				     .npcpus = 4,
				     .smt_tput = {100, 143},
				     .hmt_low_pct = 14};

static void smt_run(struct worker *a, struct worker *b)
{
	struct sim_cpu *ca, *cb = NULL;

	sim_init(&S, 1 << 20, 128, &tu_cost, &smt2, 64 << 10);
	/* The sibling first: cpus acting at the same time go in id order,
	 * so it has set its priority when a's work starts. */
	if (b)
		cb = sim_cpu_create(&S, worker_main, b);
	ca = sim_cpu_create(&S, worker_main, a);
	sim_mem_seal(&S.mem);
	if (cb)
		sim_cpu_dispatch(cb, 0, 1);
	sim_cpu_dispatch(ca, 0, 0);
	sim_run(&S, 100 * SIM_MS);
	sim_destroy(&S);
}

START_TEST(test_smt_siblings)
{
	const sim_time_t w = SIM_MS;
	struct worker a = {.work_ps = w}, b = {.work_ps = w};

	smt_run(&a, NULL);
	ck_assert_uint_eq(a.done, w);
	smt_run(&a, &b);
	ck_assert(fabs((double)a.done - w / 0.715) < 2e-5 * w);
	ck_assert(fabs((double)b.done - w / 0.715) < 2e-5 * w);
	b.low = true;
	smt_run(&a, &b);
	ck_assert_msg(fabs((double)a.done - w * 1.14 / 1.0602) < 2e-5 * w,
		      "%" PRIu64, a.done);
	/* The sibling goes to low priority half way through a's work (at
	 * w/2 / 0.715, when a has done w/2): a does the rest at the speed
	 * it has beside a low sibling, 1.0602 / 1.14 (session 16; it kept
	 * the shared speed to the end of its stretch, w / 0.715, before). */
	b.low = false;
	b.then_low = true;
	b.work_ps = w / 2;
	smt_run(&a, &b);
	ck_assert_msg(fabs((double)b.done - w / 2 / 0.715) < 2e-5 * w,
		      "%" PRIu64, b.done);
	ck_assert_msg(fabs((double)a.done -
			   (w / 2 / 0.715 + w / 2 * 1.14 / 1.0602)) < 2e-5 * w,
		      "%" PRIu64, a.done);
}
END_TEST

/*
 * An event-driven wait is the loop it stands for, on an SMT core too
 * (session 15: the wait stretched its hits by the core's share where the
 * loop's reads are the cache's latency, and kept the share it began at
 * while siblings changed).  The waiter spins for 2000 evaluations of a
 * line nobody writes, as spin_until_cond_timeout and as the loop, beside
 * a sibling that computes W and then spins at low priority, which raises
 * the waiter's share; the simpler reference is the loop, run for every
 * evaluation.  The two end at the same picosecond; the earlier the
 * sibling's change, the earlier the end; W = 20 us of work outlasts the
 * wait.
 */
static u32 *wline, *pline, *w2line;

struct waiter {
	bool raw;
	bool two;	   /* its condition reads w2line too */
	bool spin;	   /* spin_cpu_relax() for cpu_relax() */
	sim_time_t *reads; /* the raw loop's evaluations' start times */
	sim_time_t done;
	uint64_t left;
};

static void waiter_main(struct sim_cpu *c, void *arg)
{
	struct waiter *w = arg;
	uint64_t n = 2000;

	if (w->raw) {
		for (; n; n--) {
			if (w->reads)
				w->reads[2000 - n] = c->now_ps;
			if (READ_ONCE(*wline) || (w->two && READ_ONCE(*w2line)))
				break;
			if (w->spin)
				spin_cpu_relax();
			else
				cpu_relax();
		}
	} else if (w->two) {
		n = spin_until_cond_timeout(
			READ_ONCE(*wline) != 0 || READ_ONCE(*w2line) != 0, n);
	} else if (w->spin) {
		n = spin_until_cond_limit(READ_ONCE(*wline) != 0, n);
	} else {
		n = spin_until_cond_timeout(READ_ONCE(*wline) != 0, n);
	}
	w->left = n;
	w->done = c->now_ps;
}

/*
 * The sibling: busy for work_ps, then spinning at low priority in steps
 * of 100 ns; with blip, after each step it goes to normal priority and
 * back at one instant (as lk_spin_periodic's wait_end and wait_begin).
 */
static sim_time_t blip_at[64]; /* the first blips' times */

static void sibling_main(struct sim_cpu *c, void *arg)
{
	struct worker *w = arg;

	sim_cpu_work(c, w->work_ps);
	sim_cpu_set_hmt_low(c, true);
	for (int i = 0; i < 100000; i++) {
		sim_cpu_work(c, 100 * SIM_NS);
		if (w->blip) {
			if (i < (int)G_N_ELEMENTS(blip_at))
				blip_at[i] = c->now_ps;
			sim_cpu_set_hmt_low(c, false);
			sim_cpu_set_hmt_low(c, true);
		}
	}
}

/* The costs two_cpu_run simulates with, and whether raw loops speculate
 * (sim/rspin.c; off, an event per iteration: the simpler reference). */
static const struct sim_cost *run_cost = &tu_cost;
static bool run_rspin = true;

/* Two cpus on @topo: @sib_fn on pcpu @sib_pcpu (created first: at equal
 * times it acts first), @wait_fn on pcpu 0, both from 0, with the
 * 128-byte line wline and the sibling's own line pline.  Returns the
 * events run. */
static uint64_t two_cpu_run(const struct sim_topo *topo,
			    void (*sib_fn)(struct sim_cpu *, void *),
			    void *sib_arg, int sib_pcpu,
			    void (*wait_fn)(struct sim_cpu *, void *),
			    void *wait_arg)
{
	struct sim_cpu *cw, *cs;
	uint64_t events;

	sim_init(&S, 1 << 20, 128, run_cost, topo, 64 << 10);
	S.rspin_on = run_rspin && S.rspin_on;
	wline = sim_mem_alloc(&S.mem, 128, 128);
	w2line = sim_mem_alloc(&S.mem, 128, 128);
	pline = sim_mem_alloc(&S.mem, 128, 128);
	cs = sim_cpu_create(&S, sib_fn, sib_arg);
	cw = sim_cpu_create(&S, wait_fn, wait_arg);
	sim_mem_seal(&S.mem);
	sim_cpu_dispatch(cs, 0, sib_pcpu);
	sim_cpu_dispatch(cw, 0, 0);
	sim_run(&S, 100 * SIM_MS);
	events = S.events;
	sim_destroy(&S);
	return events;
}

static uint64_t share_run_on(struct waiter *wt, struct worker *sib,
			     const struct sim_topo *topo)
{
	return two_cpu_run(topo, sibling_main, sib, 1, waiter_main, wt);
}

static uint64_t share_run(struct waiter *wt, struct worker *sib)
{
	return share_run_on(wt, sib, &smt2);
}

START_TEST(test_wait_follows_share)
{
	static const sim_time_t ws[] = {20000000, 4000000, 2345678, 1000000};
	sim_time_t prev = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(ws); i++) {
		struct worker sa = {.work_ps = ws[i]}, sb = sa;
		struct waiter ev = {.raw = false}, raw = {.raw = true};

		share_run(&ev, &sa);
		share_run(&raw, &sb);
		ck_assert_uint_eq(ev.left, 0);
		ck_assert_uint_eq(raw.left, 0);
		ck_assert_msg(ev.done == raw.done,
			      "W %" PRIu64 ": wait ends at %" PRIu64
			      ", loop at %" PRIu64,
			      ws[i], ev.done, raw.done);
		if (prev)
			ck_assert_uint_lt(ev.done, prev);
		prev = ev.done;
	}
}
END_TEST

/*
 * A change of the core's share at the very picosecond of an evaluation
 * (session 18).  The waiter spins alone on its core; a busy sibling is
 * dispatched at T, a hypervisor event, which comes before the cpus at
 * its time: so in the loop with an event per iteration (raw spin off, the
 * simpler reference) the read at T comes after it and the relax after
 * that read is timed at the shared speed.  The event-driven wait took
 * the evaluation at T as begun before the change (its relax at the old
 * speed); it must end where the loop ends, as the speculated loop must,
 * with T at 40 evaluations' starts, taken from the reference run with no
 * sibling, and at points inside them: in the read, where the relax after
 * it is issued after the change (session 20: the loop timed it at the
 * old share when the read began before the change, the wait from the
 * next evaluation), and inside the relax, which each path re-times part
 * way (sim_stretch_retime).
 */
static sim_time_t reads_at[2000];
static struct sim_cpu *late_cpu;

static void late_dispatch(struct sim_event *ev)
{
	sim_cpu_dispatch(late_cpu, ev->time_ps, 1);
}

static void late_sibling_run(struct waiter *wt, sim_time_t t)
{
	struct worker sib = {.work_ps = 50 * SIM_MS};
	struct sim_event late;
	struct sim_cpu *cw;

	sim_init(&S, 1 << 20, 128, run_cost, &smt2, 64 << 10);
	S.rspin_on = run_rspin && S.rspin_on;
	wline = sim_mem_alloc(&S.mem, 128, 128);
	w2line = sim_mem_alloc(&S.mem, 128, 128);
	late_cpu = sim_cpu_create(&S, sibling_main, &sib);
	cw = sim_cpu_create(&S, waiter_main, wt);
	sim_mem_seal(&S.mem);
	sim_cpu_dispatch(cw, 0, 0);
	sim_event_init(&late, late_dispatch, NULL, SIM_PRIO_HV);
	sim_schedule(&S, &late, t);
	sim_run(&S, 100 * SIM_MS);
	sim_destroy(&S);
}

static void share_change_cases(bool two)
{
	/* Into the evaluation: its read (1 ns), its relax's issue, inside
	 * the relax (2 ns alone on the core) and its last picosecond; with
	 * two reads, the second read and its relax 1 ns later. */
	static const sim_time_t ds1[] = {0, 499, 998, 1000, 1777, 2999};
	static const sim_time_t ds2[] = {0,    499,  998,  1000, 1499,
					 1998, 2000, 2777, 3999};
	const sim_time_t *ds = two ? ds2 : ds1;
	size_t nd = two ? G_N_ELEMENTS(ds2) : G_N_ELEMENTS(ds1);
	struct waiter grid = {.raw = true, .two = two, .reads = reads_at};
	unsigned int moved = 0;

	run_rspin = false;
	late_sibling_run(&grid, 60 * SIM_MS);
	run_rspin = true;
	ck_assert_uint_eq(grid.left, 0);
	for (unsigned int j = 100; j < 140; j++) {
		for (size_t di = 0; di < nd; di++) {
			sim_time_t t = reads_at[j] + ds[di];
			struct waiter ev = {.raw = false, .two = two},
				      raw = {.raw = true, .two = two},
				      ref = {.raw = true, .two = two};

			late_sibling_run(&ev, t);
			late_sibling_run(&raw, t);
			run_rspin = false;
			late_sibling_run(&ref, t);
			run_rspin = true;
			ck_assert_msg(
				ev.done == ref.done && raw.done == ref.done,
				"change at %" PRIu64 " (read %u at %" PRIu64
				"): loop ends at %" PRIu64 ", wait at %" PRIu64
				", speculated at %" PRIu64,
				(uint64_t)t, j, (uint64_t)reads_at[j],
				(uint64_t)ref.done, (uint64_t)ev.done,
				(uint64_t)raw.done);
			moved += ref.done != grid.done;
		}
	}
	/* The sibling slowed every one of them. */
	ck_assert_uint_eq(moved, 40 * nd);
}

START_TEST(test_share_change_at_read)
{
	share_change_cases(false);
	share_change_cases(true);
}
END_TEST

/*
 * The same for a change a running sibling makes at its local time
 * (session 19).  The sibling computes A at normal priority beside the
 * waiter, reads a line of its own (the read syncs at its start; its cost
 * runs on) and goes to low priority at the read's end, T.  Until session
 * 19 the change was made as soon as the sibling got to T, ahead of the
 * event clock: in the loop with an event per iteration the waiter, its
 * event before T, then ran from there at the new speed, where the wait
 * (re-timed from T) and the speculated loop (replayed up to T) did not,
 * and the first case already ended 16.8 ns apart.  Now a cpu syncs
 * before it changes its thread's level, and the three end at the same
 * picosecond, with T on 40 evaluations of the loop without the change
 * (the evaluations before T are the same with it); A is searched for.
 */
static sim_time_t change_at;

static void reader_sibling_main(struct sim_cpu *c, void *arg)
{
	struct worker *w = arg;

	sim_cpu_work(c, w->work_ps);
	(void)READ_ONCE(*pline);
	change_at = c->now_ps;
	if (w->then_low && w->by_wait)
		(void)spin_until_cond_timeout(READ_ONCE(*pline) == 7, 1000000);
	else if (w->then_low)
		sim_cpu_set_hmt_low(c, true);
	sim_cpu_work(c, 50 * SIM_MS);
}

/* The core reader_sibling_run runs on: smt2, or with relax_yields. */
static const struct sim_topo *reader_topo = &smt2;
static const struct sim_topo smt2_yield = {.smt = 2,
					   .cores_per_chip = 8,
					   .npcpus = 4,
					   .smt_tput = {100, 143},
					   .hmt_low_pct = 14,
					   .relax_yields = true};

/* Waiter @wt beside the reading sibling @sib; returns the change's time. */
static sim_time_t reader_sibling_run(struct waiter *wt, struct worker *sib)
{
	two_cpu_run(reader_topo, reader_sibling_main, sib, 1, waiter_main, wt);
	return change_at;
}

/* The sibling's work that puts its change at @t, or 0 if none does (the
 * waiter a raw loop, whose level is the same in every mode). */
static sim_time_t work_for_change_at(sim_time_t t)
{
	sim_time_t lo = 0, hi = t;

	while (lo < hi) {
		sim_time_t mid = lo + (hi - lo) / 2;
		struct worker sib = {.work_ps = mid};
		struct waiter wt = {.raw = true};

		if (reader_sibling_run(&wt, &sib) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	{
		struct worker sib = {.work_ps = lo};
		struct waiter wt = {.raw = true};

		return reader_sibling_run(&wt, &sib) == t ? lo : 0;
	}
}

/*
 * 40 cases of a reading sibling's change (@by_wait: a wait's start on a
 * core whose relax yields, else HMT_low) on the waiter's evaluations;
 * with @by_wait the event-driven waiter's own level differs from the
 * loop's (its wait yields too), so only the speculated loop is compared.
 */
static void running_change_cases(bool by_wait)
{
	struct waiter grid = {.raw = true, .reads = reads_at};
	struct worker busy = {.work_ps = 60 * SIM_MS};
	unsigned int hits = 0, moved = 0;

	reader_topo = by_wait ? &smt2_yield : &smt2;
	run_rspin = false;
	reader_sibling_run(&grid, &busy);
	run_rspin = true;
	ck_assert_uint_eq(grid.left, 0);
	for (unsigned int j = 100; j < 1900 && hits < 40; j += 7) {
		sim_time_t a = work_for_change_at(reads_at[j]);
		struct worker sib = {
			.work_ps = a, .then_low = true, .by_wait = by_wait};
		struct waiter ev = {.raw = false}, raw = {.raw = true},
			      ref = {.raw = true};

		if (!a)
			continue;
		hits++;
		if (!by_wait)
			reader_sibling_run(&ev, &sib);
		reader_sibling_run(&raw, &sib);
		run_rspin = false;
		ck_assert_uint_eq(reader_sibling_run(&ref, &sib), reads_at[j]);
		run_rspin = true;
		if (by_wait)
			ev.done = ref.done;
		ck_assert_msg(ev.done == ref.done && raw.done == ref.done,
			      "change at read %u (%" PRIu64
			      "): loop ends at %" PRIu64 ", wait at %" PRIu64
			      ", speculated at %" PRIu64,
			      j, (uint64_t)reads_at[j], (uint64_t)ref.done,
			      (uint64_t)ev.done, (uint64_t)raw.done);
		moved += ref.done != grid.done;
	}
	reader_topo = &smt2;
	ck_assert_uint_eq(hits, 40);
	/* The sibling's low priority sped every one of them up. */
	ck_assert_uint_eq(moved, hits);
}

START_TEST(test_running_share_change_at_read)
{
	running_change_cases(false);
}
END_TEST

/* The same with the sibling going low by starting a wait (x86's pause,
 * relax_yields): sim_wait_begin syncs as HMT_low does. */
START_TEST(test_running_wait_start_at_read)
{
	running_change_cases(true);
}
END_TEST

/*
 * A sibling's store reaches a thread through the cache they share: the
 * thread's first read of it pays that cache's latency (smt, 4100 ps), a
 * re-read is a hit (1000 ps).  Until session 17 every re-read paid 4100
 * ps in a polling loop, and the loop ran slower than its event-driven
 * wait (which counts re-reads as hits).  The writer, on the other core
 * of a pair that shares its cache (POWER9's core pair), stores into the
 * waited word's line (not the word) at 0; the waiter computes 1 us, then
 * spins for 2000 evaluations of the word, alone on its core: 1 us + 4100
 * + 1999 * 1000 + 2000 relaxes of 2000 ps = 7,003,100 ps, as the loop and
 * as the wait.
 */
static const struct sim_topo pair = {.smt = 2,
				     .cores_per_chip = 8,
				     .npcpus = 4,
				     .cache_cores = 2,
				     .smt_tput = {100, 143},
				     .hmt_low_pct = 14};

static void storer_main(struct sim_cpu *c, void *arg)
{
	(void)c;
	(void)arg;
	WRITE_ONCE(wline[16], 7); /* 64 bytes on: the same line */
}

static void late_waiter_main(struct sim_cpu *c, void *arg)
{
	sim_cpu_work(c, SIM_US);
	waiter_main(c, arg);
}

static void sibling_store_run(struct waiter *wt)
{
	two_cpu_run(&pair, storer_main, NULL, 2, late_waiter_main, wt);
}

START_TEST(test_sibling_store_reread_hits)
{
	struct waiter ev = {.raw = false}, raw = {.raw = true};

	sibling_store_run(&ev);
	sibling_store_run(&raw);
	ck_assert_uint_eq(ev.left, 0);
	ck_assert_uint_eq(raw.left, 0);
	ck_assert_uint_eq(raw.done, 7003100);
	ck_assert_uint_eq(ev.done, 7003100);
}
END_TEST

/*
 * powerpc's spin loops relax with spin_cpu_relax(), a nop before POWER10
 * (the priority nops are spin_begin's and spin_end's; cost.spin_relax).
 * The same 2000 evaluations as above, with spin_cpu_relax: at the
 * test costs (spin_relax 2000 ps, as relax) 7,003,100 ps again; with a
 * nop (0 ps) only the reads: 1 us + 4100 + 1999 * 1000 = 3,003,100 ps,
 * as the loop and as the wait (spin_until_cond_limit).
 */
START_TEST(test_spin_relax_nop)
{
	struct sim_cost nop = tu_cost;
	struct waiter ev = {.spin = true}, raw = {.raw = true, .spin = true};

	sibling_store_run(&ev);
	sibling_store_run(&raw);
	ck_assert_uint_eq(raw.done, 7003100);
	ck_assert_uint_eq(ev.done, 7003100);
	nop.spin_relax_ps = 0;
	run_cost = &nop;
	sibling_store_run(&ev);
	sibling_store_run(&raw);
	run_cost = &tu_cost;
	ck_assert_uint_eq(ev.left, 0);
	ck_assert_uint_eq(raw.left, 0);
	ck_assert_uint_eq(raw.done, 3003100);
	ck_assert_uint_eq(ev.done, 3003100);
}
END_TEST

/*
 * A change of the core's share that leaves the waiter's own speed as it
 * was does not touch the wait (session 16: it woke it, an event each).
 * A sibling at low priority blips to normal and back at one instant
 * after each 100 ns of its work: the wait ends as the loop does, within
 * the re-timing's rounding of when it ends with a sibling that stays low,
 * and in as many events (the re-timing is in place: no wake); the
 * waiter's speed moved twice a blip.  On a machine whose relax is a fixed pause (relax_yields) the
 * waiter's speed never moves: a sibling that goes from work to low
 * priority mid-wait re-times nothing, and the wait ends when it ends
 * beside a sibling that works throughout.
 */
START_TEST(test_wait_share_unchanged)
{
	struct worker quiet = {.work_ps = 1000000}, blip = quiet;
	struct waiter a = {.raw = false}, b = a, raw = {.raw = true};
	struct sim_topo pause = smt2;
	uint64_t ea, eb, retimes;
	size_t n;

	blip.blip = true;
	ea = share_run(&a, &quiet);
	ck_assert_uint_eq(S.wait_retimes, 1);
	eb = share_run(&b, &blip);
	retimes = S.wait_retimes;
	(void)share_run(&raw, &blip);
	ck_assert_uint_eq(a.left, 0);
	ck_assert_uint_eq(raw.done, b.done);
	ck_assert_uint_eq(eb, ea);
	/* Two re-timings a blip before the wait's last evaluation (a blip
	 * in the last period leaves the timeout where it is), one when the
	 * sibling goes low. */
	for (n = 0; n < G_N_ELEMENTS(blip_at) && blip_at[n] < a.done; n++)
		;
	ck_assert_uint_lt(n, G_N_ELEMENTS(blip_at));
	ck_assert_uint_ge(n, 5);
	ck_assert(retimes == 1 + 2 * n || retimes == 1 + 2 * (n - 1));
	/* A blip inside a relax re-times it part way twice (session 20: a
	 * relax is a stretch of work, sim_stretch_retime), each rounding the
	 * work done down: the end moves by at most a picosecond a change
	 * (measured: 4 ps later), in the loop as in the wait. */
	ck_assert_uint_ge(b.done, a.done);
	ck_assert_uint_le(b.done - a.done, 2 * n);

	pause.relax_yields = true;
	quiet.work_ps = 20000000;
	blip.work_ps = 1000000;
	blip.blip = false;
	(void)share_run_on(&a, &quiet, &pause);
	ck_assert_uint_eq(S.wait_retimes, 0);
	(void)share_run_on(&b, &blip, &pause);
	ck_assert_uint_eq(S.wait_retimes, 0);
	ck_assert_uint_eq(b.done, a.done);
}
END_TEST

/*
 * --- Arbitration of a busy line ---
 *
 * A (pCPU 0) writes a line no cache holds: from memory, the line busy to
 * MEM.  B (pCPU 4, another core of A's chip) and C (pCPU 80, the other
 * chip) read it at 1 ns and wait.  When it frees, each retries once per
 * round trip to A's data at a random phase: B's first retry comes at
 * CHIP * U1, C's at REMOTE * U2, so B is served first with probability
 * P(CHIP U1 < REMOTE U2) = 1 - CHIP / (2 REMOTE) = 0.86053.  With
 * near_bias b, A's chip wins outright b of the time: b + (1 - b) 0.86053.
 * Over 2000 seeds the share is within 4 standard deviations of that.
 */
static u32 *line;

struct reader {
	int mode; /* 0 writes, 1 reads */
	sim_time_t done;
};

static void reader_main(struct sim_cpu *c, void *arg)
{
	struct reader *r = arg;

	if (r->mode == 0) {
		WRITE_ONCE(*line, 1);
		return;
	}
	sim_cpu_work(c, SIM_NS);
	(void)READ_ONCE(*line);
	r->done = c->now_ps;
}

static bool near_first(uint64_t seed, unsigned int bias_pct)
{
	struct sim_cost cost = tu_cost;
	struct sim_topo topo = {.smt = 4, .cores_per_chip = 20, .npcpus = 160};
	struct reader a = {0}, b = {1}, c = {1};
	struct sim_cpu *ca, *cb, *cc;

	cost.near_bias_pct = bias_pct;
	sim_init(&S, 1 << 20, 128, &cost, &topo, 64 << 10);
	sim_set_seed(&S, seed);
	line = sim_mem_alloc(&S.mem, sizeof(*line), 128);
	ca = sim_cpu_create(&S, reader_main, &a);
	cb = sim_cpu_create(&S, reader_main, &b);
	cc = sim_cpu_create(&S, reader_main, &c);
	sim_mem_seal(&S.mem);
	sim_cpu_dispatch(ca, 0, 0);
	sim_cpu_dispatch(cb, 0, 4);
	sim_cpu_dispatch(cc, 0, 80);
	sim_run(&S, SIM_MS);
	sim_destroy(&S);
	/* The winner reads first; the other waits for its read to end. */
	ck_assert(b.done == MEM + CHIP || c.done == MEM + REMOTE);
	return b.done < c.done;
}

START_TEST(test_arbitration_split)
{
	static const unsigned int bias[] = {0, 50};
	const int n = 2000;
	const double p0 = 1.0 - (double)CHIP / (2.0 * REMOTE);

	for (size_t k = 0; k < G_N_ELEMENTS(bias); k++) {
		double b = bias[k] / 100.0, p = b + (1 - b) * p0;
		double sd = sqrt(p * (1 - p) / n);
		int wins = 0;

		for (int s = 1; s <= n; s++)
			wins += near_first((uint64_t)s, bias[k]);
		ck_assert_msg(fabs((double)wins / n - p) <= 4 * sd,
			      "near_bias %u%%: near first %d of %d, expected "
			      "%.4f",
			      bias[k], wins, n, p);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("machine");
	TCase *tc = tcase_create("machine");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_tas_handoff_grows);
	tcase_add_test(tc, test_smt_siblings);
	tcase_add_test(tc, test_wait_follows_share);
	tcase_add_test(tc, test_share_change_at_read);
	tcase_add_test(tc, test_running_share_change_at_read);
	tcase_add_test(tc, test_running_wait_start_at_read);
	tcase_add_test(tc, test_wait_share_unchanged);
	tcase_add_test(tc, test_sibling_store_reread_hits);
	tcase_add_test(tc, test_spin_relax_nop);
	tcase_add_test(tc, test_arbitration_split);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
