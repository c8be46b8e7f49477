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

enum op {
	OP_END,
	OP_WORK,
	OP_RLOCK,
	OP_RUNLOCK,
	OP_WLOCK,
	OP_WUNLOCK,
	OP_MARK,
};

struct step {
	enum op op;
	long a;
};

struct script {
	const struct step *steps;
	sim_time_t mark;
};

static struct sim S;
static struct hv H;
static const struct lk_ops *OPS;
static s32 *LOCK;

static void script_main(struct sim_cpu *c, void *arg)
{
	struct script *sc = arg;

	for (const struct step *s = sc->steps; s->op != OP_END; s++) {
		switch (s->op) {
		case OP_WORK:
			sim_cpu_work(c, (sim_time_t)s->a);
			break;
		case OP_RLOCK:
			OPS->read_lock(LOCK);
			break;
		case OP_RUNLOCK:
			OPS->read_unlock(LOCK);
			break;
		case OP_WLOCK:
			OPS->lock(LOCK);
			break;
		case OP_WUNLOCK:
			OPS->unlock(LOCK);
			break;
		case OP_MARK:
			sim_cpu_sync(c);
			sc->mark = c->now_ps;
			break;
		case OP_END:
			break;
		}
	}
}

struct probe {
	struct sim_event ev;
	s32 word;
};

static void probe_ev(struct sim_event *ev)
{
	struct probe *p = ev->data;

	p->word = *LOCK;
}

static void setup(const char *lock, struct script *sc, unsigned int n)
{
	struct sim_topo topo = {4, 20, n};
	struct hv_params hp = {
		.policy = "rr",
		.npcpus = n,
		.slice_ps = 10 * SIM_MS,
		.dispatch_latency_ps = 2 * SIM_US,
		.hcall_ps = 500 * SIM_NS,
		.wake_latency_ps = 5 * SIM_US,
	};
	struct lk_params lp = {
		.spin_threshold = 256, .line_bytes = 128, .page_bytes = 65536};
	void *args[8];

	OPS = lk_find(lock);
	for (unsigned int i = 0; i < n; i++)
		args[i] = &sc[i];
	sim_init(&S, 8 << 20, 128, &tu_cost, &topo, 64 << 10);
	hv_init(&H, &S, &hp, 1);
	LOCK = sim_mem_alloc(&S.mem, OPS->size, 128);
	hv_partition_add(&H, n, true, script_main, args);
	if (OPS->global_size) {
		void *g = sim_mem_alloc(&S.mem, OPS->global_size(&lp, n), 128);

		OPS->global_init(g, &lp, n);
		H.parts[0]->guest = g;
	}
	sim_mem_seal(&S.mem);
	OPS->init(LOCK);
	hv_start(&H, 0);
}

static void teardown(void)
{
	if (OPS->global_fini)
		OPS->global_fini(H.parts[0]->guest);
	hv_destroy(&H);
	sim_destroy(&S);
}

#define US(x) ((long)((x)*SIM_US))

START_TEST(test_qrwlock_fairness)
{
	static const struct step r0[] = {
		{OP_RLOCK, 0}, {OP_WORK, US(50)}, {OP_RUNLOCK, 0}, {OP_END, 0}};
	static const struct step r1[] = {{OP_WORK, US(3)},
					 {OP_RLOCK, 0},
					 {OP_WORK, US(50)},
					 {OP_RUNLOCK, 0},
					 {OP_END, 0}};
	static const struct step w2[] = {{OP_WORK, US(13)}, {OP_WLOCK, 0},
					 {OP_MARK, 0},	    {OP_WORK, US(10)},
					 {OP_WUNLOCK, 0},   {OP_END, 0}};
	static const struct step r3[] = {{OP_WORK, US(23)}, {OP_RLOCK, 0},
					 {OP_MARK, 0},	    {OP_WORK, US(10)},
					 {OP_RUNLOCK, 0},   {OP_END, 0}};
	struct script sc[4] = {{r0, 0}, {r1, 0}, {w2, 0}, {r3, 0}};
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
		sim_event_init(&p[i].ev, probe_ev, &p[i], SIM_PRIO_CHECK);
		sim_schedule(&S, &p[i].ev, (sim_time_t)(at_us[i] * SIM_US));
	}
	sim_run(&S, SIM_MS);
	for (int i = 0; i < 6; i++)
		ck_assert_msg(p[i].word == want[i], "probe %d: %#x, want %#x",
			      i, (unsigned int)p[i].word,
			      (unsigned int)want[i]);
	/* The writer got in when the last reader left, at 2 + 3 + 50 us. */
	ck_assert_uint_ge(sc[2].mark, 55 * SIM_US);
	/* The late reader only after the writer's 10 us. */
	ck_assert_uint_ge(sc[3].mark, sc[2].mark + 10 * SIM_US);
	teardown();
}
END_TEST

/* Reader-preferring: a reader arriving after a waiting writer gets in. */
START_TEST(test_legacy_prefers_readers)
{
	static const struct step r0[] = {
		{OP_RLOCK, 0}, {OP_WORK, US(50)}, {OP_RUNLOCK, 0}, {OP_END, 0}};
	static const struct step w1[] = {{OP_WORK, US(5)}, {OP_WLOCK, 0},
					 {OP_MARK, 0},	   {OP_WORK, US(5)},
					 {OP_WUNLOCK, 0},  {OP_END, 0}};
	static const struct step r2[] = {{OP_WORK, US(20)}, {OP_RLOCK, 0},
					 {OP_MARK, 0},	    {OP_WORK, US(50)},
					 {OP_RUNLOCK, 0},   {OP_END, 0}};
	struct script sc[3] = {{r0, 0}, {w1, 0}, {r2, 0}};
	struct probe p;

	setup("rwlock_legacy", sc, 3);
	sim_event_init(&p.ev, probe_ev, &p, SIM_PRIO_CHECK);
	sim_schedule(&S, &p.ev, 30 * SIM_US);
	sim_run(&S, SIM_MS);
	ck_assert_int_eq(p.word, 2); /* two readers, the writer still out */
	ck_assert_uint_lt(sc[2].mark, 25 * SIM_US);
	/* The writer waited for both readers: the second left at ~72 us. */
	ck_assert_uint_ge(sc[1].mark, 72 * SIM_US);
	teardown();
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
