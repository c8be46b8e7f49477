// SPDX-License-Identifier: MIT
/*
 * The event queue against a reference: sorting by (time, prio, insertion).
 */
#include <stdlib.h>

#include "sim/evq.h"
#include "sim/rng.h"
#include "tests/testutil.h"

static void nop(struct sim_event *ev)
{
}

START_TEST(test_order_time_prio_seq)
{
	struct sim_evq q;
	struct sim_event ev[6];
	/* (time, prio) in insertion order; expected pop order by hand. */
	static const sim_time_t t[6] = {50, 10, 50, 10, 50, 5};
	static const uint32_t p[6] = {2, 1, 1, 1, 2, 9};
	static const int want[6] = {5, 1, 3, 2, 0, 4};

	sim_evq_init(&q);
	for (int i = 0; i < 6; i++) {
		sim_event_init(&ev[i], nop, NULL, p[i]);
		sim_evq_push(&q, &ev[i], t[i]);
	}
	ck_assert(sim_evq_check_invariants(&q));
	ck_assert_uint_eq(sim_evq_top_time(&q), 5);
	for (int i = 0; i < 6; i++)
		ck_assert_ptr_eq(sim_evq_pop(&q), &ev[want[i]]);
	ck_assert_ptr_null(sim_evq_pop(&q));
	ck_assert_uint_eq(sim_evq_top_time(&q), SIM_TIME_NEVER);
	sim_evq_destroy(&q);
}
END_TEST

START_TEST(test_cancel_and_move)
{
	struct sim_evq q;
	struct sim_event a, b, c;

	sim_evq_init(&q);
	sim_event_init(&a, nop, NULL, 0);
	sim_event_init(&b, nop, NULL, 0);
	sim_event_init(&c, nop, NULL, 0);
	sim_evq_push(&q, &a, 10);
	sim_evq_push(&q, &b, 20);
	sim_evq_push(&q, &c, 30);
	sim_evq_cancel(&q, &a);
	ck_assert(!sim_event_queued(&a));
	sim_evq_cancel(&q, &a);	  /* cancelling an idle event is a no-op */
	sim_evq_push(&q, &c, 15); /* moving a queued event */
	ck_assert(sim_evq_check_invariants(&q));
	ck_assert_ptr_eq(sim_evq_pop(&q), &c);
	ck_assert_ptr_eq(sim_evq_pop(&q), &b);
	ck_assert_ptr_null(sim_evq_pop(&q));
	sim_evq_destroy(&q);
}
END_TEST

struct ref {
	sim_time_t t;
	uint32_t prio;
	uint64_t seq;
	int id;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Random pushes, moves and cancels, then drain against qsort. */
START_TEST(test_random_against_sort)
{
	enum { N = 2000 };
	struct sim_evq q;
	struct sim_event *ev = calloc(N, sizeof(*ev));
	struct ref *ref = calloc(N, sizeof(*ref));
	bool *live = calloc(N, sizeof(*live));
	struct sim_rng r;
	uint64_t seq = 0;
	int nref = 0;

	sim_rng_init(&r, 42, 99, 0);
	sim_evq_init(&q);
	for (int i = 0; i < N; i++) {
		sim_event_init(&ev[i], nop, NULL,
			       (uint32_t)sim_rng_below(&r, 3));
		ref[i].id = i;
		ref[i].prio = ev[i].prio;
	}
	for (int step = 0; step < 6000; step++) {
		int i = (int)sim_rng_below(&r, N);

		if (live[i] && sim_rng_below(&r, 4) == 0) {
			sim_evq_cancel(&q, &ev[i]);
			live[i] = false;
		} else {
			ref[i].t = sim_rng_below(&r, 500);
			ref[i].seq = seq++;
			sim_evq_push(&q, &ev[i], ref[i].t);
			live[i] = true;
		}
	}
	ck_assert(sim_evq_check_invariants(&q));
	for (int i = 0; i < N; i++)
		if (live[i])
			ref[nref++] = ref[i];
	qsort(ref, (size_t)nref, sizeof(*ref), ref_cmp);
	for (int i = 0; i < nref; i++)
		ck_assert_ptr_eq(sim_evq_pop(&q), &ev[ref[i].id]);
	ck_assert_ptr_null(sim_evq_pop(&q));
	sim_evq_destroy(&q);
	free(ev);
	free(ref);
	free(live);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("evq");
	TCase *tc = tcase_create("evq");

	tcase_add_test(tc, test_order_time_prio_seq);
	tcase_add_test(tc, test_cancel_and_move);
	tcase_add_test(tc, test_random_against_sort);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
