// SPDX-License-Identifier: MIT
/*
 * The cache-line cost model, driven through sim_mem_touch with costs from
 * tests/testutil.c and topology SMT4, 20 cores per chip: pCPUs 0-3 share a
 * core, 0-79 a chip, 80+ are on the other chip.
 */
#include "tests/testutil.h"

static struct sim S;

static size_t setup(void)
{
	void *p;

	tu_sim_init(&S, 160);
	p = sim_mem_alloc(&S.mem, 4, 128);
	sim_mem_seal(&S.mem);
	return sim_mem_line_of(&S.mem, p);
}

START_TEST(test_distances)
{
	tu_sim_init(&S, 160);
	ck_assert_int_eq(sim_mem_dist(&S.mem, 5, 5), SIM_DIST_HIT);
	ck_assert_int_eq(sim_mem_dist(&S.mem, 4, 7), SIM_DIST_SMT);
	ck_assert_int_eq(sim_mem_dist(&S.mem, 3, 4), SIM_DIST_CHIP);
	ck_assert_int_eq(sim_mem_dist(&S.mem, 0, 79), SIM_DIST_CHIP);
	ck_assert_int_eq(sim_mem_dist(&S.mem, 79, 80), SIM_DIST_REMOTE);
	ck_assert_int_eq(sim_mem_dist(&S.mem, 0, -1), SIM_DIST_MEM);
	sim_destroy(&S);
}
END_TEST

START_TEST(test_read_then_hit)
{
	size_t l = setup();

	/* Nobody holds it: a memory fill, then hits. */
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 0, SIM_READ, 1000, NULL),
			  1000 + 100900);
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 0, SIM_READ, 200000, NULL),
			  201000);
	/* Another pCPU on the same chip reads: still from memory (no
	 * writer yet), then it is a sharer too. */
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 9, SIM_READ, 300000, NULL),
			  300000 + 100900);
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 9, SIM_READ, 500000, NULL),
			  501000);
	sim_destroy(&S);
}
END_TEST

START_TEST(test_write_invalidates)
{
	size_t l = setup();

	sim_mem_touch(&S.mem, l, 0, SIM_READ, 0, NULL);
	sim_mem_touch(&S.mem, l, 90, SIM_READ, 0, NULL);
	/* pCPU 90 writes: it holds a copy, so no data moves, but pCPU 0's
	 * copy on the other chip must be invalidated: remote, 90700. */
	ck_assert_uint_eq(
		sim_mem_touch(&S.mem, l, 90, SIM_WRITE, 1000000, NULL),
		1000000 + 90700);
	/* Owner writes again: a hit, once the line is no longer busy. */
	ck_assert_uint_eq(
		sim_mem_touch(&S.mem, l, 90, SIM_WRITE, 2000000, NULL),
		2001000);
	/* pCPU 0's copy was invalidated: a remote transfer from 90. */
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 0, SIM_READ, 3000000, NULL),
			  3000000 + 90700);
	/* pCPU 1 (same core as 0) reads: data still sourced from 90. */
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 91, SIM_READ, 4000000, NULL),
			  4000000 + 4100);
	sim_destroy(&S);
}
END_TEST

/* Atomics serialize through the line's busy time. */
START_TEST(test_atomics_serialize)
{
	size_t l = setup();
	sim_time_t a, b, c;

	a = sim_mem_touch(&S.mem, l, 0, SIM_RMW, 1000000, NULL);
	ck_assert_uint_eq(a, 1000000 + 100900 + 8100);
	/* Two more at the same instant queue behind it. */
	b = sim_mem_touch(&S.mem, l, 4, SIM_RMW, 1000000, NULL);
	ck_assert_uint_eq(b, a + 25300 + 8100);
	c = sim_mem_touch(&S.mem, l, 80, SIM_RMW, 1000000, NULL);
	ck_assert_uint_eq(c, b + 90700 + 8100);
	sim_destroy(&S);
}
END_TEST

/* A test-and-set collapse: N simultaneous atomics cost N transfers. */
START_TEST(test_contention_grows_linearly)
{
	size_t l = setup();
	sim_time_t end = 0;

	for (int i = 0; i < 16; i++)
		end = sim_mem_touch(&S.mem, l, 4 * i, SIM_RMW, 0, NULL);
	/* First from memory, then 15 chip transfers (all on chip 0). */
	ck_assert_uint_eq(end, 100900 + 8100 + 15 * (25300 + 8100));
	sim_destroy(&S);
}
END_TEST

/*
 * A thread whose sibling's read miss is still in flight gets the data
 * when it arrives, not at hit cost: pCPU 90 writes x; pCPU 0 misses at
 * 1000000 (remote from 90: done at 1090700); its sibling pCPU 1 reads at
 * 1005000, while the data is on its way: done at 1090700 too; later reads
 * in that core hit (1000).
 */
START_TEST(test_sibling_waits_for_fill)
{
	size_t l = setup();

	sim_mem_touch(&S.mem, l, 90, SIM_WRITE, 0, NULL);
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 0, SIM_READ, 1000000, NULL),
			  1000000 + 90700);
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 1, SIM_READ, 1005000, NULL),
			  1000000 + 90700);
	ck_assert_uint_eq(sim_mem_touch(&S.mem, l, 2, SIM_READ, 2000000, NULL),
			  2000000 + 1000);
	sim_destroy(&S);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = tcase_create("cost");

	tcase_add_test(tc, test_distances);
	tcase_add_test(tc, test_read_then_hit);
	tcase_add_test(tc, test_write_invalidates);
	tcase_add_test(tc, test_atomics_serialize);
	tcase_add_test(tc, test_contention_grows_linearly);
	tcase_add_test(tc, test_sibling_waits_for_fill);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
