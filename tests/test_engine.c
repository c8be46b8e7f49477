// SPDX-License-Identifier: MIT
/*
 * The engine: the horizon rule, event-driven waits against real iteration,
 * and work carried across preemption.  Expected times are derived by hand
 * from tests/testutil.c's costs (hit 1000 ps, relax 2000 ps, memory
 * 100900 ps, SMT transfer 4100 ps): a spin iteration on one line costs
 * hit + relax = 3000 ps.
 */
#include "qsim_kernel.h"
#include "tests/testutil.h"

static struct sim S;
static u32 *x, *y;

struct probe {
	sim_time_t work_ps; /* before acting */
	int mode;	    /* what the cpu does */
	uint64_t budget;
	u32 seen[4];
	sim_time_t at[4];
	uint64_t left;
};

enum {
	P_WRITE,	/* work, then *x = 1 */
	P_READ2,	/* read at work_ps, then again at 200ns */
	P_COND,		/* smp_cond_load until *x == 1 */
	P_BOUNDED,	/* spin_until_cond_timeout(*x, budget) */
	P_RAWLOOP,	/* the same, written as a real loop */
	P_TWO_LINES,	/* spin until *x or *y */
	P_WORK,		/* just work */
	P_WRITE_Y,	/* work, then *y = 1 */
	P_PERIODIC,	/* lk_spin_periodic: cond *x, check *y every 4 */
	P_PERIODIC_RAW, /* the same as a real loop */
};

static bool cond_x(void *arg)
{
	return READ_ONCE(*x) != 0;
}

static bool check_y(void *arg)
{
	return READ_ONCE(*y) != 0;
}

static void probe_main(struct sim_cpu *c, void *arg)
{
	struct probe *p = arg;
	uint64_t n;

	sim_cpu_work(c, p->work_ps);
	switch (p->mode) {
	case P_WRITE:
		WRITE_ONCE(*x, 1);
		p->at[0] = c->access_ps;
		break;
	case P_WRITE_Y:
		WRITE_ONCE(*y, 1);
		break;
	case P_READ2:
		p->seen[0] = READ_ONCE(*x);
		sim_cpu_work(c, 200 * SIM_NS - c->now_ps);
		p->seen[1] = READ_ONCE(*x);
		break;
	case P_COND:
		p->seen[0] = smp_cond_load_relaxed(x, VAL == 1);
		break;
	case P_BOUNDED:
		p->left =
			spin_until_cond_timeout(READ_ONCE(*x) != 0, p->budget);
		break;
	case P_RAWLOOP:
		for (n = p->budget; n; n--) {
			if (READ_ONCE(*x) != 0)
				break;
			cpu_relax();
		}
		p->left = n;
		break;
	case P_TWO_LINES:
		spin_until_cond(READ_ONCE(*x) || READ_ONCE(*y));
		break;
	case P_WORK:
		break;
	case P_PERIODIC:
		p->left = lk_spin_periodic(p->budget, 4, cond_x, check_y, NULL);
		break;
	case P_PERIODIC_RAW:
		for (n = p->budget; n; n--) {
			if (cond_x(NULL))
				break;
			if (n % 4 == 0 && check_y(NULL)) {
				n |= LK_SPIN_CHECKED;
				break;
			}
			cpu_relax();
		}
		p->left = n;
		break;
	}
	p->at[3] = c->now_ps;
}

struct preempt {
	struct sim_event off, on;
	struct sim_cpu *cpu;
	sim_time_t len;
};

static void preempt_on(struct sim_event *ev)
{
	struct preempt *p = ev->data;

	sim_cpu_dispatch(p->cpu, ev->time_ps, 1);
}

static void preempt_off(struct sim_event *ev)
{
	struct preempt *p = ev->data;

	sim_cpu_undispatch(p->cpu, ev->time_ps, false);
	sim_schedule(p->cpu->sim, &p->on, ev->time_ps + p->len);
}

/* Whether run2 lets raw loops speculate (sim/rspin.c). */
static bool run2_rspin = true;

/* Run cpu a (pcpu 0) and b (pcpu 1), b optionally preempted at @at. */
static void run2(struct probe *a, struct probe *b, sim_time_t at,
		 sim_time_t len)
{
	struct sim_cpu *ca, *cb;
	struct preempt pr;

	tu_sim_init(&S, 8);
	S.rspin_on = run2_rspin && S.rspin_on;
	x = sim_mem_alloc(&S.mem, sizeof(*x), 128);
	y = sim_mem_alloc(&S.mem, sizeof(*y), 128);
	ca = sim_cpu_create(&S, probe_main, a);
	cb = sim_cpu_create(&S, probe_main, b);
	sim_mem_seal(&S.mem);
	sim_cpu_dispatch(ca, 0, 0);
	sim_cpu_dispatch(cb, 0, 1);
	if (len) {
		pr.cpu = cb;
		pr.len = len;
		sim_event_init(&pr.off, preempt_off, &pr, SIM_PRIO_HV);
		sim_event_init(&pr.on, preempt_on, &pr, SIM_PRIO_HV);
		sim_schedule(&S, &pr.off, at);
	}
	sim_run(&S, 100 * SIM_MS);
	ck_assert_int_eq(cb->state, SIM_CPU_DONE);
	sim_destroy(&S);
}

/* Accesses happen in virtual-time order, whatever order cpus run in. */
START_TEST(test_horizon_order)
{
	struct probe a = {.work_ps = 100 * SIM_NS, .mode = P_WRITE};
	struct probe b = {.work_ps = 50 * SIM_NS, .mode = P_READ2};

	run2(&a, &b, 0, 0);
	ck_assert_uint_eq(b.seen[0], 0); /* read at 50ns, write at 100ns */
	ck_assert_uint_eq(b.seen[1], 1); /* read at 200ns */
}
END_TEST

/*
 * Wake on write at the exact grid point.  b reads at 0 (memory miss,
 * 100900), relaxes: grid0 = 102900, period 3000.  a writes at 1000500;
 * the first grid point after it is 102900 + 300 * 3000 = 1002900.  a and
 * b are threads of one core, so they share its cache: b's read brought
 * the line in, a's store only upgrades it there (a hit, 1000; busy until
 * 1001500), and b's re-read at 1002900 gets a sibling's store through
 * the shared cache: SMT 4100, 1002900 + 4100 = 1007000.  (Before cache
 * domains each thread held its own copy: a fetched it from memory.)
 */
START_TEST(test_wake_on_write)
{
	struct probe a = {.work_ps = 1000500, .mode = P_WRITE};
	struct probe b = {.mode = P_COND};

	run2(&a, &b, 0, 0);
	ck_assert_uint_eq(a.at[0], 1000500);
	ck_assert_uint_eq(b.seen[0], 1);
	ck_assert_uint_eq(b.at[3], 1007000);
}
END_TEST

/* A budget with no write: N evaluations, plus the preemption length. */
START_TEST(test_budget_exhausted_preempted)
{
	struct probe a = {.mode = P_WORK};
	struct probe b = {.mode = P_BOUNDED, .budget = 1000};

	run2(&a, &b, 0, 0);
	ck_assert_uint_eq(b.left, 0);
	ck_assert_uint_eq(b.at[3], 102900 + 999 * 3000);
	/* Preempted for 300000 ps in the middle: no iterations consumed. */
	b.at[3] = 0;
	run2(&a, &b, 500700, 300000);
	ck_assert_uint_eq(b.left, 0);
	ck_assert_uint_eq(b.at[3], 102900 + 999 * 3000 + 300000);
}
END_TEST

/* The event-driven bounded spin gives what iterating gives, exactly. */
START_TEST(test_budget_equals_iterating)
{
	static const uint64_t budgets[] = {1, 2, 5, 333, 1000, 40000};
	static const sim_time_t writes[] = {0,	     50100,   1000500,
					    2999700, 5000300, 200000000};
	static const sim_time_t preempts[][2] = {
		{0, 0},
		{500700, 300000},
		{2000, 1000000},
		{1001300, 7},
	};
	int cases = 0;

	for (size_t bi = 0; bi < G_N_ELEMENTS(budgets); bi++)
		for (size_t wi = 0; wi < G_N_ELEMENTS(writes); wi++)
			for (size_t pi = 0; pi < G_N_ELEMENTS(preempts); pi++) {
				struct probe wa = {.work_ps = writes[wi]};
				struct probe ev = {.mode = P_BOUNDED},
					     raw = {.mode = P_RAWLOOP};

				wa.mode = writes[wi] ? P_WRITE : P_WORK;
				ev.budget = raw.budget = budgets[bi];
				run2(&wa, &ev, preempts[pi][0],
				     preempts[pi][1]);
				run2(&wa, &raw, preempts[pi][0],
				     preempts[pi][1]);
				ck_assert_msg(
					ev.left == raw.left &&
						ev.at[3] == raw.at[3],
					"budget %" PRIu64 " write %" PRIu64
					" preempt %" PRIu64
					": event-driven left %" PRIu64
					" at %" PRIu64 ", loop left %" PRIu64
					" at %" PRIu64,
					budgets[bi], writes[wi],
					preempts[pi][0], ev.left, ev.at[3],
					raw.left, raw.at[3]);
				cases++;
			}
	ck_assert_int_eq(cases, 144);
}
END_TEST

/*
 * A write or a stop at the very picosecond of a spin's read (session 18).
 * The spinner (pcpu 1) misses on x at 0 (100900 ps), relaxes (2000) and
 * reads x every 3000 ps from 102900; the writer stores 1 at exactly its
 * read j+2, at 102900 + 3000 j, j = 0..39.  At equal time the engine
 * orders two cpus by their keys there (E1): so the loop with an event
 * per iteration (raw spin off, the simpler reference) sees the store at
 * that read or the next one, by a hash of the cpus and the time.  The
 * event-driven wait (bounded and unbounded) and the speculated loop must
 * do exactly the same; until session 18 the wait always saw it a read
 * later and the speculated loop at that read.  Both orders occur among
 * the 40.  An undispatch at a read's time (300000 ps, the store 1000 ps
 * into it) is a hypervisor event, which comes before the cpus: the read
 * happens at the dispatch and sees the store (the wait took it as done
 * before the stop, and read again a period after the dispatch).
 */
START_TEST(test_equal_time)
{
	unsigned int orders[2] = {0, 0};

	for (unsigned int j = 0; j < 40; j++) {
		sim_time_t t = 102900 + (sim_time_t)j * 3000;
		struct probe wa = {.work_ps = t, .mode = P_WRITE};
		struct probe ref = {.mode = P_RAWLOOP, .budget = 1000};
		struct probe ev = {.mode = P_BOUNDED, .budget = 1000};
		struct probe spec = ref, cond = {.mode = P_COND};

		run2_rspin = false;
		run2(&wa, &ref, 0, 0);
		run2_rspin = true;
		run2(&wa, &ev, 0, 0);
		run2(&wa, &spec, 0, 0);
		run2(&wa, &cond, 0, 0);
		ck_assert_uint_eq(wa.at[0], t);
		ck_assert_msg(ev.left == ref.left && ev.at[3] == ref.at[3] &&
				      spec.left == ref.left &&
				      spec.at[3] == ref.at[3] &&
				      cond.at[3] == ref.at[3],
			      "write at %" PRIu64 ": loop left %" PRIu64
			      " at %" PRIu64 ", wait %" PRIu64 " at %" PRIu64
			      ", speculated %" PRIu64 " at %" PRIu64
			      ", cond at %" PRIu64,
			      (uint64_t)t, ref.left, (uint64_t)ref.at[3],
			      ev.left, (uint64_t)ev.at[3], spec.left,
			      (uint64_t)spec.at[3], (uint64_t)cond.at[3]);
		ck_assert(ref.left == 1000 - (j + 1) ||
			  ref.left == 1000 - (j + 2));
		orders[ref.left == 1000 - (j + 1)]++;

		wa.work_ps = t + 1000;
		ref = (struct probe){.mode = P_RAWLOOP, .budget = 1000};
		ev = (struct probe){.mode = P_BOUNDED, .budget = 1000};
		spec = ref;
		run2_rspin = false;
		run2(&wa, &ref, t, 300000);
		run2_rspin = true;
		run2(&wa, &ev, t, 300000);
		run2(&wa, &spec, t, 300000);
		ck_assert_msg(ev.left == ref.left && ev.at[3] == ref.at[3] &&
				      spec.left == ref.left &&
				      spec.at[3] == ref.at[3],
			      "stop at %" PRIu64 ": loop left %" PRIu64
			      " at %" PRIu64 ", wait %" PRIu64 " at %" PRIu64
			      ", speculated %" PRIu64 " at %" PRIu64,
			      (uint64_t)t, ref.left, (uint64_t)ref.at[3],
			      ev.left, (uint64_t)ev.at[3], spec.left,
			      (uint64_t)spec.at[3]);
		/* The read at the stop's time is the one after it. */
		ck_assert_uint_eq(ref.left, 1000 - (j + 1));
	}
	ck_assert_uint_gt(orders[0], 0);
	ck_assert_uint_gt(orders[1], 0);
}
END_TEST

/* A condition over two lines wakes on a write to either. */
START_TEST(test_two_lines)
{
	struct probe a = {.work_ps = 700300, .mode = P_WRITE_Y};
	struct probe b = {.mode = P_TWO_LINES};

	run2(&a, &b, 0, 0);
	/* b: x miss 100900, y miss 100900, relax: grid0 203800, period
	 * 2 hits + relax = 4000.  Write to y at 700300; y is read 1000
	 * into an evaluation: k = (699300 - 203800) / 4000 + 2 = 125,
	 * r = 203800 + 124 * 4000 = 699800.  Re-read x (hit) at 700800,
	 * then y: a's store to the shared cache (a hit, 1000) is in flight
	 * until 701300, so b waits for it, then reads a sibling's store
	 * through the shared cache: 701300 + SMT 4100 = 705400. */
	ck_assert_uint_eq(b.at[3], 705400);
}
END_TEST

/* Work interrupted by an undispatch resumes where it stopped. */
START_TEST(test_work_carried)
{
	struct probe a = {.mode = P_WORK};
	struct probe b = {.work_ps = 1000000, .mode = P_WORK};

	run2(&a, &b, 400000, 500000);
	ck_assert_uint_eq(b.at[3], 1500000);
}
END_TEST

/* The periodic-check spin gives what iterating gives, exactly. */
START_TEST(test_periodic_equals_iterating)
{
	static const uint64_t budgets[] = {1, 3, 4, 5, 64, 1001};
	static const sim_time_t writes[] = {0, 50100, 400300, 2999700};
	static const sim_time_t preempts[][2] = {
		{0, 0}, {200700, 300000}, {2000, 1000000}};
	int cases = 0;

	for (size_t bi = 0; bi < G_N_ELEMENTS(budgets); bi++)
		for (size_t wi = 0; wi < G_N_ELEMENTS(writes); wi++)
			for (int which = 0; which < 2; which++)
				for (size_t pi = 0; pi < G_N_ELEMENTS(preempts);
				     pi++) {
					struct probe wa = {.work_ps =
								   writes[wi]};
					struct probe
						ev = {.mode = P_PERIODIC},
						raw = {.mode = P_PERIODIC_RAW};

					wa.mode = !writes[wi] ? P_WORK
						  : which     ? P_WRITE_Y
							      : P_WRITE;
					ev.budget = raw.budget = budgets[bi];
					run2(&wa, &ev, preempts[pi][0],
					     preempts[pi][1]);
					run2(&wa, &raw, preempts[pi][0],
					     preempts[pi][1]);
					ck_assert_msg(
						ev.left == raw.left &&
							ev.at[3] == raw.at[3],
						"budget %" PRIu64
						" write %" PRIu64
						" to %s preempt %" PRIu64
						": periodic left %#" PRIx64
						" at %" PRIu64
						", loop left %#" PRIx64
						" at %" PRIu64,
						budgets[bi], writes[wi],
						which ? "y" : "x",
						preempts[pi][0], ev.left,
						ev.at[3], raw.left, raw.at[3]);
					cases++;
				}
	ck_assert_int_eq(cases, 144);
}
END_TEST

/*
 * A stcx. whose reservation is gone fails in the core, without waiting
 * for the line (docs/cost-model.md).  An llsc machine: cpu a (pCPU 0)
 * larx-reserves x, a fill from memory that completes at 100900 (its
 * window runs to 109000), works 50 us, and issues its stcx. after
 * `atomic`: at 100900 + 50000000 + 8100 = 50109000.  cpu b (pCPU 80, the
 * other chip) stores to x at 50100000: nobody has written x, so the data
 * comes from memory (100900) and the line is busy to 50200900.  a's stcx. sees the store and fails at once:
 * it goes on at 50109000 + hit = 50110000, before the line frees.  (The
 * line's busy time is what a stcx. that waited for the line would pay.)
 */
struct resv_probe {
	bool ok;
	sim_time_t after, busy_until;
};

static void resv_a(struct sim_cpu *c, void *arg)
{
	struct resv_probe *p = arg;

	sim_access(c, x, SIM_RMW_RESV);
	sim_cpu_work(c, 50 * SIM_US);
	p->ok = sim_access_stcx(c, x);
	p->after = c->now_ps;
	p->busy_until = S.mem.lines[sim_mem_line_of(&S.mem, x)].busy_until;
}

static void resv_b(struct sim_cpu *c, void *arg)
{
	(void)arg;
	sim_cpu_work(c, 50100 * SIM_NS);
	WRITE_ONCE(*x, 1);
}

START_TEST(test_lost_reservation_fails_fast)
{
	struct sim_topo topo = {
		.smt = 4, .cores_per_chip = 20, .npcpus = 160, .llsc = true};
	struct resv_probe p = {0};
	struct sim_cpu *ca, *cb;

	sim_init(&S, 1 << 20, 128, &tu_cost, &topo, 64 << 10);
	x = sim_mem_alloc(&S.mem, sizeof(*x), 128);
	ca = sim_cpu_create(&S, resv_a, &p);
	cb = sim_cpu_create(&S, resv_b, NULL);
	sim_mem_seal(&S.mem);
	sim_cpu_dispatch(ca, 0, 0);
	sim_cpu_dispatch(cb, 0, 80);
	sim_run(&S, SIM_MS);
	ck_assert(!p.ok);
	ck_assert_uint_eq(p.after, 50110000);
	ck_assert_uint_eq(p.busy_until, 50200900);
	ck_assert_uint_eq(ca->resv_lost, 1);
	sim_destroy(&S);
}
END_TEST

/*
 * A locked instruction (x86) is not reordered with earlier stores (Intel
 * SDM vol. 3A, 8.2.2), and it is itself the full fence: a cpu on pCPU 0
 * stores to x, a line no cache holds (the store completes from memory at
 * 0 + 100900, the cpu goes on at hit = 1000), then a fully ordered
 * cmpxchg on y, also in no cache.  The locked cmpxchg waits for the store
 * buffer: it starts at 100900 and takes memory plus `atomic`, 100900 +
 * 8100, ending at 209900, with no sync's `barrier` after it.  (Before
 * this rule it started at 1000 and paid 15000 of barrier after: 125000.)
 * On an llsc machine the same pair costs a sync on each side (the
 * kernel's entry and exit barriers, asm/synch.h): the entry sync 15000
 * from 1000 and the store buffer (done at 100900) start the larx at
 * 100900, its fill from memory 100900, `atomic` 8100, the stcx. a hit
 * (its own line, no copies elsewhere) 1000, then the exit sync 15000:
 * 225900.  (Session 14; with only the sync after the stcx. it was 126000:
 * 1000 + 100900 + 8100 + 1000 + 15000.)
 */
struct fence_probe {
	sim_time_t after;
};

static void fence_main(struct sim_cpu *c, void *arg)
{
	struct fence_probe *p = arg;

	WRITE_ONCE(*x, 1);
	(void)cmpxchg(y, 0, 1);
	p->after = c->now_ps;
}

static sim_time_t fence_run(bool llsc)
{
	struct sim_topo topo = {
		.smt = 4, .cores_per_chip = 20, .npcpus = 8, .llsc = llsc};
	struct fence_probe p = {0};
	struct sim_cpu *ca;

	sim_init(&S, 1 << 20, 128, &tu_cost, &topo, 64 << 10);
	x = sim_mem_alloc(&S.mem, sizeof(*x), 128);
	y = sim_mem_alloc(&S.mem, sizeof(*y), 128);
	ca = sim_cpu_create(&S, fence_main, &p);
	sim_mem_seal(&S.mem);
	sim_cpu_dispatch(ca, 0, 0);
	sim_run(&S, SIM_MS);
	ck_assert_uint_eq(*y, 1);
	sim_destroy(&S);
	return p.after;
}

START_TEST(test_locked_atomic_is_the_fence)
{
	ck_assert_uint_eq(fence_run(false), 209900);
	ck_assert_uint_eq(fence_run(true), 225900);
}
END_TEST

/*
 * A synchronous cross-call (sim_ipi): cpu a (pCPU 0) locks the csd, a
 * line no cache holds (the store completes from memory at 100900), makes
 * it visible with a full barrier (1000 + 15000 < 100900: the store
 * buffer decides), sends at 100900 and spins until the target unlocks
 * it.  Target b (pCPU 4: another core of the chip) computes 200 steps of
 * 100 ns.  Its handler takes 5 us of its time where it lands, then it
 * stores 0: a's modified line moves to b (chip, 25300), so a's re-read
 * waits for that and fetches it back (25300 more).
 *
 * - b dispatched: the handler runs from 100900, b's steps end 5 us late,
 *   at 25000000; the csd is unlocked at 5100900 and a sees it at
 *   5100900 + 2 x 25300 = 5151500.
 * - b not dispatched until 50 us: the interrupt waits for it and is
 *   taken as it comes in, before its first step: b ends at 50 + 5 + 20 =
 *   75 us, the csd is unlocked at 55 us and a sees it at 55050600.
 */
struct cc_probe {
	struct sim_ipi ipi;
	uint64_t *flag;
	sim_time_t sent, done;
};

static void cc_sender(struct sim_cpu *c, void *arg)
{
	struct cc_probe *p = arg;

	WRITE_ONCE(*p->flag, 1);
	smp_mb();
	sim_cpu_sync(c);
	p->sent = c->now_ps;
	sim_ipi_send(c->sim, &p->ipi, c->now_ps, 5 * SIM_US);
	spin_until_cond(READ_ONCE(*p->flag) == 0);
	p->done = c->now_ps;
}

static void cc_target(struct sim_cpu *c, void *arg)
{
	sim_time_t *end = arg;

	for (int i = 0; i < 200; i++)
		sim_cpu_work(c, 100 * SIM_NS);
	*end = c->now_ps;
}

static void cc_late(struct sim_event *ev)
{
	struct preempt *p = ev->data;

	sim_cpu_dispatch(p->cpu, ev->time_ps, 4);
}

static void cc_run(sim_time_t late, struct cc_probe *p, sim_time_t *end)
{
	struct sim_cpu *ca, *cb;
	struct preempt pr;

	tu_sim_init(&S, 8);
	p->flag = sim_mem_alloc(&S.mem, sizeof(*p->flag), 128);
	ca = sim_cpu_create(&S, cc_sender, p);
	cb = sim_cpu_create(&S, cc_target, end);
	sim_ipi_init(&p->ipi, cb, p->flag);
	sim_mem_seal(&S.mem);
	sim_cpu_dispatch(ca, 0, 0);
	if (late) {
		pr.cpu = cb;
		sim_event_init(&pr.on, cc_late, &pr, SIM_PRIO_HV);
		sim_schedule(&S, &pr.on, late);
	} else {
		sim_cpu_dispatch(cb, 0, 4);
	}
	sim_run(&S, SIM_MS);
	ck_assert_int_eq(cb->state, SIM_CPU_DONE);
	ck_assert_uint_eq(cb->ipis, 1);
	sim_destroy(&S);
}

START_TEST(test_cross_call)
{
	struct cc_probe p = {0};
	sim_time_t end = 0;

	cc_run(0, &p, &end);
	ck_assert_uint_eq(p.sent, 100900);
	ck_assert_uint_eq(end, 25000000);
	ck_assert_uint_eq(p.done, 5151500);

	memset(&p, 0, sizeof(p));
	cc_run(50 * SIM_US, &p, &end);
	ck_assert_uint_eq(p.sent, 100900);
	ck_assert_uint_eq(end, 75000000);
	ck_assert_uint_eq(p.done, 55050600);
}
END_TEST

/*
 * Raw spin loops (sim/rspin.c): a counted loop written plainly,
 * "for (n = budget; n; n--) { if (READ_ONCE(*x)) break; cpu_relax(); }",
 * beside a cpu that computes in 100 ns steps (each an event, so without
 * the mechanism every iteration of the loop passes the horizon and costs
 * an event).  With raw spin speculation the loop gives the same count
 * and the same exit time, in and out of preemption and with or without a
 * write that ends it, at a small fraction of the events.
 */
struct rs_case {
	uint64_t budget;
	sim_time_t write_at; /* 0: none */
	sim_time_t preempt_at, preempt_len;
};

static void busy_main(struct sim_cpu *c, void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++)
		sim_cpu_work(c, 100 * SIM_NS);
}

static uint64_t rs_run(const struct rs_case *k, bool on, struct probe *out,
		       sim_time_t acct[SIM_ACCT_NR])
{
	struct probe w = {.work_ps = k->write_at, .mode = P_WRITE};
	struct probe sp = {.mode = P_RAWLOOP, .budget = k->budget};
	struct sim_cpu *cw = NULL, *cs, *cb;
	struct preempt pr;
	uint64_t events;

	tu_sim_init(&S, 8);
	S.rspin_on = on && S.rspin_on;
	x = sim_mem_alloc(&S.mem, sizeof(*x), 128);
	y = sim_mem_alloc(&S.mem, sizeof(*y), 128);
	if (k->write_at)
		cw = sim_cpu_create(&S, probe_main, &w);
	cs = sim_cpu_create(&S, probe_main, &sp);
	cb = sim_cpu_create(&S, busy_main, NULL);
	sim_mem_seal(&S.mem);
	if (cw)
		sim_cpu_dispatch(cw, 0, 0);
	sim_cpu_dispatch(cs, 0, 4);
	sim_cpu_dispatch(cb, 0, 2);
	if (k->preempt_len) {
		pr.cpu = cs;
		pr.len = k->preempt_len;
		sim_event_init(&pr.off, preempt_off, &pr, SIM_PRIO_HV);
		sim_event_init(&pr.on, preempt_on, &pr, SIM_PRIO_HV);
		sim_schedule(&S, &pr.off, k->preempt_at);
	}
	sim_run(&S, 100 * SIM_MS);
	ck_assert_int_eq(cs->state, SIM_CPU_DONE);
	events = S.events;
	*out = sp;
	sim_cpu_flush_acct(cs, cs->now_ps); /* when it finished */
	memcpy(acct, cs->acct_ps, sizeof(cs->acct_ps));
	sim_destroy(&S);
	return events;
}

START_TEST(test_raw_spin_exact)
{
	static const struct rs_case cases[] = {
		{40000, 0, 0, 0},
		{40000, 30000700, 0, 0},
		{40000, 50100, 0, 0},
		{40000, 0, 20000300, 5000000},
		{40000, 60000900, 20000300, 5000000},
		{333, 0, 500700, 7},
		{5, 0, 0, 0},
	};

	if (!sim_coro_can_checkpoint())
		return;
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct probe on, off;
		sim_time_t a_on[SIM_ACCT_NR], a_off[SIM_ACCT_NR];
		uint64_t e_on = rs_run(&cases[i], true, &on, a_on);
		uint64_t e_off = rs_run(&cases[i], false, &off, a_off);

		ck_assert_msg(on.left == off.left && on.at[3] == off.at[3],
			      "case %zu: speculated left %" PRIu64
			      " at %" PRIu64 ", iterated left %" PRIu64
			      " at %" PRIu64,
			      i, on.left, (uint64_t)on.at[3], off.left,
			      (uint64_t)off.at[3]);
		/* The loop's time is spin time either way, from its second
		 * relax on: none unless it ran a third iteration. */
		for (int a = 0; a < SIM_ACCT_NR; a++)
			ck_assert_msg(a_on[a] == a_off[a],
				      "case %zu: account %d: %" PRIu64
				      " speculated, %" PRIu64 " iterated",
				      i, a, (uint64_t)a_on[a],
				      (uint64_t)a_off[a]);
		ck_assert_int_eq(a_on[SIM_ACCT_SPIN] > 0,
				 cases[i].budget - on.left >= 3);
		if (cases[i].budget > 1000 && !cases[i].preempt_len &&
		    !cases[i].write_at)
			ck_assert_uint_gt(a_on[SIM_ACCT_SPIN],
					  9 * a_on[SIM_ACCT_RUN]);
		if (e_off > 1000)
			ck_assert_msg(e_on * 5 < e_off,
				      "case %zu: %" PRIu64
				      " events speculated, %" PRIu64
				      " iterated",
				      i, e_on, e_off);
	}
}
END_TEST

static char *hang_msg;

static void note_hang(void *data, sim_time_t t, const char *msg)
{
	g_free(hang_msg);
	hang_msg = g_strdup(msg);
}

/* The guard's looks by hand: 16 looks at one instant make a run stuck,
 * a look at a new time starts the count again, and a host deadline in
 * the past stops the run at the next look whatever the time. */
START_TEST(test_guard)
{
	struct sim s;

	tu_sim_init(&s, 1);
	s.hang_hook = note_hang;
	for (unsigned int i = 0; i < SIM_GUARD_STUCK; i++)
		sim_guard(&s, NULL, 7 * SIM_US); /* the first look sets 7us */
	ck_assert(!s.stop);
	sim_guard(&s, NULL, 8 * SIM_US); /* time moved: the count restarts */
	for (unsigned int i = 0; i < SIM_GUARD_STUCK - 1; i++)
		sim_guard(&s, NULL, 8 * SIM_US);
	ck_assert(!s.stop);
	sim_guard(&s, NULL, 8 * SIM_US);
	ck_assert(s.stop);
	ck_assert_ptr_nonnull(hang_msg);
	ck_assert_msg(strstr(hang_msg, "simulated time stopped advancing at "
				       "0.000008 s: 1048576 events at one "
				       "instant"),
		      "%s", hang_msg);
	sim_destroy(&s);

	g_free(hang_msg);
	hang_msg = NULL;
	tu_sim_init(&s, 1);
	s.hang_hook = note_hang;
	s.host_deadline_us = 1; /* long past */
	sim_guard(&s, NULL, 3 * SIM_US);
	ck_assert(s.stop);
	ck_assert_msg(strstr(hang_msg, "host-time watchdog expired at "
				       "simulated time 0.000003 s"),
		      "%s", hang_msg);
	sim_destroy(&s);
	g_free(hang_msg);
	hang_msg = NULL;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, test_horizon_order);
	tcase_add_test(tc, test_wake_on_write);
	tcase_add_test(tc, test_budget_exhausted_preempted);
	tcase_add_test(tc, test_budget_equals_iterating);
	tcase_add_test(tc, test_equal_time);
	tcase_add_test(tc, test_two_lines);
	tcase_add_test(tc, test_periodic_equals_iterating);
	tcase_add_test(tc, test_work_carried);
	tcase_add_test(tc, test_lost_reservation_fails_fast);
	tcase_add_test(tc, test_locked_atomic_is_the_fence);
	tcase_add_test(tc, test_cross_call);
	tcase_add_test(tc, test_raw_spin_exact);
	tcase_add_test(tc, test_guard);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
