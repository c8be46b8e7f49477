// SPDX-License-Identifier: MIT
/*
 * A sweep beyond one process: `qsim sweep --emit-jobs` run for real under
 * GNU parallel and under a one-node Slurm cluster (munged, slurmctld and
 * slurmd started here by tools/slurm-node.sh), each merged into one
 * database that must hold the same rows as the same sweep run by
 * `qsim sweep --jobs 2`, and that a sweep then finds complete.
 */
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testutil.h"

static char *dir;

static void setup(void)
{
	dir = tu_tmpdir("qsim-cl-XXXXXX");
}

/* The daemons go whatever happened (stop is a no-op without them). */
static void teardown(void)
{
	g_autofree char *node = g_build_filename(dir, "node", NULL);
	g_autofree char *stop = g_build_filename(QSIM_SOURCE_DIR, "tools",
						 "slurm-node.sh", NULL);
	const char *argv[] = {stop, "stop", node, NULL};

	g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
		     NULL, NULL, NULL, NULL, NULL, NULL);
}

static const char *const sweep_args[] = {
	"--grid",  "machine.overcommit=1,2",
	"--grid",  "lock.type=ticket,tas",
	"--set",   "run.duration=10ms",
	"--set",   "run.warmup=2ms",
	"--seeds", "2",
	NULL,
};

/* qsim sweep SCENARIO <sweep_args> EXTRA... ; exit code, stdout, stderr. */
static int sweep(char **out, char **err, ...)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	va_list ap;
	const char *a;
	int status = -1;

	g_ptr_array_add(argv, g_strdup(QSIM_BINARY));
	g_ptr_array_add(argv, g_strdup("sweep"));
	g_ptr_array_add(argv, g_build_filename(QSIM_SOURCE_DIR, "scenarios",
					       "2x-overcommit.ini", NULL));
	for (const char *const *s = sweep_args; *s; s++)
		g_ptr_array_add(argv, g_strdup(*s));
	va_start(ap, err);
	while ((a = va_arg(ap, const char *)))
		g_ptr_array_add(argv, g_strdup(a));
	va_end(ap);
	g_ptr_array_add(argv, NULL);
	ck_assert(g_spawn_sync(dir, (char **)argv->pdata, NULL, 0, NULL, NULL,
			       out, err, &status, NULL));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Every run's identity and figures, one line each, sorted. */
static char *rows(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	GString *t = g_string_new(NULL);

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(
		sqlite3_prepare_v2(db,
				   "SELECT r.params_sha256, r.binary_sha256, "
				   "r.events, l.acquisitions, l.lat_p99_ns, "
				   "l.handoffs, l.lhp_events FROM runs r JOIN "
				   "lock_results l ON l.run_id = r.id ORDER "
				   "BY 1",
				   -1, &s, NULL),
		SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		for (int c = 0; c < 7; c++)
			g_string_append_printf(t, "%s ",
					       sqlite3_column_text(s, c));
		g_string_append_c(t, '\n');
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return g_string_free(t, FALSE);
}

static int sh(const char *cmd, char **out)
{
	g_autofree char *err = NULL;
	const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	int status = -1;

	ck_assert(g_spawn_sync(dir, (char **)argv, NULL, 0, NULL, NULL, out,
			       &err, &status, NULL));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fprintf(stderr, "%s: %s\n", cmd, err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The reference: the same sweep in one process. */
static char *direct_rows(void)
{
	g_autofree char *path = g_build_filename(dir, "direct.db", NULL);

	ck_assert_int_eq(sweep(NULL, NULL, "--jobs", "2", "--db", path, NULL),
			 0);
	return rows(path);
}

/* After the merge, the sweep finds all 8 points and runs none. */
static void complete(const char *db)
{
	g_autofree char *err = NULL;

	ck_assert_int_eq(sweep(NULL, &err, "--db", db, NULL), 0);
	ck_assert_msg(strstr(err, "8/8 runs (8 stored before)"), "%s", err);
}

START_TEST(test_gnu_parallel)
{
	g_autofree char *db = g_build_filename(dir, "par.db", NULL);
	g_autofree char *jobs = g_build_filename(dir, "par", NULL);
	g_autofree char *out = NULL, *lines = NULL, *cmd = NULL;
	g_autofree char *want = direct_rows(), *got = NULL;

	ck_assert_int_eq(
		sweep(&out, NULL, "--db", db, "--emit-jobs", jobs, NULL), 0);
	ck_assert_msg(strstr(out, "8 jobs in"), "%s", out);
	cmd = g_strdup_printf("wc -l < '%s/jobs.txt'", jobs);
	ck_assert_int_eq(sh(cmd, &lines), 0);
	ck_assert_int_eq(atoi(lines), 8);
	g_free(cmd);
	cmd = g_strdup_printf("JOBS=2 '%s/parallel.sh'", jobs);
	ck_assert_int_eq(sh(cmd, NULL), 0);
	got = rows(db);
	ck_assert_str_eq(got, want);
	complete(db);
	/* run again: every job is in the joblog, the merge adds nothing */
	ck_assert_int_eq(sh(cmd, NULL), 0);
	g_free(got);
	got = rows(db);
	ck_assert_str_eq(got, want);
}
END_TEST

/* Runs in the database @path (status @status), or -1 without one. */
static int64_t count_runs(const char *path, const char *status)
{
	g_autofree char *sql = g_strdup_printf(
		"SELECT COUNT(*) FROM runs WHERE status LIKE '%s'", status);
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t n = -1;

	if (!g_file_test(path, G_FILE_TEST_EXISTS) ||
	    sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/*
 * A job that finds a violation has finished (exit 2 from parallel.sh, and
 * a second call neither runs it again nor stores a copy: it was a failed
 * job, retried each call); an emit into a used folder is refused (its
 * joblog skipped the new jobs and its databases were merged as the new
 * sweep's); merge.sh takes a relative OUT from where it is called.
 */
START_TEST(test_parallel_violation_done)
{
	g_autofree char *ini = g_build_filename(QSIM_SOURCE_DIR, "scenarios",
						"2x-overcommit.ini", NULL);
	g_autofree char *db = g_build_filename(dir, "v.db", NULL);
	g_autofree char *jobs = g_build_filename(dir, "vj", NULL);
	g_autofree char *job1 = g_build_filename(jobs, "db", "000001.db", NULL);
	g_autofree char *mine = g_build_filename(dir, "sub", "m.db", NULL);
	g_autofree char *cmd = g_strdup_printf("JOBS=2 '%s/parallel.sh'", jobs);
	g_autofree char *merge = g_strdup_printf(
		"mkdir sub && cd sub && '%s/merge.sh' m.db", jobs);
	g_autofree char *err = NULL;

	for (int again = 0; again < 2; again++) {
		g_clear_pointer(&err, g_free);
		ck_assert_int_eq(tu_qsim_in(dir, NULL, &err, "sweep", ini,
					    "--grid", "lock.type=busted,tas",
					    "--set", "run.duration=2ms",
					    "--set", "run.warmup=0ns",
					    "--seeds", "1", "--db", db,
					    "--emit-jobs", jobs, NULL),
				 again ? 1 : 0);
	}
	ck_assert_msg(strstr(err, "the folder is not empty"), "%s", err);
	for (int call = 0; call < 2; call++) {
		ck_assert_int_eq(sh(cmd, NULL), 2);
		ck_assert_int_eq(count_runs(db, "violation"), 1);
		ck_assert_int_eq(count_runs(db, "ok"), 1);
		ck_assert_int_eq(count_runs(job1, "%"), 1);
	}
	ck_assert_int_eq(sh(merge, NULL), 0);
	ck_assert_int_eq(count_runs(mine, "%"), 2);
}
END_TEST

/*
 * A job that fails (here its scenario copy is gone) makes parallel.sh
 * exit 3, and a second call runs it, not the ones that finished (their
 * done marks); a Slurm task fails with its jobs (it took the last job's
 * status only).
 */
START_TEST(test_failed_job_retried)
{
	g_autofree char *ini = g_build_filename(QSIM_SOURCE_DIR, "scenarios",
						"2x-overcommit.ini", NULL);
	g_autofree char *db = g_build_filename(dir, "f.db", NULL);
	g_autofree char *jobs = g_build_filename(dir, "fj", NULL);
	g_autofree char *copy = g_build_filename(jobs, "scenario.ini", NULL);
	g_autofree char *aside = g_build_filename(dir, "aside.ini", NULL);
	g_autofree char *job2 = g_build_filename(jobs, "db", "000002.db", NULL);
	g_autofree char *cmd = g_strdup_printf("JOBS=1 '%s/parallel.sh'", jobs);
	g_autofree char *task = g_strdup_printf(
		"cd '%s' && SLURM_ARRAY_TASK_ID=0 sh slurm.sbatch", jobs);

	ck_assert_int_eq(tu_qsim_in(dir, NULL, NULL, "sweep", ini, "--grid",
				    "lock.type=tas,ticket", "--set",
				    "run.duration=2ms", "--set",
				    "run.warmup=0ns", "--seeds", "1", "--db",
				    db, "--emit-jobs", jobs, NULL),
			 0);
	ck_assert_int_eq(g_rename(copy, aside), 0);
	ck_assert_int_eq(sh(cmd, NULL), 3);
	ck_assert_int_eq(sh(task, NULL), 3);
	ck_assert_int_eq(count_runs(db, "%"), -1);
	ck_assert_int_eq(g_rename(aside, copy), 0);
	ck_assert_int_eq(sh(cmd, NULL), 0);
	ck_assert_int_eq(count_runs(db, "ok"), 2);
	/* finished: a third call and the Slurm task run nothing again */
	ck_assert_int_eq(sh(cmd, NULL), 0);
	ck_assert_int_eq(sh(task, NULL), 0);
	ck_assert_int_eq(count_runs(job2, "%"), 1);
}
END_TEST

/*
 * --emit-jobs checks at once what the jobs would only find at the end: a
 * --db that is not a qsim database, or cannot be created, is refused
 * (exit 1, no folder written, nothing created under the name), and so
 * are options that would do nothing (session 14, a fresh-user audit).
 */
START_TEST(test_emit_checks_first)
{
	g_autofree char *bad = g_build_filename(dir, "notadb.db", NULL);
	g_autofree char *nodir =
		g_build_filename(dir, "no", "such", "x.db", NULL);
	g_autofree char *fresh = g_build_filename(dir, "fresh.db", NULL);
	g_autofree char *jobs = g_build_filename(dir, "ej", NULL);
	g_autofree char *err = NULL;
	const char *const useless[][3] = {
		{"--json", "x.json", "--json"},
		{"--csv", "-", "--csv"},
		{"--jobs", "4", "--jobs"},
	};

	ck_assert(g_file_set_contents(bad, "not a database\n", -1, NULL));
	ck_assert_int_eq(
		sweep(NULL, &err, "--db", bad, "--emit-jobs", jobs, NULL), 1);
	ck_assert_msg(strstr(err, "file is not a database"), "%s", err);
	g_clear_pointer(&err, g_free);
	ck_assert_int_eq(
		sweep(NULL, &err, "--db", nodir, "--emit-jobs", jobs, NULL), 1);
	ck_assert_msg(strstr(err, "the merge could not create it"), "%s", err);
	for (unsigned int i = 0; i < G_N_ELEMENTS(useless); i++) {
		g_autofree char *want = g_strdup_printf(
			"--emit-jobs runs nothing: %s would do nothing",
			useless[i][2]);

		g_clear_pointer(&err, g_free);
		ck_assert_int_eq(sweep(NULL, &err, "--db", fresh, "--emit-jobs",
				       jobs, useless[i][0], useless[i][1],
				       NULL),
				 1);
		ck_assert_msg(strstr(err, want), "%s", err);
	}
	ck_assert(!g_file_test(jobs, G_FILE_TEST_EXISTS));
	ck_assert(!g_file_test(fresh, G_FILE_TEST_EXISTS));
	/* a new database that can be made: the jobs, and still no file */
	ck_assert_int_eq(
		sweep(NULL, NULL, "--db", fresh, "--emit-jobs", jobs, NULL), 0);
	ck_assert(g_file_test(jobs, G_FILE_TEST_IS_DIR));
	ck_assert(!g_file_test(fresh, G_FILE_TEST_EXISTS));
}
END_TEST

START_TEST(test_slurm)
{
	g_autofree char *db = g_build_filename(dir, "slurm.db", NULL);
	g_autofree char *jobs = g_build_filename(dir, "sl", NULL);
	g_autofree char *node = g_build_filename(dir, "node", NULL);
	g_autofree char *conf = NULL, *cmd = NULL, *q = NULL;
	g_autofree char *want = direct_rows(), *got = NULL;
	bool empty = false;

	ck_assert_int_eq(
		sweep(NULL, NULL, "--db", db, "--emit-jobs", jobs, NULL), 0);
	cmd = g_strdup_printf("'%s/tools/slurm-node.sh' start '%s'",
			      QSIM_SOURCE_DIR, node);
	ck_assert_msg(sh(cmd, &conf) == 0,
		      "could not start a one-node Slurm (tools/setup.sh "
		      "--test installs slurm-wlm and munge)");
	g_strstrip(conf);
	g_setenv("SLURM_CONF", conf, TRUE);
	g_free(cmd);
	cmd = g_strdup_printf("'%s/slurm-submit.sh'", jobs);
	ck_assert_int_eq(sh(cmd, NULL), 0);
	/* the array and the merge after it: wait until the queue is empty */
	for (int i = 0; i < 600 && !empty; i++) {
		g_clear_pointer(&q, g_free);
		g_usleep(200000);
		ck_assert_int_eq(sh("squeue -h", &q), 0);
		empty = !*q;
	}
	g_free(cmd);
	cmd = g_strdup_printf("'%s/tools/slurm-node.sh' stop '%s'",
			      QSIM_SOURCE_DIR, node);
	sh(cmd, NULL);
	ck_assert_msg(empty, "the Slurm jobs did not end: %s", q);
	got = rows(db);
	ck_assert_str_eq(got, want);
	complete(db);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cluster");
	TCase *tc = tcase_create("cluster");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_gnu_parallel);
	tcase_add_test(tc, test_parallel_violation_done);
	tcase_add_test(tc, test_failed_job_retried);
	tcase_add_test(tc, test_emit_checks_first);
	tcase_add_test(tc, test_slurm);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
