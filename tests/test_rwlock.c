// SPDX-License-Identifier: MIT
/*
 * qrwlock on a hand-built schedule, against counts derived by hand from
 * LOCK-FACTS.md section 7: readers share, a writer excludes, and a waiting
 * writer makes a newly arriving reader (process context) queue behind it.
 * cnts: writer byte 0xff, waiting bit 0x100, one reader 0x200.  Then the
 * reader-preferring legacy rwlock: readers keep a writer out.
 */
#include "qsim_kernel.h"
#include "tests/testutil.h"

static struct tu_rig R;

struct probe {
	struct sim_event ev;
	s32 word;
};

static void probe_ev(struct sim_event *ev)
{
	struct probe *p = ev->data;

	p->word = *(s32 *)R.locks[0];
}

static void setup(const char *lock, struct tu_script *sc, unsigned int n)
{
	struct hv_params hp = tu_hv_params(n);
	struct lk_params lp = tu_lk_params();

	lp.spin_threshold = 256;
	tu_rig_init(&R, &hp, lock, &lp, true, sc, n, 1);
	tu_rig_start(&R);
}

START_TEST(test_qrwlock_fairness)
{
	static const struct tu_step r0[] = {{TU_RLOCK, 0},
					    {TU_WORK, TU_US(50)},
					    {TU_RUNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step r1[] = {{TU_WORK, TU_US(3)},
					    {TU_RLOCK, 0},
					    {TU_WORK, TU_US(50)},
					    {TU_RUNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step w2[] = {
		{TU_WORK, TU_US(13)}, {TU_LOCK, 0},   {TU_MARK, 0},
		{TU_WORK, TU_US(10)}, {TU_UNLOCK, 0}, {TU_END, 0}};
	static const struct tu_step r3[] = {
		{TU_WORK, TU_US(23)}, {TU_RLOCK, 0},   {TU_MARK, 0},
		{TU_WORK, TU_US(10)}, {TU_RUNLOCK, 0}, {TU_END, 0}};
	struct tu_script sc[4] = {
		{.steps = r0}, {.steps = r1}, {.steps = w2}, {.steps = r3}};
	static const double at_us[] = {10, 20, 30, 60, 70, 90};
	static const s32 want[] = {
		0x400, /* two readers share it */
		0x500, /* ... and a writer waits */
		0x500, /* the new reader backed out: it queues behind */
		0x2ff, /* readers gone: the writer holds it; the queued
			* reader, given wait_lock when the writer let go of
			* it, has added its count and waits for the writer */
		0x200, /* the writer gone: the queued reader holds it */
		0x000,
	};
	struct probe p[6];

	setup("qrwlock", sc, 4);
	for (int i = 0; i < 6; i++) {
		tu_rig_at(&R, &p[i].ev, probe_ev, &p[i],
			  (sim_time_t)(at_us[i] * SIM_US));
	}
	sim_run(&R.s, SIM_MS);
	for (int i = 0; i < 6; i++)
		ck_assert_msg(p[i].word == want[i], "probe %d: %#x, want %#x",
			      i, (unsigned int)p[i].word,
			      (unsigned int)want[i]);
	/* The writer got in when the last reader left, at 2 + 3 + 50 us. */
	ck_assert_uint_ge(sc[2].marks[0], 55 * SIM_US);
	/* The late reader only after the writer's 10 us. */
	ck_assert_uint_ge(sc[3].marks[0], sc[2].marks[0] + 10 * SIM_US);
	tu_rig_destroy(&R);
}
END_TEST

/* Reader-preferring: a reader arriving after a waiting writer gets in. */
START_TEST(test_legacy_prefers_readers)
{
	static const struct tu_step r0[] = {{TU_RLOCK, 0},
					    {TU_WORK, TU_US(50)},
					    {TU_RUNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step w1[] = {
		{TU_WORK, TU_US(5)}, {TU_LOCK, 0},   {TU_MARK, 0},
		{TU_WORK, TU_US(5)}, {TU_UNLOCK, 0}, {TU_END, 0}};
	static const struct tu_step r2[] = {
		{TU_WORK, TU_US(20)}, {TU_RLOCK, 0},   {TU_MARK, 0},
		{TU_WORK, TU_US(50)}, {TU_RUNLOCK, 0}, {TU_END, 0}};
	struct tu_script sc[3] = {{.steps = r0}, {.steps = w1}, {.steps = r2}};
	struct probe p;

	setup("rwlock_legacy", sc, 3);
	tu_rig_at(&R, &p.ev, probe_ev, &p, 30 * SIM_US);
	sim_run(&R.s, SIM_MS);
	ck_assert_int_eq(p.word, 2); /* two readers, the writer still out */
	ck_assert_uint_lt(sc[2].marks[0], 25 * SIM_US);
	/* The writer waited for both readers: the second left at ~72 us. */
	ck_assert_uint_ge(sc[1].marks[0], 72 * SIM_US);
	tu_rig_destroy(&R);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rwlock");
	TCase *tc = tcase_create("rwlock");

	tcase_add_test(tc, test_qrwlock_fairness);
	tcase_add_test(tc, test_legacy_prefers_readers);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
