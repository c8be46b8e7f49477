/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the Check suites.
 */
#ifndef QSIM_TESTS_TESTUTIL_H
#define QSIM_TESTS_TESTUTIL_H

#include <check.h>
#include <stdarg.h>

#include "hypervisor/hv.h"
#include "locks/lock.h"
#include "sim/engine.h"
#include "tools/config.h"
#include "tools/model.h"

/* Costs with distinct, odd-looking values so ties are rare. */
extern const struct sim_cost tu_cost;

/* A bare engine with @n cpus (no hypervisor), pcpu i for cpu i. */
void tu_sim_init(struct sim *s, unsigned int npcpus);
/* Run a suite, return the process exit status. */
int tu_run(Suite *s);
/* Load a scenario from text with overrides (NULL-terminated varargs). */
struct qsim_config *tu_config(const char *text, ...);
/* Run @cfg, asserting no internal error. */
void tu_model(const struct qsim_config *cfg, struct qsim_results *res);
/* A small scenario: @lock, @vcpus on @pcpus, @ms of simulated time. */
char *tu_scenario(const char *lock, unsigned int vcpus, unsigned int pcpus,
		  unsigned int ms);

/*
 * The validation harness: @ops with 16 vCPUs on @pcpus for 20 ms under the
 * always-on checks, with up to two overrides (NULL: none; a NULL first
 * ends the list).  A broken lock must be caught as broken mutual
 * exclusion; any other must run clean and make progress, its figures
 * consistent.
 */
struct lk_ops;
void tu_validate(const struct lk_ops *ops, unsigned int pcpus,
		 const char *override1, const char *override2);

/*
 * Scripted guests, for schedules built by hand: each vCPU of one
 * partition runs a list of steps, on a bare engine and hypervisor (no
 * workload), so a test can derive every time and every lock word itself.
 */
enum tu_op {
	TU_END,
	TU_WORK,    /* compute a ps */
	TU_LOCK,    /* lock (write_lock) locks[a] */
	TU_UNLOCK,  /* unlock (write_unlock) locks[a] */
	TU_RLOCK,   /* read_lock locks[a] */
	TU_RUNLOCK, /* read_unlock locks[a] */
	TU_MARK,    /* marks[a] = the time, after a sync */
	TU_ORDER,   /* order = the rig's next number (acquisition order) */
	TU_CEDE,    /* H_CEDE */
	TU_PROD,    /* H_PROD vCPU a */
	TU_CONFER,  /* H_CONFER to vCPU a with count b, or b < 0: read it */
	TU_YC,	    /* marks[b] = yield_count_of(a) */
	TU_CALL,    /* the rig's call(a) */
	TU_HALT,    /* KVM halt */
	TU_KICK,    /* KVM kick of vCPU a */
};

struct tu_step {
	enum tu_op op;
	long a, b;
};

#define TU_US(x) ((long)((x)*SIM_US))

struct tu_rig;

struct tu_script {
	const struct tu_step *steps;
	uint64_t marks[8];
	int order;
	struct tu_rig *rig; /* set by tu_rig_init */
};

struct tu_rig {
	struct sim s;
	struct hv h;
	const struct lk_ops *ops; /* NULL: no lock */
	void *locks[32];
	unsigned int nlocks;
	int order_next;
	/* What TU_CALL runs on the vCPU (a test's own step). */
	void (*call)(struct tu_rig *r, struct sim_cpu *c, long a);
};

/* The dispatcher of the hand-derived tests: rr, slice and window 10 ms,
 * dispatch latency 2 us, hcalls 500 ns, wake latency 5 us. */
struct hv_params tu_hv_params(unsigned int npcpus);
/* 128-byte lines, 64 KiB pages, everything else zero. */
struct lk_params tu_lk_params(void);

/* The rig's topology: threads per core (cores per chip so that a chip
 * has 80 threads), and the seed of its machine streams. */
extern unsigned int tu_rig_smt;
extern uint64_t tu_rig_seed;

/*
 * Build @r: @n vCPUs running @sc (shared processors if @shared) under @hp,
 * and @nlocks locks of type @lock (NULL: none) with its guest globals
 * from @lp (NULL: tu_lk_params()).  The caller may adjust the partition
 * (r->h.parts[0]) before tu_rig_start seals memory, initialises the
 * locks and starts dispatching at time 0.
 */
void tu_rig_init(struct tu_rig *r, const struct hv_params *hp, const char *lock,
		 const struct lk_params *lp, bool shared, struct tu_script *sc,
		 unsigned int n, unsigned int nlocks);
void tu_rig_start(struct tu_rig *r);
void tu_rig_destroy(struct tu_rig *r);
/* Run @fn(@ev) at @t, after the cpus of that time (a probe). */
void tu_rig_at(struct tu_rig *r, struct sim_event *ev, sim_event_fn fn,
	       void *data, sim_time_t t);
/* The sum over all vCPUs of lock event counter @e. */
uint64_t tu_rig_events(const struct tu_rig *r, unsigned int e);

/*
 * Run the qsim binary with the arguments given (NULL-terminated) in
 * directory @dir (NULL: here); its exit code (-1 if it did not exit),
 * with stdout and stderr in *@out and *@err when not NULL.
 */
int tu_qsim_in(const char *dir, char **out, char **err, ...);
int tu_qsim_va(const char *dir, char **out, char **err, va_list ap);
/* The path of scenarios/2x-overcommit.ini in the source tree. */
const char *tu_overcommit_ini(void);
/* The one text value @sql selects in the database @db (a new string). */
char *tu_db_text(const char *db, const char *sql);
/* Remove the folder @dir and all in it (a test's scratch folder). */
void tu_rm_rf(const char *dir);
/*
 * A new scratch folder made from @tmpl (g_dir_make_tmp's template), removed
 * with all in it when the process that made it calls exit(): Check ends a
 * forked test so whether it passed or failed (a timeout's kill or an abort
 * leaves the folder; without forking it goes when the runner exits).  A
 * folder a setup made in the runner is not removed by the forked tests.
 */
char *tu_tmpdir(const char *tmpl);

/* SQL that takes a current results file back to before schema 12, and
 * so before 13 and 15 as well (for the migration tests). */
#define TU_UNDO_SCHEMA12                                \
	"DROP TABLE run_tags; "                         \
	"ALTER TABLE lock_results DROP COLUMN "         \
	"unfinished_waits; "                            \
	"ALTER TABLE lock_results DROP COLUMN nested; " \
	"DROP VIEW lock_worst_p99; "                    \
	"DROP VIEW distinct_runs; "                     \
	"DROP VIEW lhp_by_overcommit; "                 \
	"DROP VIEW throughput_by_overcommit; "          \
	"DROP TABLE params; "                           \
	"DROP INDEX runs_identity; "                    \
	"DROP INDEX runs_tag; "                         \
	"ALTER TABLE runs DROP COLUMN tag; "            \
	"ALTER TABLE runs DROP COLUMN params_sha256; "  \
	"ALTER TABLE runs DROP COLUMN binary_sha256; "  \
	"DROP TABLE torture_failures; "                 \
	"DROP TABLE torture_runs; "

#endif
