// SPDX-License-Identifier: MIT
/*
 * The results store: write a run, reopen the file, read every kind of row
 * back and compare with the results it came from; a failed insert leaves
 * nothing; a newer schema is refused.
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tools/store.h"
#include "tests/testutil.h"

static char *tmpdb(void)
{
	char *dir = tu_tmpdir("qsim-store-XXXXXX");
	char *path = g_build_filename(dir, "r.db", NULL);

	g_free(dir);
	return path;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

static double query_real(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	double v = -1;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	return v;
}

START_TEST(test_write_reopen_read)
{
	g_autofree char *path = tmpdb();
	/* No think time: the four running vCPUs always want the lock, so
	 * the run ends with waits under way whatever the physics (a
	 * default load ended with none at 5 ms in session 16 and at 6 ms
	 * in session 17). */
	g_autofree char *text = tu_scenario("pv_qspinlock", 8, 4, 6);
	struct qsim_config *cfg = tu_config(text, "workload.think=0ns", NULL);
	struct qsim_results res;
	GError *err = NULL;
	struct store *st;
	int64_t id = 0;
	int64_t hist_total = 0;
	char sql[256];

	tu_model(cfg, &res);
	st = store_open(path, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert(store_run_insert(st, cfg, &res, &id, &err));
	ck_assert_int_eq(id, 1);
	store_close(st);

	st = store_open(path, &err); /* reopen: no re-migration */
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(query_int(st->db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM runs"), 1);
	ck_assert_int_eq(query_int(st->db, "SELECT seed FROM runs"), 1);
	ck_assert_int_eq(query_int(st->db, "SELECT vcpus FROM runs"), 8);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM vcpu_results"),
			 8);
	ck_assert_int_eq(query_int(st->db, "SELECT acquisitions FROM "
					   "lock_results WHERE lock = 0"),
			 res.locks[0].acquisitions);
	ck_assert(query_real(st->db, "SELECT lat_p99_ns FROM lock_results") ==
		  res.locks[0].lat_p99_ns);
	/* Per-vCPU acquisitions add up to the lock's. */
	ck_assert_int_eq(query_int(st->db, "SELECT SUM(acquisitions) FROM "
					   "vcpu_results"),
			 res.locks[0].acquisitions);
	for (unsigned int v = 0; v < res.nvcpus; v++) {
		snprintf(sql, sizeof(sql),
			 "SELECT hv_dispatches FROM vcpu_results WHERE vcpu = "
			 "%u",
			 v);
		ck_assert_int_eq(query_int(st->db, sql),
				 (int64_t)res.vcpus[v].hv.dispatches);
	}
	/* The latency histogram holds every acquisition once, and every
	 * wait still under way at the end (some: 8 vCPUs on 4 pCPUs). */
	for (unsigned int b = 0; b < SIM_HIST_NBUCKETS; b++)
		hist_total += (int64_t)res.locks[0].latency.buckets[b];
	ck_assert_int_gt(res.locks[0].unfinished_waits, 0);
	ck_assert_int_eq(hist_total, res.locks[0].acquisitions +
					     res.locks[0].unfinished_waits);
	ck_assert_int_eq(query_int(st->db, "SELECT unfinished_waits FROM "
					   "lock_results"),
			 res.locks[0].unfinished_waits);
	ck_assert_int_eq(query_int(st->db, "SELECT SUM(count) FROM histograms "
					   "WHERE metric = 'latency'"),
			 hist_total);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM counters "
					   "WHERE name = 'sim_events'"),
			 1);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM run_summary"),
			 1);
	/* The stored scenario reproduces the run's parameters. */
	ck_assert_int_eq(query_int(st->db,
				   "SELECT instr(params, "
				   "'type=pv_qspinlock') > 0 FROM runs"),
			 1);
	/* Lock events: per-vCPU rows add up to the run's counter. */
	ck_assert_int_gt(res.lock_events[LOCKEVENT_pv_kick_unlock], 0);
	ck_assert_int_eq(query_int(st->db, "SELECT SUM(value) FROM "
					   "vcpu_counters WHERE name = "
					   "'pv_kick_unlock'"),
			 (int64_t)res.lock_events[LOCKEVENT_pv_kick_unlock]);
	ck_assert_int_eq(query_int(st->db, "SELECT value FROM counters WHERE "
					   "name = 'pv_kick_unlock'"),
			 (int64_t)res.lock_events[LOCKEVENT_pv_kick_unlock]);
	store_close(st);
	qsim_results_clear(&res);
	cfg_free(cfg);
}
END_TEST

START_TEST(test_failed_insert_leaves_nothing)
{
	g_autofree char *path = tmpdb();
	g_autofree char *text = tu_scenario("tas", 4, 4, 2);
	struct qsim_config *cfg = tu_config(text, NULL);
	struct qsim_results res;
	GError *err = NULL;
	struct store *st;
	int64_t id;

	tu_model(cfg, &res);
	st = store_open(path, &err);
	ck_assert_ptr_nonnull(st);
	/* Make the histogram insert fail half-way through the run. */
	ck_assert_int_eq(sqlite3_exec(st->db,
				      "CREATE TRIGGER boom BEFORE INSERT ON "
				      "histograms BEGIN SELECT RAISE(ABORT, "
				      "'boom'); END",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	ck_assert(!store_run_insert(st, cfg, &res, &id, &err));
	ck_assert(strstr(err->message, "boom"));
	g_clear_error(&err);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM runs"), 0);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM vcpu_results"),
			 0);
	store_close(st);
	qsim_results_clear(&res);
	cfg_free(cfg);
}
END_TEST

/*
 * Schema 16 gives each kernel-tree run stored before its files' digest,
 * from its kernel_files rows: here two files, whose digest is worked out
 * by hand as docs/database.md defines it (the lines sorted: "a.h" before
 * "b.c", though stored the other way round).
 */
START_TEST(test_migrates_ktree_digest)
{
	g_autofree char *path = tmpdb();
	g_autofree char *text = tu_scenario("ticket", 4, 2, 1);
	struct qsim_config *cfg = tu_config(text, NULL);
	struct qsim_results res;
	GError *err = NULL;
	struct store *st = store_open(path, &err);
	g_autofree char *sql = NULL;
	g_autofree char *want = g_compute_checksum_for_string(
		G_CHECKSUM_SHA256, "a.h 1111\nb.c 2222\n", -1);
	sqlite3_stmt *q;
	int64_t id;

	ck_assert_ptr_nonnull(st);
	tu_model(cfg, &res);
	ck_assert(store_run_insert(st, cfg, &res, &id, &err));
	sql = g_strdup_printf(
		"INSERT INTO kernel_tree (run_id, path, version, describe) "
		"VALUES (%" PRId64 ", '/t', '6.12', '');"
		"INSERT INTO kernel_files VALUES (%" PRId64 ", 'b.c', '2222');"
		"INSERT INTO kernel_files VALUES (%" PRId64 ", 'a.h', '1111');"
		"ALTER TABLE kernel_tree DROP COLUMN files_sha256;"
		"ALTER TABLE torture_runs DROP COLUMN kernel_tree;"
		"ALTER TABLE torture_runs DROP COLUMN kernel_version;"
		"ALTER TABLE torture_runs DROP COLUMN kernel_describe;"
		"ALTER TABLE torture_runs DROP COLUMN kernel_files_sha256;"
		"ALTER TABLE torture_runs DROP COLUMN seeds_asked;"
		"DROP VIEW distinct_runs;" /* schema 17's */
		"PRAGMA user_version = 15",
		id, id, id);
	ck_assert_int_eq(sqlite3_exec(st->db, sql, NULL, NULL, NULL),
			 SQLITE_OK);
	store_close(st);
	st = store_open(path, &err);
	ck_assert_msg(st, "%s", err ? err->message : "");
	ck_assert_int_eq(query_int(st->db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	ck_assert_int_eq(sqlite3_prepare_v2(st->db,
					    "SELECT files_sha256 FROM "
					    "kernel_tree",
					    -1, &q, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(q, 0), want);
	sqlite3_finalize(q);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "pragma_table_info('torture_runs') "
					   "WHERE name LIKE 'kernel_%'"),
			 4);
	store_close(st);
	qsim_results_clear(&res);
	cfg_free(cfg);
}
END_TEST

/*
 * A version-1 file is migrated forward on open, its rows kept; schema 12
 * splits the stored run's resolved text into params rows and hashes it.
 */
START_TEST(test_migrates_v1)
{
	g_autofree char *path = tmpdb();
	g_autofree char *text = tu_scenario("ticket", 4, 2, 1);
	struct qsim_config *cfg = tu_config(text, NULL);
	struct qsim_results res;
	GError *err = NULL;
	struct store *st = store_open(path, &err);
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autofree char *sum = store_params_sha256(cfg->resolved);
	g_autofree char *sql = NULL;
	int64_t id, nkeys = 0;

	ck_assert_ptr_nonnull(st);
	tu_model(cfg, &res);
	ck_assert(store_run_insert(st, cfg, &res, &id, &err));
	/* Make it look like a version-1 file: no later table or column. */
	ck_assert_int_eq(sqlite3_exec(st->db,
				      TU_UNDO_SCHEMA12
				      "DROP TABLE vcpu_counters; "
				      "DROP TABLE partition_results; "
				      "DROP TABLE dtl_records; "
				      "DROP TABLE kernel_tree; "
				      "DROP TABLE kernel_files; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_dtl_preempt; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_dtl_cede; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_dtl_confer; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_dtl_wait_ready_ps; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_dtl_ready_enqueue_ps; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_dtl_enqueue_dispatch_ps; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_steal_ps; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_cpu_time_ps; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_ple_exits; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_ple_yields; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_halt_polls_ok; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_halt_polls_missed; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_irq_wakes; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "units; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "hv_kick_yields; "
				      "ALTER TABLE lock_results DROP COLUMN "
				      "long_holds; "
				      "ALTER TABLE lock_results DROP COLUMN "
				      "read_acquisitions; "
				      "ALTER TABLE lock_results DROP COLUMN "
				      "write_acquisitions; "
				      "ALTER TABLE lock_results DROP COLUMN "
				      "read_lat_mean_ns; "
				      "ALTER TABLE lock_results DROP COLUMN "
				      "read_lat_p99_ns; "
				      "ALTER TABLE lock_results DROP COLUMN "
				      "write_lat_mean_ns; "
				      "ALTER TABLE lock_results DROP COLUMN "
				      "write_lat_p99_ns; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "read_acquisitions; "
				      "ALTER TABLE vcpu_results DROP COLUMN "
				      "write_acquisitions; "
				      "PRAGMA user_version = 1",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	store_close(st);
	st = store_open(path, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(query_int(st->db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "sqlite_schema WHERE name IN "
					   "('kernel_tree', 'kernel_files')"),
			 2);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "pragma_table_info('vcpu_results') "
					   "WHERE name = 'units'"),
			 1);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "pragma_table_info('vcpu_results') "
					   "WHERE name = 'hv_irq_wakes'"),
			 1);
	ck_assert_int_eq(query_int(st->db,
				   "SELECT COUNT(*) FROM "
				   "pragma_table_info('partition_results') "
				   "WHERE name = 'acquisitions'"),
			 1);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "pragma_table_info('lock_results') "
					   "WHERE name = 'long_holds'"),
			 1);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "pragma_table_info('vcpu_results') "
					   "WHERE name = 'hv_steal_ps'"),
			 1);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "dtl_records"),
			 0);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "partition_results"),
			 0);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "pragma_table_info('lock_results') "
					   "WHERE name = 'write_lat_p99_ns'"),
			 1);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM "
					   "vcpu_counters"),
			 0);
	/* Schema 12's rows for the run stored before: every key of its
	 * resolved text, counted here by GKeyFile, and its hash. */
	ck_assert(g_key_file_load_from_data(kf, cfg->resolved, (gsize)-1,
					    G_KEY_FILE_NONE, NULL));
	{
		g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);

		for (char **g = groups; *g; g++) {
			g_auto(GStrv) keys =
				g_key_file_get_keys(kf, *g, NULL, NULL);

			nkeys += (int64_t)g_strv_length(keys);
		}
	}
	ck_assert_int_gt(nkeys, 50);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM params"),
			 nkeys);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM params "
					   "WHERE section = 'lock' AND key = "
					   "'type' AND value = 'ticket'"),
			 1);
	sql = g_strdup_printf("SELECT COUNT(*) FROM runs WHERE params_sha256 "
			      "= '%s' AND binary_sha256 IS NULL",
			      sum);
	ck_assert_int_eq(query_int(st->db, sql), 1);
	store_close(st);
	qsim_results_clear(&res);
	cfg_free(cfg);
}
END_TEST

/* The column names of @table in @db, sorted, comma-separated. */
static char *columns_of(sqlite3 *db, const char *table)
{
	g_autofree char *sql = g_strdup_printf(
		"SELECT group_concat(name, ',') FROM (SELECT name FROM "
		"pragma_table_info('%s') ORDER BY name)",
		table);
	sqlite3_stmt *s;
	char *v = NULL;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		v = g_strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v ? v : g_strdup("");
}

/*
 * Real files, not ones made to look old: what the first qsim with a
 * store (83284ea^, schema 1) wrote for one run, and one made new at
 * schema 13 (d901a12), dumped to tests/fixtures/.  Migrated, each has
 * today's tables and views column for column (the reference is a new
 * file), keeps its run, and takes a new one.  Schema 10's step forgot
 * lock_results.units, which new files had: a migrated file then failed
 * every insert, and files of both kinds could not be merged (schema 14
 * drops the column: a lock has no units of work).
 */
static const struct {
	const char *file;
	int version, vcpus;
} old_files[] = {
	{"store-v1.sql", 1, 32},
	{"store-v13.sql", 13, 32},
};

START_TEST(test_migrated_file_is_current)
{
	g_autofree char *path = tmpdb();
	g_autofree char *fresh_path = tmpdb();
	g_autofree char *fixture = g_build_filename(
		QSIM_SOURCE_DIR, "tests", "fixtures", old_files[_i].file, NULL);
	g_autofree char *dump = NULL, *sql = NULL;
	g_autofree char *text = tu_scenario("pv_qspinlock", 8, 4, 5);
	struct qsim_config *cfg = tu_config(text, NULL);
	struct qsim_results res;
	GError *err = NULL;
	struct store *st, *fresh;
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t id = 0;
	int ntables = 0;

	ck_assert(g_file_get_contents(fixture, &dump, NULL, NULL));
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, dump, NULL, NULL, NULL), SQLITE_OK);
	sql = g_strdup_printf("PRAGMA user_version = %d",
			      old_files[_i].version);
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	st = store_open(path, &err);
	ck_assert_msg(st, "%s", err ? err->message : "");
	fresh = store_open(fresh_path, &err);
	ck_assert_ptr_nonnull(fresh);
	ck_assert_int_eq(query_int(st->db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	ck_assert_int_eq(sqlite3_prepare_v2(fresh->db,
					    "SELECT type, name FROM "
					    "sqlite_schema WHERE type IN "
					    "('table', 'view') ORDER BY name",
					    -1, &s, NULL),
			 SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 1);
		g_autofree char *want = columns_of(fresh->db, name);
		g_autofree char *got = columns_of(st->db, name);

		ck_assert_msg(!strcmp(want, got), "%s: migrated (%s), new (%s)",
			      name, got, want);
		ntables++;
	}
	sqlite3_finalize(s);
	ck_assert_int_ge(ntables, 10);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM sqlite_schema "
					   "WHERE type IN ('table', 'view')"),
			 ntables);

	/* The old run is there (its tag, if any, in run_tags); a new one
	 * goes in beside it. */
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM runs"), 1);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM run_tags t "
					   "JOIN runs r ON r.id = t.run_id "
					   "AND r.tag = t.tag"),
			 query_int(st->db, "SELECT COUNT(*) FROM runs WHERE "
					   "tag IS NOT NULL"));
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM vcpu_results "
					   "WHERE run_id = 1"),
			 old_files[_i].vcpus);
	tu_model(cfg, &res);
	ck_assert_msg(store_run_insert(st, cfg, &res, &id, &err), "%s",
		      err ? err->message : "");
	ck_assert_int_eq(id, 2);
	ck_assert_int_eq(query_int(st->db, "SELECT COUNT(*) FROM lock_results "
					   "WHERE run_id = 2"),
			 1);
	store_close(st);
	store_close(fresh);
	qsim_results_clear(&res);
	cfg_free(cfg);
}
END_TEST

START_TEST(test_newer_schema_refused)
{
	g_autofree char *path = tmpdb();
	sqlite3 *db;
	GError *err = NULL;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL);
	sqlite3_close(db);
	ck_assert_ptr_null(store_open(path, &err));
	ck_assert(strstr(err->message, "newer than this qsim"));
	g_error_free(err);
}
END_TEST

/* D6: a database of someone else's is refused and left as it was; an
 * empty file becomes qsim's, marked with qsim's application_id. */
START_TEST(test_foreign_database_refused)
{
	g_autofree char *path = tmpdb();
	g_autofree char *empty = tmpdb();
	GError *err = NULL;
	struct store *st;
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE notes (x TEXT)", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	ck_assert_ptr_null(store_open(path, &err));
	ck_assert_msg(strstr(err->message, "not a qsim results database"), "%s",
		      err->message);
	g_error_free(err);
	err = NULL;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(query_int(db, "SELECT COUNT(*) FROM sqlite_master"),
			 1);
	sqlite3_close(db);

	st = store_open(empty, &err);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(query_int(st->db, "PRAGMA application_id"),
			 STORE_APPLICATION_ID);
	store_close(st);
}
END_TEST

/* Make @path unwritable even for root: the immutable attribute. */
static bool make_immutable(const char *path, bool on)
{
	int fd = open(path, O_RDONLY), flags = 0;
	bool ok;

	if (fd < 0)
		return false;
	ok = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	ok = ok && ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
	close(fd);
	return ok;
}

/* D4: a database the process may not write is refused when it is
 * opened, before any run (it was found only after the simulation).
 * A file mode binds others; root needs the immutable attribute. */
START_TEST(test_readonly_refused_up_front)
{
	g_autofree char *path = tmpdb();
	GError *err = NULL;
	struct store *st = store_open(path, &err);
	bool immutable = false;

	ck_assert_ptr_nonnull(st);
	store_close(st);
	ck_assert_int_eq(g_chmod(path, 0444), 0);
	if (geteuid() == 0) {
		immutable = make_immutable(path, true);
		if (!immutable) {
			fprintf(stderr, "test_readonly_refused_up_front: root, "
					"and no immutable attribute here: not "
					"checked\n");
			return;
		}
	}
	st = store_open(path, &err);
	if (immutable)
		make_immutable(path, false);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err->message, "read-only"), "%s", err->message);
	g_error_free(err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_write_reopen_read);
	tcase_add_test(tc, test_failed_insert_leaves_nothing);
	tcase_add_test(tc, test_newer_schema_refused);
	tcase_add_test(tc, test_migrates_v1);
	tcase_add_test(tc, test_migrates_ktree_digest);
	tcase_add_loop_test(tc, test_migrated_file_is_current, 0,
			    G_N_ELEMENTS(old_files));
	tcase_add_test(tc, test_foreign_database_refused);
	tcase_add_test(tc, test_readonly_refused_up_front);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
