// SPDX-License-Identifier: MIT
/*
 * The hcalls and the rr dispatcher, against times derived by hand from
 * these parameters: hcall 500 ns, dispatch latency 2 us, wake latency
 * 5 us, slice 10 ms; an lppaca line never read before costs a memory fill
 * (100900 ps, tests/testutil.c).
 */
#include "qsim_kernel.h"
#include "tests/testutil.h"

enum op {
	OP_END,
	OP_WORK, /* a = ps */
	OP_CEDE,
	OP_PROD,   /* a = target */
	OP_CONFER, /* a = target, b = yield count, or -1: read it first */
	OP_MARK,   /* record now into marks[a] */
	OP_YC,	   /* record yield_count_of(a) into marks[b] */
};

struct step {
	enum op op;
	long a, b;
};

struct script {
	const struct step *steps;
	uint64_t marks[8];
};

static struct sim S;
static struct hv H;
/* The dispatcher for run(), and under powervm the partition's capped
 * entitlement in hundredths of a processing unit. */
static const char *run_policy = "rr";
static unsigned int run_entitlement;

static void script_main(struct sim_cpu *c, void *arg)
{
	struct script *sc = arg;

	for (const struct step *s = sc->steps; s->op != OP_END; s++) {
		switch (s->op) {
		case OP_WORK:
			sim_cpu_work(c, (sim_time_t)s->a);
			break;
		case OP_CEDE:
			plpar_hcall_norets(H_CEDE);
			break;
		case OP_PROD:
			prod_cpu((int)s->a);
			break;
		case OP_CONFER:
			yield_to_preempted((int)s->a,
					   s->b < 0 ? yield_count_of((int)s->a)
						    : (u32)s->b);
			break;
		case OP_MARK:
			sim_cpu_sync(c);
			sc->marks[s->a] = c->now_ps;
			break;
		case OP_YC:
			sc->marks[s->b] = yield_count_of((int)s->a);
			break;
		case OP_END:
			break;
		}
	}
}

static void run(unsigned int npcpus, struct script *scripts, unsigned int n,
		sim_time_t until)
{
	struct sim_topo topo = {4, 20, npcpus};
	struct hv_params p = {
		.policy = run_policy,
		.npcpus = npcpus,
		.window_ps = 10 * SIM_MS,
		.slice_ps = 10 * SIM_MS,
		.dispatch_latency_ps = 2 * SIM_US,
		.hcall_ps = 500 * SIM_NS,
		.wake_latency_ps = 5 * SIM_US,
	};
	void *args[8];

	for (unsigned int i = 0; i < n; i++)
		args[i] = &scripts[i];
	sim_init(&S, 1 << 20, 128, &tu_cost, &topo, 64 << 10);
	hv_init(&H, &S, &p, 1);
	struct hv_partition *part =
		hv_partition_add(&H, n, true, script_main, args);

	part->entitlement_cpu = run_entitlement;
	part->capped = true;
	sim_mem_seal(&S.mem);
	hv_start(&H, 0);
	ck_assert(hv_check_invariants(&H));
	sim_run(&S, until);
	ck_assert(hv_check_invariants(&H));
}

static void done(void)
{
	hv_destroy(&H);
	sim_destroy(&S);
}

START_TEST(test_yield_count_parity)
{
	static const struct step s0[] = {{OP_YC, 0, 0},
					 {OP_YC, 1, 1},
					 {OP_WORK, 20 * SIM_MS, 0},
					 {OP_END, 0, 0}};
	static const struct step s1[] = {
		{OP_MARK, 0, 0}, {OP_YC, 0, 1}, {OP_YC, 1, 2}, {OP_END, 0, 0}};
	struct script sc[2] = {{s0, {0}}, {s1, {0}}};

	run(1, sc, 2, 15 * SIM_MS);
	ck_assert_uint_eq(sc[0].marks[0], 2); /* running: even */
	ck_assert_uint_eq(sc[0].marks[1], 1); /* never dispatched: 1 */
	/* vCPU 1 runs after vCPU 0's slice and a dispatch latency. */
	ck_assert_uint_eq(sc[1].marks[0],
			  2 * SIM_US + 10 * SIM_MS + 2 * SIM_US);
	ck_assert_uint_eq(sc[1].marks[1], 3); /* preempted: odd */
	ck_assert_uint_eq(sc[1].marks[2], 2);
	ck_assert_uint_eq(H.vcpus[0]->st.preemptions, 1);
	done();
}
END_TEST

START_TEST(test_cede_and_prod)
{
	static const struct step s0[] = {
		{OP_CEDE, 0, 0}, {OP_MARK, 0, 0}, {OP_END, 0, 0}};
	static const struct step s1[] = {
		{OP_WORK, 100 * SIM_US, 0}, {OP_PROD, 0, 0}, {OP_END, 0, 0}};
	struct script sc[2] = {{s0, {0}}, {s1, {0}}};
	struct sim_cpu *c0;

	run(2, sc, 2, SIM_MS);
	/* Prod at 2 + 100 + 0.5 us; runnable 5 us later; dispatched 2 us on. */
	ck_assert_uint_eq(sc[0].marks[0],
			  (2000 + 100000 + 500 + 5000 + 2000) * SIM_NS);
	ck_assert_uint_eq(H.vcpus[0]->st.cedes, 1);
	ck_assert_uint_eq(H.vcpus[1]->st.prods, 1);
	ck_assert_uint_eq(H.vcpus[1]->st.prods_latched, 0);
	c0 = H.vcpus[0]->cpu;
	sim_cpu_flush_acct(c0, S.now_ps);
	/* Ceded from 2.5 us (after the hcall) to 107.5 us. */
	ck_assert_uint_eq(c0->acct_ps[SIM_ACCT_IDLE], 105 * SIM_US);
	done();
}
END_TEST

START_TEST(test_prod_latch)
{
	static const struct step s0[] = {{OP_WORK, 100 * SIM_US, 0},
					 {OP_CEDE, 0, 0},
					 {OP_MARK, 0, 0},
					 {OP_END, 0, 0}};
	static const struct step s1[] = {
		{OP_WORK, 50 * SIM_US, 0}, {OP_PROD, 0, 0}, {OP_END, 0, 0}};
	struct script sc[2] = {{s0, {0}}, {s1, {0}}};

	run(2, sc, 2, SIM_MS);
	/* The latched prod makes the cede return after its own cost. */
	ck_assert_uint_eq(sc[0].marks[0], (2000 + 100000 + 500) * SIM_NS);
	ck_assert_uint_eq(H.vcpus[0]->st.cedes, 0);
	ck_assert_uint_eq(H.vcpus[0]->st.latch_returns, 1);
	ck_assert_uint_eq(H.vcpus[1]->st.prods_latched, 1);
	ck_assert(!H.vcpus[0]->prod_latch);
	done();
}
END_TEST

START_TEST(test_confer_stale_then_directed)
{
	static const struct step s0[] = {
		{OP_CONFER, 1, 99}, {OP_CONFER, 1, -1}, {OP_END, 0, 0}};
	static const struct step s1[] = {{OP_MARK, 0, 0}, {OP_END, 0, 0}};
	struct script sc[2] = {{s0, {0}}, {s1, {0}}};

	run(1, sc, 2, SIM_MS);
	ck_assert_uint_eq(H.vcpus[0]->st.confers_stale, 1);
	ck_assert_uint_eq(H.vcpus[0]->st.confers_yielded, 1);
	/* 2 us dispatch, 0.5 us stale confer, lppaca fill, 0.5 us confer,
	 * then vCPU 1 dispatched onto the conferred pCPU after 2 us. */
	ck_assert_uint_eq(sc[1].marks[0],
			  2000000 + 500000 + 100900 + 500000 + 2000000);
	done();
}
END_TEST

START_TEST(test_confer_any)
{
	static const struct step s0[] = {
		{OP_CONFER, -1, 0}, {OP_MARK, 0, 0}, {OP_END, 0, 0}};
	static const struct step s1[] = {
		{OP_MARK, 0, 0}, {OP_WORK, 30 * SIM_MS, 0}, {OP_END, 0, 0}};
	struct script sc[2] = {{s0, {0}}, {s1, {0}}};

	/* Two pCPUs: nobody else is runnable, the confer returns at once. */
	run(2, sc, 2, SIM_MS);
	ck_assert_uint_eq(sc[0].marks[0], 2500 * SIM_NS);
	ck_assert_uint_eq(H.vcpus[0]->st.confers_ignored, 1);
	done();
	/* One pCPU: vCPU 1 gets it for what is left of the slice. */
	memset(sc[0].marks, 0, sizeof(sc[0].marks));
	run(1, sc, 2, 20 * SIM_MS);
	ck_assert_uint_eq(sc[1].marks[0], 4500 * SIM_NS);
	/* vCPU 1 ran on what was left of vCPU 0's slice (which began at
	 * 2 us), then vCPU 0 was dispatched again 2 us later. */
	ck_assert_uint_eq(sc[0].marks[0],
			  2 * SIM_US + 10 * SIM_MS + 2 * SIM_US);
	ck_assert_uint_eq(H.vcpus[0]->st.confers_yielded, 1);
	done();
}
END_TEST

/*
 * powervm: a directed confer hands the rest of the slice over, and the
 * time the target runs on it is charged to the caller's entitlement.  One
 * pCPU, 10 ms windows, two vCPUs capped at 1.00 PU: 5 ms each per window.
 *   0: vCPU 0 dispatched, running at 2 us, slice 5 ms (to 5.002 ms).
 *   Works 1 ms, reads vCPU 1's yield count (a fill, 100.9 ns), confers
 *   (0.5 us) at 1.0026009 ms, having used 1.0006009 ms.
 *   vCPU 1 runs at 1.0046009 ms on that slice, to 5.002 ms: 3.9973991 ms
 *   on vCPU 0's bill, so vCPU 0 has used 4.998 ms and is still entitled:
 *   it is dispatched again, running at 5.004 ms (its confer returns), for
 *   the 2 us it has left; then capped, off.  vCPU 1, with its own 5 ms
 *   untouched, runs from 5.008 ms.
 * At 9 ms: vCPU 0 used exactly 5 ms; vCPU 1 has run 3.9973991 + 3.992 ms
 * but used only the 3.992 ms of its own.
 */
START_TEST(test_confer_charged_to_caller)
{
	static const struct step s0[] = {{OP_WORK, SIM_MS, 0},
					 {OP_CONFER, 1, -1},
					 {OP_MARK, 0, 0},
					 {OP_WORK, 30 * SIM_MS, 0},
					 {OP_END, 0, 0}};
	static const struct step s1[] = {
		{OP_MARK, 0, 0}, {OP_WORK, 30 * SIM_MS, 0}, {OP_END, 0, 0}};
	struct script sc[2] = {{s0, {0}}, {s1, {0}}};

	run_policy = "powervm";
	run_entitlement = 100;
	run(1, sc, 2, 9 * SIM_MS);
	hv_flush_stats(&H, 9 * SIM_MS);
	run_policy = "rr";
	ck_assert_uint_eq(sc[1].marks[0], 1004600900);
	ck_assert_uint_eq(sc[0].marks[0], 5004 * SIM_US);
	ck_assert_uint_eq(H.vcpus[0]->win_used_ps, 5 * SIM_MS);
	ck_assert_uint_eq(H.vcpus[1]->win_used_ps, 3992 * SIM_US);
	ck_assert_uint_eq(H.vcpus[1]->cpu_ps, 3997399100 + 3992 * SIM_US);
	ck_assert(hv_check_invariants(&H));
	done();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hcall");
	TCase *tc = tcase_create("hcall");

	tcase_add_test(tc, test_yield_count_parity);
	tcase_add_test(tc, test_cede_and_prod);
	tcase_add_test(tc, test_prod_latch);
	tcase_add_test(tc, test_confer_stale_then_directed);
	tcase_add_test(tc, test_confer_any);
	tcase_add_test(tc, test_confer_charged_to_caller);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
