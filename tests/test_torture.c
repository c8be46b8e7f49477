// SPDX-License-Identifier: MIT
/*
 * qsim torture, short: the unmutated lock survives a batch of adversarial
 * seeds, every mutant build is caught within a bounded number of seeds,
 * and a failing seed replays to the same violation at the same time.
 * (A harness that catches nothing fails here.)
 */
#include <glib/gstdio.h>

#include "locks/lock.h"
#include "tests/testutil.h"
#include "tools/torture.h"

static char *outdir(void)
{
	return tu_tmpdir("qsim-torture-XXXXXX");
}

START_TEST(test_clean_lock_survives)
{
	g_autofree char *dir = outdir();
	struct torture_opts o = {.first_seed = 1,
				 .seeds = 150,
				 .jobs = 2,
				 .out_dir = dir,
				 .quiet = true};
	struct torture_result r;

	ck_assert(torture_run(&o, &r, stdout, NULL));
	ck_assert_uint_eq(r.seeds_run, 150);
	ck_assert_msg(r.failures == 0, "seed %" PRIu64 ": %s",
		      r.first_failing_seed, r.first_violation);
	ck_assert(r.events > 0);
	torture_result_clear(&r);
}
END_TEST

/* Every registered, unbroken lock survives a short adversarial batch. */
START_TEST(test_every_lock_survives)
{
	const struct lk_ops *l = lk_registry[_i];
	g_autofree char *dir = outdir();
	struct torture_opts o = {.lock = l->name,
				 .first_seed = 1,
				 .seeds = 25,
				 .jobs = 2,
				 .out_dir = dir,
				 .quiet = true};
	struct torture_result r;

	if (l->broken)
		return;
	ck_assert(torture_run(&o, &r, stdout, NULL));
	ck_assert_msg(r.failures == 0, "%s seed %" PRIu64 ": %s", l->name,
		      r.first_failing_seed, r.first_violation);
	torture_result_clear(&r);
	if (l->kernel_tree) /* sc only (docs/memory-model.md) */
		return;
	/* And on POWER's weak memory, with the holders' data checked: a
	 * missing acquire or release shows up as stale data.  (It caught
	 * ticket_backoff's uncontended path reading the owner plainly.) */
	o.memory = "power";
	ck_assert(torture_run(&o, &r, stdout, NULL));
	ck_assert_msg(r.failures == 0, "%s under power, seed %" PRIu64 ": %s",
		      l->name, r.first_failing_seed, r.first_violation);
	torture_result_clear(&r);
}
END_TEST

/*
 * Seeds each mutant may take at most: 300.  The slowest, no_mb_wait_node,
 * is caught at seed 12 from seed 1 (session 21, measured at 7589c1f,
 * after one re-timing rule for every stretch of pipeline work; seed 23
 * at babd665 and e2639d2, seed 83 at 30602b9, seed 17 before), and from
 * 9 start seeds (1, 1001, ..., 8001) it took a median of 35 seeds and at
 * most 94, from seed 3001 (7589c1f; 23 and 212, from seed 6001, at
 * babd665 and e2639d2; 21 and 83 at 30602b9, 25 and 83 at cc0054e, 36
 * and 170 before, docs/torture.md): a budget below the maximum was a
 * guess that the next change of the physics could break, and at babd665
 * the maximum went above the 200 it had been, so it is 300 now (seed 1,
 * which this test starts from, is caught at 12, so the test takes no
 * longer).  Built without
 * the checks inside the lock code (-DQSIM_LOCK_CHECKS=OFF, tools/setup.sh
 * --test runs that build too) the observers outside catch the same ones
 * just as fast, but steal_ignores_pending, whose check (R7) no observer
 * can make exactly, is caught only as starvation: first at seed 5
 * (deterministic, with --jobs 1 from seed 1; session 21, at 7589c1f;
 * seed 133 at babd665 and e2639d2, sessions 18 and 19; seed 5 at
 * 30602b9, session 17; seed 78 at its cc0054e, after the
 * larx-first powerpc lock and the barriers' cost; seed 5 from session
 * 16's in-place re-timing, seed 78 between session 15's engine fix and
 * it, seed 5 before).
 */
#ifdef QSIM_NO_LOCK_CHECKS
#define MUTANT_SEED_BUDGET 400
#else
#define MUTANT_SEED_BUDGET 300
#endif

START_TEST(test_every_mutant_caught)
{
	const struct lk_ops *m = lk_mutants[_i];
	g_autofree char *dir = outdir();
	struct torture_opts o = {.mutant = m->mutant,
				 .mapping = m->mutant_mapping,
				 .memory = m->mutant_memory,
				 .first_seed = 1,
				 .seeds = MUTANT_SEED_BUDGET,
				 .jobs = 1,
				 .out_dir = dir,
				 .quiet = true};
	struct torture_result r;
	g_autofree char *ini = NULL;
	g_autofree char *text = NULL;
	struct qsim_config *cfg;
	struct qsim_results res;
	GError *err = NULL;

	ck_assert(torture_run(&o, &r, stdout, NULL));
	ck_assert_msg(r.failures == 1, "mutant %s not caught in %d seeds",
		      m->mutant, MUTANT_SEED_BUDGET);
	/* Replay the failing scenario file: the same violation, same time. */
	ini = g_strdup_printf("%s/seed-%" PRIu64 ".ini", dir,
			      r.first_failing_seed);
	cfg = cfg_load(ini, NULL, &err);
	ck_assert_msg(cfg, "%s", err ? err->message : "");
	tu_model(cfg, &res);
	ck_assert_int_ne(res.status, WL_OK);
	ck_assert_str_eq(res.violation_msg, r.first_violation);
	g_free(ini);
	ini = g_strdup_printf("%s/seed-%" PRIu64 ".trace", dir,
			      r.first_failing_seed);
	ck_assert(g_file_get_contents(ini, &text, NULL, NULL));
	ck_assert(strstr(text, " us  vCPU "));
	qsim_results_clear(&res);
	cfg_free(cfg);
	torture_result_clear(&r);
}
END_TEST

/*
 * A barrier mutant (locks/mutants.h, memory "power") drops an ordering
 * that only a weakly ordered machine can break: under sc it must never
 * be reported, whatever the seed (docs/memory-model.md).  40 seeds each,
 * the first of them the ones that catch it under power.
 */
START_TEST(test_barrier_mutants_clean_under_sc)
{
	unsigned int n = 0;

	for (unsigned int i = 0; lk_mutants[i]; i++) {
		const struct lk_ops *m = lk_mutants[i];
		g_autofree char *dir = NULL;
		struct torture_opts o = {.mutant = m->mutant,
					 .mapping = m->mutant_mapping,
					 .memory = "sc",
					 .first_seed = 1,
					 .seeds = 40,
					 .jobs = 1,
					 .quiet = true};
		struct torture_result r;

		if (!m->mutant_memory)
			continue;
		dir = outdir();
		o.out_dir = dir;
		ck_assert(torture_run(&o, &r, stdout, NULL));
		ck_assert_msg(r.failures == 0,
			      "barrier mutant %s reported under sc: %s",
			      m->mutant, r.first_violation);
		ck_assert_uint_eq(r.seeds_run, 40);
		torture_result_clear(&r);
		n++;
	}
	ck_assert_uint_ge(n, 9);
}
END_TEST

/* The text of @t with its pv_mapping line's value cut out. */
static char *without_mapping(const char *t)
{
	const char *m = strstr(t, "pv_mapping = ");
	const char *eol = m ? strchr(m, '\n') : NULL;

	ck_assert_ptr_nonnull(eol);
	return g_strdup_printf("%.*s%s", (int)(m - t), t, eol);
}

/*
 * --mapping changes the mapping and nothing else of a seed's scenario
 * (session 15: it shifted every later draw, so "does seed S fail under
 * kvm too?" ran another scenario); with the mapping the seed drew, the
 * text is the same to the byte.
 */
START_TEST(test_mapping_keeps_scenario)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct torture_opts o = {.lock = "pv_qspinlock"};
		g_autofree char *drawn = torture_scenario(&o, seed);
		g_autofree char *rest = without_mapping(drawn);
		unsigned int same = 0;

		for (int m = 0; m < LK_PV_NR; m++) {
			struct torture_opts om = {
				.lock = "pv_qspinlock",
				.mapping = lk_pv_mapping_name(
					(enum lk_pv_mapping)m)};
			g_autofree char *t = torture_scenario(&om, seed);
			g_autofree char *r = without_mapping(t);

			ck_assert_str_eq(r, rest);
			same += strcmp(t, drawn) == 0;
		}
		ck_assert_uint_eq(same, 1);
	}
}
END_TEST

/*
 * A failing run's files replace an earlier run's set in the folder
 * (session 15: they were mixed, and the earlier replay command ran the
 * later scenario): kick_after_release fails at the first seed it runs
 * (docs/torture.md), so a run from seed 5 leaves seed-5.*, and a run
 * from seed 1 into the same folder leaves seed-1.* only; a file of the
 * user's stays.
 */
START_TEST(test_failure_files_replace_earlier)
{
	g_autofree char *dir = outdir();
	g_autofree char *mine = g_build_filename(dir, "notes.txt", NULL);
	g_autofree char *s1 = g_build_filename(dir, "seed-1.ini", NULL);
	g_autofree char *s5 = g_build_filename(dir, "seed-5.ini", NULL);
	g_autofree char *r5 = g_build_filename(dir, "seed-5.report", NULL);
	struct torture_opts o = {.mutant = "kick_after_release",
				 .seeds = 1,
				 .jobs = 1,
				 .out_dir = dir,
				 .quiet = true};
	struct torture_result r;

	ck_assert(g_file_set_contents(mine, "keep\n", -1, NULL));
	o.first_seed = 5;
	ck_assert(torture_run(&o, &r, stdout, NULL));
	ck_assert_uint_eq(r.first_failing_seed, 5);
	torture_result_clear(&r);
	ck_assert(g_file_test(s5, G_FILE_TEST_EXISTS));
	o.first_seed = 1;
	ck_assert(torture_run(&o, &r, stdout, NULL));
	ck_assert_uint_eq(r.first_failing_seed, 1);
	torture_result_clear(&r);
	ck_assert(g_file_test(s1, G_FILE_TEST_EXISTS));
	ck_assert(!g_file_test(s5, G_FILE_TEST_EXISTS));
	ck_assert(!g_file_test(r5, G_FILE_TEST_EXISTS));
	ck_assert(g_file_test(mine, G_FILE_TEST_EXISTS));
}
END_TEST

/*
 * The drain: late_lost_kick loses one kick after 40 ms of a 50 ms run,
 * less than the 20 ms sleep bound before the end.  Without the drain the
 * run passes; with it (the default) the sleeper is caught, after the
 * end, as a lost wake-up.
 */
START_TEST(test_drain_catches_late_loss)
{
	struct torture_opts o = {.mutant = "late_lost_kick", .mapping = "kvm"};
	unsigned int caught = 0;

	for (uint64_t seed = 1; seed <= 6; seed++) {
		g_autofree char *text = torture_scenario(&o, seed);
		struct qsim_config *on = tu_config(text, NULL);
		struct qsim_config *off =
			tu_config(text, "check.drain=false", NULL);
		struct qsim_results a, b;

		tu_model(on, &a);
		tu_model(off, &b);
		if (b.status == WL_OK && a.status == WL_VIOL_LOST_WAKEUP) {
			/* found after the measured 50 ms; the report shows
			 * what the sleeper did when it went to sleep, 20 ms
			 * and thousands of events before (its own ring) */
			ck_assert_uint_gt(a.violation_ps, 50 * SIM_MS);
			ck_assert_msg(strstr(a.report, "'s last events:") &&
					      strstr(a.report, "halt: sleeps"),
				      "%s", a.report);
			caught++;
		}
		qsim_results_clear(&a);
		qsim_results_clear(&b);
		cfg_free(on);
		cfg_free(off);
	}
	ck_assert_uint_ge(caught, 1);
}
END_TEST

/*
 * The wider space (issue #16): half the seeds draw 3-64 locks, half of
 * those a 4 KiB page (a pv hash table of 256 entries, lines of 8), some
 * a second guest with locks of its own, some interrupts.  Over 60 seeds
 * of pv_qspinlock all of it happens, and the hash is probed past the
 * entry a lock hashes to (pv_hash_hops above 1 per hashed lock).
 * Measured: 9 small tables, 25 with more than 2 locks, 7 with a second
 * guest, 6 with interrupts, 43 probing further (session 21, at 7589c1f;
 * 47 from 30602b9 to e2639d2, sessions 17 to 19, 43 at cc0054e, 46 in
 * session 16, 45 in session 9, 44 once).
 */
START_TEST(test_wide_space)
{
	struct torture_opts o = {.lock = "pv_qspinlock"};
	unsigned int small = 0, many = 0, noise = 0, irq = 0, probed = 0;
	unsigned int nesting = 0, nested = 0;

	for (uint64_t seed = 1; seed <= 60; seed++) {
		g_autofree char *text = torture_scenario(&o, seed);
		struct qsim_config *cfg = tu_config(text, NULL);
		struct qsim_results res;

		small += cfg->page_bytes == 4096;
		many += cfg->nlocks > 2;
		noise += cfg->noise_parts > 0;
		irq += cfg->irq_rate > 0;
		tu_model(cfg, &res);
		ck_assert_msg(res.status == WL_OK, "seed %" PRIu64 ": %s", seed,
			      res.violation_msg);
		probed += res.lock_events[LOCKEVENT_pv_hash_hops] >
			  res.lock_events[LOCKEVENT_pv_kick_unlock];
		nesting += cfg->nest_prob > 0;
		for (unsigned int i = 0; i < res.nlocks; i++)
			nested += res.locks[i].nested > 0;
		qsim_results_clear(&res);
		cfg_free(cfg);
	}
	ck_assert_uint_gt(small, 5);
	ck_assert_uint_gt(many, 15);
	ck_assert_uint_gt(noise, 3);
	ck_assert_uint_gt(irq, 3);
	ck_assert_uint_gt(probed, 0);
	/* A third of the wide seeds nest; their nested locks were taken. */
	ck_assert_uint_gt(nesting, 5);
	ck_assert_uint_gt(nested, nesting);
}
END_TEST

START_TEST(test_scenarios_deterministic)
{
	struct torture_opts o = {0};
	g_autofree char *a = torture_scenario(&o, 42);
	g_autofree char *b = torture_scenario(&o, 42);
	g_autofree char *c = torture_scenario(&o, 43);

	ck_assert_str_eq(a, b);
	ck_assert_str_ne(a, c);
	ck_assert(strstr(a, "policy = adversarial"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("torture");
	TCase *tc = tcase_create("torture");
	int n = 0;

	while (lk_mutants[n])
		n++;
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_drain_catches_late_loss);
	tcase_add_test(tc, test_mapping_keeps_scenario);
	tcase_add_test(tc, test_failure_files_replace_earlier);
	tcase_add_test(tc, test_wide_space);
	tcase_add_test(tc, test_scenarios_deterministic);
	tcase_add_test(tc, test_clean_lock_survives);
	tcase_add_test(tc, test_barrier_mutants_clean_under_sc);
	tcase_add_loop_test(tc, test_every_mutant_caught, 0, n);
	for (n = 0; lk_registry[n];)
		n++;
	tcase_add_loop_test(tc, test_every_lock_survives, 0, n);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
