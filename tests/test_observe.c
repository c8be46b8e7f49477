// SPDX-License-Identifier: MIT
/*
 * The observers (sim/observe.h) on hand-made write sequences:
 * two vCPUs write a pv_qspinlock's word and hash table directly (no lock
 * code runs), and the observer must flag exactly the sequences that
 * break O1-O4, worked out by hand for each, and stay quiet on the two
 * legal ways to reach _Q_SLOW_VAL (the waiting head hashes first; the
 * holder's lazy hash sets it first).
 *
 * Words are written (tail, pending, locked) as in test_pvlock.c.
 */
#include <string.h>

#include "locks/qspinlock.h"
#include "sim/observe.h"
#include "tests/testutil.h"

enum act {
	TAKE = 1, /* the word 0 -> 1 */
	SLOW,	  /* locked byte -> _Q_SLOW_VAL */
	HASH0,	  /* hash entry 0 := (lock, node) */
	HASH1,	  /* hash entry 1 := (lock, node) */
	UNHASH0,  /* hash entry 0's lock := NULL */
	RELEASE,  /* locked byte -> 0 */
	BAD,	  /* locked byte -> 2 */
};

static struct tu_rig R;
static char *caught;

static struct qspinlock *lock0(void)
{
	return R.locks[0];
}

static struct pv_hash_entry *entry(unsigned int i)
{
	struct qs_guest *g = R.h.parts[0]->guest;

	return &g->pv_lock_hash[i];
}

static void act(struct tu_rig *r, struct sim_cpu *c, long a)
{
	struct qs_guest *g = r->h.parts[0]->guest;

	switch (a) {
	case TAKE:
		WRITE_ONCE(lock0()->val.counter, 1);
		break;
	case SLOW:
		WRITE_ONCE(lock0()->locked, 3);
		break;
	case HASH0:
	case HASH1:
		WRITE_ONCE(entry(a - HASH0)->lock, lock0());
		WRITE_ONCE(entry(a - HASH0)->node, &g->qnodes[0]);
		break;
	case UNHASH0:
		WRITE_ONCE(entry(0)->lock, NULL);
		break;
	case RELEASE:
		WRITE_ONCE(lock0()->locked, 0);
		break;
	case BAD:
		WRITE_ONCE(lock0()->locked, 2);
		break;
	}
}

static void capture(void *data, struct sim_cpu *c, const char *msg)
{
	if (!caught)
		caught = g_strdup(msg);
}

/* Run vCPU 0's and vCPU 1's steps; the observer's first report or NULL. */
static const char *run(const struct tu_step *s0, const struct tu_step *s1)
{
	struct tu_script sc[2] = {{.steps = s0}, {.steps = s1}};
	struct hv_params hp = tu_hv_params(2);
	struct obs *o;
	void *base;
	size_t n;

	g_free(caught);
	caught = NULL;
	tu_rig_init(&R, &hp, "pv_qspinlock", NULL, false, sc, 2, 1);
	R.call = act;
	tu_rig_start(&R);
	o = obs_new(&R.s, OBS_QSPINLOCK, "partition 0");
	obs_watch_lock(o, R.locks[0], 0);
	ck_assert(R.ops->pv_hash(R.h.parts[0]->guest, &base, &n));
	ck_assert_ptr_eq(base, entry(0));
	obs_watch_pv_hash(o, base, n);
	R.s.violation_hook = capture;
	sim_run(&R.s, SIM_MS);
	obs_free(o);
	tu_rig_destroy(&R);
	return caught;
}

#define DO(x)                \
	{                    \
		TU_CALL, (x) \
	}
#define WAIT(us)                   \
	{                          \
		TU_WORK, TU_US(us) \
	}
#define END               \
	{                 \
		TU_END, 0 \
	}

START_TEST(test_head_hashes_first_is_legal)
{
	/* vCPU 0 holds; vCPU 1, the queue head, hashes then sets SLOW (one
	 * entry: O3 holds); vCPU 0 unhashes, then releases (none left). */
	static const struct tu_step s0[] = {DO(TAKE), WAIT(5), DO(UNHASH0),
					    DO(RELEASE), END};
	static const struct tu_step s1[] = {WAIT(2), DO(HASH0), DO(SLOW), END};

	ck_assert_ptr_null(run(s0, s1));
}
END_TEST

START_TEST(test_lazy_hash_is_legal)
{
	/* The holder itself sets SLOW before hashing (pv_kick_node). */
	static const struct tu_step s0[] = {DO(TAKE),	 DO(SLOW),    DO(HASH0),
					    DO(UNHASH0), DO(RELEASE), END};
	static const struct tu_step s1[] = {END};

	ck_assert_ptr_null(run(s0, s1));
}
END_TEST

START_TEST(test_o3_slow_before_hash)
{
	/* A waiter (vCPU 1) sets SLOW on vCPU 0's lock with no entry. */
	static const struct tu_step s0[] = {DO(TAKE), END};
	static const struct tu_step s1[] = {WAIT(2), DO(SLOW), END};
	const char *m = run(s0, s1);

	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "O3: lock 0 set to _Q_SLOW_VAL by cpu 1, a "
				"waiter, with 0 pv hash entries") &&
			      strstr(m, "word 0x1 -> 0x3"),
		      "%s", m);
}
END_TEST

START_TEST(test_o2_hashed_twice)
{
	static const struct tu_step s0[] = {DO(HASH0), DO(HASH1), END};
	static const struct tu_step s1[] = {END};
	const char *m = run(s0, s1);

	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "O2: lock 0 hashed twice (a second pv hash "
				"entry, 1, by cpu 0)"),
		      "%s", m);
}
END_TEST

START_TEST(test_o4_released_while_hashed)
{
	/* Hashed, SLOW by the head (vCPU 1), released by the holder without
	 * taking the entry out. */
	static const struct tu_step s0[] = {DO(TAKE), WAIT(5), DO(RELEASE),
					    END};
	static const struct tu_step s1[] = {WAIT(2), DO(HASH0), DO(SLOW), END};
	const char *m = run(s0, s1);

	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "O4: lock 0 released from _Q_SLOW_VAL by cpu "
				"0 with its pv hash entry still there"),
		      "%s", m);
}
END_TEST

START_TEST(test_o1_bad_locked_byte)
{
	static const struct tu_step s0[] = {DO(TAKE), DO(BAD), END};
	static const struct tu_step s1[] = {END};
	const char *m = run(s0, s1);

	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "O1: lock 0's locked byte is 0x2 (word 0x2, "
				"was 0x1)"),
		      "%s", m);
}
END_TEST

/* The powerpc observer: vCPU 0 writes whole words by hand. */
static void write_word(struct tu_rig *r, struct sim_cpu *c, long a)
{
	WRITE_ONCE(*(u32 *)r->locks[0], (u32)a);
}

/* cpu 0's queue-node count := @a (the ppc lock's per-cpu block). */
static void write_count(struct tu_rig *r, struct sim_cpu *c, long a)
{
	void *base;
	size_t stride;
	unsigned int n;
	int max;

	ck_assert(r->ops->qnode_counts(r->h.parts[0]->guest, &base, &stride, &n,
				       &max));
	WRITE_ONCE(*(int *)base, (int)a);
}

/*
 * vCPU 0 runs @s0 with @call as its action, under the powerpc observer
 * watching lock 0's word and every cpu's queue-node count; its first
 * report or NULL.
 */
static const char *run_ppc_with(void (*call)(struct tu_rig *, struct sim_cpu *,
					     long),
				const struct tu_step *s0)
{
	static const struct tu_step none[] = {END};
	struct tu_script sc[2] = {{.steps = s0}, {.steps = none}};
	struct hv_params hp = tu_hv_params(2);
	struct obs *o;
	void *base;
	size_t stride;
	unsigned int n;
	int max;

	g_free(caught);
	caught = NULL;
	tu_rig_init(&R, &hp, "ppc_qspinlock", NULL, false, sc, 2, 1);
	R.call = call;
	tu_rig_start(&R);
	o = obs_new(&R.s, OBS_PPC, "partition 0");
	obs_watch_lock(o, R.locks[0], 0);
	ck_assert(R.ops->qnode_counts(R.h.parts[0]->guest, &base, &stride, &n,
				      &max));
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(max, 4);
	obs_watch_qnode_counts(o, base, stride, n, max);
	R.s.violation_hook = capture;
	sim_run(&R.s, SIM_MS);
	obs_free(o);
	tu_rig_destroy(&R);
	return caught;
}

static const char *run_ppc(const struct tu_step *s0)
{
	return run_ppc_with(write_word, s0);
}

START_TEST(test_ppc_words)
{
	/* Held by cpu 1 (locked bit, owner 1 << 1 = 0x3); a waiter queues
	 * (tail 1 << 17) and sets must-queue (1 << 16); the unlock clears
	 * the low half; the head takes it and clears tail and must-queue:
	 * all legal. */
	static const struct tu_step legal[] = {DO(0x00000003),
					       DO(0x00020003),
					       DO(0x00030003),
					       DO(0x00030000),
					       DO(0x00000001),
					       DO(0x00000000),
					       END};
	static const struct tu_step o5[] = {DO(0x00000003), DO(0x00010003),
					    END};
	static const struct tu_step o6[] = {DO(0x00000003), DO(0x00000002),
					    END};
	const char *m;

	ck_assert_ptr_null(run_ppc(legal));
	m = run_ppc(o5);
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "O5: lock 0's must-queue set with no one "
				"queued, by cpu 0 (word 0x3 -> 0x10003)"),
		      "%s", m);
	m = run_ppc(o6);
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "O6: lock 0 has an owner or sleepy bit but is "
				"not locked, by cpu 0 (word 0x3 -> 0x2)"),
		      "%s", m);
}
END_TEST

static const char *run_counts(const struct tu_step *s0)
{
	return run_ppc_with(write_count, s0);
}

/* O7: a cpu's node count stays from 0 to its 4 nodes: taking nodes up
 * to 4 and giving them back is legal; one given back too many (the
 * generated mutant that never counted the node it took) or a fifth is
 * not. */
START_TEST(test_ppc_node_counts)
{
	static const struct tu_step legal[] = {DO(1), DO(2), DO(4),
					       DO(3), DO(0), END};
	static const struct tu_step under[] = {DO(1), DO(0), DO(-1), END};
	static const struct tu_step over[] = {DO(4), DO(5), END};
	const char *m;

	ck_assert_ptr_null(run_counts(legal));
	m = run_counts(under);
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "O7: cpu 0's queue-node count is -1 (it has "
				"4 nodes), by cpu 0"),
		      "%s", m);
	m = run_counts(over);
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "O7: cpu 0's queue-node count is 5"), "%s", m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("observe");
	TCase *tc = tcase_create("qspinlock");

	tcase_add_test(tc, test_head_hashes_first_is_legal);
	tcase_add_test(tc, test_lazy_hash_is_legal);
	tcase_add_test(tc, test_o3_slow_before_hash);
	tcase_add_test(tc, test_o2_hashed_twice);
	tcase_add_test(tc, test_o4_released_while_hashed);
	tcase_add_test(tc, test_o1_bad_locked_byte);
	tcase_add_test(tc, test_ppc_words);
	tcase_add_test(tc, test_ppc_node_counts);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
