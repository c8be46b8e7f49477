// SPDX-License-Identifier: MIT
/*
 * SQLite results store; see store.h.  Every statement is finalized on every
 * path (the stmt cleanup below), and a run is inserted inside one
 * transaction that is rolled back on any error.
 */
#include <glib/gstdio.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/store.h"
#include "locks/lock.h"
#include "tools/config.h"
#include "tools/torture.h"

#include "qsim_version.h"
#ifndef QSIM_BUILD_FLAGS
#define QSIM_BUILD_FLAGS "unknown"
#endif

G_DEFINE_QUARK(qsim - store - error - quark, store_error)

const char *store_version(void)
{
	return QSIM_VERSION;
}

const char *store_build_flags(void)
{
	return QSIM_BUILD_FLAGS;
}

/*
 * SHA-256 of the running executable (the lock code of a kernel tree is
 * linked into it): with a run's params hash, the identity of a result.
 * "unknown" if it cannot be read.
 */
const char *store_binary_sha256(void)
{
	static char *sum;
	static gsize once;

	if (g_once_init_enter(&once)) {
		g_autofree char *data = NULL;
		gsize len;

		if (g_file_get_contents("/proc/self/exe", &data, &len, NULL))
			sum = g_compute_checksum_for_data(
				G_CHECKSUM_SHA256, (const guchar *)data, len);
		else
			sum = g_strdup("unknown");
		g_once_init_leave(&once, 1);
	}
	return sum;
}

static void stmt_cleanup(sqlite3_stmt **s)
{
	if (*s)
		sqlite3_finalize(*s);
}
#define g_auto_stmt __attribute__((cleanup(stmt_cleanup))) sqlite3_stmt *

static bool fail(struct store *st, GError **error, const char *what)
{
	g_set_error(error, STORE_ERROR, sqlite3_errcode(st->db), "%s: %s: %s",
		    st->path, what, sqlite3_errmsg(st->db));
	return false;
}

static bool exec(struct store *st, const char *sql, GError **error)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		g_set_error(error, STORE_ERROR, 1, "%s: %s", st->path,
			    msg ? msg : "error");
		sqlite3_free(msg);
		return false;
	}
	return true;
}

/*
 * How long a writer waits for the database while another process writes
 * it (or switches its journal, or creates its tables), and how often it
 * says so.  SQLite's busy handler is not called for every lock (a change
 * of journal mode, an upgrade of a read lock), so the wait is here.
 */
#define STORE_WAIT_US	(600 * G_USEC_PER_SEC)
#define STORE_NOTICE_US (10 * G_USEC_PER_SEC)

/* The wait, or QSIM_DB_WAIT seconds when set (docs/cli.md). */
static gint64 wait_limit_us(void)
{
	const char *e = g_getenv("QSIM_DB_WAIT");
	uint64_t s;

	if (e && cfg_parse_u64(e, &s) && s <= 86400)
		return (gint64)s * G_USEC_PER_SEC;
	return STORE_WAIT_US;
}

/* @sql, waiting while the database is busy; false with @error if it
 * fails otherwise or stays busy for STORE_WAIT_US. */
static bool exec_wait(struct store *st, const char *sql, GError **error)
{
	gint64 start = g_get_monotonic_time(), said = start;

	for (;;) {
		char *msg = NULL;
		int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);
		gint64 now = g_get_monotonic_time();

		if (rc == SQLITE_OK)
			return true;
		if ((rc & 0xff) != SQLITE_BUSY &&
		    (rc & 0xff) != SQLITE_LOCKED) {
			g_set_error(error, STORE_ERROR, rc, "%s: %s", st->path,
				    msg ? msg : sqlite3_errstr(rc));
			sqlite3_free(msg);
			return false;
		}
		sqlite3_free(msg);
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		if (now - start >= wait_limit_us()) {
			g_set_error(error, STORE_ERROR, rc,
				    "%s: still locked by another process after "
				    "%d s",
				    st->path, (int)(wait_limit_us() / 1000000));
			return false;
		}
		if (now - said >= STORE_NOTICE_US) {
			fprintf(stderr,
				"qsim: %s is locked by another process; "
				"waiting (%d s so far)\n",
				st->path, (int)((now - start) / 1000000));
			said = now;
		}
		g_usleep(2000 + (gulong)(now % 8000)); /* spread the retries */
	}
}

#define COL_SQL_I "INTEGER"
#define COL_SQL_R "REAL"

#define VCPU_COUNTERS_DDL                                                    \
	"CREATE TABLE vcpu_counters (\n"                                     \
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n" \
	"  vcpu INTEGER NOT NULL,\n"                                         \
	"  name TEXT NOT NULL,\n"                                            \
	"  value INTEGER NOT NULL,\n"                                        \
	"  PRIMARY KEY (run_id, vcpu, name)\n);\n"

#define PARTITION_RESULTS_DDL                                                \
	"CREATE TABLE partition_results (\n"                                 \
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n" \
	"  partition INTEGER NOT NULL,\n"                                    \
	"  vcpus INTEGER NOT NULL,\n"                                        \
	"  entitlement REAL NOT NULL,\n"                                     \
	"  capped INTEGER NOT NULL,\n"                                       \
	"  weight INTEGER NOT NULL,\n"                                       \
	"  physc REAL NOT NULL,\n"                                           \
	"  entc_pct REAL NOT NULL,\n"                                        \
	"  PRIMARY KEY (run_id, partition)\n);\n"

/* Schema 7: each partition's lock acquisitions (noise.locktest). */
#define PARTITION_ACQ_DDL \
	"ALTER TABLE partition_results ADD COLUMN acquisitions INTEGER;\n"

#define DTL_RECORDS_DDL                                                      \
	"CREATE TABLE dtl_records (\n"                                       \
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n" \
	"  seq INTEGER NOT NULL,\n"                                          \
	"  vcpu INTEGER NOT NULL,\n"                                         \
	"  reason TEXT NOT NULL,\n"                                          \
	"  undispatched_ps INTEGER NOT NULL,\n"                              \
	"  ready_ps INTEGER NOT NULL,\n"                                     \
	"  enqueued_ps INTEGER NOT NULL,\n"                                  \
	"  dispatched_ps INTEGER NOT NULL,\n"                                \
	"  PRIMARY KEY (run_id, seq)\n);\n"

/* Schema 11: the kernel tree a kernel_* lock was built from. */
#define KERNEL_TREE_DDL                                                      \
	"CREATE TABLE kernel_tree (\n"                                       \
	"  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE "        \
	"CASCADE,\n"                                                         \
	"  path TEXT NOT NULL,\n"                                            \
	"  version TEXT NOT NULL,\n"                                         \
	"  describe TEXT NOT NULL\n);\n"                                     \
	"CREATE TABLE kernel_files (\n"                                      \
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n" \
	"  path TEXT NOT NULL,\n"                                            \
	"  sha256 TEXT NOT NULL,\n"                                          \
	"  PRIMARY KEY (run_id, path)\n);\n"

/*
 * Schema 12: every resolved key as a row, a run's identity (the SHA-256
 * of its resolved parameters and of the binary that ran it: a point a
 * sweep or compare already has) and a tag.  (Its views over seeds are
 * schema 17's: a file migrated from 12 to 16 has the old ones, which step
 * 16 -> 17 replaces.)
 */
#define PARAMS_DDL                                                            \
	"ALTER TABLE runs ADD COLUMN tag TEXT;\n"                             \
	"ALTER TABLE runs ADD COLUMN params_sha256 TEXT;\n"                   \
	"ALTER TABLE runs ADD COLUMN binary_sha256 TEXT;\n"                   \
	"CREATE INDEX runs_identity ON runs(params_sha256, binary_sha256);\n" \
	"CREATE INDEX runs_tag ON runs(tag);\n"                               \
	"CREATE TABLE params (\n"                                             \
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"  \
	"  section TEXT NOT NULL,\n"                                          \
	"  key TEXT NOT NULL,\n"                                              \
	"  value TEXT NOT NULL,\n"                                            \
	"  PRIMARY KEY (run_id, section, key)\n);\n"                          \
	"CREATE INDEX params_value ON params(section, key, value);\n"

/* Schema 15: every tag of a run, its own (runs.tag) and those of the
 * sweeps and compares that reused it. */
#define RUN_TAGS_DDL                                       \
	"CREATE TABLE run_tags (\n"                        \
	"  run_id INTEGER NOT NULL REFERENCES runs(id),\n" \
	"  tag TEXT NOT NULL,\n"                           \
	"  PRIMARY KEY (run_id, tag)\n"                    \
	") WITHOUT ROWID;\n"

/* Schema 13: the memory model a torture ran under (NULL: sc); and
 * lock_results.nested (a column of QSIM_LOCK_COLS, added by the step). */
#define TORTURE_MEMORY_DDL "ALTER TABLE torture_runs ADD COLUMN memory TEXT;\n"

/* Schema 16: the kernel files a run's or a torture's kernel_* lock was
 * built from, as one SHA-256 (config.h, cfg_ktree_files_sha256), and the
 * tree a torture ran (NULL for qsim's own locks). */
#define KTREE_DIGEST_DDL                                                  \
	"ALTER TABLE kernel_tree ADD COLUMN files_sha256 TEXT;\n"         \
	"ALTER TABLE torture_runs ADD COLUMN kernel_tree TEXT;\n"         \
	"ALTER TABLE torture_runs ADD COLUMN kernel_version TEXT;\n"      \
	"ALTER TABLE torture_runs ADD COLUMN kernel_describe TEXT;\n"     \
	"ALTER TABLE torture_runs ADD COLUMN kernel_files_sha256 TEXT;\n" \
	"ALTER TABLE torture_runs ADD COLUMN seeds_asked INTEGER;\n"

/*
 * Schema 17: the runs with each result once (copies of one result, the
 * same parameters and binary, imported twice or run again with
 * --no-reuse, count as the oldest, as in qsim compare and plot sweep:
 * the simulator is deterministic, a copy is no new sample), and the
 * views over seeds on it.
 */
#define DISTINCT_VIEWS_DDL                                                  \
	"DROP VIEW IF EXISTS lock_worst_p99;\n"                             \
	"DROP VIEW IF EXISTS lhp_by_overcommit;\n"                          \
	"DROP VIEW IF EXISTS throughput_by_overcommit;\n"                   \
	"CREATE VIEW distinct_runs AS\n"                                    \
	"  SELECT * FROM runs WHERE id IN (SELECT MIN(id) FROM runs\n"      \
	"    GROUP BY COALESCE(params_sha256, id),\n"                       \
	"             COALESCE(binary_sha256, id));\n"                      \
	"CREATE VIEW lock_worst_p99 AS\n"                                   \
	"  SELECT r.lock, MAX(l.lat_p99_ns) AS worst_p99_ns,\n"             \
	"         COUNT(*) AS runs\n"                                       \
	"  FROM distinct_runs r JOIN lock_results l ON l.run_id = r.id\n"   \
	"  WHERE r.status = 'ok' GROUP BY r.lock;\n"                        \
	"CREATE VIEW lhp_by_overcommit AS\n"                                \
	"  SELECT r.lock, ROUND(r.overcommit, 3) AS overcommit,\n"          \
	"         COUNT(DISTINCT r.id) AS runs,\n"                          \
	"         SUM(l.lhp_events) AS lhp_events,\n"                       \
	"         SUM(l.lhp_total_ns) AS lhp_total_ns,\n"                   \
	"         SUM(l.lwp_events) AS lwp_events\n"                        \
	"  FROM distinct_runs r JOIN lock_results l ON l.run_id = r.id\n"   \
	"  WHERE r.status = 'ok' GROUP BY 1, 2;\n"                          \
	"CREATE VIEW throughput_by_overcommit AS\n"                         \
	"  SELECT r.lock, p.value AS pv_mapping,\n"                         \
	"         ROUND(r.overcommit, 3) AS overcommit,\n"                  \
	"         COUNT(*) AS runs, AVG(s.throughput) AS throughput\n"      \
	"  FROM distinct_runs r\n"                                          \
	"  JOIN (SELECT run_id, SUM(throughput) AS throughput\n"            \
	"        FROM lock_results GROUP BY run_id) s ON s.run_id = r.id\n" \
	"  LEFT JOIN params p ON p.run_id = r.id AND p.section = 'lock'\n"  \
	"       AND p.key = 'pv_mapping'\n"                                 \
	"  WHERE r.status = 'ok' GROUP BY 1, 2, 3;\n"

/* Schema 12 too: each `qsim torture` and its failing seeds. */
#define TORTURE_DDL                                                     \
	"CREATE TABLE torture_runs (\n"                                 \
	"  id INTEGER PRIMARY KEY,\n"                                   \
	"  started_at TEXT NOT NULL,\n"                                 \
	"  qsim_version TEXT NOT NULL,\n"                               \
	"  binary_sha256 TEXT NOT NULL,\n"                              \
	"  tag TEXT,\n"                                                 \
	"  lock TEXT NOT NULL,\n"                                       \
	"  mapping TEXT,\n"                                             \
	"  mutant TEXT,\n"                                              \
	"  first_seed INTEGER NOT NULL,\n"                              \
	"  seeds_run INTEGER NOT NULL,\n"                               \
	"  failures INTEGER NOT NULL,\n"                                \
	"  host_seconds REAL NOT NULL,\n"                               \
	"  simulated_ps INTEGER NOT NULL,\n"                            \
	"  events INTEGER NOT NULL,\n"                                  \
	"  interrupted INTEGER NOT NULL\n);\n"                          \
	"CREATE TABLE torture_failures (\n"                             \
	"  torture_id INTEGER NOT NULL REFERENCES torture_runs(id) ON " \
	"DELETE CASCADE,\n"                                             \
	"  seed INTEGER NOT NULL,\n"                                    \
	"  violation TEXT NOT NULL,\n"                                  \
	"  replay TEXT NOT NULL,\n"                                     \
	"  scenario_text TEXT NOT NULL,\n"                              \
	"  PRIMARY KEY (torture_id, seed)\n);\n"

/* Today's tables (the result columns come from model.h's lists). */
static char *schema_current(void)
{
	GString *s = g_string_new(
		"CREATE TABLE runs (\n"
		"  id INTEGER PRIMARY KEY,\n"
		"  started_at TEXT NOT NULL,\n"
		"  qsim_version TEXT NOT NULL,\n"
		"  build_flags TEXT NOT NULL,\n"
		"  scenario_path TEXT NOT NULL,\n"
		"  scenario_text TEXT NOT NULL,\n"
		"  params TEXT NOT NULL,\n"
		"  seed INTEGER NOT NULL,\n"
		"  lock TEXT NOT NULL,\n"
		"  policy TEXT NOT NULL,\n"
		"  vcpus INTEGER NOT NULL,\n"
		"  pcpus INTEGER NOT NULL,\n"
		"  overcommit REAL NOT NULL,\n"
		"  duration_ps INTEGER NOT NULL,\n"
		"  warmup_ps INTEGER NOT NULL,\n"
		"  measured_ps INTEGER NOT NULL,\n"
		"  status TEXT NOT NULL,\n"
		"  violation TEXT,\n"
		"  violation_ps INTEGER,\n"
		"  report TEXT,\n"
		"  replay TEXT NOT NULL,\n"
		"  host_seconds REAL NOT NULL,\n"
		"  events INTEGER NOT NULL,\n"
		"  switches INTEGER NOT NULL,\n"
		"  util_run REAL, util_spin REAL, util_hcall REAL,\n"
		"  util_dispatch REAL, util_idle REAL,\n"
		"  acq_min INTEGER, acq_mean REAL, acq_max INTEGER, jain REAL\n"
		");\n"
		"CREATE TABLE lock_results (\n"
		"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE "
		"CASCADE,\n"
		"  lock INTEGER NOT NULL");
#define X(name, kind, help) \
	g_string_append(s, ",\n  " #name " " COL_SQL_##kind);
	QSIM_LOCK_COLS(X)
#undef X
	g_string_append(s, ",\n  PRIMARY KEY (run_id, lock)\n);\n"
			   "CREATE TABLE vcpu_results (\n"
			   "  run_id INTEGER NOT NULL REFERENCES runs(id) ON "
			   "DELETE CASCADE,\n"
			   "  vcpu INTEGER NOT NULL");
#define X(name, kind, help) \
	g_string_append(s, ",\n  " #name " " COL_SQL_##kind);
	QSIM_VCPU_COLS(X)
#undef X
#define X(name, doc) g_string_append(s, ",\n  hv_" #name " INTEGER");
	HV_VCPU_STATS(X)
#undef X
	g_string_append(
		s,
		",\n  PRIMARY KEY (run_id, vcpu)\n);\n"
		"CREATE TABLE counters (\n"
		"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE "
		"CASCADE,\n"
		"  name TEXT NOT NULL,\n"
		"  value INTEGER NOT NULL,\n"
		"  PRIMARY KEY (run_id, name)\n);\n"
		"CREATE TABLE histograms (\n"
		"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE "
		"CASCADE,\n"
		"  lock INTEGER NOT NULL,\n"
		"  metric TEXT NOT NULL,\n"
		"  lo_ps INTEGER NOT NULL,\n"
		"  hi_ps INTEGER NOT NULL,\n"
		"  count INTEGER NOT NULL\n);\n"
		"CREATE INDEX histograms_run ON histograms(run_id, lock, "
		"metric);\n"
		"CREATE VIEW run_summary AS\n"
		"  SELECT r.id, r.started_at, r.scenario_path, r.seed, "
		"r.lock,\n"
		"         r.policy, r.vcpus, r.pcpus, r.overcommit, r.status,\n"
		"         SUM(l.acquisitions) AS acquisitions,\n"
		"         SUM(l.throughput) AS throughput,\n"
		"         MAX(l.lat_p99_ns) AS lat_p99_ns,\n"
		"         SUM(l.lhp_events) AS lhp_events,\n"
		"         SUM(l.lhp_total_ns) AS lhp_total_ns,\n"
		"         SUM(l.lwp_events) AS lwp_events,\n"
		"         r.jain, r.host_seconds\n"
		"  FROM runs r LEFT JOIN lock_results l ON l.run_id = r.id\n"
		"  GROUP BY r.id;\n");
	return g_string_free(s, FALSE);
}

/* One integer a query returns, or -1 with @error. */
static int64_t query_int(struct store *st, const char *sql, GError **error)
{
	g_auto_stmt q = NULL;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW) {
		fail(st, error, sql);
		return -1;
	}
	return sqlite3_column_int64(q, 0);
}

/*
 * Inside the caller's write transaction: is this a qsim database?  Its
 * application_id says so; a file from before qsim set it has qsim's
 * schema version and a runs table, and gets the id now.  An empty file
 * is new.  Anything else is someone else's database, left alone.
 */
static bool check_owner(struct store *st, int version, GError **error)
{
	int64_t app = query_int(st, "PRAGMA application_id", error);
	int64_t tables, runs;

	if (app < 0)
		return false;
	if (app == STORE_APPLICATION_ID)
		return true;
	tables = query_int(st, "SELECT COUNT(*) FROM sqlite_master", error);
	runs = query_int(st,
			 "SELECT COUNT(*) FROM sqlite_master WHERE "
			 "type = 'table' AND name = 'runs'",
			 error);
	if (tables < 0 || runs < 0)
		return false;
	if (app == 0 && (tables == 0 || (version > 0 && runs == 1))) {
		g_autofree char *sql = g_strdup_printf(
			"PRAGMA application_id = %d", STORE_APPLICATION_ID);

		return exec(st, sql, error);
	}
	g_set_error(error, STORE_ERROR, 1,
		    "%s: not a qsim results database (application_id %#" PRIx64
		    ", %" PRId64 " tables of its own): use another --db",
		    st->path, (uint64_t)app, tables);
	return false;
}

/* One row per resolved key of run @run, from its INI text @resolved. */
static bool insert_params(struct store *st, int64_t run, const char *resolved,
			  GError **error)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_auto(GStrv) groups = NULL;
	g_auto_stmt s = NULL;

	if (!g_key_file_load_from_data(kf, resolved, (gsize)-1, G_KEY_FILE_NONE,
				       NULL))
		return true; /* not INI: nothing to split (never written so) */
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO params (run_id, section, key, "
			       "value) VALUES (?,?,?,?)",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the params insert");
	groups = g_key_file_get_groups(kf, NULL);
	for (char **g = groups; *g; g++) {
		g_auto(GStrv) keys = g_key_file_get_keys(kf, *g, NULL, NULL);

		for (char **k = keys; k && *k; k++) {
			g_autofree char *v =
				g_key_file_get_value(kf, *g, *k, NULL);

			sqlite3_reset(s);
			sqlite3_bind_int64(s, 1, (sqlite3_int64)run);
			sqlite3_bind_text(s, 2, *g, -1, SQLITE_STATIC);
			sqlite3_bind_text(s, 3, *k, -1, SQLITE_STATIC);
			sqlite3_bind_text(s, 4, v ? v : "", -1,
					  SQLITE_TRANSIENT);
			if (sqlite3_step(s) != SQLITE_DONE)
				return fail(st, error, "inserting params");
		}
	}
	return true;
}

char *store_params_sha256(const char *resolved)
{
	return g_compute_checksum_for_string(G_CHECKSUM_SHA256, resolved, -1);
}

/*
 * Migration to schema 12, inside its transaction: the runs stored before
 * get their params rows and their params hash from their resolved text
 * (the binary that ran them is not known: binary_sha256 stays NULL).
 */
static bool backfill_params(struct store *st, GError **error)
{
	g_auto_stmt q = NULL;
	g_auto_stmt u = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT id, params FROM runs", -1, &q,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
			       "UPDATE runs SET params_sha256 = ? WHERE id = ?",
			       -1, &u, NULL) != SQLITE_OK)
		return fail(st, error, "migrating to schema 12");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		const char *text = (const char *)sqlite3_column_text(q, 1);
		g_autofree char *sum = store_params_sha256(text ? text : "");

		if (!insert_params(st, id, text ? text : "", error))
			return false;
		sqlite3_reset(u);
		sqlite3_bind_text(u, 1, sum, -1, SQLITE_STATIC);
		sqlite3_bind_int64(u, 2, (sqlite3_int64)id);
		if (sqlite3_step(u) != SQLITE_DONE)
			return fail(st, error, "migrating to schema 12");
	}
	if (rc != SQLITE_DONE)
		return fail(st, error, "migrating to schema 12");
	return true;
}

/*
 * Migration to schema 16, inside its transaction: the kernel-tree runs
 * stored before get their files' digest from their kernel_files rows.
 */
static bool backfill_ktree_digest(struct store *st, GError **error)
{
	g_auto_stmt q = NULL;
	g_auto_stmt f = NULL;
	g_auto_stmt u = NULL;

	if (sqlite3_prepare_v2(st->db, "SELECT run_id FROM kernel_tree", -1, &q,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
			       "SELECT path, sha256 FROM kernel_files WHERE "
			       "run_id = ?",
			       -1, &f, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
			       "UPDATE kernel_tree SET files_sha256 = ? WHERE "
			       "run_id = ?",
			       -1, &u, NULL) != SQLITE_OK)
		return fail(st, error, "migrating to schema 16");
	for (;;) {
		int rc = sqlite3_step(q);
		int64_t id;
		g_autoptr(GPtrArray) lines =
			g_ptr_array_new_with_free_func(g_free);
		g_autofree char *sum = NULL;

		if (rc == SQLITE_DONE)
			break;
		if (rc != SQLITE_ROW)
			return fail(st, error, "migrating to schema 16");
		id = sqlite3_column_int64(q, 0);
		sqlite3_reset(f);
		sqlite3_bind_int64(f, 1, (sqlite3_int64)id);
		while ((rc = sqlite3_step(f)) == SQLITE_ROW)
			cfg_ktree_digest_add(
				lines, (const char *)sqlite3_column_text(f, 0),
				(const char *)sqlite3_column_text(f, 1));
		if (rc != SQLITE_DONE)
			return fail(st, error, "migrating to schema 16");
		/* no file rows: no digest to give (NULL) */
		sum = lines->len ? cfg_ktree_digest(lines) : NULL;
		sqlite3_reset(u);
		if (sum)
			sqlite3_bind_text(u, 1, sum, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(u, 1);
		sqlite3_bind_int64(u, 2, (sqlite3_int64)id);
		if (sqlite3_step(u) != SQLITE_DONE)
			return fail(st, error, "migrating to schema 16");
	}
	return true;
}

/*
 * Today's result columns a migrated file lacks, added (NULL in its old
 * rows).  The steps below are what each version added as it was
 * released; some columns reached the lists within a version (schema 2's
 * KVM counters, the adversary's spurious returns) and were in no step,
 * so a file made before them failed every insert.  This pass makes any
 * older file take today's rows, whatever its history.
 */
/* Has @table a column @name?  -1 with @error if the query fails. */
static int has_column(struct store *st, const char *table, const char *name,
		      GError **error)
{
	g_autofree char *q = g_strdup_printf(
		"SELECT COUNT(*) FROM pragma_table_info('%s') WHERE name = "
		"'%s'",
		table, name);
	int64_t n = query_int(st, q, error);

	return n < 0 ? -1 : n > 0;
}

static bool add_missing_columns(struct store *st, GError **error)
{
	static const struct {
		const char *table, *name, *type;
	} cols[] = {
#define X(name, kind, help) {"lock_results", #name, COL_SQL_##kind},
		QSIM_LOCK_COLS(X)
#undef X
#define X(name, kind, help) {"vcpu_results", #name, COL_SQL_##kind},
			QSIM_VCPU_COLS(X)
#undef X
#define X(name, doc) {"vcpu_results", "hv_" #name, "INTEGER"},
				HV_VCPU_STATS(X)
#undef X
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cols); i++) {
		int n = has_column(st, cols[i].table, cols[i].name, error);
		g_autofree char *add = NULL;

		if (n < 0)
			return false;
		if (n)
			continue;
		add = g_strdup_printf("ALTER TABLE %s ADD COLUMN %s %s;",
				      cols[i].table, cols[i].name,
				      cols[i].type);
		if (!exec(st, add, error))
			return false;
	}
	return true;
}

/* Inside the caller's write transaction. */
static bool migrate(struct store *st, GError **error)
{
	int version = (int)query_int(st, "PRAGMA user_version", error);

	if (version < 0)
		return false;
	if (!check_owner(st, version, error))
		return false;
	if (version > STORE_SCHEMA_VERSION) {
		g_set_error(error, STORE_ERROR, 1,
			    "%s: schema version %d is newer than this qsim "
			    "understands (%d); use a newer qsim",
			    st->path, version, STORE_SCHEMA_VERSION);
		return false;
	}
	if (version == 0) {
		/* A new file gets today's tables and skips the migrations. */
		g_autofree char *sql = schema_current();
		g_autofree char *all = g_strdup_printf(
			"%s%s%s%s%s%s%s%s%s%s%s%sPRAGMA user_version = %d;\n",
			sql, VCPU_COUNTERS_DDL, PARTITION_RESULTS_DDL,
			PARTITION_ACQ_DDL, DTL_RECORDS_DDL, KERNEL_TREE_DDL,
			PARAMS_DDL, TORTURE_DDL, TORTURE_MEMORY_DDL,
			RUN_TAGS_DDL, KTREE_DIGEST_DDL, DISTINCT_VIEWS_DDL,
			STORE_SCHEMA_VERSION);

		return exec(st, all, error);
	}
	/*
	 * Step N takes a version-N file to N + 1, all in one transaction;
	 * the columns each adds are frozen here, whatever the lists in
	 * model.h and hv.h say today.  Later versions add a step at the end.
	 */
	static const char *const steps[] = {
		/* 1 -> 2: per-vCPU lock-event counters. */
		[1] = VCPU_COUNTERS_DDL,
		/* 2 -> 3: reader/writer sides. */
		[2] = "ALTER TABLE lock_results ADD COLUMN read_acquisitions "
		      "INTEGER;\n"
		      "ALTER TABLE lock_results ADD COLUMN write_acquisitions "
		      "INTEGER;\n"
		      "ALTER TABLE lock_results ADD COLUMN read_lat_mean_ns "
		      "REAL;\n"
		      "ALTER TABLE lock_results ADD COLUMN read_lat_p99_ns "
		      "REAL;\n"
		      "ALTER TABLE lock_results ADD COLUMN write_lat_mean_ns "
		      "REAL;\n"
		      "ALTER TABLE lock_results ADD COLUMN write_lat_p99_ns "
		      "REAL;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN read_acquisitions "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN write_acquisitions "
		      "INTEGER;\n",
		/* 3 -> 4: partitions and their lparstat figures. */
		[3] = PARTITION_RESULTS_DDL,
		/* 4 -> 5: dispatch trace log sums, steal and CPU time per
		 * vCPU, and the DTL records. */
		[4] = "ALTER TABLE vcpu_results ADD COLUMN hv_dtl_preempt "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN hv_dtl_cede "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN hv_dtl_confer "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN "
		      "hv_dtl_wait_ready_ps "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN "
		      "hv_dtl_ready_enqueue_ps INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN "
		      "hv_dtl_enqueue_dispatch_ps INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN hv_steal_ps "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN hv_cpu_time_ps "
		      "INTEGER;\n" DTL_RECORDS_DDL,
		/* 5 -> 6: pause-loop exit counts. */
		[5] = "ALTER TABLE vcpu_results ADD COLUMN hv_ple_exits "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN hv_ple_yields "
		      "INTEGER;\n",
		/* 6 -> 7: partitions' lock acquisitions. */
		[6] = PARTITION_ACQ_DDL,
		/* 7 -> 8: locktorture's long holds, KVM halt polling. */
		[7] = "ALTER TABLE lock_results ADD COLUMN long_holds "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN hv_halt_polls_ok "
		      "INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN "
		      "hv_halt_polls_missed "
		      "INTEGER;\n",
		/* 8 -> 9: cedes and halts ended by a tick or interrupt. */
		[8] = "ALTER TABLE vcpu_results ADD COLUMN hv_irq_wakes "
		      "INTEGER;\n",
		/* 9 -> 10: units of work (the workload's figure). */
		[9] = "ALTER TABLE vcpu_results ADD COLUMN units INTEGER;\n"
		      "ALTER TABLE vcpu_results ADD COLUMN hv_kick_yields "
		      "INTEGER;\n",
		/* 10 -> 11: kernel-tree identity. */
		[10] = KERNEL_TREE_DDL,
		/* 11 -> 12: params, identity, tag, views (rows: below);
		 * torture runs. */
		[11] = PARAMS_DDL TORTURE_DDL,
		/* 12 -> 13: the memory model of a torture run. */
		[12] = TORTURE_MEMORY_DDL
		"ALTER TABLE lock_results ADD COLUMN nested INTEGER;\n",
		/* 13 -> 14: lock_results.units goes (below: only files made
		 * new at 10 to 13 have it). */
		[13] = "",
		/* 14 -> 15: a run's tags, its own to start with. */
		[14] = RUN_TAGS_DDL
		"INSERT INTO run_tags (run_id, tag) SELECT id, tag FROM runs "
		"WHERE tag IS NOT NULL;\n"
		"ALTER TABLE lock_results ADD COLUMN unfinished_waits "
		"INTEGER;\n",
		/* 15 -> 16: kernel files' digest; a torture's tree. */
		[15] = KTREE_DIGEST_DDL,
		/* 16 -> 17: each result once in the views over seeds. */
		[16] = DISTINCT_VIEWS_DDL,
	};
	_Static_assert(G_N_ELEMENTS(steps) == STORE_SCHEMA_VERSION,
		       "one migration step per schema version");

	for (int v = version; v < STORE_SCHEMA_VERSION; v++) {
		g_autofree char *sql = g_strdup_printf(
			"%sPRAGMA user_version = %d;\n", steps[v], v + 1);

		if (!exec(st, sql, error))
			return false;
	}
	/*
	 * Files made new at 10 to 13 had a lock_results.units column (a
	 * lock has no units of work; it was always 0) that step 9 did not
	 * add, so such files and migrated ones differed and could not be
	 * merged: 14 has it nowhere.
	 */
	if (version < 14) {
		int units = has_column(st, "lock_results", "units", error);

		if (units < 0 || (units && !exec(st,
						 "ALTER TABLE lock_results "
						 "DROP COLUMN units;",
						 error)))
			return false;
	}
	if (!add_missing_columns(st, error))
		return false;
	if (version < 16 && !backfill_ktree_digest(st, error))
		return false;
	return version >= 12 || backfill_params(st, error);
}

/* WAL, unless the file is in it already (switching needs the file to
 * ourselves: wait for it). */
static bool use_wal(struct store *st, GError **error)
{
	sqlite3_stmt *q = NULL;
	bool wal = false;

	if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode", -1, &q, NULL) ==
		    SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		wal = !g_ascii_strcasecmp(
			(const char *)sqlite3_column_text(q, 0), "wal");
	sqlite3_finalize(q); /* no statement may stay open for the switch */
	if (wal)
		return true;
	return exec_wait(st, "PRAGMA journal_mode=WAL", error);
}

struct store *store_open(const char *path, GError **error)
{
	struct store *st = g_new0(struct store, 1);

	st->path = g_strdup(path);
	if (sqlite3_open_v2(path, &st->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		fail(st, error, "cannot open the results database");
		store_close(st);
		return NULL;
	}
	sqlite3_busy_timeout(st->db, 1000);
	if (sqlite3_db_readonly(st->db, "main") == 1) {
		g_set_error(error, STORE_ERROR, 1,
			    "%s: the results database is read-only (use "
			    "another --db, or --no-store)",
			    path);
		store_close(st);
		return NULL;
	}
	/* The write transaction also proves, before any run, that the file
	 * (and its directory, for the WAL files) can be written. */
	if (!exec(st, "PRAGMA foreign_keys=ON", error) || !use_wal(st, error) ||
	    !exec_wait(st, "BEGIN IMMEDIATE", error)) {
		store_close(st);
		return NULL;
	}
	if (!migrate(st, error) || !exec(st, "COMMIT", error)) {
		exec(st, "ROLLBACK", NULL);
		store_close(st);
		return NULL;
	}
	return st;
}

/* Open @path read-only (@immutable: as a file nobody changes) and read
 * its owner mark and whether it has a runs table. */
static int open_read(const char *path, bool immutable, sqlite3 **db,
		     int64_t *app, int64_t *runs, int64_t *version)
{
	g_autofree char *esc = g_uri_escape_string(path, "/", FALSE);
	g_autofree char *uri = g_strdup_printf("file:%s%s", esc,
					       immutable ? "?immutable=1" : "");
	sqlite3_stmt *q = NULL;
	int rc = sqlite3_open_v2(uri, db,
				 SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(*db,
					"SELECT (SELECT application_id FROM "
					"pragma_application_id), (SELECT "
					"COUNT(*) FROM sqlite_master WHERE "
					"type = 'table' AND name = 'runs'), "
					"(SELECT user_version FROM "
					"pragma_user_version)",
					-1, &q, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(q);
		if (rc == SQLITE_ROW) {
			*app = sqlite3_column_int64(q, 0);
			*runs = sqlite3_column_int64(q, 1);
			*version = sqlite3_column_int64(q, 2);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(q);
	return rc;
}

sqlite3 *store_read_db(const char *path, GError **error)
{
	sqlite3 *db = NULL;
	int64_t app = 0, runs = 0, version = 0;
	g_autofree char *dir = g_path_get_dirname(path);
	bool writable = access(path, W_OK) == 0 && access(dir, W_OK) == 0;
	int rc;

	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_set_error(error, STORE_ERROR, 1, "%s: no such database",
			    path);
		return NULL;
	}
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, STORE_ERROR, 1,
			    "%s: not a database (not a regular file)", path);
		return NULL;
	}
	rc = open_read(path, false, &db, &app, &runs, &version);
	if ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN) {
		/* WAL in a folder we may not write: no index file.  Read as
		 * immutable, unless committed changes wait in the WAL file
		 * (immutable would not see them). */
		g_autofree char *wal = g_strconcat(path, "-wal", NULL);
		GStatBuf sb;

		sqlite3_close(db);
		db = NULL;
		if (g_stat(wal, &sb) == 0 && sb.st_size > 0) {
			g_set_error(error, STORE_ERROR, 1,
				    "%s: cannot read it here: changes wait in "
				    "%s and this folder may not be written; "
				    "open it once where it may (or copy both "
				    "files somewhere writable)",
				    path, wal);
			return NULL;
		}
		rc = open_read(path, true, &db, &app, &runs, &version);
	}
	if (rc != SQLITE_OK) {
		g_set_error(error, STORE_ERROR, 1,
			    "%s: cannot read the results database: %s", path,
			    db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return NULL;
	}
	if (!runs || (app != STORE_APPLICATION_ID && app != 0)) {
		g_set_error(error, STORE_ERROR, 1,
			    "%s: not a qsim results database: use another --db",
			    path);
		sqlite3_close(db);
		return NULL;
	}
	if (version < STORE_SCHEMA_VERSION && writable) {
		/* made by an older qsim: migrate it, then read */
		struct store *st;

		sqlite3_close(db);
		st = store_open(path, error);
		if (!st)
			return NULL;
		store_close(st);
		return store_read_db(path, error);
	}
	if (version < 12 || version > STORE_SCHEMA_VERSION) {
		g_set_error(error, STORE_ERROR, 1,
			    "%s: schema version %" PRId64 ", this qsim reads "
			    "%d%s",
			    path, version, STORE_SCHEMA_VERSION,
			    version > STORE_SCHEMA_VERSION
				    ? ": use a newer qsim"
				    : " (a file it may not write is not "
				      "migrated: copy it somewhere writable)");
		sqlite3_close(db);
		return NULL;
	}
	/* 12 to 14, read-only: their tags as schema 15 has them */
	if (version < 15 &&
	    sqlite3_exec(db,
			 "CREATE TEMP VIEW run_tags AS SELECT id AS run_id, "
			 "tag FROM runs WHERE tag IS NOT NULL",
			 NULL, NULL, NULL) != SQLITE_OK) {
		g_set_error(error, STORE_ERROR, 1, "%s: %s", path,
			    sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

struct store *store_open_read(const char *path, GError **error)
{
	sqlite3 *db = store_read_db(path, error);
	struct store *st;

	if (!db)
		return NULL;
	st = g_new0(struct store, 1);
	st->db = db;
	st->path = g_strdup(path);
	return st;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	g_free(st->path);
	g_free(st);
}

bool store_step_done(sqlite3 *db, const char *path, int rc, GError **error)
{
	if (rc == SQLITE_DONE)
		return true;
	g_set_error(error, STORE_ERROR, rc, "%s: %s", path, sqlite3_errmsg(db));
	return false;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static bool tag_run(struct store *st, int64_t run_id, const char *tag,
		    bool wait, GError **error);

static bool insert_run(struct store *st, const struct qsim_config *cfg,
		       const struct qsim_results *res, GError **error)
{
	static const char sql[] =
		"INSERT INTO runs (started_at, qsim_version, build_flags, "
		"scenario_path, scenario_text, params, seed, lock, policy, "
		"vcpus, pcpus, overcommit, duration_ps, warmup_ps, "
		"measured_ps, status, violation, violation_ps, report, replay, "
		"host_seconds, events, switches, util_run, util_spin, "
		"util_hcall, util_dispatch, util_idle, acq_min, acq_mean, "
		"acq_max, jain, tag, params_sha256, binary_sha256) VALUES "
		"(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		"?,?,?,?,?)";
	g_auto_stmt s = NULL;
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *when = g_date_time_format_iso8601(now);
	g_autofree char *sum = store_params_sha256(cfg->resolved);
	int i = 1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the run insert");
	bind_text(s, i++, when);
	bind_text(s, i++, store_version());
	bind_text(s, i++, store_build_flags());
	bind_text(s, i++, cfg->path);
	bind_text(s, i++, cfg->text);
	bind_text(s, i++, cfg->resolved);
	sqlite3_bind_int64(s, i++, (sqlite3_int64)cfg->seed);
	bind_text(s, i++, cfg->lock);
	bind_text(s, i++, cfg->policy);
	sqlite3_bind_int(s, i++, (int)cfg->vcpus);
	sqlite3_bind_int(s, i++, (int)cfg->pcpus);
	sqlite3_bind_double(s, i++, cfg_overcommit(cfg));
	sqlite3_bind_int64(s, i++, (sqlite3_int64)cfg->duration_ps);
	sqlite3_bind_int64(s, i++, (sqlite3_int64)cfg->warmup_ps);
	sqlite3_bind_int64(s, i++, (sqlite3_int64)res->measured_ps);
	bind_text(s, i++, qsim_status_text(res->status));
	bind_text(s, i++, qsim_violation_kind(res->status));
	if (res->status == WL_OK)
		sqlite3_bind_null(s, i++);
	else
		sqlite3_bind_int64(s, i++, (sqlite3_int64)res->violation_ps);
	bind_text(s, i++, res->report);
	bind_text(s, i++, res->replay);
	sqlite3_bind_double(s, i++, res->host_seconds);
	sqlite3_bind_int64(s, i++, (sqlite3_int64)res->events);
	sqlite3_bind_int64(s, i++, (sqlite3_int64)res->switches);
	sqlite3_bind_double(s, i++, res->util_run);
	sqlite3_bind_double(s, i++, res->util_spin);
	sqlite3_bind_double(s, i++, res->util_hcall);
	sqlite3_bind_double(s, i++, res->util_dispatch);
	sqlite3_bind_double(s, i++, res->util_idle);
	sqlite3_bind_int64(s, i++, res->acq_min);
	sqlite3_bind_double(s, i++, res->acq_mean);
	sqlite3_bind_int64(s, i++, res->acq_max);
	sqlite3_bind_double(s, i++, res->jain);
	bind_text(s, i++, st->tag);
	bind_text(s, i++, sum);
	bind_text(s, i++, store_binary_sha256());
	if (sqlite3_step(s) != SQLITE_DONE)
		return fail(st, error, "inserting the run");
	return !st->tag || tag_run(st, sqlite3_last_insert_rowid(st->db),
				   st->tag, false, error);
}

/* Inside a write transaction (@wait false) or on its own (@wait: it
 * waits for the file as a transaction of its own would). */
static bool tag_run(struct store *st, int64_t run_id, const char *tag,
		    bool wait, GError **error)
{
	char *sql = sqlite3_mprintf("INSERT OR IGNORE INTO run_tags (run_id, "
				    "tag) VALUES (%lld, %Q)",
				    (long long)run_id, tag);
	bool ok = wait ? exec_wait(st, sql, error) : exec(st, sql, error);

	sqlite3_free(sql);
	return ok;
}

bool store_tag_run(struct store *st, int64_t run_id, const char *tag,
		   GError **error)
{
	return tag_run(st, run_id, tag, true, error);
}

#define BIND_I(s, i, v) sqlite3_bind_int64(s, i, (sqlite3_int64)(v))
#define BIND_R(s, i, v) sqlite3_bind_double(s, i, (v))

static char *insert_sql(const char *table, const char *first,
			const char *const *cols, int ncols)
{
	GString *s = g_string_new(NULL);

	g_string_append_printf(s, "INSERT INTO %s (run_id, %s", table, first);
	for (int i = 0; i < ncols; i++)
		g_string_append_printf(s, ", %s", cols[i]);
	g_string_append(s, ") VALUES (?, ?");
	for (int i = 0; i < ncols; i++)
		g_string_append(s, ", ?");
	g_string_append(s, ")");
	return g_string_free(s, FALSE);
}

static bool insert_locks(struct store *st, int64_t run,
			 const struct qsim_results *res, GError **error)
{
	static const char *const cols[] = {
#define X(name, kind, help) #name,
		QSIM_LOCK_COLS(X)
#undef X
	};
	g_autofree char *sql =
		insert_sql("lock_results", "lock", cols, G_N_ELEMENTS(cols));
	g_auto_stmt s = NULL;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the lock insert");
	for (unsigned int l = 0; l < res->nlocks; l++) {
		const struct qsim_lock_result *r = &res->locks[l];
		int i = 1;

		sqlite3_reset(s);
		sqlite3_bind_int64(s, i++, run);
		sqlite3_bind_int(s, i++, (int)l);
#define X(name, kind, help) BIND_##kind(s, i++, r->name);
		QSIM_LOCK_COLS(X)
#undef X
		if (sqlite3_step(s) != SQLITE_DONE)
			return fail(st, error, "inserting lock results");
	}
	return true;
}

static bool insert_vcpus(struct store *st, int64_t run,
			 const struct qsim_results *res, GError **error)
{
	static const char *const cols[] = {
#define X(name, kind, help) #name,
		QSIM_VCPU_COLS(X)
#undef X
#define X(name, doc) "hv_" #name,
			HV_VCPU_STATS(X)
#undef X
	};
	g_autofree char *sql =
		insert_sql("vcpu_results", "vcpu", cols, G_N_ELEMENTS(cols));
	g_auto_stmt s = NULL;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the vCPU insert");
	for (unsigned int v = 0; v < res->nvcpus; v++) {
		const struct qsim_vcpu_result *r = &res->vcpus[v];
		int i = 1;

		sqlite3_reset(s);
		sqlite3_bind_int64(s, i++, run);
		sqlite3_bind_int(s, i++, (int)v);
#define X(name, kind, help) BIND_##kind(s, i++, r->name);
		QSIM_VCPU_COLS(X)
#undef X
#define X(name, doc) BIND_I(s, i++, r->hv.name);
		HV_VCPU_STATS(X)
#undef X
		if (sqlite3_step(s) != SQLITE_DONE)
			return fail(st, error, "inserting vCPU results");
	}
	return true;
}

static bool insert_counters(struct store *st, int64_t run,
			    const struct qsim_results *res, GError **error)
{
	g_auto_stmt s = NULL;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO counters (run_id, name, value) "
			       "VALUES (?, ?, ?)",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the counter insert");
	for (guint c = 0; res->counters && c < res->counters->len; c++) {
		const struct qsim_counter *k =
			&g_array_index(res->counters, struct qsim_counter, c);

		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, run);
		bind_text(s, 2, k->name);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)k->value);
		if (sqlite3_step(s) != SQLITE_DONE)
			return fail(st, error, "inserting counters");
	}
	return true;
}

/* Per-vCPU lock-event counters; zeros are left out. */
static bool insert_vcpu_counters(struct store *st, int64_t run,
				 const struct qsim_results *res, GError **error)
{
	g_auto_stmt s = NULL;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO vcpu_counters (run_id, vcpu, name, "
			       "value) VALUES (?, ?, ?, ?)",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the vCPU counter insert");
	for (unsigned int v = 0; v < res->nvcpus; v++) {
		for (int e = 0; e < LOCKEVENT_NUM; e++) {
			uint64_t n = res->vcpus[v].lock_events[e];

			if (!n || !lk_event_name(e))
				continue;
			sqlite3_reset(s);
			sqlite3_bind_int64(s, 1, run);
			sqlite3_bind_int(s, 2, (int)v);
			bind_text(s, 3, lk_event_name(e));
			sqlite3_bind_int64(s, 4, (sqlite3_int64)n);
			if (sqlite3_step(s) != SQLITE_DONE)
				return fail(st, error,
					    "inserting vCPU counters");
		}
	}
	return true;
}

static bool insert_partitions(struct store *st, int64_t run,
			      const struct qsim_results *res, GError **error)
{
	g_auto_stmt s = NULL;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO partition_results (run_id, "
			       "partition, vcpus, entitlement, capped, weight, "
			       "physc, entc_pct, acquisitions) VALUES "
			       "(?,?,?,?,?,?,?,?,?)",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the partition insert");
	for (unsigned int i = 0; i < res->nparts; i++) {
		const struct qsim_partition_result *p = &res->parts[i];

		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int(s, 2, (int)i);
		sqlite3_bind_int(s, 3, (int)p->vcpus);
		sqlite3_bind_double(s, 4, p->entitlement);
		sqlite3_bind_int(s, 5, p->capped);
		sqlite3_bind_int(s, 6, (int)p->weight);
		sqlite3_bind_double(s, 7, p->physc);
		sqlite3_bind_double(s, 8, p->entc_pct);
		sqlite3_bind_int64(s, 9, (sqlite3_int64)p->acquisitions);
		if (sqlite3_step(s) != SQLITE_DONE)
			return fail(st, error, "inserting partition results");
	}
	return true;
}

static bool insert_dtl(struct store *st, int64_t run,
		       const struct qsim_results *res, GError **error)
{
	static const char *const reasons[] = {"preempt", "cede", "confer"};
	g_auto_stmt s = NULL;

	if (!res->dtl)
		return true;
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO dtl_records (run_id, seq, vcpu, "
			       "reason, undispatched_ps, ready_ps, "
			       "enqueued_ps, dispatched_ps) VALUES "
			       "(?,?,?,?,?,?,?,?)",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the DTL insert");
	for (guint i = 0; i < res->dtl->len; i++) {
		const struct hv_dtl_record *r =
			&g_array_index(res->dtl, struct hv_dtl_record, i);

		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int64(s, 2, i);
		sqlite3_bind_int(s, 3, (int)r->vcpu);
		sqlite3_bind_text(s, 4, reasons[r->reason], -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)r->undispatched_ps);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)r->ready_ps);
		sqlite3_bind_int64(s, 7, (sqlite3_int64)r->enqueued_ps);
		sqlite3_bind_int64(s, 8, (sqlite3_int64)r->dispatched_ps);
		if (sqlite3_step(s) != SQLITE_DONE)
			return fail(st, error, "inserting DTL records");
	}
	return true;
}

static bool insert_hist(struct store *st, sqlite3_stmt *s, int64_t run,
			unsigned int lock, const char *metric,
			const struct sim_hist *h, GError **error)
{
	if (!h->buckets)
		return true;
	for (unsigned int b = 0; b < SIM_HIST_NBUCKETS; b++) {
		if (!h->buckets[b])
			continue;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_int(s, 2, (int)lock);
		bind_text(s, 3, metric);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)sim_hist_bucket_lo(b));
		sqlite3_bind_int64(s, 5, (sqlite3_int64)sim_hist_bucket_hi(b));
		sqlite3_bind_int64(s, 6, (sqlite3_int64)h->buckets[b]);
		if (sqlite3_step(s) != SQLITE_DONE)
			return fail(st, error, "inserting histograms");
	}
	return true;
}

static bool insert_hists(struct store *st, int64_t run,
			 const struct qsim_results *res, GError **error)
{
	g_auto_stmt s = NULL;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO histograms (run_id, lock, metric, "
			       "lo_ps, hi_ps, count) VALUES (?,?,?,?,?,?)",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the histogram insert");
	for (unsigned int l = 0; l < res->nlocks; l++) {
		if (!insert_hist(st, s, run, l, "latency",
				 &res->locks[l].latency, error) ||
		    !insert_hist(st, s, run, l, "hold", &res->locks[l].hold,
				 error) ||
		    !insert_hist(st, s, run, l, "handoff",
				 &res->locks[l].handoff, error))
			return false;
		/* Per side only where there were readers. */
		if (res->locks[l].read_acquisitions &&
		    (!insert_hist(st, s, run, l, "read_latency",
				  &res->locks[l].read_latency, error) ||
		     !insert_hist(st, s, run, l, "write_latency",
				  &res->locks[l].write_latency, error)))
			return false;
	}
	return true;
}

/* A kernel_* lock's tree: where, which version, which files exactly. */
static bool insert_ktree(struct store *st, int64_t run,
			 const struct qsim_config *cfg, GError **error)
{
	const struct lk_ktree_identity *id = lk_ktree_of(cfg->lock);
	g_auto_stmt s = NULL;
	g_auto_stmt f = NULL;

	if (!id)
		return true;
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO kernel_tree (run_id, path, "
			       "version, describe, files_sha256) VALUES (?, "
			       "?, ?, ?, ?)",
			       -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(
		    st->db,
		    "INSERT INTO kernel_files (run_id, path, sha256) "
		    "VALUES (?, ?, ?)",
		    -1, &f, NULL) != SQLITE_OK)
		return fail(st, error, "preparing the kernel-tree insert");
	sqlite3_bind_int64(s, 1, run);
	bind_text(s, 2, id->path);
	bind_text(s, 3, id->version);
	bind_text(s, 4, id->describe);
	bind_text(s, 5, cfg_ktree_files_sha256());
	if (sqlite3_step(s) != SQLITE_DONE)
		return fail(st, error, "inserting the kernel tree");
	for (unsigned int i = 0; id->files[i][0]; i++) {
		sqlite3_reset(f);
		sqlite3_bind_int64(f, 1, run);
		bind_text(f, 2, id->files[i][0]);
		bind_text(f, 3, id->files[i][1]);
		if (sqlite3_step(f) != SQLITE_DONE)
			return fail(st, error, "inserting kernel files");
	}
	return true;
}

bool store_run_insert(struct store *st, const struct qsim_config *cfg,
		      const struct qsim_results *res, int64_t *run_id,
		      GError **error)
{
	int64_t run;

	if (!exec_wait(st, "BEGIN IMMEDIATE", error))
		return false;
	if (!insert_run(st, cfg, res, error))
		goto rollback;
	run = sqlite3_last_insert_rowid(st->db);
	if (!insert_locks(st, run, res, error) ||
	    !insert_vcpus(st, run, res, error) ||
	    !insert_counters(st, run, res, error) ||
	    !insert_vcpu_counters(st, run, res, error) ||
	    !insert_partitions(st, run, res, error) ||
	    !insert_dtl(st, run, res, error) ||
	    !insert_hists(st, run, res, error) ||
	    !insert_ktree(st, run, cfg, error) ||
	    !insert_params(st, run, cfg->resolved, error))
		goto rollback;
	if (!exec(st, "COMMIT", error))
		goto rollback;
	*run_id = run;
	return true;
rollback:
	exec(st, "ROLLBACK", NULL);
	return false;
}

bool store_find_run(struct store *st, const char *params_sha256,
		    const char *binary_sha256, int64_t *run_id, bool *violation,
		    GError **error)
{
	g_auto_stmt q = NULL;
	int rc;

	*run_id = 0;
	*violation = false;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT id, status <> 'ok' FROM runs WHERE "
			       "params_sha256 = ? AND binary_sha256 = ? "
			       "ORDER BY id LIMIT 1",
			       -1, &q, NULL) != SQLITE_OK)
		return fail(st, error, "looking for a stored run");
	sqlite3_bind_text(q, 1, params_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, binary_sha256, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(q, 0);
		*violation = sqlite3_column_int(q, 1) != 0;
	} else if (rc != SQLITE_DONE) {
		return fail(st, error, "looking for a stored run");
	}
	return true;
}

void store_save_beside(const char *db, const struct qsim_config *cfg,
		       const struct qsim_results *res, const char *what)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%dT%H%M%S");
	static gint seq;
	g_autofree char *path =
		g_strdup_printf("%s.unstored-%s-%d-%d.db", db, stamp,
				(int)getpid(), g_atomic_int_add(&seq, 1));
	g_autoptr(GError) err = NULL;
	struct store *st = store_open(path, &err);
	int64_t id;

	if (st && store_run_insert(st, cfg, res, &id, &err)) {
		g_autofree char *qp = g_shell_quote(path);
		g_autofree char *qd = g_shell_quote(db);

		fprintf(stderr,
			"%s: the run is saved in %s; add it with: "
			"qsim import %s --db %s\n",
			what, path, qp, qd);
	} else {
		fprintf(stderr,
			"%s: could not save the run beside it either: %s\n",
			what, err ? err->message : "?");
	}
	store_close(st);
}

/*
 * An error of store_import, named by the file it belongs to: @src when
 * only @src was read (@src_only), else @src and the destination both
 * (SQLite does not say which file of a statement's two failed).
 */
static bool import_fail(struct store *st, const char *src, bool src_only,
			GError **error, const char *what)
{
	if (src_only)
		g_set_error(error, STORE_ERROR, sqlite3_errcode(st->db),
			    "%s: %s: %s", src, what, sqlite3_errmsg(st->db));
	else
		g_set_error(error, STORE_ERROR, sqlite3_errcode(st->db),
			    "%s into %s: %s: %s", src, st->path, what,
			    sqlite3_errmsg(st->db));
	return false;
}

/* @sql that copies rows of @src into the destination, as exec(). */
static bool import_exec(struct store *st, const char *src, const char *sql,
			const char *what, GError **error)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return import_fail(st, src, false, error, what);
	return true;
}

/* "a, b, c": @table's columns in the attached @src, without @skip. */
static char *columns(struct store *st, const char *src, const char *table,
		     const char *skip, GError **error)
{
	g_autofree char *sql = g_strdup_printf(
		"SELECT name FROM pragma_table_info('%s', 'src') ORDER BY cid",
		table);
	g_auto_stmt q = NULL;
	GString *cols = g_string_new(NULL);
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		g_string_free(cols, TRUE);
		import_fail(st, src, true, error, "listing columns");
		return NULL;
	}
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(q, 0);

		if (!strcmp(c, skip))
			continue;
		g_string_append_printf(cols, "%s\"%s\"", cols->len ? ", " : "",
				       c);
	}
	if (rc != SQLITE_DONE) {
		g_string_free(cols, TRUE);
		import_fail(st, src, true, error, "listing columns");
		return NULL;
	}
	return g_string_free(cols, FALSE);
}

/*
 * Inside store_import's transaction: the torture runs of the attached
 * file, with their failures, under new ids; with @skip_same, not one the
 * destination has (same start, binary, lock, mutant, mapping and seeds).
 */
static bool import_torture(struct store *st, const char *src, bool skip_same,
			   struct store_import_counts *n, GError **error)
{
	g_autofree char *cols = columns(st, src, "torture_runs", "id", error);
	g_auto_stmt q = NULL;
	int rc;

	if (!cols)
		return false;
	if (sqlite3_prepare_v2(
		    st->db,
		    skip_same
			    ? "SELECT id FROM src.torture_runs r WHERE NOT "
			      "EXISTS (SELECT 1 FROM main.torture_runs m "
			      "WHERE m.started_at = r.started_at AND "
			      "m.binary_sha256 = r.binary_sha256 AND m.lock = "
			      "r.lock AND m.mutant IS r.mutant AND m.mapping "
			      "IS r.mapping AND m.first_seed = r.first_seed "
			      "AND m.seeds_run = r.seeds_run) ORDER BY id"
			    : "SELECT id FROM src.torture_runs ORDER BY id",
		    -1, &q, NULL) != SQLITE_OK)
		return import_fail(st, src, !skip_same, error,
				   "listing the torture runs to import");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t old = sqlite3_column_int64(q, 0), new;
		g_autofree char *run = g_strdup_printf(
			"INSERT INTO main.torture_runs (%s) SELECT %s FROM "
			"src.torture_runs WHERE id = %" PRId64,
			cols, cols, old);
		g_autofree char *fails = NULL;

		if (!import_exec(st, src, run, "copying a torture run", error))
			return false;
		new = sqlite3_last_insert_rowid(st->db);
		fails = g_strdup_printf(
			"INSERT INTO main.torture_failures (torture_id, seed, "
			"violation, replay, scenario_text) SELECT %" PRId64
			", seed, violation, replay, scenario_text FROM "
			"src.torture_failures WHERE torture_id = %" PRId64,
			new, old);
		if (!import_exec(st, src, fails, "copying a torture run",
				 error))
			return false;
		n->tortures++;
	}
	if (rc != SQLITE_DONE)
		return import_fail(st, src, !skip_same, error,
				   "listing the torture runs to import");
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT COUNT(*) FROM src.torture_runs",
			       -1, &q, NULL) != SQLITE_OK)
		return import_fail(st, src, true, error,
				   "counting the torture runs to import");
	if (sqlite3_step(q) != SQLITE_ROW)
		return import_fail(st, src, true, error,
				   "counting the torture runs to import");
	n->tortures_same = sqlite3_column_int64(q, 0) - n->tortures;
	return true;
}

bool store_check_source(const char *src, GError **error)
{
	sqlite3 *db;
	sqlite3_stmt *q = NULL;
	const char *res = NULL;
	int rc;
	bool ok;

	if (!g_file_test(src, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, STORE_ERROR, 1,
			    "%s: no such database (not a regular file)", src);
		return false;
	}
	/* read-only: an empty file or someone else's is left as it is
	 * (only a qsim database of an older schema is migrated) */
	db = store_read_db(src, error);
	if (!db) {
		/* advice for --db, not for a file to read from */
		const char *tail = ": use another --db";

		if (*error && g_str_has_suffix((*error)->message, tail))
			(*error)->message[strlen((*error)->message) -
					  strlen(tail)] = '\0';
		return false;
	}
	sqlite3_busy_timeout(db, 1000);
	/* an older schema it could not migrate (a read-only file or
	 * folder) would be copied as it is: old columns, no run_tags */
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) ==
		    SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW &&
	    sqlite3_column_int(q, 0) < STORE_SCHEMA_VERSION) {
		g_set_error(error, STORE_ERROR, 1,
			    "%s: schema %d, read-only: copy it somewhere "
			    "writable to import it (it is migrated then)",
			    src, sqlite3_column_int(q, 0));
		sqlite3_finalize(q);
		sqlite3_close(db);
		return false;
	}
	sqlite3_finalize(q);
	q = NULL;
	/* a damaged file is refused by its own name, before any copying */
	rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		res = (const char *)sqlite3_column_text(q, 0);
	ok = res && strcmp(res, "ok") == 0;
	if (!ok && res) {
		/* quick_check's first finding, on one line */
		g_autofree char *why = g_strdup(res);
		const char *head = "*** in database main ***\n";

		g_strdelimit(why, "\n", ' ');
		g_set_error(error, STORE_ERROR, 1,
			    "%s: database disk image is malformed (%s)", src,
			    g_str_has_prefix(res, head) ? why + strlen(head)
							: why);
	} else if (!ok) {
		/* no finding: locked, an I/O error, no memory (or damage
		 * SQLite met before checking): its own words */
		g_set_error(error, STORE_ERROR, 1, "%s: %s", src,
			    sqlite3_errmsg(db));
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return ok;
}

bool store_import(struct store *st, const char *src, bool skip_same,
		  struct store_import_counts *n, GError **error)
{
	g_auto_stmt att = NULL;
	g_auto_stmt runs = NULL;
	g_auto_stmt kids = NULL;
	g_autoptr(GPtrArray) tables = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *run_cols = NULL;
	bool ok = false;
	int rc;

	memset(n, 0, sizeof(*n));
	if (sqlite3_prepare_v2(st->db, "ATTACH DATABASE ? AS src", -1, &att,
			       NULL) != SQLITE_OK ||
	    sqlite3_bind_text(att, 1, src, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(att) != SQLITE_DONE)
		return import_fail(st, src, false, error,
				   "attaching the file to import");
	if (!exec_wait(st, "BEGIN IMMEDIATE", error))
		goto detach;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT m.name FROM src.sqlite_master m WHERE "
			       "m.type = 'table' AND EXISTS (SELECT 1 FROM "
			       "pragma_table_info(m.name, 'src') WHERE name = "
			       "'run_id') ORDER BY m.name",
			       -1, &kids, NULL) != SQLITE_OK) {
		import_fail(st, src, true, error,
			    "listing the tables to import");
		goto rollback;
	}
	while ((rc = sqlite3_step(kids)) == SQLITE_ROW)
		g_ptr_array_add(
			tables,
			g_strdup((const char *)sqlite3_column_text(kids, 0)));
	if (rc != SQLITE_DONE) {
		import_fail(st, src, true, error,
			    "listing the tables to import");
		goto rollback;
	}
	run_cols = columns(st, src, "runs", "id", error);
	if (!run_cols)
		goto rollback;
	/* A run whose parameters and binary a run of the destination (or an
	 * earlier one of this file) has is the same result: skipped. */
	if (sqlite3_prepare_v2(
		    st->db,
		    skip_same ? "SELECT id, params_sha256 IS NOT NULL "
				"AND binary_sha256 IS NOT NULL AND "
				"EXISTS (SELECT 1 FROM main.runs m "
				"WHERE m.params_sha256 = r.params_sha256 "
				"AND m.binary_sha256 = r.binary_sha256) "
				"FROM src.runs r ORDER BY id"
			      : "SELECT id, 0 FROM src.runs ORDER BY id",
		    -1, &runs, NULL) != SQLITE_OK) {
		import_fail(st, src, !skip_same, error,
			    "listing the runs to import");
		goto rollback;
	}
	while ((rc = sqlite3_step(runs)) == SQLITE_ROW) {
		int64_t old = sqlite3_column_int64(runs, 0), new;
		g_autofree char *sql = NULL;

		if (sqlite3_column_int(runs, 1)) {
			/* the same result: its tags go to the one there */
			g_autofree char *tags = g_strdup_printf(
				"INSERT OR IGNORE INTO main.run_tags (run_id, "
				"tag) SELECT m.id, t.tag FROM src.run_tags t "
				"JOIN src.runs r ON r.id = t.run_id JOIN "
				"main.runs m ON m.params_sha256 = "
				"r.params_sha256 AND m.binary_sha256 = "
				"r.binary_sha256 WHERE t.run_id = %" PRId64,
				old);

			if (!import_exec(st, src, tags, "copying a run's tags",
					 error))
				goto rollback;
			n->same++;
			continue;
		}
		sql = g_strdup_printf(
			"INSERT INTO main.runs (%s) SELECT %s FROM src.runs "
			"WHERE id = %" PRId64,
			run_cols, run_cols, old);

		if (!import_exec(st, src, sql, "copying a run", error))
			goto rollback;
		new = sqlite3_last_insert_rowid(st->db);
		for (guint t = 0; t < tables->len; t++) {
			const char *name = g_ptr_array_index(tables, t);
			g_autofree char *cols =
				columns(st, src, name, "run_id", error);
			g_autofree char *ins = NULL;

			if (!cols)
				goto rollback;
			ins = g_strdup_printf(
				"INSERT INTO main.\"%s\" (run_id%s%s) SELECT "
				"%" PRId64 "%s%s FROM src.\"%s\" WHERE run_id "
				"= %" PRId64,
				name, *cols ? ", " : "", cols, new,
				*cols ? ", " : "", cols, name, old);
			if (!import_exec(st, src, ins, "copying a run", error))
				goto rollback;
		}
		n->runs++;
	}
	if (rc != SQLITE_DONE) {
		import_fail(st, src, !skip_same, error,
			    "listing the runs to import");
		goto rollback;
	}
	if (!import_torture(st, src, skip_same, n, error))
		goto rollback;
	if (!exec(st, "COMMIT", error))
		goto rollback;
	ok = true;
	goto detach;
rollback:
	exec(st, "ROLLBACK", NULL);
	memset(n, 0, sizeof(*n));
detach:
	exec(st, "DETACH DATABASE src", NULL);
	return ok;
}

bool store_torture_insert(struct store *st, const struct torture_opts *o,
			  const struct torture_result *r, int64_t *id,
			  GError **error)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *when = g_date_time_format_iso8601(now);
	g_auto_stmt s = NULL;
	g_auto_stmt f = NULL;
	int i = 1;

	if (!exec_wait(st, "BEGIN IMMEDIATE", error))
		return false;
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO torture_runs (started_at, "
			       "qsim_version, binary_sha256, tag, lock, "
			       "mapping, mutant, first_seed, seeds_run, "
			       "failures, host_seconds, simulated_ps, events, "
			       "interrupted, memory, kernel_tree, "
			       "kernel_version, kernel_describe, "
			       "kernel_files_sha256, seeds_asked) VALUES (?,?,"
			       "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(
		    st->db,
		    "INSERT INTO torture_failures (torture_id, seed, "
		    "violation, replay, scenario_text) VALUES "
		    "(?,?,?,?,?)",
		    -1, &f, NULL) != SQLITE_OK) {
		fail(st, error, "preparing the torture insert");
		goto rollback;
	}
	bind_text(s, i++, when);
	bind_text(s, i++, store_version());
	bind_text(s, i++, store_binary_sha256());
	bind_text(s, i++, st->tag);
	bind_text(s, i++, torture_lock(o));
	bind_text(s, i++, o->mapping);
	bind_text(s, i++, o->mutant);
	sqlite3_bind_int64(s, i++, (sqlite3_int64)o->first_seed);
	sqlite3_bind_int64(s, i++, (sqlite3_int64)r->seeds_run);
	sqlite3_bind_int64(s, i++, (sqlite3_int64)r->failures);
	sqlite3_bind_double(s, i++, r->host_seconds);
	sqlite3_bind_int64(s, i++,
			   (sqlite3_int64)llround(r->sim_seconds * 1e12));
	sqlite3_bind_int64(s, i++, (sqlite3_int64)r->events);
	sqlite3_bind_int(s, i++, r->interrupted);
	bind_text(s, i++,
		  o->memory && strcmp(o->memory, "sc") ? o->memory : NULL);
	{
		const struct lk_ktree_identity *kt =
			lk_ktree_of(torture_lock(o));

		bind_text(s, i++, kt ? kt->path : NULL);
		bind_text(s, i++, kt ? kt->version : NULL);
		bind_text(s, i++, kt ? kt->describe : NULL);
		bind_text(s, i++, kt ? cfg_ktree_files_sha256() : NULL);
	}
	if (o->seeds) /* --time: NULL */
		sqlite3_bind_int64(s, i++, (sqlite3_int64)o->seeds);
	else
		sqlite3_bind_null(s, i++);
	if (sqlite3_step(s) != SQLITE_DONE) {
		fail(st, error, "inserting the torture run");
		goto rollback;
	}
	*id = sqlite3_last_insert_rowid(st->db);
	for (guint k = 0; r->failed && k < r->failed->len; k++) {
		const struct torture_failure *t =
			&g_array_index(r->failed, struct torture_failure, k);
		g_autofree char *replay = g_strdup_printf(
			"qsim run - --seed %" PRIu64 " < SCENARIO  # SCENARIO: "
			"torture_failures.scenario_text of this row",
			t->seed);

		sqlite3_reset(f);
		sqlite3_bind_int64(f, 1, (sqlite3_int64)*id);
		sqlite3_bind_int64(f, 2, (sqlite3_int64)t->seed);
		bind_text(f, 3, t->violation ? t->violation : "?");
		bind_text(f, 4, replay);
		bind_text(f, 5, t->scenario ? t->scenario : "");
		if (sqlite3_step(f) != SQLITE_DONE) {
			fail(st, error, "inserting a torture failure");
			goto rollback;
		}
	}
	if (exec(st, "COMMIT", error))
		return true;
rollback:
	exec(st, "ROLLBACK", NULL);
	return false;
}
