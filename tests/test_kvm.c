// SPDX-License-Identifier: MIT
/*
 * The kvm dispatcher against figures derived by hand: CPU time shared in
 * proportion to weight, wake-up preemption bounding how long a kicked
 * vCPU waits behind CPU hogs, and every lock passing the validation
 * checks under it at 1x and 2x.
 */
#include "locks/lock.h"
#include "tests/testutil.h"

/*
 * 4 pCPUs, two saturating partitions of 4 vCPUs (a ticket lock spun on
 * with no think time, and CPU hogs), weights 64 and 192: 8 threads want
 * 4 pCPUs, so fair share by weight gives 4 * 64/256 = 1.0 and
 * 4 * 192/256 = 3.0 pCPUs.
 */
static void share(unsigned int w_guest, unsigned int w_noise, double want_g,
		  double want_n)
{
	g_autofree char *text = g_strdup_printf(
		"[run]\nduration = 400ms\nwarmup = 40ms\n"
		"[machine]\npcpus = 4\n"
		"[hypervisor]\npolicy = kvm\n"
		"[partition]\nvcpus = 4\nweight = %u\n"
		"[lock]\ntype = ticket\n"
		"[workload]\nthink = 0ns\ncs = 100ns\n"
		"[noise]\npartitions = 1\nvcpus = 4\nweight = %u\n",
		w_guest, w_noise);
	struct qsim_config *cfg = tu_config(text, NULL);
	struct qsim_results res;

	tu_model(cfg, &res);
	ck_assert_int_eq(res.status, WL_OK);
	ck_assert_uint_eq(res.nparts, 2);
	ck_assert_msg(fabs(res.parts[0].physc - want_g) < 0.05,
		      "guest physc %f, want %f", res.parts[0].physc, want_g);
	ck_assert_msg(fabs(res.parts[1].physc - want_n) < 0.05,
		      "noise physc %f, want %f", res.parts[1].physc, want_n);
	qsim_results_clear(&res);
	cfg_free(cfg);
}

START_TEST(test_fair_share_by_weight)
{
	share(64, 192, 1.0, 3.0);
	share(128, 128, 2.0, 2.0);
}
END_TEST

/*
 * 2 pCPUs: the guest's 4 vCPUs contend for a pv lock under the KVM
 * mapping (cs 20us, think 5us), so waiters halt and are kicked, beside 2
 * hog vCPUs that never sleep.  With wake-up preemption (granularity 0) a
 * kicked vCPU that leads a running one in vruntime takes its pCPU after
 * the wake and dispatch latencies; without it (granularity 1 s) it waits
 * for a slice to end: the slice is 10 ms over 6 runnable threads on 2
 * pCPUs, 3.3 ms, so waits average a good part of a millisecond.
 */
static double wake_wait_ns(const char *gran)
{
	g_autofree char *text = g_strdup_printf(
		"[run]\nduration = 200ms\nwarmup = 20ms\n"
		"[machine]\npcpus = 2\n"
		"[hypervisor]\npolicy = kvm\nwakeup_granularity = %s\n"
		"[partition]\nvcpus = 4\n"
		"[lock]\ntype = pv_qspinlock\npv_mapping = kvm\n"
		"[workload]\nthink = 5us\ncs = 20us\n"
		"[noise]\npartitions = 1\nvcpus = 2\n",
		gran);
	struct qsim_config *cfg = tu_config(text, NULL);
	struct qsim_results res;
	double wait;

	tu_model(cfg, &res);
	ck_assert_int_eq(res.status, WL_OK);
	wait = res.pv_latency_wake_ns;
	qsim_results_clear(&res);
	cfg_free(cfg);
	return wait;
}

START_TEST(test_wakeup_preemption)
{
	double fast = wake_wait_ns("0ns"), slow = wake_wait_ns("1s");

	ck_assert_msg(fast >= 7000 && fast < 250000,
		      "kick to running %.0f ns with wake-up preemption", fast);
	ck_assert_msg(slow > 500000 && slow > 10 * fast,
		      "kick to running %.0f ns without wake-up preemption, "
		      "%.0f ns with",
		      slow, fast);
}
END_TEST

/*
 * Pause-loop exiting, by hand: 2 vCPUs on 1 pCPU hand a ticket lock back
 * and forth (cs 10us, think 1us), with 1 ms slices.  Whenever the vCPU
 * whose turn is next is preempted, the running one spins: without PLE
 * for the rest of its slice, so the worst acquisition waits at least a
 * slice (1 ms).  With a 10 us window it exits after 10 us and yields to
 * the preempted one, which runs after the 2 us dispatch latency and takes
 * the lock: the worst wait is a window, a dispatch and a critical section
 * or two, well under 100 us.
 */
static void ple(const char *window, struct qsim_results *res)
{
	g_autofree char *text =
		g_strdup_printf("[run]\nduration = 100ms\nwarmup = 10ms\n"
				"[machine]\npcpus = 1\n"
				"[hypervisor]\npolicy = kvm\nslice = 1ms\n"
				"min_granularity = 1ms\nple_window = %s\n"
				"[partition]\nvcpus = 2\n"
				"[lock]\ntype = ticket\n"
				"[workload]\nthink = 1us\ncs = 10us\n",
				window);
	struct qsim_config *cfg = tu_config(text, NULL);

	tu_model(cfg, res);
	ck_assert_int_eq(res->status, WL_OK);
	cfg_free(cfg);
}

START_TEST(test_pause_loop_exiting)
{
	struct qsim_results off, on;
	uint64_t exits = 0, yields = 0;

	ple("0ns", &off);
	ple("10us", &on);
	for (unsigned int v = 0; v < 2; v++) {
		exits += on.vcpus[v].hv.ple_exits;
		yields += on.vcpus[v].hv.ple_yields;
		ck_assert_uint_eq(off.vcpus[v].hv.ple_exits, 0);
	}
	ck_assert_msg(off.locks[0].latency.max_ps >= SIM_MS,
		      "worst wait without PLE %" PRIu64 " ps",
		      (uint64_t)off.locks[0].latency.max_ps);
	ck_assert_msg(on.locks[0].latency.max_ps < 100 * SIM_US,
		      "worst wait with PLE %" PRIu64 " ps",
		      (uint64_t)on.locks[0].latency.max_ps);
	ck_assert_uint_gt(yields, 0);
	ck_assert_uint_ge(exits, yields);
	ck_assert_uint_gt(on.locks[0].acquisitions,
			  10 * off.locks[0].acquisitions);
	qsim_results_clear(&off);
	qsim_results_clear(&on);
}
END_TEST

START_TEST(test_every_lock_under_kvm)
{
	/* At 2x with pause-loop exiting too. */
	tu_validate(lk_registry[_i], 16, "hypervisor.policy=kvm", NULL);
	tu_validate(lk_registry[_i], 8, "hypervisor.policy=kvm",
		    "hypervisor.ple_window=2us");
}
END_TEST

/*
 * Halt polling, by hand (hypervisor.halt_poll = 200 us; the rig's 2 us
 * dispatch, 500 ns hcalls, 5 us wake latency).  vCPU 0 halts three times,
 * vCPU 1 kicks it at 12, 22.5 and 60 us of its own time.
 * 1st halt at 2.5 us (after the hcall): its window is 0, it sleeps; the
 *   kick at 12.5 us wakes it after 5 us, dispatched 2 us later: 19.5 us.
 *   It was halted 17 us < 200 us: the window grows to 10 us.
 * 2nd halt at 20 us: the host polls to 30 us; the kick at 23 us (22.5
 *   plus the hcall) catches it: running at once, 23 us.  Halted 3 us:
 *   the window doubles, 20 us.
 * 3rd halt at 23.5 us: polls to 43.5 us in vain, then sleeps; the kick at
 *   60.5 us wakes it after 5 + 2 us: 67.5 us.
 */
START_TEST(test_halt_poll)
{
	static const struct tu_step halter[] = {
		{TU_HALT}, {TU_MARK, 0}, {TU_HALT}, {TU_MARK, 1},
		{TU_HALT}, {TU_MARK, 2}, {TU_END}};
	static const struct tu_step kicker[] = {{TU_WORK, TU_US(10)},
						{TU_KICK, 0},
						{TU_WORK, TU_US(10)},
						{TU_KICK, 0},
						{TU_WORK, TU_US(37)},
						{TU_KICK, 0},
						{TU_END}};
	struct tu_script sc[2] = {{.steps = halter}, {.steps = kicker}};
	struct hv_params hp = tu_hv_params(2);
	struct tu_rig r;

	hp.halt_poll_ps = 200 * SIM_US;
	tu_rig_init(&r, &hp, NULL, NULL, true, sc, 2, 0);
	tu_rig_start(&r);
	sim_run(&r.s, SIM_MS);
	ck_assert_uint_eq(sc[0].marks[0], 19500 * SIM_NS);
	ck_assert_uint_eq(sc[0].marks[1], 23000 * SIM_NS);
	ck_assert_uint_eq(sc[0].marks[2], 67500 * SIM_NS);
	ck_assert_uint_eq(r.h.vcpus[0]->st.halts, 3);
	ck_assert_uint_eq(r.h.vcpus[0]->st.halt_polls_ok, 1);
	ck_assert_uint_eq(r.h.vcpus[0]->st.halt_polls_missed, 1);
	ck_assert_uint_eq(r.h.vcpus[0]->halt_poll_ps, 40 * SIM_US);
	tu_rig_destroy(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kvm");
	TCase *tc = tcase_create("kvm");
	int n = 0;

	while (lk_registry[n])
		n++;
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_fair_share_by_weight);
	tcase_add_test(tc, test_wakeup_preemption);
	tcase_add_test(tc, test_pause_loop_exiting);
	tcase_add_test(tc, test_halt_poll);
	tcase_add_loop_test(tc, test_every_lock_under_kvm, 0, n);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
