// SPDX-License-Identifier: MIT
/*
 * qsim torture; see torture.h.  Every seed gets its own scenario, drawn
 * from a stream of its own, so a seed's scenario never depends on how
 * many jobs ran or in what order; the failing scenario is written out as
 * an ordinary scenario file that `qsim run` replays.
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "tools/torture.h"
#include "locks/lock.h"
#include "sim/rng.h"
#include "tools/config.h"
#include "tools/model.h"

#define TORTURE_RNG_KIND 0x7047

static uint64_t pick(struct sim_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + sim_rng_below(r, hi - lo + 1);
}

static double prob(struct sim_rng *r, double max)
{
	return floor(sim_rng_unit(r) * max * 1000.0) / 1000.0;
}

const char *torture_lock(const struct torture_opts *o)
{
	return o->lock	   ? o->lock
	       : o->mutant ? lk_find_mutant(o->mutant)->name
			   : "pv_qspinlock";
}

char *torture_scenario(const struct torture_opts *o, uint64_t seed)
{
	struct sim_rng r;
	GString *s = g_string_new(NULL);
	unsigned int vcpus, pcpus;
	const char *lock = torture_lock(o);
	const char *mapping;
	static const unsigned int spins[] = {16, 64, 256, 1024, 32768};

	struct sim_rng w; /* the wider space's draws: a stream of its own,
			   * so the classic ones stay as they were */
	bool wide, small_hash = false, noise = false, chips = false;
	unsigned int irq_rate = 0, wide_locks = 0;
	double drain_late = 0.0;

	sim_rng_init(&r, seed, TORTURE_RNG_KIND, 0);
	sim_rng_init(&w, seed, TORTURE_RNG_KIND, 1);
	/* A mutant is tortured in the classic space, where its bug lives:
	 * spreading waiters over 64 locks would hide a starvation bug. */
	wide = sim_rng_below(&w, 2) && !o->mutant;
	if (wide) {
		small_hash = sim_rng_below(&w, 2);
		wide_locks = (unsigned int)pick(&w, 3, 64);
		noise = sim_rng_below(&w, 3) == 0;
		irq_rate = sim_rng_below(&w, 4) == 0
				   ? (unsigned int)pick(&w, 200, 2000)
				   : 0;
		chips = sim_rng_below(&w, 3) == 0;
	}
	/*
	 * Overcommitted, but never so far that the correct locks starve by
	 * design: the hybrid trylock lets a running vCPU steal forever from a
	 * head that hardly runs (LOCK-FACTS 2.5), which one pCPU shared by
	 * eight vCPUs and a preempting adversary can arrange.
	 */
	pcpus = (unsigned int)pick(&r, 2, 4);
	vcpus = (unsigned int)pick(&r, pcpus + 1, 3 * pcpus);
	/* Drawn even when --mapping names one, so that a seed's scenario is
	 * the same but for the mapping (session 15: "does seed S fail under
	 * kvm too?" got a different scenario). */
	mapping = lk_pv_mapping_name(
		(enum lk_pv_mapping)sim_rng_below(&r, LK_PV_NR));
	if (o->mapping)
		mapping = o->mapping;
	g_string_append_printf(s,
			       "# qsim torture scenario, seed %" PRIu64 "\n"
			       "[run]\nduration = 50ms\nwarmup = 0ns\n"
			       "seed = %" PRIu64 "\n",
			       seed, seed);
	g_string_append_printf(s, "[machine]\npcpus = %u\n", pcpus);
	if (o->memory && strcmp(o->memory, "sc")) {
		/* How long loads may be early and stores late: a stream of
		 * its own, so the other draws stay as they were. */
		static const unsigned int ns[] = {100, 300, 1000, 3000};
		struct sim_rng m;

		sim_rng_init(&m, seed, TORTURE_RNG_KIND, 2);
		g_string_append_printf(s,
				       "memory = %s\nmemory_window = %uns\n"
				       "store_delay = %uns\n",
				       o->memory,
				       ns[sim_rng_below(&m, G_N_ELEMENTS(ns))],
				       ns[sim_rng_below(&m, G_N_ELEMENTS(ns))]);
		drain_late = prob(&m, 0.5);
	}
	if (small_hash) /* a 4 KiB page: a pv hash table of 256 entries */
		g_string_append(s, "page_size = 4096\n");
	if (chips) /* every pCPU a chip of its own: NUMA nodes apart */
		g_string_append(s, "smt = 1\ncores_per_chip = 1\n"
				   "cache_cores = 1\n");
	/*
	 * Tickless, as a nohz_full CPU: a tick or interrupt ends a cede or
	 * halt, which would rescue a lost wakeup within a tick and hide it;
	 * the adversary's spurious_wake stands in for interrupts.
	 */
	g_string_append_printf(s, "[guest]\nhz = 0\nirq_rate = %u\n", irq_rate);
	g_string_append_printf(s,
			       "[hypervisor]\npolicy = adversarial\n"
			       "slice = %" PRIu64 "us\n"
			       "dispatch_latency = %" PRIu64 "ns\n"
			       "hcall = 500ns\nwake_latency = %" PRIu64 "ns\n",
			       pick(&r, 20, 200), pick(&r, 200, 3000),
			       pick(&r, 200, 8000));
	g_string_append_printf(s, "[partition]\nvcpus = %u\n", vcpus);
	g_string_append_printf(
		s,
		"[lock]\ntype = %s\nmutant = %s\npv_mapping = %s\n"
		"SPIN_THRESHOLD = %u\n",
		lock, o->mutant ? o->mutant : "none", mapping,
		spins[sim_rng_below(&r, G_N_ELEMENTS(spins))]);
	{
		const char *we =
			sim_rng_below(&r, 2) ? "prev-state" : "prev-preempted";

		if (wide && sim_rng_below(&w, 4) == 0)
			we = "none"; /* the whole threshold, as 4.2 did */
		g_string_append_printf(s, "wait_early = %s\n", we);
	}
	/* A kernel tree's lock: the files it was, so that a replay by a
	 * binary built from others says so (no draw: the stream stays). */
	if (lk_ktree_of(lock)) {
		g_autofree char *name = cfg_ktree_name(lk_ktree_of(lock));

		g_string_append_printf(s, "# %s\nkernel_files_sha256 = %s\n",
				       name, cfg_ktree_files_sha256());
	}
	if (wide && strcmp(lock, "pv_qspinlock") == 0) {
		static const char *const steal[] = {"hybrid", "oneshot",
						    "none"};

		g_string_append_printf(s, "steal = %s\n",
				       steal[sim_rng_below(&w, 3)]);
	}
	if (wide && strcmp(lock, "ppc_qspinlock") == 0) {
		/* the powerpc lock's tunables (its debugfs knobs) */
		static const unsigned int steal_spins[] = {0, 1, 32, 256};
		static const unsigned int head_spins[] = {1, 16, 256};

		g_string_append_printf(
			s,
			"qspl_steal_spins = %u\nqspl_head_spins = %u\n"
			"qspl_pv_yield_allow_steal = %u\n"
			"qspl_pv_spin_on_preempted_owner = %u\n"
			"qspl_pv_sleepy_lock_sticky = %u\n"
			"qspl_pv_sleepy_lock_interval_ns = %u\n"
			"qspl_pv_prod_head = %u\n"
			"qspl_pv_sleepy_lock = %u\nqspl_pv_yield_owner = %u\n"
			"qspl_pv_yield_prev = %u\n"
			"qspl_pv_yield_sleepy_owner = %u\n",
			steal_spins[sim_rng_below(&w, 4)],
			head_spins[sim_rng_below(&w, 3)],
			(unsigned int)sim_rng_below(&w, 2),
			(unsigned int)sim_rng_below(&w, 2),
			(unsigned int)sim_rng_below(&w, 2),
			sim_rng_below(&w, 2) ? 100000u : 0u,
			(unsigned int)sim_rng_below(&w, 2),
			(unsigned int)(sim_rng_below(&w, 4) != 0),
			(unsigned int)(sim_rng_below(&w, 4) != 0),
			(unsigned int)(sim_rng_below(&w, 4) != 0),
			(unsigned int)(sim_rng_below(&w, 4) != 0));
	}
	g_string_append_printf(s, "backoff = %s\n",
			       sim_rng_below(&r, 2) ? "percpu" : "hashed");
	g_string_append_printf(s, "[workload]\nread_pct = %u\n",
			       lk_find(lock)->read_lock
				       ? (unsigned int)sim_rng_below(&r, 91)
				       : 0);
	{
		uint64_t nl = pick(&r, 1, 2);
		uint64_t cs = pick(&r, 50, 1500), think = pick(&r, 50, 3000);

		g_string_append_printf(s,
				       "locks = %" PRIu64 "\n"
				       "cs = exp:%" PRIu64 "ns\n"
				       "think = exp:%" PRIu64 "ns\n",
				       wide_locks ? wide_locks : nl, cs, think);
	}
	if (wide) {
		/* Nested acquisitions, in ascending order, on a third of the
		 * wide seeds: a stream of its own again. */
		struct sim_rng n;

		sim_rng_init(&n, seed, TORTURE_RNG_KIND, 3);
		if (sim_rng_below(&n, 3) == 0)
			g_string_append_printf(s, "nest_prob = %.2f\n",
					       (double)pick(&n, 10, 60) / 100);
	}
	g_string_append(s, "[check]\nhang_bound = 30ms\nsleep_bound = 20ms\n"
			   "trace_events = 4096\n");
	g_string_append(s, "[adversarial]\n");
#define X(name, key, doc) \
	g_string_append_printf(s, #key " = %.3f\n", prob(&r, 0.3));
	HV_POINTS(X)
#undef X
	g_string_append_printf(s, "spurious_wake = %.3f\n", prob(&r, 0.1));
	if (drain_late > 0.0) /* the adversary holds stores back */
		g_string_append_printf(s, "drain_late = %.3f\n", drain_late);
	if (noise) /* another guest, with locks of its own, in the pool */
		g_string_append_printf(s,
				       "[noise]\npartitions = 1\nvcpus = %u\n"
				       "locktest = true\n",
				       (unsigned int)pick(&w, 1, 2 * pcpus));
	return g_string_free(s, FALSE);
}

struct job {
	const struct torture_opts *o;
	GMutex lock;
	uint64_t next;	 /* next seed to hand out */
	uint64_t end;	 /* one past the last seed, or UINT64_MAX */
	gint64 deadline; /* monotonic us, or 0 */
	bool stop;
	struct torture_result *res;
	uint64_t ok;
	FILE *out;
	uint64_t fail_seed;
	char *fail_text, *fail_report, *fail_trace, *fail_line;
	GCond changed;
	unsigned int workers_left;
	/* seeds finished past res->next_seed (the done prefix's end) */
	GHashTable *done_after;
	GArray *recs; /* struct seed_rec, one per seed finished */
};

/* What one finished seed adds to the totals. */
struct seed_rec {
	uint64_t seed, events;
	sim_time_t measured_ps;
};

static bool job_take(struct job *j, uint64_t *seed)
{
	bool ok;

	g_mutex_lock(&j->lock);
	ok = !j->stop && !sim_interrupt && j->next < j->end &&
	     (!j->deadline || g_get_monotonic_time() < j->deadline);
	if (ok)
		*seed = j->next++;
	g_mutex_unlock(&j->lock);
	return ok;
}

static void job_done(struct job *j, uint64_t seed, char *text,
		     struct qsim_results *res)
{
	g_mutex_lock(&j->lock);
	/* the prefix of seeds all done: what an interrupted run goes on from */
	if (seed == j->res->next_seed) {
		j->res->next_seed++;
		while (g_hash_table_remove(j->done_after, &j->res->next_seed))
			j->res->next_seed++;
	} else {
		uint64_t *k = g_new(uint64_t, 1);

		*k = seed;
		g_hash_table_add(j->done_after, k);
	}
	j->res->seeds_run++; /* for the progress line; final: below */
	g_array_append_val(j->recs, ((struct seed_rec){seed, res->events,
						       res->measured_ps}));
	if (res->status != WL_OK) {
		struct torture_failure f = {seed, g_strdup(res->violation_msg),
					    g_strdup(text)};

		g_array_append_val(j->res->failed, f);
		j->res->failures++;
		/* Report the lowest failing seed: independent of timing. */
		if (!j->fail_text || seed < j->fail_seed) {
			g_free(j->fail_text);
			g_free(j->fail_report);
			g_free(j->fail_trace);
			g_free(j->fail_line);
			j->fail_seed = seed;
			j->fail_text = g_steal_pointer(&text);
			j->fail_report = g_strdup(res->report);
			j->fail_trace = g_strdup(res->trace);
			j->fail_line = g_strdup(res->violation_msg);
		}
		if (!j->o->keep_going)
			j->stop = true;
	}
	g_mutex_unlock(&j->lock);
	g_free(text);
}

static void worker(gpointer data, gpointer user)
{
	struct job *j = user;
	uint64_t seed;

	(void)data;
	while (job_take(j, &seed)) {
		char *text = torture_scenario(j->o, seed);
		g_autofree char *path = g_strdup_printf(
			"%s/seed-%" PRIu64 ".ini", j->o->out_dir, seed);
		GError *err = NULL;
		struct qsim_config *cfg = cfg_load_text(path, text, NULL, &err);
		struct qsim_results res;

		g_autofree char *ctx = NULL;

		QSIM_BUG_ON(!cfg, "torture generated a bad scenario: %s",
			    err ? err->message : "?");
		/* An internal error prints the seed's scenario: replayable. */
		ctx = g_strdup_printf("%s(replay: save it as FILE, then qsim "
				      "run FILE --seed %" PRIu64 ")",
				      text, seed);
		sim_bug_context = ctx;
		qsim_model_run(cfg, &res, NULL);
		sim_bug_context = NULL;
		if (res.interrupted) /* a signal: this seed did not finish */
			g_free(text);
		else
			job_done(j, seed, text, &res);
		qsim_results_clear(&res);
		cfg_free(cfg);
	}
	g_mutex_lock(&j->lock);
	j->workers_left--;
	g_cond_signal(&j->changed);
	g_mutex_unlock(&j->lock);
}

/* Under j->lock: seeds done, failures, and what is left. */
static void progress(struct job *j, gint64 t0, bool last)
{
	const struct torture_opts *o = j->o;
	double el = (double)(g_get_monotonic_time() - t0) / 1e6;
	uint64_t done = j->res->seeds_run;
	double left = -1;

	if (o->seeds && done)
		left = el / (double)done * (double)(o->seeds - done);
	else if (!o->seeds)
		left = SIM_MAX(0.0, o->host_seconds - el);
	fprintf(o->progress, "%storture: %" PRIu64, o->tty ? "\r" : "", done);
	if (o->seeds)
		fprintf(o->progress, "/%" PRIu64, o->seeds);
	fprintf(o->progress, " seeds, %" PRIu64 " failed, %.0f s",
		j->res->failures, el);
	if (!last && left >= 0)
		fprintf(o->progress, ", ETA %.0f s", left);
	fprintf(o->progress, "%s", o->tty ? "\033[K" : "\n");
	if (o->tty && last)
		fprintf(o->progress, "\n");
	fflush(o->progress);
}

/*
 * The result, whatever the number of jobs and their timing: the seeds
 * from the first that all ran (an interrupted torture's prefix, which
 * it goes on from), and without --keep-going only up to the lowest
 * failing seed; the seeds other workers finished past that are left out
 * of the counts (they ran only because several ran at once), and so are
 * their failures when the torture stops at the first.
 */
static void settle(struct job *j, const struct torture_opts *o,
		   struct torture_result *res)
{
	uint64_t limit = res->interrupted ? res->next_seed : UINT64_MAX;
	guint k = 0;

	if (j->fail_text && !o->keep_going)
		limit = SIM_MIN(limit, j->fail_seed + 1);
	res->seeds_run = res->events = 0;
	res->sim_seconds = 0;
	for (guint i = 0; i < j->recs->len; i++) {
		const struct seed_rec *r =
			&g_array_index(j->recs, struct seed_rec, i);

		if (r->seed >= limit)
			continue;
		res->seeds_run++;
		res->events += r->events;
		res->sim_seconds += (double)r->measured_ps / (double)SIM_S;
	}
	/* an interrupted torture's failures past its prefix are kept: they
	 * are found, and the next run finds them again */
	for (guint i = 0; i < res->failed->len; i++) {
		struct torture_failure *f =
			&g_array_index(res->failed, struct torture_failure, i);

		if (o->keep_going || !j->fail_text || f->seed <= j->fail_seed) {
			g_array_index(res->failed, struct torture_failure,
				      k++) = *f;
		} else {
			g_free(f->violation);
			g_free(f->scenario);
		}
	}
	g_array_set_size(res->failed, k);
	res->failures = k;
	g_array_free(j->recs, TRUE);
}

static gint cmp_seed(gconstpointer a, gconstpointer b)
{
	uint64_t x = ((const struct torture_failure *)a)->seed;
	uint64_t y = ((const struct torture_failure *)b)->seed;

	return (x > y) - (x < y);
}

static bool write_file(const char *path, const char *text, GError **error)
{
	return g_file_set_contents(path, text ? text : "", -1, error);
}

/*
 * A failing run's files replace the set an earlier run left in @dir
 * (seed-S.ini, .trace, .report), so that every file there is of the run
 * whose replay command was printed last (session 15: a second run mixed
 * its files with the first's, and the first's replay command ran the
 * second's scenario).  Other files are left alone.  Returns how many
 * went.
 */
static unsigned int remove_earlier(const char *dir)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	static const char *const ext[] = {".ini", ".trace", ".report"};
	const char *name;
	unsigned int n = 0;

	while (d && (name = g_dir_read_name(d))) {
		const char *p = name + strlen("seed-");
		bool ours = false;

		if (!g_str_has_prefix(name, "seed-") || !g_ascii_isdigit(*p))
			continue;
		while (g_ascii_isdigit(*p))
			p++;
		for (size_t i = 0; i < G_N_ELEMENTS(ext); i++)
			ours |= strcmp(p, ext[i]) == 0;
		if (ours) {
			g_autofree char *path =
				g_build_filename(dir, name, NULL);

			n += g_unlink(path) == 0;
		}
	}
	return n;
}

bool torture_run(const struct torture_opts *o, struct torture_result *res,
		 FILE *out, GError **error)
{
	struct job j = {0};
	GThreadPool *pool;
	gint64 t0 = g_get_monotonic_time();
	unsigned int jobs = o->jobs ? o->jobs : g_get_num_processors();
	GError *perr = NULL;

	memset(res, 0, sizeof(*res));
	j.o = o;
	j.res = res;
	j.out = out;
	j.next = o->first_seed;
	/* --time: up to the last seed a run accepts */
	j.end = o->seeds ? o->first_seed + o->seeds : CFG_SEED_MAX + 1;
	j.deadline = o->seeds ? 0 : t0 + (gint64)(o->host_seconds * 1e6);
	j.done_after = g_hash_table_new_full(g_int64_hash, g_int64_equal,
					     g_free, NULL);
	j.recs = g_array_new(FALSE, FALSE, sizeof(struct seed_rec));
	res->next_seed = o->first_seed;
	res->failed = g_array_new(FALSE, FALSE, sizeof(struct torture_failure));
	g_mutex_init(&j.lock);
	g_cond_init(&j.changed);
	j.workers_left = jobs;
	/* exclusive: it starts the threads now, and may give a pool and
	 * an error when one would not start */
	pool = g_thread_pool_new(worker, &j, (gint)jobs, TRUE, &perr);
	if (!pool || perr) {
		if (pool)
			g_thread_pool_free(pool, TRUE, TRUE);
		g_hash_table_destroy(j.done_after);
		g_array_free(j.recs, TRUE);
		g_array_free(res->failed, TRUE);
		res->failed = NULL;
		g_mutex_clear(&j.lock);
		g_cond_clear(&j.changed);
		g_propagate_error(error, g_steal_pointer(&perr));
		if (error && !*error)
			g_set_error(error, G_THREAD_ERROR, G_THREAD_ERROR_AGAIN,
				    "no worker thread");
		return false;
	}
	for (unsigned int i = 0; i < jobs; i++)
		g_thread_pool_push(pool, GINT_TO_POINTER(i + 1), NULL);
	{
		gint64 said = t0;
		gint64 every =
			o->tty ? G_TIME_SPAN_SECOND : 10 * G_TIME_SPAN_SECOND;

		g_mutex_lock(&j.lock);
		while (j.workers_left) {
			gint64 now = g_get_monotonic_time();

			if (o->progress && now - said >= every) {
				progress(&j, t0, false);
				said = now;
			}
			g_cond_wait_until(&j.changed, &j.lock,
					  now + G_TIME_SPAN_SECOND / 4);
		}
		if (o->progress && said != t0)
			progress(&j, t0, true);
		g_mutex_unlock(&j.lock);
	}
	g_thread_pool_free(pool, FALSE, TRUE);
	g_mutex_clear(&j.lock);
	g_cond_clear(&j.changed);
	g_hash_table_destroy(j.done_after);
	res->interrupted = sim_interrupt != 0;
	g_array_sort(res->failed, cmp_seed);
	res->host_seconds = (double)(g_get_monotonic_time() - t0) / 1e6;
	settle(&j, o, res);
	for (guint i = 0; !o->quiet && i < res->failed->len; i++) {
		const struct torture_failure *f =
			&g_array_index(res->failed, struct torture_failure, i);

		fprintf(out, "seed %" PRIu64 ": %s\n", f->seed, f->violation);
	}

	if (j.fail_text) {
		g_autofree char *ini = g_strdup_printf(
			"%s/seed-%" PRIu64 ".ini", o->out_dir, j.fail_seed);
		g_autofree char *trace = g_strdup_printf(
			"%s/seed-%" PRIu64 ".trace", o->out_dir, j.fail_seed);
		g_autofree char *report = g_strdup_printf(
			"%s/seed-%" PRIu64 ".report", o->out_dir, j.fail_seed);

		g_autoptr(GError) werr = NULL;
		g_autofree char *qini = qsim_shell_word(ini);
		bool ini_ok = false;

		/* The failure is the result: if its files cannot be written
		 * it is still printed (with its scenario) and stored. */
		if (g_mkdir_with_parents(o->out_dir, 0755) != 0)
			g_set_error(&werr, G_FILE_ERROR,
				    g_file_error_from_errno(errno),
				    "%s: cannot create the folder: %s",
				    o->out_dir, g_strerror(errno));
		res->replay = g_strdup_printf("qsim run %s --seed %" PRIu64,
					      qini, j.fail_seed);
		if (!werr) {
			g_autofree char *rep = g_strdup_printf(
				"%sreplay: %s\n",
				j.fail_report ? j.fail_report : "",
				res->replay);
			unsigned int gone = remove_earlier(o->out_dir);

			if (gone && !o->quiet)
				fprintf(stderr,
					"qsim torture: %s: removed %u file%s "
					"of an earlier run (seed-*.ini, "
					".trace, .report)\n",
					o->out_dir, gone, gone == 1 ? "" : "s");

			ini_ok = write_file(ini, j.fail_text, &werr);
			if (ini_ok && write_file(trace, j.fail_trace, &werr))
				write_file(report, rep, &werr);
		}
		/* --keep-going: every failing seed's scenario, to replay each
		 * (the report and trace are the first's) */
		for (guint i = 0; !werr && i < res->failed->len; i++) {
			const struct torture_failure *f = &g_array_index(
				res->failed, struct torture_failure, i);
			g_autofree char *p = NULL;

			if (f->seed == j.fail_seed)
				continue;
			p = g_strdup_printf("%s/seed-%" PRIu64 ".ini",
					    o->out_dir, f->seed);
			write_file(p, f->scenario, &werr);
		}
		res->first_failing_seed = j.fail_seed;
		res->first_violation = g_steal_pointer(&j.fail_line);
		if (werr && ini_ok) {
			/* its scenario is there: the replay stands */
			fprintf(stderr,
				"qsim torture: not every file of the failure "
				"was written (%s)\n",
				werr->message);
		}
		if (werr && !ini_ok) {
			g_free(res->replay);
			res->replay = g_strdup_printf(
				"qsim run - --seed %" PRIu64 " < SCENARIO",
				j.fail_seed);
			fprintf(stderr,
				"qsim torture: the failure's files were not "
				"written (%s); its scenario is printed below "
				"and stored with it\n",
				werr->message);
			fprintf(out,
				"\n%s\nscenario of seed %" PRIu64
				":\n%s\nreplay: %s  # SCENARIO: the "
				"scenario above\n",
				j.fail_report ? j.fail_report : "", j.fail_seed,
				j.fail_text, res->replay);
		} else if (!o->quiet) {
			fprintf(out, "\n%s",
				j.fail_report ? j.fail_report : "");
			fprintf(out, "trace:  %s\nreplay: %s\n", trace,
				res->replay);
		}
	}
	g_free(j.fail_text);
	g_free(j.fail_report);
	g_free(j.fail_trace);
	g_free(j.fail_line);
	if (!o->quiet) {
		/* with a unit: "86.9us" for a failure in the first microseconds */
		char simt[32];

		sim_format_time((sim_time_t)(res->sim_seconds * (double)SIM_S),
				simt, sizeof(simt));
		fprintf(out,
			"\ntorture: %" PRIu64 " seed%s in %.3f s host (%.1f "
			"schedules/s, %s simulated, %" PRIu64
			" events), %" PRIu64 " failed\n",
			res->seeds_run, res->seeds_run == 1 ? "" : "s",
			res->host_seconds,
			res->host_seconds > 0
				? (double)res->seeds_run / res->host_seconds
				: 0,
			simt, res->events, res->failures);
	}
	return true;
}

void torture_result_clear(struct torture_result *res)
{
	for (guint i = 0; res->failed && i < res->failed->len; i++) {
		struct torture_failure *f =
			&g_array_index(res->failed, struct torture_failure, i);

		g_free(f->violation);
		g_free(f->scenario);
	}
	if (res->failed)
		g_array_free(res->failed, TRUE);
	g_free(res->first_violation);
	g_free(res->replay);
	memset(res, 0, sizeof(*res));
}
