/* SPDX-License-Identifier: MIT */
/*
 * The results store: one SQLite file, WAL mode, schema version in
 * user_version with forward migrations, one transaction per run so a
 * failed run leaves nothing behind.  Schema: docs/database.md.
 */
#ifndef QSIM_TOOLS_STORE_H
#define QSIM_TOOLS_STORE_H

#include <glib.h>
#include <sqlite3.h>

#include "tools/model.h"

#define STORE_ERROR (store_error_quark())
GQuark store_error_quark(void);

#define STORE_SCHEMA_VERSION 17
/* PRAGMA application_id of a qsim database: "qsim" in ASCII. */
#define STORE_APPLICATION_ID 0x7173696d

struct store {
	sqlite3 *db;
	char *path;
	const char *tag; /* runs.tag of the runs inserted (NULL: none) */
};

struct store *store_open(const char *path, GError **error);
/* A qsim database for reading only (report, export, plot, trace --run,
 * compare of stored runs): never created, migrated or written; one in a
 * folder we may not write (no WAL index can be made) is read as
 * immutable.  store_close closes it. */
struct store *store_open_read(const char *path, GError **error);
/* The same, its connection only (close it with sqlite3_close). */
sqlite3 *store_read_db(const char *path, GError **error);
void store_close(struct store *st);
/* Did a read loop end well: @rc, its last sqlite3_step(), SQLITE_DONE?
 * Otherwise false with @error naming @path and SQLite's message (a
 * damaged file stops a loop midway: its rows so far are not all). */
bool store_step_done(sqlite3 *db, const char *path, int rc, GError **error);
/* Insert one run with all its rows; sets *run_id. */
bool store_run_insert(struct store *st, const struct qsim_config *cfg,
		      const struct qsim_results *res, int64_t *run_id,
		      GError **error);
/* What store_import copied, and left out as already there. */
struct store_import_counts {
	int64_t runs, same;
	int64_t tortures, tortures_same;
};

/* Is @src a qsim database to import from, and not damaged?  Read
 * read-only: never made by a misspelled name, nor given a schema when
 * empty or someone else's; only an older qsim schema is migrated, and
 * one that cannot be (read-only) is refused, as it would be copied with
 * its old columns. */
bool store_check_source(const char *src, GError **error);
/* Copy every run of the qsim database @src (with all its rows, under new
 * run ids) and every torture run into @st in one transaction, counted in
 * @n.  With @skip_same, a run whose resolved parameters and binary @st
 * already has (or an earlier run of @src had), or a torture run it has,
 * is left out and counted as the same.  @src is not checked here: the
 * caller checks every source with store_check_source first (once, and
 * before it opens @st, so a bad input leaves nothing written). */
bool store_import(struct store *st, const char *src, bool skip_same,
		  struct store_import_counts *n, GError **error);
/* Give stored run @run_id the tag @tag too (a run has any number). */
bool store_tag_run(struct store *st, int64_t run_id, const char *tag,
		   GError **error);
/* The first run with this identity (0 if none), and whether it ended in
 * a violation. */
bool store_find_run(struct store *st, const char *params_sha256,
		    const char *binary_sha256, int64_t *run_id, bool *violation,
		    GError **error);
/* A finished run @db cannot take goes to a new file beside it, which
 * `qsim import` adds later; says so on stderr after "@what: ". */
void store_save_beside(const char *db, const struct qsim_config *cfg,
		       const struct qsim_results *res, const char *what);
const char *store_build_flags(void);
struct torture_opts;
struct torture_result;
/* One `qsim torture` (its options, seeds run, failures with the scenario
 * that replays each) in one transaction; sets *id. */
bool store_torture_insert(struct store *st, const struct torture_opts *o,
			  const struct torture_result *r, int64_t *id,
			  GError **error);
/* The identity of a result: SHA-256 of its resolved parameters (a new
 * string) and of the binary that runs (static). */
char *store_params_sha256(const char *resolved);
const char *store_binary_sha256(void);
const char *store_version(void);

#endif
