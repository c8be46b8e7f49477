// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "locks/lock.h"
#include "qsim_kernel.h"
#include <sqlite3.h>

#include "tests/testutil.h"

const struct sim_cost tu_cost = {
	.hit_ps = 1000,
	.smt_ps = 4100,
	.chip_ps = 25300,
	.remote_ps = 90700,
	.mem_ps = 100900,
	.atomic_ps = 8100,
	.relax_ps = 2000,
	.spin_relax_ps = 2000,
	.barrier_ps = 15000,
};

void tu_sim_init(struct sim *s, unsigned int npcpus)
{
	struct sim_topo topo = {
		.smt = 4, .cores_per_chip = 20, .npcpus = npcpus};

	sim_init(s, 1 << 20, 128, &tu_cost, &topo, 64 << 10);
}

int tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

struct qsim_config *tu_config(const char *text, ...)
{
	GPtrArray *o = g_ptr_array_new();
	struct qsim_config *cfg;
	GError *err = NULL;
	va_list ap;
	const char *a;

	va_start(ap, text);
	while ((a = va_arg(ap, const char *)))
		g_ptr_array_add(o, (gpointer)a);
	va_end(ap);
	g_ptr_array_add(o, NULL);
	cfg = cfg_load_text("test.ini", text, (char **)o->pdata, &err);
	if (!cfg)
		ck_abort_msg("config rejected: %s", err->message);
	g_ptr_array_free(o, TRUE);
	return cfg;
}

void tu_model(const struct qsim_config *cfg, struct qsim_results *res)
{
	GError *err = NULL;

	ck_assert_msg(qsim_model_run(cfg, res, &err), "model run failed");
}

char *tu_scenario(const char *lock, unsigned int vcpus, unsigned int pcpus,
		  unsigned int ms)
{
	const struct lk_ops *ops = lk_find(lock);

	/* rwlocks run half reads, so both sides are exercised. */
	return g_strdup_printf("[run]\nduration = %ums\nwarmup = 1ms\n"
			       "[machine]\npcpus = %u\n"
			       "[hypervisor]\nslice = 1ms\n"
			       "[partition]\nvcpus = %u\n"
			       "[lock]\ntype = %s\n"
			       "[workload]\nread_pct = %u\n",
			       ms, pcpus, vcpus, lock,
			       ops && ops->read_lock ? 50 : 0);
}

#define MS 20 /* tu_validate runs */

void tu_validate(const struct lk_ops *ops, unsigned int pcpus,
		 const char *override1, const char *override2)
{
	g_autofree char *text = tu_scenario(ops->name, 16, pcpus, MS);
	struct qsim_config *cfg = tu_config(text, override1, override2, NULL);
	struct qsim_results res;
	int64_t per_vcpu = 0;

	tu_model(cfg, &res);
	if (ops->broken) {
		ck_assert_msg(res.status == WL_VIOL_MUTEX,
			      "%s at %u pCPUs was not caught", ops->name,
			      pcpus);
		ck_assert(strstr(res.report, "mutual exclusion broken"));
		ck_assert(strstr(res.replay, "--seed 1"));
		goto out;
	}
	ck_assert_msg(res.status == WL_OK, "%s at %u pCPUs: %s", ops->name,
		      pcpus, res.report ? res.report : "");
	for (unsigned int v = 0; v < res.nvcpus; v++)
		per_vcpu += res.vcpus[v].acquisitions;
	ck_assert_int_eq(per_vcpu, res.locks[0].acquisitions);
	/* Progress: even a FIFO lock behind preempted waiters gets some. */
	ck_assert_int_gt(res.locks[0].acquisitions, pcpus >= 16 ? 1000 : 100);
	/* One 200 ns writer (or plain) section at a time. */
	ck_assert_int_le(res.locks[0].write_acquisitions, MS * 1000000 / 200);
	ck_assert_int_eq(res.locks[0].read_acquisitions +
				 res.locks[0].write_acquisitions,
			 res.locks[0].acquisitions);
	if (ops->read_lock)
		ck_assert_int_gt(res.locks[0].read_acquisitions, 0);
	ck_assert(res.locks[0].hold_mean_ns >= 200.0);
	ck_assert(res.locks[0].lhp_total_ns <= MS * 1e6);
	ck_assert(res.locks[0].lat_p50_ns <= res.locks[0].lat_p99_ns);
	ck_assert(res.locks[0].lat_p99_ns <= res.locks[0].lat_max_ns);
	if (pcpus >= 16)
		ck_assert_int_eq(res.locks[0].lhp_events, 0); /* nobody waits */
out:
	qsim_results_clear(&res);
	cfg_free(cfg);
}

/* --- scripted guests --- */

struct hv_params tu_hv_params(unsigned int npcpus)
{
	struct hv_params p = {
		.policy = "rr",
		.npcpus = npcpus,
		.window_ps = 10 * SIM_MS,
		.slice_ps = 10 * SIM_MS,
		.dispatch_latency_ps = 2 * SIM_US,
		.hcall_ps = 500 * SIM_NS,
		.wake_latency_ps = 5 * SIM_US,
	};

	return p;
}

struct lk_params tu_lk_params(void)
{
	struct lk_params p = {.line_bytes = 128, .page_bytes = 65536};

	return p;
}

static void tu_script_main(struct sim_cpu *c, void *arg)
{
	struct tu_script *sc = arg;
	struct tu_rig *r = sc->rig;

	for (const struct tu_step *s = sc->steps; s->op != TU_END; s++) {
		switch (s->op) {
		case TU_WORK:
			sim_cpu_work(c, (sim_time_t)s->a);
			break;
		case TU_LOCK:
			r->ops->lock(r->locks[s->a]);
			break;
		case TU_UNLOCK:
			r->ops->unlock(r->locks[s->a]);
			break;
		case TU_RLOCK:
			r->ops->read_lock(r->locks[s->a]);
			break;
		case TU_RUNLOCK:
			r->ops->read_unlock(r->locks[s->a]);
			break;
		case TU_MARK:
			sim_cpu_sync(c);
			sc->marks[s->a] = c->now_ps;
			break;
		case TU_ORDER:
			sc->order = r->order_next++;
			break;
		case TU_CEDE:
			plpar_hcall_norets(H_CEDE);
			break;
		case TU_PROD:
			prod_cpu((int)s->a);
			break;
		case TU_CONFER:
			yield_to_preempted((int)s->a,
					   s->b < 0 ? yield_count_of((int)s->a)
						    : (u32)s->b);
			break;
		case TU_YC:
			sc->marks[s->b] = yield_count_of((int)s->a);
			break;
		case TU_CALL:
			r->call(r, c, s->a);
			break;
		case TU_HALT:
			kvm_halt();
			break;
		case TU_KICK:
			kvm_kick_cpu((int)s->a);
			break;
		case TU_END:
			break;
		}
	}
}

unsigned int tu_rig_smt = 4;
uint64_t tu_rig_seed;

void tu_rig_init(struct tu_rig *r, const struct hv_params *hp, const char *lock,
		 const struct lk_params *lp, bool shared, struct tu_script *sc,
		 unsigned int n, unsigned int nlocks)
{
	struct sim_topo topo = {.smt = tu_rig_smt,
				.cores_per_chip = 80 / tu_rig_smt,
				.npcpus = hp->npcpus};
	struct lk_params dflt = tu_lk_params();
	void *args[64];

	ck_assert_uint_le(n, G_N_ELEMENTS(args));
	ck_assert_uint_le(nlocks, G_N_ELEMENTS(r->locks));
	memset(r, 0, sizeof(*r));
	r->ops = lock ? lk_find(lock) : NULL;
	ck_assert(!lock || r->ops);
	r->nlocks = nlocks;
	for (unsigned int i = 0; i < n; i++) {
		sc[i].rig = r;
		args[i] = &sc[i];
	}
	sim_init(&r->s, 8 << 20, 128, &tu_cost, &topo, 64 << 10);
	sim_set_seed(&r->s, tu_rig_seed);
	hv_init(&r->h, &r->s, hp, 1);
	/* Arena order (it decides which lines things share): the locks,
	 * the partition's lppacas, the guest's globals. */
	for (unsigned int i = 0; i < nlocks; i++)
		r->locks[i] = sim_mem_alloc(&r->s.mem, r->ops->size, 128);
	hv_partition_add(&r->h, n, shared, tu_script_main, args);
	if (r->ops && r->ops->global_size) {
		void *g;

		if (!lp)
			lp = &dflt;
		g = sim_mem_alloc(&r->s.mem, r->ops->global_size(lp, n), 128);
		r->ops->global_init(g, lp, n);
		r->h.parts[0]->guest = g;
	}
}

void tu_rig_start(struct tu_rig *r)
{
	sim_mem_seal(&r->s.mem);
	for (unsigned int i = 0; i < r->nlocks; i++)
		r->ops->init(r->locks[i]);
	hv_start(&r->h, 0);
}

void tu_rig_destroy(struct tu_rig *r)
{
	if (r->ops && r->ops->global_fini && r->h.parts[0]->guest)
		r->ops->global_fini(r->h.parts[0]->guest);
	hv_destroy(&r->h);
	sim_destroy(&r->s);
}

void tu_rig_at(struct tu_rig *r, struct sim_event *ev, sim_event_fn fn,
	       void *data, sim_time_t t)
{
	sim_event_init(ev, fn, data, SIM_PRIO_CHECK);
	sim_schedule(&r->s, ev, t);
}

uint64_t tu_rig_events(const struct tu_rig *r, unsigned int e)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < r->s.ncpus; i++)
		n += r->s.cpus[i]->counters[e];
	return n;
}

int tu_qsim_va(const char *dir, char **out, char **err, va_list ap)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	const char *a;
	int status = -1;

	g_ptr_array_add(argv, (gpointer)QSIM_BINARY);
	while ((a = va_arg(ap, const char *)))
		g_ptr_array_add(argv, (gpointer)a);
	g_ptr_array_add(argv, NULL);
	ck_assert(g_spawn_sync(dir, (char **)argv->pdata, NULL, 0, NULL, NULL,
			       out, err, &status, NULL));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int tu_qsim_in(const char *dir, char **out, char **err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = tu_qsim_va(dir, out, err, ap);
	va_end(ap);
	return rc;
}

const char *tu_overcommit_ini(void)
{
	static char *p;

	if (!p)
		p = g_build_filename(QSIM_SOURCE_DIR, "scenarios",
				     "2x-overcommit.ini", NULL);
	return p;
}

void tu_rm_rf(const char *dir)
{
	const char *argv[] = {"rm", "-rf", "--", dir, NULL};
	int status = 0;

	ck_assert(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH,
			       NULL, NULL, NULL, NULL, &status, NULL));
	ck_assert(g_spawn_check_wait_status(status, NULL));
}

/* The scratch folders this process made (tu_tmpdir), and which did. */
static GPtrArray *tmpdirs;
static pid_t tmpdirs_pid;

/* Remove @path and, if a folder (not a link to one), all in it. */
static void rm_tree(const char *path)
{
	GDir *d;
	const char *name;

	if (!g_file_test(path, G_FILE_TEST_IS_SYMLINK) &&
	    (d = g_dir_open(path, 0, NULL)) != NULL) {
		while ((name = g_dir_read_name(d)) != NULL) {
			g_autofree char *sub =
				g_build_filename(path, name, NULL);

			rm_tree(sub);
		}
		g_dir_close(d);
	}
	if (g_remove(path) != 0 && errno != ENOENT)
		perror(path);
}

static void tmpdirs_remove(void)
{
	if (!tmpdirs || tmpdirs_pid != getpid())
		return;
	for (guint i = 0; i < tmpdirs->len; i++)
		rm_tree(g_ptr_array_index(tmpdirs, i));
}

char *tu_tmpdir(const char *tmpl)
{
	char *dir = g_dir_make_tmp(tmpl, NULL);

	ck_assert_msg(dir != NULL, "cannot make a folder from %s", tmpl);
	/* A forked test starts with the runner's list (its own copy, freed
	 * here): its own begins. */
	if (!tmpdirs || tmpdirs_pid != getpid()) {
		if (!tmpdirs)
			atexit(tmpdirs_remove);
		else
			g_ptr_array_unref(tmpdirs);
		tmpdirs = g_ptr_array_new_with_free_func(g_free);
		tmpdirs_pid = getpid();
	}
	g_ptr_array_add(tmpdirs, g_strdup(dir));
	return dir;
}

char *tu_db_text(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *q = NULL;
	char *v = NULL;

	ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK,
		      "%s: %s", sql, sqlite3_errmsg(h));
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	v = g_strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	sqlite3_close(h);
	return v;
}
