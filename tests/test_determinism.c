// SPDX-License-Identifier: MIT
/*
 * Same scenario, seed and binary: identical results, row for row.  A
 * different seed must change a randomized run.
 */
#include "tests/testutil.h"

static void assert_same(const struct qsim_results *a,
			const struct qsim_results *b)
{
	ck_assert_int_eq(a->status, b->status);
	ck_assert_uint_eq(a->events, b->events);
	ck_assert_uint_eq(a->switches, b->switches);
	for (unsigned int l = 0; l < a->nlocks; l++) {
		const struct qsim_lock_result *x = &a->locks[l],
					      *y = &b->locks[l];

#define X(name, kind, help) ck_assert_msg(x->name == y->name, "lock " #name);
		QSIM_LOCK_COLS(X)
#undef X
		ck_assert_mem_eq(x->latency.buckets, y->latency.buckets,
				 SIM_HIST_NBUCKETS * sizeof(uint64_t));
	}
	for (unsigned int v = 0; v < a->nvcpus; v++) {
		const struct qsim_vcpu_result *x = &a->vcpus[v],
					      *y = &b->vcpus[v];

#define X(name, kind, help) ck_assert_msg(x->name == y->name, "vcpu " #name);
		QSIM_VCPU_COLS(X)
#undef X
		ck_assert_mem_eq(&x->hv, &y->hv, sizeof(x->hv));
	}
}

static const char scenario[] = "[run]\nduration = 10ms\nwarmup = 1ms\n"
			       "[machine]\npcpus = 6\n"
			       "[hypervisor]\nslice = 500us\n"
			       "[partition]\nvcpus = 12\n"
			       "[lock]\ntype = tas\n"
			       "[workload]\nlocks = 3\ncs = exp:300ns\n"
			       "think = uniform:200ns:2us\n";

START_TEST(test_same_seed_same_rows)
{
	struct qsim_config *cfg = tu_config(scenario, "run.seed=9", NULL);
	struct qsim_results a, b;

	tu_model(cfg, &a);
	tu_model(cfg, &b);
	ck_assert_int_gt(a.locks[0].acquisitions, 100);
	assert_same(&a, &b);
	qsim_results_clear(&a);
	qsim_results_clear(&b);
	cfg_free(cfg);
}
END_TEST

START_TEST(test_other_seed_differs)
{
	struct qsim_config *c1 = tu_config(scenario, "run.seed=9", NULL);
	struct qsim_config *c2 = tu_config(scenario, "run.seed=10", NULL);
	struct qsim_results a, b;

	tu_model(c1, &a);
	tu_model(c2, &b);
	ck_assert(a.events != b.events ||
		  a.locks[0].acquisitions != b.locks[0].acquisitions);
	qsim_results_clear(&a);
	qsim_results_clear(&b);
	cfg_free(c1);
	cfg_free(c2);
}
END_TEST

/*
 * The confer-to-all caches (a vCPU's own "found nobody at generation g",
 * its partition's "no target" and "every target lent elsewhere") only
 * spare host time: the same simulation as walking the run queue at every
 * H_CONFER(-1), under rr, powervm and whole-core, with the 2020 and the
 * directed mappings, at 2x (targets lent elsewhere) and 1x (none
 * queued); and they are used (most confers end there).
 */
START_TEST(test_confer_caches_exact)
{
	static const char pv[] = "[run]\nduration = 10ms\nwarmup = 0ns\n"
				 "[hypervisor]\nslice = 1ms\n"
				 "[machine]\npcpus = 12\n"
				 "[partition]\nvcpus = 24\n"
				 "[lock]\ntype = pv_qspinlock\n"
				 "[workload]\ncs = 200ns\nthink = 1us\n";
	const char *sets[][3] = {
		{"hypervisor.policy=rr", NULL, NULL},
		{"hypervisor.policy=powervm", NULL, NULL},
		{"hypervisor.policy=powervm", "hypervisor.whole_core=true",
		 NULL},
		{"hypervisor.policy=rr", "lock.pv_mapping=splpar-directed",
		 NULL},
		/* 1x: nobody queued, the partition's "no target" */
		{"partition.vcpus=12", "lock.SPIN_THRESHOLD=16", NULL},
	};

	for (unsigned int i = 0; i < G_N_ELEMENTS(sets); i++) {
		struct qsim_config *cfg =
			tu_config(pv, sets[i][0], sets[i][1], NULL);
		struct qsim_results a, b;
		uint64_t ignored = 0, undirected = 0;

		hv_confer_rescan = false;
		tu_model(cfg, &a);
		hv_confer_rescan = true;
		tu_model(cfg, &b);
		hv_confer_rescan = false;
		ck_assert_int_gt(a.locks[0].acquisitions, 100);
		assert_same(&a, &b);
		for (unsigned int v = 0; v < a.nvcpus; v++) {
			ignored += a.vcpus[v].hv.confers_ignored;
			undirected += a.vcpus[v].hv.confers_undirected;
		}
		if (i != 3) /* the directed mapping confers to all rarely */
			ck_assert_msg(ignored > undirected / 2,
				      "%s: %" PRIu64 " of %" PRIu64, sets[i][0],
				      ignored, undirected);
		qsim_results_clear(&a);
		qsim_results_clear(&b);
		cfg_free(cfg);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("determinism");
	TCase *tc = tcase_create("determinism");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_same_seed_same_rows);
	tcase_add_test(tc, test_other_seed_differs);
	tcase_add_test(tc, test_confer_caches_exact);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
