// SPDX-License-Identifier: MIT
/*
 * The hcalls and the rr dispatcher, against times derived by hand from
 * these parameters: hcall 500 ns, dispatch latency 2 us, wake latency
 * 5 us, slice 10 ms; an lppaca line never read before costs a memory fill
 * (100900 ps, tests/testutil.c).
 */
#include "qsim_kernel.h"
#include "tests/testutil.h"

static struct tu_rig R;
/* The dispatcher for run(), and under powervm the partition's capped
 * entitlement in hundredths of a processing unit. */
static const char *run_policy = "rr";
static unsigned int run_entitlement;

/* Set up and start the rig: @n vCPUs of one partition on @npcpus, under
 * run_policy, entitled to run_entitlement, capped unless @uncapped. */
static void start(unsigned int npcpus, struct tu_script *scripts,
		  unsigned int n, bool uncapped)
{
	struct hv_params p = tu_hv_params(npcpus);
	struct hv_partition *part;

	p.policy = run_policy;
	tu_rig_init(&R, &p, NULL, NULL, true, scripts, n, 0);
	part = R.h.parts[0];
	part->entitlement_cpu = run_entitlement;
	part->capped = !uncapped; /* uncapped: the default weight, 128 */
	tu_rig_start(&R);
	ck_assert(hv_check_invariants(&R.h));
}

/* The same under powervm, entitled to @ent hundredths of a PU. */
static void start_powervm(unsigned int npcpus, struct tu_script *scripts,
			  unsigned int n, unsigned int ent, bool uncapped)
{
	run_policy = "powervm";
	run_entitlement = ent;
	start(npcpus, scripts, n, uncapped);
	run_policy = "rr";
}

/* A vCPU that only works, for a simulated second. */
static const struct tu_step busy[] = {{TU_WORK, SIM_S, 0}, {TU_END, 0, 0}};

static void run(unsigned int npcpus, struct tu_script *scripts, unsigned int n,
		sim_time_t until)
{
	start(npcpus, scripts, n, false);
	sim_run(&R.s, until);
	ck_assert(hv_check_invariants(&R.h));
}

static void done(void)
{
	tu_rig_destroy(&R);
}

START_TEST(test_yield_count_parity)
{
	static const struct tu_step s0[] = {{TU_YC, 0, 0},
					    {TU_YC, 1, 1},
					    {TU_WORK, 20 * SIM_MS, 0},
					    {TU_END, 0, 0}};
	static const struct tu_step s1[] = {
		{TU_MARK, 0, 0}, {TU_YC, 0, 1}, {TU_YC, 1, 2}, {TU_END, 0, 0}};
	struct tu_script sc[2] = {{.steps = s0}, {.steps = s1}};

	run(1, sc, 2, 15 * SIM_MS);
	ck_assert_uint_eq(sc[0].marks[0], 2); /* running: even */
	ck_assert_uint_eq(sc[0].marks[1], 1); /* never dispatched: 1 */
	/* vCPU 1 runs after vCPU 0's slice and a dispatch latency. */
	ck_assert_uint_eq(sc[1].marks[0],
			  2 * SIM_US + 10 * SIM_MS + 2 * SIM_US);
	ck_assert_uint_eq(sc[1].marks[1], 3); /* preempted: odd */
	ck_assert_uint_eq(sc[1].marks[2], 2);
	ck_assert_uint_eq(R.h.vcpus[0]->st.preemptions, 1);
	done();
}
END_TEST

START_TEST(test_cede_and_prod)
{
	static const struct tu_step s0[] = {
		{TU_CEDE, 0, 0}, {TU_MARK, 0, 0}, {TU_END, 0, 0}};
	static const struct tu_step s1[] = {
		{TU_WORK, 100 * SIM_US, 0}, {TU_PROD, 0, 0}, {TU_END, 0, 0}};
	struct tu_script sc[2] = {{.steps = s0}, {.steps = s1}};
	struct sim_cpu *c0;

	run(2, sc, 2, SIM_MS);
	/* Prod at 2 + 100 + 0.5 us; runnable 5 us later; dispatched 2 us on. */
	ck_assert_uint_eq(sc[0].marks[0],
			  (2000 + 100000 + 500 + 5000 + 2000) * SIM_NS);
	ck_assert_uint_eq(R.h.vcpus[0]->st.cedes, 1);
	ck_assert_uint_eq(R.h.vcpus[1]->st.prods, 1);
	ck_assert_uint_eq(R.h.vcpus[1]->st.prods_latched, 0);
	c0 = R.h.vcpus[0]->cpu;
	sim_cpu_flush_acct(c0, R.s.now_ps);
	/* Ceded from 2.5 us (after the hcall) to 107.5 us. */
	ck_assert_uint_eq(c0->acct_ps[SIM_ACCT_IDLE], 105 * SIM_US);
	done();
}
END_TEST

START_TEST(test_prod_latch)
{
	static const struct tu_step s0[] = {{TU_WORK, 100 * SIM_US, 0},
					    {TU_CEDE, 0, 0},
					    {TU_MARK, 0, 0},
					    {TU_END, 0, 0}};
	static const struct tu_step s1[] = {
		{TU_WORK, 50 * SIM_US, 0}, {TU_PROD, 0, 0}, {TU_END, 0, 0}};
	struct tu_script sc[2] = {{.steps = s0}, {.steps = s1}};

	run(2, sc, 2, SIM_MS);
	/* The latched prod makes the cede return after its own cost. */
	ck_assert_uint_eq(sc[0].marks[0], (2000 + 100000 + 500) * SIM_NS);
	ck_assert_uint_eq(R.h.vcpus[0]->st.cedes, 0);
	ck_assert_uint_eq(R.h.vcpus[0]->st.latch_returns, 1);
	ck_assert_uint_eq(R.h.vcpus[1]->st.prods_latched, 1);
	ck_assert(!R.h.vcpus[0]->prod_latch);
	done();
}
END_TEST

START_TEST(test_confer_stale_then_directed)
{
	static const struct tu_step s0[] = {
		{TU_CONFER, 1, 99}, {TU_CONFER, 1, -1}, {TU_END, 0, 0}};
	static const struct tu_step s1[] = {{TU_MARK, 0, 0}, {TU_END, 0, 0}};
	struct tu_script sc[2] = {{.steps = s0}, {.steps = s1}};

	run(1, sc, 2, SIM_MS);
	ck_assert_uint_eq(R.h.vcpus[0]->st.confers_stale, 1);
	ck_assert_uint_eq(R.h.vcpus[0]->st.confers_yielded, 1);
	/* 2 us dispatch, 0.5 us stale confer, lppaca fill, 0.5 us confer,
	 * then vCPU 1 dispatched onto the conferred pCPU after 2 us. */
	ck_assert_uint_eq(sc[1].marks[0],
			  2000000 + 500000 + 100900 + 500000 + 2000000);
	done();
}
END_TEST

START_TEST(test_confer_any)
{
	static const struct tu_step s0[] = {
		{TU_CONFER, -1, 0}, {TU_MARK, 0, 0}, {TU_END, 0, 0}};
	static const struct tu_step s1[] = {
		{TU_MARK, 0, 0}, {TU_WORK, 30 * SIM_MS, 0}, {TU_END, 0, 0}};
	struct tu_script sc[2] = {{.steps = s0}, {.steps = s1}};

	/* Two pCPUs: nobody else is runnable, the confer returns at once. */
	run(2, sc, 2, SIM_MS);
	ck_assert_uint_eq(sc[0].marks[0], 2500 * SIM_NS);
	ck_assert_uint_eq(R.h.vcpus[0]->st.confers_ignored, 1);
	done();
	/* One pCPU: vCPU 1 gets it for what is left of the slice. */
	memset(sc[0].marks, 0, sizeof(sc[0].marks));
	run(1, sc, 2, 20 * SIM_MS);
	ck_assert_uint_eq(sc[1].marks[0], 4500 * SIM_NS);
	/* vCPU 1 ran on what was left of vCPU 0's slice (which began at
	 * 2 us), then vCPU 0 was dispatched again 2 us later. */
	ck_assert_uint_eq(sc[0].marks[0],
			  2 * SIM_US + 10 * SIM_MS + 2 * SIM_US);
	ck_assert_uint_eq(R.h.vcpus[0]->st.confers_yielded, 1);
	done();
}
END_TEST

/* vCPU 0 of the two confer tests below: works 1 ms, confers to vCPU 1. */
static const struct tu_step confer_at_1ms[] = {{TU_WORK, SIM_MS, 0},
					       {TU_CONFER, 1, -1},
					       {TU_MARK, 0, 0},
					       {TU_WORK, 30 * SIM_MS, 0},
					       {TU_END, 0, 0}};

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
	static const struct tu_step s1[] = {
		{TU_MARK, 0, 0}, {TU_WORK, 30 * SIM_MS, 0}, {TU_END, 0, 0}};
	struct tu_script sc[2] = {{.steps = confer_at_1ms}, {.steps = s1}};

	run_policy = "powervm";
	run_entitlement = 100;
	run(1, sc, 2, 9 * SIM_MS);
	hv_flush_stats(&R.h, 9 * SIM_MS);
	run_policy = "rr";
	ck_assert_uint_eq(sc[1].marks[0], 1004600900);
	ck_assert_uint_eq(sc[0].marks[0], 5004 * SIM_US);
	ck_assert_uint_eq(R.h.vcpus[0]->win_used_ps, 5 * SIM_MS);
	ck_assert_uint_eq(R.h.vcpus[1]->win_used_ps, 3992 * SIM_US);
	ck_assert_uint_eq(R.h.vcpus[1]->cpu_ps, 3997399100 + 3992 * SIM_US);
	ck_assert(hv_check_invariants(&R.h));
	done();
}
END_TEST

/*
 * The same confer, with vCPU 0's dispatch window starting (vCPU 1's at
 * 10 ms) while vCPU 1 runs the slice vCPU 0 conferred: what ran of that
 * slice before the window start belongs to vCPU 0's old window, the rest
 * to its new one.  vCPU 1 runs on vCPU 0's bill from 1.0046009 ms to the
 * slice end at 5.002 ms.
 * Window at 3 ms: vCPU 0's new window is charged 5.002 - 3 = 2.002 ms.
 *   vCPU 0 is dispatched again, running at 5.004 ms, for the 2.998 ms it
 *   has left, to 8.002 ms; vCPU 1 runs on its own from 8.004 ms.  At
 *   9 ms vCPU 0 has run 1.0006009 + 2.998 ms, vCPU 1 3.9973991 + 0.996
 *   and used 0.996 ms of its own.  (Before session 11 the whole lent
 *   slice went to the new window: vCPU 0 ran again only to 6.0066009 ms
 *   and vCPU 1 had used 2.9913991 ms.)
 * Window at 1.0036 ms, while vCPU 1 is still being dispatched (to
 *   1.0046009 ms): nothing of the slice has run, so the new window gets
 *   all 3.9973991 ms; vCPU 0 runs again from 5.004 ms for its last
 *   1.0026009 ms, to 6.0066009 ms, and vCPU 1 on its own from
 *   6.0086009 ms.  At 9 ms vCPU 0 has run 1.0006009 + 1.0026009 ms,
 *   vCPU 1 3.9973991 + 2.9913991 ms, 2.9913991 of them its own.
 */
static void confer_window_at(sim_time_t window, sim_time_t v0_ran,
			     sim_time_t v1_own)
{
	struct tu_script sc[2] = {{.steps = confer_at_1ms}, {.steps = busy}};
	struct hv_vcpu *v0;

	start_powervm(1, sc, 2, 100, false);
	v0 = R.h.vcpus[0];
	sim_evq_cancel(&R.s.q, &v0->win_ev);
	sim_schedule(&R.s, &v0->win_ev, window);
	sim_run(&R.s, 9 * SIM_MS);
	hv_flush_stats(&R.h, 9 * SIM_MS);
	ck_assert(hv_check_invariants(&R.h));
	ck_assert_uint_eq(sc[0].marks[0], 5004 * SIM_US);
	ck_assert_uint_eq(v0->win_used_ps, 5 * SIM_MS);
	ck_assert_uint_eq(v0->cpu_ps, v0_ran);
	ck_assert_uint_eq(R.h.vcpus[1]->win_used_ps, v1_own);
	ck_assert_uint_eq(R.h.vcpus[1]->cpu_ps, 3997399100 + v1_own);
	done();
}

START_TEST(test_confer_across_window_start)
{
	confer_window_at(3 * SIM_MS, 1000600900 + 2998 * SIM_US, 996 * SIM_US);
	confer_window_at(1003600 * SIM_NS, 1000600900 + 1002600900, 2991399100);
}
END_TEST

/*
 * powervm's affinity when a lent slice ends: the vCPU that ran it, queued
 * again, goes to the first free pCPU from its home.  Four pCPUs, five
 * vCPUs of an uncapped partition entitled to 4.00 PU (8 ms each per
 * window, so all stay entitled); vCPU 4 queued, homed on pCPU 3.
 *   vCPUs 0-3 run from 2 us.  vCPU 0 works 10 us and confers to vCPU 4
 *   (a fill and the hcall: 12.6009 us), which runs the rest of vCPU 0's
 *   slice (8 ms, its entitlement: to 8.002 ms) on pCPU 0; vCPUs 1-3 work
 *   20 us and cede for good, and pCPUs 1-3 idle (vCPU 0 is lent).
 *   At 8.002 ms vCPU 0, queued and entitled, gets pCPU 0 back; vCPU 4 is
 *   queued and offered to the idle pCPUs: pCPU 3, its home (before
 *   session 11: pCPU 1, the lowest free one).
 */
START_TEST(test_offer_goes_home)
{
	static const struct tu_step s0[] = {{TU_WORK, 10 * SIM_US, 0},
					    {TU_CONFER, 4, -1},
					    {TU_WORK, SIM_S, 0},
					    {TU_END, 0, 0}};
	static const struct tu_step cede[] = {
		{TU_WORK, 20 * SIM_US, 0}, {TU_CEDE, 0, 0}, {TU_END, 0, 0}};
	struct tu_script sc[5] = {{.steps = s0},
				  {.steps = cede},
				  {.steps = cede},
				  {.steps = cede},
				  {.steps = busy}};

	start_powervm(4, sc, 5, 400, true);
	R.h.vcpus[4]->home_pcpu = 3;
	sim_run(&R.s, 8 * SIM_MS);
	ck_assert_ptr_eq(R.h.pcpus[0].cur, R.h.vcpus[4]);
	ck_assert(!R.h.pcpus[1].cur && !R.h.pcpus[2].cur && !R.h.pcpus[3].cur);
	sim_run(&R.s, 8100 * SIM_US);
	ck_assert(hv_check_invariants(&R.h));
	ck_assert_ptr_eq(R.h.pcpus[0].cur, R.h.vcpus[0]);
	ck_assert_ptr_eq(R.h.pcpus[3].cur, R.h.vcpus[4]);
	ck_assert(!R.h.pcpus[1].cur && !R.h.pcpus[2].cur);
	done();
}
END_TEST

/*
 * One run queue for the pool (rr, and adversarial like it): a vCPU that
 * lands in the queue while another pCPU idles is taken by that pCPU.
 * Two pCPUs.  vCPU 0 confers its slice to vCPU 2 (queued), so vCPU 0 is
 * lent and may not run on pCPU 1; vCPU 1 cedes for good, and pCPU 1
 * idles.  When vCPU 2's slice ends, pCPU 0 takes vCPU 0 back and vCPU 2
 * is queued: pCPU 1 must take it then, not idle for the rest of the run.
 * At 60 ms both pCPUs run (one of vCPUs 0 and 2 each).
 */
START_TEST(test_queue_shared_by_idle_pcpus)
{
	static const char *const policies[] = {"rr", "adversarial"};
	static const struct tu_step s0[] = {{TU_WORK, SIM_US, 0},
					    {TU_CONFER, 2, -1},
					    {TU_WORK, SIM_S, 0},
					    {TU_END, 0, 0}};
	static const struct tu_step s1[] = {
		{TU_WORK, 20 * SIM_US, 0}, {TU_CEDE, 0, 0}, {TU_END, 0, 0}};

	for (unsigned int i = 0; i < G_N_ELEMENTS(policies); i++) {
		struct tu_script sc[3] = {
			{.steps = s0}, {.steps = s1}, {.steps = busy}};

		run_policy = policies[i];
		run(2, sc, 3, 60 * SIM_MS);
		ck_assert_msg(R.h.vcpus[0]->st.confers_yielded == 1 &&
				      R.h.vcpus[2]->st.preemptions > 0,
			      "%s: the lent slice never ended", policies[i]);
		ck_assert_msg(R.h.pcpus[0].cur && R.h.pcpus[1].cur,
			      "%s: a pCPU idles beside queued vCPU %u",
			      policies[i], R.h.vcpus[0]->on_rq ? 0u : 2u);
		done();
	}
	run_policy = "rr";
}
END_TEST

/*
 * powervm's affinity: a vCPU that becomes runnable goes to the first free
 * pCPU from its home pCPU on, also when the dispatcher offers it to the
 * idle pCPUs (here at its window refill).  Four pCPUs, one vCPU capped at
 * 0.10 PU (1 ms per 10 ms window), homed on pCPU 2: it starts on pCPU 0
 * (the first to pick), is capped off at 1.002 ms, and at the refill at
 * 10 ms is dispatched on pCPU 2 (before session 11: pCPU 0, the lowest
 * free one, whatever the vCPU's home).
 */
START_TEST(test_refill_goes_home)
{
	struct tu_script sc[1] = {{.steps = busy}};
	struct hv_vcpu *v;

	start_powervm(4, sc, 1, 10, false);
	v = R.h.vcpus[0];
	v->home_pcpu = 2;
	sim_run(&R.s, 5 * SIM_MS);
	ck_assert(v->on_rq && !R.h.pcpus[0].cur);
	ck_assert_uint_eq(v->win_used_ps, SIM_MS);
	sim_run(&R.s, 10 * SIM_MS + 10 * SIM_US);
	ck_assert_ptr_eq(R.h.pcpus[2].cur, v);
	ck_assert(hv_check_invariants(&R.h));
	done();
}
END_TEST

/*
 * Spare time is charged by weight, and so is the pool time a dispatch on
 * spare time takes (the dispatch latency).  One pCPU, two vCPUs of an
 * uncapped partition entitled to 0.20 PU (1 ms each per 10 ms window),
 * weight 128, both always runnable.
 *   vCPU 0 runs at 2 us to 1.002 ms (its 1 ms), then vCPU 1, entitled,
 *   takes the pCPU: running at 1.004 ms to 2.004 ms (its 1 ms; the 2 us
 *   of latency are in entitled time, no spare charge).  Neither is
 *   entitled now, so spare time goes round: vCPU 0 is dispatched at
 *   2.004 ms on spare time and runs from 2.006 ms.
 * At 2.5 ms: 2 us of latency + 494 us of running on spare time, times
 * 256 / 128: spare_vt = 992 us.
 */
START_TEST(test_spare_latency_charged)
{
	struct tu_script sc[2] = {{.steps = busy}, {.steps = busy}};

	start_powervm(1, sc, 2, 20, true);
	sim_run(&R.s, 2500 * SIM_US);
	hv_flush_stats(&R.h, 2500 * SIM_US);
	ck_assert(hv_check_invariants(&R.h));
	ck_assert_ptr_eq(R.h.pcpus[0].cur, R.h.vcpus[0]);
	ck_assert_uint_eq(R.h.vcpus[0]->win_used_ps, 1494 * SIM_US);
	ck_assert_uint_eq(R.h.vcpus[1]->win_used_ps, SIM_MS);
	ck_assert_uint_eq(R.h.parts[0]->spare_vt, 992 * SIM_US);
	done();
}
END_TEST

/*
 * H_CONFER to all, as PAPR defines it (docs/hypervisor.md): the caller's
 * cycles go to the partition's vCPUs preempted at the call, those not
 * conferring to all themselves.  One pCPU under rr, three vCPUs queued in
 * order 0, 1, 2; each confers to all as soon as it runs.
 *   vCPU 0 runs at 2 us, confers at 2.5 us: its structure holds 1 and 2;
 *   vCPU 1 gets the rest of the slice, running at 4.5 us, confers at 5 us:
 *   its structure holds only 2 (0 confers to all);
 *   vCPU 2 runs at 7 us and confers at 7.5 us: every vCPU in 0's and
 *   1's structures has had a dispatch since (2 itself), so they confer
 *   to all no more and both are recorded; the first, vCPU 0, takes the
 *   slice (it is its own: 0's dispatch, lent to 1 and 2, comes back to
 *   it on this pCPU) and runs at 9.5 us, its confer returning; 1 and 2
 *   wait behind it.
 * (A confer that took the longest-queued vCPU of the partition, whatever
 * it was doing, handed slices round a ring; one that kept a vCPU
 * "conferring" until it was dispatched again left vCPU 2 spinning on
 * confers that found nobody, and at 2x every running vCPU with it.
 * Re-derived in session 10.)
 */
static void confer_all(struct tu_rig *r, struct sim_cpu *c, long a)
{
	(void)r;
	(void)c;
	(void)a;
	yield_to_any();
}

START_TEST(test_confer_to_all)
{
	static const struct tu_step s[] = {{TU_CALL, 0},
					   {TU_MARK, 0, 0},
					   {TU_WORK, 30 * SIM_MS, 0},
					   {TU_END, 0, 0}};
	struct tu_script sc[3] = {{.steps = s}, {.steps = s}, {.steps = s}};
	struct hv_params p = tu_hv_params(1);

	tu_rig_init(&R, &p, NULL, NULL, true, sc, 3, 0);
	R.call = confer_all;
	tu_rig_start(&R);
	sim_run(&R.s, 100 * SIM_US);
	ck_assert(hv_check_invariants(&R.h));
	ck_assert_uint_eq(sc[0].marks[0], 9500 * SIM_NS);
	ck_assert_uint_eq(R.h.vcpus[2]->st.confers_ignored, 0);
	ck_assert_uint_eq(R.h.vcpus[0]->st.confers_yielded, 1);
	ck_assert_uint_eq(R.h.vcpus[1]->st.confers_yielded, 1);
	ck_assert_uint_eq(R.h.vcpus[2]->st.confers_yielded, 1);
	ck_assert_uint_eq(sc[1].marks[0], 0);
	ck_assert_uint_eq(sc[2].marks[0], 0);
	done();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hcall");
	TCase *tc = tcase_create("hcall");

	tcase_add_test(tc, test_yield_count_parity);
	tcase_add_test(tc, test_confer_to_all);
	tcase_add_test(tc, test_cede_and_prod);
	tcase_add_test(tc, test_prod_latch);
	tcase_add_test(tc, test_confer_stale_then_directed);
	tcase_add_test(tc, test_confer_any);
	tcase_add_test(tc, test_confer_charged_to_caller);
	tcase_add_test(tc, test_confer_across_window_start);
	tcase_add_test(tc, test_queue_shared_by_idle_pcpus);
	tcase_add_test(tc, test_refill_goes_home);
	tcase_add_test(tc, test_offer_goes_home);
	tcase_add_test(tc, test_spare_latency_charged);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
