// SPDX-License-Identifier: MIT
/*
 * ppc_qspinlock lock-word transitions on hand-built schedules, against
 * values derived by hand from LOCK-FACTS.md section 4.  The word:
 * locked bit 0, owner CPU bits 1-14, sleepy 0x8000, must-queue 0x10000,
 * tail CPU + 1 from bit 17 (cpu c's tail is (c + 1) << 17).
 */
#include "qsim_kernel.h"
#include "tests/testutil.h"

enum op {
	OP_END,
	OP_WORK,
	OP_LOCK,
	OP_UNLOCK,
};

struct step {
	enum op op;
	long a;
};

static struct sim S;
static struct hv H;
static const struct lk_ops *OPS;
static u32 *LOCK;

static void script_main(struct sim_cpu *c, void *arg)
{
	const struct step *s = arg;

	for (; s->op != OP_END; s++) {
		if (s->op == OP_WORK)
			sim_cpu_work(c, (sim_time_t)s->a);
		else if (s->op == OP_LOCK)
			OPS->lock(LOCK);
		else if (s->op == OP_UNLOCK)
			OPS->unlock(LOCK);
	}
}

struct probe {
	struct sim_event ev;
	u32 word;
};

static void probe_ev(struct sim_event *ev)
{
	struct probe *p = ev->data;

	p->word = *LOCK;
}

static unsigned int numa_nodes = 1;

static void setup(bool shared, unsigned int npcpus, sim_time_t slice,
		  const struct step *const *scripts, unsigned int n)
{
	struct sim_topo topo = {4, 20, npcpus};
	struct hv_params hp = {
		.policy = "rr",
		.npcpus = npcpus,
		.slice_ps = slice,
		.dispatch_latency_ps = 2 * SIM_US,
		.hcall_ps = 500 * SIM_NS,
		.wake_latency_ps = 5 * SIM_US,
	};
	struct lk_params lp = {.line_bytes = 128,
			       .page_bytes = 65536,
			       .numa_nodes = numa_nodes};
	void *g;

#define X(name, def, max, help) lp.qspl.name = def;
	QSPL_TUNABLES(X)
#undef X
	OPS = lk_find("ppc_qspinlock");
	sim_init(&S, 8 << 20, 128, &tu_cost, &topo, 64 << 10);
	hv_init(&H, &S, &hp, 1);
	LOCK = sim_mem_alloc(&S.mem, 4, 128);
	hv_partition_add(&H, n, shared, script_main, (void *const *)scripts);
	g = sim_mem_alloc(&S.mem, OPS->global_size(&lp, n), 128);
	OPS->global_init(g, &lp, n);
	H.parts[0]->guest = g;
	sim_mem_seal(&S.mem);
	OPS->init(LOCK);
	hv_start(&H, 0);
}

static uint64_t events(enum lock_event e)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < S.ncpus; i++)
		n += S.cpus[i]->counters[e];
	return n;
}

static void probe_at(struct probe *p, sim_time_t t)
{
	sim_event_init(&p->ev, probe_ev, p, SIM_PRIO_CHECK);
	sim_schedule(&S, &p->ev, t);
}

#define US(x) ((long)((x)*SIM_US))

/*
 * cpu0 takes the lock at 2 us for 50 us.  cpu1 (at 3 us) fails to steal
 * within qspl_steal_spins, queues (tail 1) and, after qspl_head_spins as
 * head, sets must-queue.  cpu2 (at 20 us) sees must-queue, does not try
 * to steal, and queues behind cpu1.  cpu0's 16-bit unlock leaves
 * must-queue and the tail; cpu1's clean-tail trylock takes the lock,
 * drops must-queue, keeps cpu2's tail and hands the queue to cpu2, which
 * as head sets must-queue again while cpu1 holds the lock; cpu2's own
 * clean-tail trylock then takes it, clearing tail and must-queue.
 */
START_TEST(test_steal_queue_mustq)
{
	static const struct step s0[] = {
		{OP_LOCK, 0}, {OP_WORK, US(50)}, {OP_UNLOCK, 0}, {OP_END, 0}};
	static const struct step s1[] = {{OP_WORK, US(1)},
					 {OP_LOCK, 0},
					 {OP_WORK, US(10)},
					 {OP_UNLOCK, 0},
					 {OP_END, 0}};
	static const struct step s2[] = {{OP_WORK, US(18)},
					 {OP_LOCK, 0},
					 {OP_WORK, US(10)},
					 {OP_UNLOCK, 0},
					 {OP_END, 0}};
	static const struct step *const sc[] = {s0, s1, s2};
	static const double at_us[] = {2.5, 10, 30, 56, 70, 90};
	static const u32 want[] = {
		0x00000001, /* cpu0 holds */
		0x00050001, /* tail cpu1, must-queue, cpu0 holds */
		0x00070001, /* tail cpu2, must-queue, cpu0 holds */
		0x00070003, /* cpu1 holds; cpu2, head since the hand-off,
			     * has set must-queue again */
		0x00000005, /* cpu2 holds, tail cleared */
		0x00000000,
	};
	struct probe p[6];

	setup(false, 4, 10 * SIM_MS, sc, 3);
	for (int i = 0; i < 6; i++)
		probe_at(&p[i], (sim_time_t)(at_us[i] * SIM_US));
	sim_run(&S, SIM_MS);
	for (int i = 0; i < 6; i++)
		ck_assert_msg(p[i].word == want[i], "probe %d: %#x, want %#x",
			      i, p[i].word, want[i]);
	ck_assert_uint_eq(events(LOCKEVENT_sim_mustq_set), 2);
	ck_assert_uint_eq(events(LOCKEVENT_sim_queue_enter), 2);
	ck_assert_uint_eq(events(LOCKEVENT_sim_steal_success), 0);
	ck_assert_uint_eq(events(LOCKEVENT_sim_steal_break_local), 1);
	hv_destroy(&H);
	sim_destroy(&S);
}
END_TEST

/*
 * Shared processors, one pCPU, 20 us slices: cpu0 holds the lock when its
 * slice ends at 22 us; cpu1, dispatched at 24 us, finds the owner
 * preempted, sets the sleepy bit and confers to cpu0.  The unlock's
 * half-word store clears sleepy with the owner.
 */
START_TEST(test_sleepy_on_preempted_owner)
{
	static const struct step s0[] = {
		{OP_LOCK, 0}, {OP_WORK, US(100)}, {OP_UNLOCK, 0}, {OP_END, 0}};
	static const struct step s1[] = {
		{OP_LOCK, 0}, {OP_WORK, US(5)}, {OP_UNLOCK, 0}, {OP_END, 0}};
	static const struct step *const sc[] = {s0, s1};
	struct probe p[40];
	bool sleepy_seen = false;

	setup(true, 1, 20 * SIM_US, sc, 2);
	for (int i = 0; i < 40; i++)
		probe_at(&p[i], 20 * SIM_US + (sim_time_t)i * 250 * SIM_NS);
	sim_run(&S, SIM_MS);
	for (int i = 0; i < 40; i++)
		if (p[i].word == (0x8000 | 0x1))
			sleepy_seen = true; /* sleepy, owner cpu0, locked */
	ck_assert(sleepy_seen);
	ck_assert_uint_ge(events(LOCKEVENT_sim_sleepy_set), 1);
	ck_assert_uint_ge(events(LOCKEVENT_sim_yield_owner_confer), 1);
	ck_assert_uint_ge(H.vcpus[1]->st.confers_directed, 1);
	ck_assert_uint_eq(*LOCK, 0); /* unlocks cleared sleepy too */
	hv_destroy(&H);
	sim_destroy(&S);
}
END_TEST

/* An owner on the other NUMA node: the remote budget (4) ends stealing. */
START_TEST(test_remote_steal_budget)
{
	static const struct step s0[] = {
		{OP_LOCK, 0}, {OP_WORK, US(20)}, {OP_UNLOCK, 0}, {OP_END, 0}};
	static const struct step s1[] = {
		{OP_WORK, US(1)}, {OP_LOCK, 0}, {OP_UNLOCK, 0}, {OP_END, 0}};
	static const struct step *const sc[] = {s0, s1};

	for (numa_nodes = 1; numa_nodes <= 2; numa_nodes++) {
		setup(false, 2, 10 * SIM_MS, sc, 2);
		sim_run(&S, SIM_MS);
		/* cpu1 is on node 1 of 2, cpu0 (the owner) on node 0. */
		ck_assert_uint_eq(events(LOCKEVENT_sim_steal_break_remote),
				  numa_nodes == 2);
		ck_assert_uint_eq(events(LOCKEVENT_sim_steal_break_local),
				  numa_nodes == 1);
		ck_assert_uint_eq(*LOCK, 0);
		hv_destroy(&H);
		sim_destroy(&S);
	}
	numa_nodes = 1;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ppclock");
	TCase *tc = tcase_create("ppclock");

	tcase_add_test(tc, test_steal_queue_mustq);
	tcase_add_test(tc, test_sleepy_on_preempted_owner);
	tcase_add_test(tc, test_remote_steal_budget);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
