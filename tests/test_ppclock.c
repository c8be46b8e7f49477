// SPDX-License-Identifier: MIT
/*
 * ppc_qspinlock lock-word transitions on hand-built schedules, against
 * values derived by hand from LOCK-FACTS.md section 4.  The word:
 * locked bit 0, owner CPU bits 1-14, sleepy 0x8000, must-queue 0x10000,
 * tail CPU + 1 from bit 17 (cpu c's tail is (c + 1) << 17).
 */
#include "qsim_kernel.h"
#include "tests/testutil.h"

static struct tu_rig R;

struct probe {
	struct sim_event ev;
	u32 word;
};

static void probe_ev(struct sim_event *ev)
{
	struct probe *p = ev->data;

	p->word = *(u32 *)R.locks[0];
}

static void probe_at(struct probe *p, sim_time_t t)
{
	tu_rig_at(&R, &p->ev, probe_ev, p, t);
}

static unsigned int numa_nodes = 1;

static void setup(bool shared, unsigned int npcpus, sim_time_t slice,
		  struct tu_script *sc, unsigned int n)
{
	struct hv_params hp = tu_hv_params(npcpus);
	struct lk_params lp = tu_lk_params();

	hp.slice_ps = slice;
	lp.numa_nodes = numa_nodes;
#define X(name, def, max, help) lp.qspl.name = def;
	QSPL_TUNABLES(X)
#undef X
	tu_rig_init(&R, &hp, "ppc_qspinlock", &lp, shared, sc, n, 1);
	tu_rig_start(&R);
}

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
	static const struct tu_step s0[] = {{TU_LOCK, 0},
					    {TU_WORK, TU_US(50)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step s1[] = {{TU_WORK, TU_US(1)},
					    {TU_LOCK, 0},
					    {TU_WORK, TU_US(10)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step s2[] = {{TU_WORK, TU_US(18)},
					    {TU_LOCK, 0},
					    {TU_WORK, TU_US(10)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	struct tu_script sc[] = {{.steps = s0}, {.steps = s1}, {.steps = s2}};
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
	sim_run(&R.s, SIM_MS);
	for (int i = 0; i < 6; i++)
		ck_assert_msg(p[i].word == want[i], "probe %d: %#x, want %#x",
			      i, p[i].word, want[i]);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_sim_mustq_set), 2);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_sim_queue_enter), 2);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_sim_steal_success), 0);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_sim_steal_break_local),
			  1);
	tu_rig_destroy(&R);
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
	static const struct tu_step s0[] = {{TU_LOCK, 0},
					    {TU_WORK, TU_US(100)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step s1[] = {
		{TU_LOCK, 0}, {TU_WORK, TU_US(5)}, {TU_UNLOCK, 0}, {TU_END, 0}};
	struct tu_script sc[] = {{.steps = s0}, {.steps = s1}};
	struct probe p[40];
	bool sleepy_seen = false;

	setup(true, 1, 20 * SIM_US, sc, 2);
	for (int i = 0; i < 40; i++)
		probe_at(&p[i], 20 * SIM_US + (sim_time_t)i * 250 * SIM_NS);
	sim_run(&R.s, SIM_MS);
	for (int i = 0; i < 40; i++)
		if (p[i].word == (0x8000 | 0x1))
			sleepy_seen = true; /* sleepy, owner cpu0, locked */
	ck_assert(sleepy_seen);
	ck_assert_uint_ge(tu_rig_events(&R, LOCKEVENT_sim_sleepy_set), 1);
	ck_assert_uint_ge(tu_rig_events(&R, LOCKEVENT_sim_yield_owner_confer),
			  1);
	ck_assert_uint_ge(R.h.vcpus[1]->st.confers_directed, 1);
	ck_assert_uint_eq(*(u32 *)R.locks[0],
			  0); /* unlocks cleared sleepy too */
	tu_rig_destroy(&R);
}
END_TEST

/* An owner on the other NUMA node: the remote budget (4) ends stealing. */
START_TEST(test_remote_steal_budget)
{
	static const struct tu_step s0[] = {{TU_LOCK, 0},
					    {TU_WORK, TU_US(20)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step s1[] = {
		{TU_WORK, TU_US(1)}, {TU_LOCK, 0}, {TU_UNLOCK, 0}, {TU_END, 0}};
	struct tu_script sc[] = {{.steps = s0}, {.steps = s1}};

	for (numa_nodes = 1; numa_nodes <= 2; numa_nodes++) {
		setup(false, 2, 10 * SIM_MS, sc, 2);
		sim_run(&R.s, SIM_MS);
		/* cpu1 is on node 1 of 2, cpu0 (the owner) on node 0. */
		ck_assert_uint_eq(
			tu_rig_events(&R, LOCKEVENT_sim_steal_break_remote),
			numa_nodes == 2);
		ck_assert_uint_eq(
			tu_rig_events(&R, LOCKEVENT_sim_steal_break_local),
			numa_nodes == 1);
		ck_assert_uint_eq(*(u32 *)R.locks[0], 0);
		tu_rig_destroy(&R);
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
