// SPDX-License-Identifier: MIT
/*
 * qspinlock and pv_qspinlock: lock-word transitions on hand-built
 * schedules, FIFO hand-off, the pv hash table against a reference model,
 * and every pv mapping free of lost wakeups over many seeds.
 *
 * Words are written (tail, pending, locked); tail code of cpu c, node 0
 * is (c + 1) << 18.
 */
#include "locks/qspinlock.h"
#include "tests/testutil.h"

static struct tu_rig R;

#define LOCK(i) ((struct qspinlock *)R.locks[i])

static void hash_reference_test(void);

static void call_hash_test(struct tu_rig *r, struct sim_cpu *c, long a)
{
	hash_reference_test();
}

struct probe {
	struct sim_event ev;
	u32 word;
	bool hashed; /* lock 0 present in the pv hash table */
};

static void probe_ev(struct sim_event *ev)
{
	struct probe *p = ev->data;
	struct qs_guest *g = R.h.parts[0]->guest;
	u32 size = 1U << g->pv_lock_hash_bits;

	p->word = (u32)LOCK(0)->val.counter;
	p->hashed = false;
	for (u32 i = 0; i < size; i++)
		if (g->pv_lock_hash[i].lock == LOCK(0))
			p->hashed = true;
}

static void setup(const char *lock, const char *mapping, unsigned int npcpus,
		  struct tu_script *sc, unsigned int n, unsigned int nlocks)
{
	struct hv_params hp = tu_hv_params(npcpus);
	struct lk_params lp = tu_lk_params();

	lp.spin_threshold = 64;
	lp.pending_loops = 512;
	lp.pv_mapping = lk_pv_mapping_parse(mapping);
	tu_rig_init(&R, &hp, lock, &lp, true, sc, n, nlocks);
	R.call = call_hash_test;
	tu_rig_start(&R);
}

static void probe_at(struct probe *p, sim_time_t t)
{
	tu_rig_at(&R, &p->ev, probe_ev, p, t);
}

/* Native: fast path, pending path, queue path, claim. */
START_TEST(test_native_transitions)
{
	static const struct tu_step s0[] = {{TU_LOCK, 0},
					    {TU_WORK, TU_US(10)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step s1[] = {{TU_WORK, TU_US(1)},
					    {TU_LOCK, 0},
					    {TU_WORK, TU_US(10)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step s2[] = {{TU_WORK, TU_US(3)},
					    {TU_LOCK, 0},
					    {TU_WORK, TU_US(10)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	struct tu_script sc[3] = {{.steps = s0}, {.steps = s1}, {.steps = s2}};
	struct probe p[6];
	static const double at_us[6] = {2.5, 4, 6, 13, 30, 40};
	static const u32 want[6] = {
		0x00000001, /* (0,0,1)  cpu0 took the fast path */
		0x00000101, /* (0,1,1)  cpu1 is the pending waiter */
		0x000c0101, /* (c2,1,1) cpu2 queued as head */
		0x000c0001, /* (c2,0,1) cpu1 took it from pending */
		0x00000001, /* (0,0,1)  cpu2 claimed, clearing the tail */
		0x00000000, /* (0,0,0)  all released */
	};

	setup("qspinlock", "kvm", 4, sc, 3, 1);
	for (int i = 0; i < 6; i++)
		probe_at(&p[i], (sim_time_t)(at_us[i] * SIM_US) + 1);
	sim_run(&R.s, 100 * SIM_US);
	for (int i = 0; i < 6; i++)
		ck_assert_msg(p[i].word == want[i], "probe %d: %#x, want %#x",
			      i, p[i].word, want[i]);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_lock_pending), 1);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_lock_slowpath), 1);
	tu_rig_destroy(&R);
}
END_TEST

/* Queued waiters get the lock in arrival order. */
START_TEST(test_native_fifo)
{
	static struct tu_step st[8][6];
	struct tu_script sc[8];

	for (int i = 0; i < 8; i++) {
		int k = 0;

		st[i][k++] = (struct tu_step){TU_WORK, TU_US(10 * i + 1)};
		st[i][k++] = (struct tu_step){TU_LOCK, 0};
		st[i][k++] = (struct tu_step){TU_ORDER, 0};
		st[i][k++] =
			(struct tu_step){TU_WORK, i ? TU_US(5) : TU_US(100)};
		st[i][k++] = (struct tu_step){TU_UNLOCK, 0};
		st[i][k++] = (struct tu_step){TU_END, 0};
		sc[i].steps = st[i];
	}
	setup("qspinlock", "kvm", 8, sc, 8, 1);
	sim_run(&R.s, SIM_MS);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(sc[i].order, i);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_lock_pending), 1);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_lock_slowpath), 6);
	ck_assert_uint_eq((u32)LOCK(0)->val.counter, 0);
	tu_rig_destroy(&R);
}
END_TEST

/*
 * pv, KVM mapping, SPIN_THRESHOLD 64: cpu1 queues behind cpu0's 50 us
 * hold, spins 64 times as head, hashes itself, sets _Q_SLOW_VAL and
 * halts; cpu0's unlock unhashes, releases and kicks it.
 */
START_TEST(test_pv_head_sleeps_and_is_kicked)
{
	static const struct tu_step s0[] = {{TU_LOCK, 0},
					    {TU_WORK, TU_US(50)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	static const struct tu_step s1[] = {{TU_WORK, TU_US(1)},
					    {TU_LOCK, 0},
					    {TU_WORK, TU_US(5)},
					    {TU_UNLOCK, 0},
					    {TU_END, 0}};
	struct tu_script sc[2] = {{.steps = s0}, {.steps = s1}};
	struct probe p[3];

	setup("pv_qspinlock", "kvm", 2, sc, 2, 1);
	probe_at(&p[0], 20 * SIM_US);
	probe_at(&p[1], 62 * SIM_US);
	probe_at(&p[2], 100 * SIM_US);
	sim_run(&R.s, 200 * SIM_US);
	/* (c1,0,3): queued head, hashed, halted. */
	ck_assert_uint_eq(p[0].word, 0x00080003);
	ck_assert(p[0].hashed);
	/* Kicked at 52 us: 5 us wake + 2 us dispatch, then (0,0,1). */
	ck_assert_uint_eq(p[1].word, 0x00000001);
	ck_assert(!p[1].hashed);
	ck_assert_uint_eq(p[2].word, 0);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_pv_wait_head), 1);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_pv_kick_unlock), 1);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_pv_kick_wake), 1);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_pv_hash_hops), 1);
	ck_assert_uint_eq(R.h.vcpus[1]->st.halts, 1);
	ck_assert_uint_eq(R.h.vcpus[0]->st.kicks, 1);
	tu_rig_destroy(&R);
}
END_TEST

/*
 * pv_hash / pv_unhash against a reference: the bucket is computed here
 * from the golden-ratio hash of the lock's arena offset, rounded down to
 * its cache line (8 entries of 16 bytes), and probed linearly.
 */
static int hash_hops_expected;

static void hash_reference_test(void)
{
	struct qs_guest *g = qs_guest();
	u32 bits = g->pv_lock_hash_bits, size = 1U << bits;
	bool *used = g_new0(bool, size);
	struct qnode *nodes = qs_cpu_nodes(0);

	hash_hops_expected = 0;
	for (int i = 0; i < 32; i++) {
		uint64_t off = sim_mem_offset(&R.s.mem, R.locks[i]);
		u32 b = (u32)((off * 0x61C8864680B583EBULL) >> (64 - bits)) &
			~7U;
		int hops = 1;

		while (used[(b + (u32)hops - 1) & (size - 1)])
			hops++;
		used[(b + (u32)hops - 1) & (size - 1)] = true;
		hash_hops_expected += hops;
		ck_assert_ptr_eq(*pv_hash(LOCK(i), &nodes[i % 4]), LOCK(i));
	}
	for (int i = 31; i >= 0; i--)
		ck_assert_ptr_eq(pv_unhash(LOCK(i)), &nodes[i % 4]);
	for (u32 i = 0; i < size; i++)
		ck_assert_ptr_null(g->pv_lock_hash[i].lock);
	g_free(used);
}

START_TEST(test_pv_hash_table)
{
	static const struct tu_step s0[] = {{TU_CALL, 0}, {TU_END, 0}};
	struct tu_script sc[1] = {{.steps = s0}};
	struct qs_guest *g;

	setup("pv_qspinlock", "kvm", 1, sc, 1, 32);
	g = R.h.parts[0]->guest;
	/* max(4 * 1 CPU rounded to a line, 64 KiB page / 16) = 4096. */
	ck_assert_uint_eq(g->pv_lock_hash_bits, 12);
	sim_run(&R.s, SIM_MS);
	ck_assert_int_eq(R.s.cpus[0]->state, SIM_CPU_DONE);
	ck_assert_int_ge(hash_hops_expected, 32);
	ck_assert_uint_eq(tu_rig_events(&R, LOCKEVENT_pv_hash_hops),
			  (uint64_t)hash_hops_expected);
	tu_rig_destroy(&R);
}
END_TEST

/*
 * The table's size, as the kernel's boot-time hash allocator makes it from
 * 4 entries a CPU in whole lines (64-byte lines: 4 entries), at least a
 * page (4 KiB: 256 entries), rounded down to a power of two: 64 CPUs 256,
 * 65 CPUs 260 -> 256, 96 CPUs 384 -> 256, 128 CPUs 512, 200 CPUs 800 ->
 * 512; with 64 KiB pages 4096 up to 1024 CPUs.
 */
START_TEST(test_pv_hash_size)
{
	static const struct {
		unsigned int cpus, page, bits;
	} cases[] = {
		{64, 4096, 8},	   {65, 4096, 8},     {96, 4096, 8},
		{128, 4096, 9},	   {200, 4096, 9},    {1, 65536, 12},
		{1000, 65536, 12}, {1024, 65536, 12}, {1100, 65536, 12},
	};

	for (unsigned int i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct lk_params p = {.line_bytes = 64,
				      .page_bytes = cases[i].page};
		void *mem = g_malloc0(qs_guest_size(&p, cases[i].cpus));
		struct qs_guest *g = mem;

		qs_guest_init(mem, &p, cases[i].cpus);
		ck_assert_msg(g->pv_lock_hash_bits == cases[i].bits,
			      "%u CPUs, %u-byte pages: %u bits, want %u",
			      cases[i].cpus, cases[i].page,
			      g->pv_lock_hash_bits, cases[i].bits);
		qs_guest_fini(mem);
		g_free(mem);
	}
}
END_TEST

/* Every mapping, many seeds, 2x overcommit, short slices: no violation. */
static const char *const mappings[] = {"splpar-undirected", "splpar-directed",
				       "splpar-cede", "kvm"};

START_TEST(test_mapping_no_lost_wakeup)
{
	const char *m = mappings[_i];
	uint64_t slept = 0;

	for (int seed = 1; seed <= 12; seed++) {
		g_autofree char *set_map =
			g_strdup_printf("lock.pv_mapping=%s", m);
		g_autofree char *set_seed =
			g_strdup_printf("run.seed=%d", seed);
		struct qsim_config *cfg = tu_config(
			"[run]\nduration = 5ms\nwarmup = 1ms\n"
			"[machine]\npcpus = 4\n"
			"[hypervisor]\nslice = 200us\n"
			"[partition]\nvcpus = 8\n"
			"[lock]\ntype = pv_qspinlock\nSPIN_THRESHOLD = 256\n"
			"[workload]\nlocks = 2\ncs = exp:500ns\n"
			"think = exp:300ns\n"
			"[check]\nhang_bound = 2ms\n",
			set_map, set_seed, NULL);
		struct qsim_results res;
		int64_t diff;

		tu_model(cfg, &res);
		ck_assert_msg(res.status == WL_OK, "%s seed %d: %s", m, seed,
			      res.report);
		slept += res.lock_events[LOCKEVENT_sim_pv_wait_slept];
		/* Every kick at unlock matches one hash that was not undone
		 * by its own head (give or take the warm-up boundary). */
		diff = (int64_t)res.lock_events[LOCKEVENT_sim_pv_hash] -
		       (int64_t)res.lock_events[LOCKEVENT_sim_pv_unhash_self] -
		       (int64_t)res.lock_events[LOCKEVENT_pv_kick_unlock];
		ck_assert_msg(diff >= -2 && diff <= 2, "%s seed %d: %" PRId64,
			      m, seed, diff);
		ck_assert_uint_le(res.lock_events[LOCKEVENT_pv_kick_wake],
				  res.lock_events[LOCKEVENT_pv_kick_unlock] +
					  2);
		ck_assert_uint_eq(res.lock_events[LOCKEVENT_lock_pending], 0);
		qsim_results_clear(&res);
		cfg_free(cfg);
	}
	/* The runs really exercised the sleeping paths. */
	ck_assert_uint_gt(slept, 100);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pvlock");
	TCase *tc = tcase_create("pvlock");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_native_transitions);
	tcase_add_test(tc, test_native_fifo);
	tcase_add_test(tc, test_pv_head_sleeps_and_is_kicked);
	tcase_add_test(tc, test_pv_hash_table);
	tcase_add_test(tc, test_pv_hash_size);
	tcase_add_loop_test(tc, test_mapping_no_lost_wakeup, 0, 4);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
