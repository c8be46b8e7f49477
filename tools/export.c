// SPDX-License-Identifier: MIT
/*
 * qsim report and qsim export; see export.h.  Every value comes from the
 * store as SQLite gives it: a column's name is the export's name, so the
 * units are the ones the columns say (docs/database.md).
 */
#include <json-glib/json-glib.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <string.h>

#include "tools/compare.h"
#include "tools/export.h"
#include "tools/report.h"
#include "tools/store.h"
#include "sim/workload.h"

#define EXPORT_ERROR (g_quark_from_static_string("qsim-export"))

static bool db_fail(sqlite3 *db, const char *path, GError **error)
{
	g_set_error(error, EXPORT_ERROR, 1, "%s: %s", path, sqlite3_errmsg(db));
	return false;
}

/* @path for reading in one snapshot: the runs selected are the runs
 * written (BEGIN; the snapshot starts at the first read).  read_end
 * ends it and closes. */
static sqlite3 *read_begin(const char *path, GError **error)
{
	sqlite3 *db = store_read_db(path, error);

	if (db && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, path, error);
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

static void read_end(sqlite3 *db)
{
	/* nothing was written: ending it either way is the same */
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
}

/* The ids of the selected runs, oldest first. */
static GArray *select_runs(const struct export_opts *o, sqlite3 *db,
			   unsigned int last, GError **error)
{
	g_autoptr(GString) cond = g_string_new(NULL);
	g_autoptr(GPtrArray) binds = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *sql = NULL;
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	sqlite3_stmt *q;
	int rc;

	for (char **t = o->tags; t && *t; t++)
		if (!compare_where_sql(*t, NULL, cond, binds, error))
			goto bad;
	for (char **w = o->wheres; w && *w; w++)
		if (!compare_where_sql(NULL, *w, cond, binds, error))
			goto bad;
	if (o->nids) {
		g_string_append_printf(cond, "%sr.id IN (",
				       cond->len ? " AND " : "");
		for (unsigned int i = 0; i < o->nids; i++)
			g_string_append_printf(cond, "%s%" PRId64,
					       i ? ", " : "", o->ids[i]);
		g_string_append(cond, ")");
	}
	sql = g_strdup_printf("SELECT id FROM (SELECT r.id FROM runs r%s%s "
			      "ORDER BY r.id DESC%s) ORDER BY id",
			      cond->len ? " WHERE " : "", cond->str,
			      last ? " LIMIT ?" : "");
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		db_fail(db, o->db, error);
		goto bad;
	}
	for (guint b = 0; b < binds->len; b++)
		sqlite3_bind_text(q, (int)b + 1, g_ptr_array_index(binds, b),
				  -1, SQLITE_STATIC);
	if (last)
		sqlite3_bind_int(q, (int)binds->len + 1, (int)last);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);

		g_array_append_val(ids, id);
	}
	if (!store_step_done(db, o->db, rc, error)) {
		sqlite3_finalize(q);
		goto bad;
	}
	sqlite3_finalize(q);
	if (!ids->len && (o->tags || o->wheres)) {
		/* A filter that selects nothing is a mistake to report, not
		 * an empty table: a script would take it for "no results". */
		g_set_error(error, EXPORT_ERROR, 1,
			    "%s: no run matches the selection (--tagged, "
			    "--where)",
			    o->db);
		goto bad;
	}
	if (o->nids && ids->len != o->nids) {
		/* which: the ones a user would look for */
		g_autoptr(GString) miss = g_string_new(NULL);
		unsigned int nmiss = 0, nasked = 0;

		for (unsigned int i = 0; i < o->nids; i++) {
			bool found = false, again = false;

			for (unsigned int j = 0; j < i && !again; j++)
				again = o->ids[j] == o->ids[i];
			if (again)
				continue;
			nasked++;
			for (guint k = 0; k < ids->len && !found; k++)
				found = g_array_index(ids, int64_t, k) ==
					o->ids[i];
			if (!found)
				g_string_append_printf(miss, "%s%" PRId64,
						       nmiss++ ? ", " : "",
						       o->ids[i]);
		}
		if (nmiss) {
			g_set_error(error, EXPORT_ERROR, 1,
				    "%s: %u of the %u runs asked for %s not "
				    "there (or not selected): %s",
				    o->db, nmiss, nasked,
				    nmiss == 1 ? "is" : "are", miss->str);
			goto bad;
		}
	}
	return ids;
bad:
	g_array_free(ids, TRUE);
	return NULL;
}

/* @s in at most @width (< 32) columns of the table: cut, its last kept
 * character a '~' that says so. */
static const char *clip(char buf[32], const char *s, int width)
{
	size_t n = strlen(s);

	size_t keep = (size_t)width - 1;

	if (n <= (size_t)width)
		return s;
	/* not inside a UTF-8 character */
	while (keep && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	memcpy(buf, s, keep);
	buf[keep] = '~';
	buf[keep + 1] = '\0';
	return buf;
}

/* @ids as "1, 2, 3" for an IN list. */
static char *id_list(GArray *ids)
{
	GString *s = g_string_new(NULL);

	for (guint i = 0; i < ids->len; i++)
		g_string_append_printf(s, "%s%" PRId64, i ? ", " : "",
				       g_array_index(ids, int64_t, i));
	return g_string_free(s, FALSE);
}

/* @sql with its one "%s" replaced by @ids. */
static char *with_ids(const char *sql, const char *ids)
{
	g_auto(GStrv) parts = g_strsplit(sql, "%s", 2);

	return g_strconcat(parts[0], ids, parts[1] ? parts[1] : "", NULL);
}

static char *fmt_ns(double ns)
{
	if (ns >= 1e6)
		return g_strdup_printf("%.2fms", ns / 1e6);
	if (ns >= 1e3)
		return g_strdup_printf("%.2fus", ns / 1e3);
	return g_strdup_printf("%.0fns", ns);
}

static const char report_sql[] =
	"SELECT r.id, substr(r.started_at, 1, 19), r.scenario_path, r.lock, "
	"r.policy, r.overcommit, r.seed, r.status, "
	"(SELECT SUM(throughput) FROM lock_results WHERE run_id = r.id), "
	"(SELECT MAX(lat_p99_ns) FROM lock_results WHERE run_id = r.id), "
	"(SELECT SUM(lhp_events) FROM lock_results WHERE run_id = r.id), "
	"r.jain, r.vcpus, r.acq_min, r.acq_mean, r.acq_max, r.measured_ps, "
	"r.replay, COALESCE(r.tag, ''), r.qsim_version, "
	"(SELECT SUM(units) FROM vcpu_results WHERE run_id = r.id), "
	"COALESCE((SELECT value FROM params WHERE run_id = r.id AND "
	"section = 'workload' AND key = 'type'), 'locktest'), "
	"COALESCE((SELECT value FROM params WHERE run_id = r.id AND "
	"section = 'lock' AND key = 'pv_mapping'), '') "
	"FROM runs r WHERE r.id IN (%s) ORDER BY r.id";

/* The pv mapping of a run's lock, short ("directed" for
 * splpar-directed), or "-" for a lock without pv paths. */
static const char *mapping_cell(const char *lock, const char *mapping)
{
	const struct lk_ops *ops = lk_find(lock);

	if (!ops || !*mapping || !lk_reads_key(ops, "pv_mapping"))
		return "-";
	return g_str_has_prefix(mapping, "splpar-") ? mapping + 7 : mapping;
}

/* locktest's two lines, as `qsim run` prints them. */
static void lkml_lines(FILE *out, sqlite3_stmt *q)
{
	int64_t n = sqlite3_column_int64(q, 12);
	g_autofree char *mn = report_thousands(sqlite3_column_int64(q, 13));
	g_autofree char *me = report_thousands(
		(int64_t)llround(sqlite3_column_double(q, 14)));
	g_autofree char *mx = report_thousands(sqlite3_column_int64(q, 15));
	double total = sqlite3_column_double(q, 8);
	g_autofree char *tot = report_thousands((int64_t)llround(total));
	g_autofree char *per =
		report_thousands((int64_t)llround(n ? total / n : 0));

	fprintf(out, "    Threads = %" PRId64 ", Min/Mean/Max = %s/%s/%s\n", n,
		mn, me, mx);
	fprintf(out, "    Total Rate = %s op/s; Percpu Rate = %s op/s\n", tot,
		per);
}

/* The workload's own figure, as `qsim run` prints it after those lines
 * (ebizzy's records, kbuild's jobs, netperf's transactions). */
static void work_line(FILE *out, sqlite3_stmt *q)
{
	enum wl_type t =
		wl_type_parse((const char *)sqlite3_column_text(q, 21));
	int64_t n = sqlite3_column_int64(q, 12);
	double secs = (double)sqlite3_column_int64(q, 16) / 1e12;
	double rate = secs > 0 ? (double)sqlite3_column_int64(q, 20) / secs : 0;
	g_autofree char *tr = report_thousands(llround(rate));
	g_autofree char *name = g_strdup(wl_unit_name(t));

	if (t == WL_LOCKTEST || t == WL_LOCKTORTURE)
		return;
	name[0] = g_ascii_toupper(name[0]);
	fprintf(out, "    %s = %s /s; per vCPU %.1f /s\n", name, tr,
		n ? rate / (double)n : 0);
}

int report_main(const struct export_opts *o, FILE *out, GError **error)
{
	sqlite3 *db = read_begin(o->db, error);
	g_autoptr(GArray) ids = NULL;
	g_autofree char *list = NULL, *sql = NULL;
	sqlite3_stmt *q;
	bool ok;
	int rc;

	if (!db)
		return 1;
	ids = select_runs(o, db, o->nids ? 0 : o->last ? o->last : 20, error);
	if (!ids) {
		read_end(db);
		return 1;
	}
	if (!ids->len) {
		fprintf(out, "%s: no runs stored\n", o->db);
		read_end(db);
		return 0;
	}
	list = id_list(ids);
	sql = with_ids(report_sql, list);
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		db_fail(db, o->db, error);
		read_end(db);
		return 1;
	}
	fprintf(out,
		"%5s  %-19s  %-24s %-13s %-10s %-8s %5s %5s %-9s %12s %9s %6s "
		"%7s\n",
		"run", "started (UTC)", "scenario", "lock", "pv mapping",
		"policy", "oc", "seed", "status", "op/s", "p99", "LHP", "Jain");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		g_autofree char *base = g_path_get_basename(
			(const char *)sqlite3_column_text(q, 2));
		g_autofree char *tp = report_thousands(
			(int64_t)llround(sqlite3_column_double(q, 8)));
		g_autofree char *p99 = fmt_ns(sqlite3_column_double(q, 9));

		char c_scen[32], c_lock[32], c_map[32], c_pol[32], c_st[32];

		fprintf(out,
			"%5" PRId64 "  %-19s  %-24s %-13s %-10s %-8s %5.2f "
			"%5" PRId64 " %-9s %12s %9s %6" PRId64 " %7.4f\n",
			(int64_t)sqlite3_column_int64(q, 0),
			sqlite3_column_text(q, 1), clip(c_scen, base, 24),
			clip(c_lock, (const char *)sqlite3_column_text(q, 3),
			     13),
			clip(c_map,
			     mapping_cell(
				     (const char *)sqlite3_column_text(q, 3),
				     (const char *)sqlite3_column_text(q, 22)),
			     10),
			clip(c_pol, (const char *)sqlite3_column_text(q, 4), 8),
			sqlite3_column_double(q, 5),
			(int64_t)sqlite3_column_int64(q, 6),
			clip(c_st, (const char *)sqlite3_column_text(q, 7), 9),
			tp, p99, (int64_t)sqlite3_column_int64(q, 10),
			sqlite3_column_double(q, 11));
		if (o->lkml || o->nids) {
			lkml_lines(out, q);
			work_line(out, q);
			if (*(const char *)sqlite3_column_text(q, 18))
				fprintf(out, "    tag: %s\n",
					sqlite3_column_text(q, 18));
			fprintf(out, "    qsim %s; replay: %s\n",
				sqlite3_column_text(q, 19),
				sqlite3_column_text(q, 17));
		}
	}
	ok = store_step_done(db, o->db, rc, error);
	sqlite3_finalize(q);
	read_end(db);
	return ok ? 0 : 1;
}

/* One CSV field, quoted when it must be (RFC 4180). */
static void csv_field(GString *s, const char *v)
{
	if (!v)
		return;
	if (!strpbrk(v, ",\"\r\n")) {
		g_string_append(s, v);
		return;
	}
	g_string_append_c(s, '"');
	for (; *v; v++) {
		if (*v == '"')
			g_string_append_c(s, '"');
		g_string_append_c(s, *v);
	}
	g_string_append_c(s, '"');
}

/* @x in the fewest digits that read back as @x (5505.023, not
 * 5505.0230000000001; json-glib writes the JSON export's with 17). */
static const char *shortest(char *buf, size_t len, double x)
{
	for (int digits = 15; digits < 17; digits++) {
		char fmt[8];

		g_snprintf(fmt, sizeof(fmt), "%%.%dg", digits);
		g_ascii_formatd(buf, (gint)len, fmt, x);
		if (g_ascii_strtod(buf, NULL) == x)
			return buf;
	}
	return g_ascii_formatd(buf, (gint)len, "%.17g", x);
}

/* A run's tags, in order (a tag may hold any character): ?1 the run.
 * Put together here, not by SQLite's json_group_array (SQLite 3.38 on,
 * and an ORDER BY in a subquery does not promise the aggregate's
 * order). */
static const char tags_sql[] =
	"SELECT tag FROM run_tags WHERE run_id = ?1 ORDER BY tag";

/* The tags of run @run (@t: tags_sql) as a JSON array of strings in @b,
 * where a value goes. */
static bool add_tags(JsonBuilder *b, sqlite3 *db, const char *path,
		     sqlite3_stmt *t, int64_t run, GError **error)
{
	int rc;

	sqlite3_reset(t);
	sqlite3_bind_int64(t, 1, run);
	json_builder_begin_array(b);
	while ((rc = sqlite3_step(t)) == SQLITE_ROW)
		json_builder_add_string_value(
			b, (const char *)sqlite3_column_text(t, 0));
	json_builder_end_array(b);
	return store_step_done(db, path, rc, error);
}

/* The same as that array's JSON text in *@text (NULL for a run with
 * none: an empty field). */
static bool tags_text(sqlite3 *db, const char *path, sqlite3_stmt *t,
		      int64_t run, char **text, GError **error)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	g_autoptr(JsonNode) root = NULL;

	*text = NULL;
	if (!add_tags(b, db, path, t, run, error))
		return false;
	root = json_builder_get_root(b);
	if (json_array_get_length(json_node_get_array(root)))
		*text = json_to_string(root, FALSE);
	return true;
}

/* The rows of @sql as CSV; with @tags (tags_sql), a last column "tags"
 * of the run in each row's first column. */
static bool csv_query(sqlite3 *db, const char *path, const char *sql,
		      sqlite3_stmt *tags, FILE *out, GError **error)
{
	sqlite3_stmt *q;
	g_autoptr(GString) line = g_string_new(NULL);
	bool ok;
	int n, rc;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return db_fail(db, path, error);
	n = sqlite3_column_count(q);
	for (int c = 0; c < n; c++) {
		if (c)
			g_string_append_c(line, ',');
		csv_field(line, sqlite3_column_name(q, c));
	}
	if (tags)
		g_string_append(line, ",tags");
	fprintf(out, "%s\n", line->str);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		g_string_truncate(line, 0);
		for (int c = 0; c < n; c++) {
			if (c)
				g_string_append_c(line, ',');
			if (sqlite3_column_type(q, c) == SQLITE_FLOAT) {
				char buf[G_ASCII_DTOSTR_BUF_SIZE];
				double x = sqlite3_column_double(q, c);

				/* inf (an edited or imported file): empty, as
				 * NULL is */
				if (isfinite(x))
					g_string_append(
						line,
						shortest(buf, sizeof(buf), x));
			} else {
				csv_field(line,
					  (const char *)sqlite3_column_text(q,
									    c));
			}
		}
		if (tags) {
			g_autofree char *text = NULL;

			if (!tags_text(db, path, tags,
				       sqlite3_column_int64(q, 0), &text,
				       error)) {
				sqlite3_finalize(q);
				return false;
			}
			g_string_append_c(line, ',');
			csv_field(line, text);
		}
		fprintf(out, "%s\n", line->str);
	}
	ok = store_step_done(db, path, rc, error);
	sqlite3_finalize(q);
	return ok;
}

/* The runs' own columns without the long texts, with their locks'
 * totals. */
static const char runs_csv[] =
	"SELECT r.id, r.started_at, r.qsim_version, r.tag, r.scenario_path, "
	"r.seed, r.lock, r.policy, r.vcpus, r.pcpus, r.overcommit, "
	"r.duration_ps, r.warmup_ps, r.measured_ps, r.status, r.violation, "
	"r.violation_ps, r.replay, r.host_seconds, r.events, r.switches, "
	"r.util_run, r.util_spin, r.util_hcall, r.util_dispatch, "
	"r.util_idle, r.acq_min, r.acq_mean, r.acq_max, r.jain, "
	"s.acquisitions, s.throughput, s.lat_p99_ns, s.lhp_events, "
	"s.lhp_total_ns, s.lwp_events, r.params_sha256, r.binary_sha256 "
	"FROM runs r LEFT JOIN (SELECT run_id, SUM(acquisitions) AS "
	"acquisitions, SUM(throughput) AS throughput, MAX(lat_p99_ns) AS "
	"lat_p99_ns, SUM(lhp_events) AS lhp_events, SUM(lhp_total_ns) AS "
	"lhp_total_ns, SUM(lwp_events) AS lwp_events FROM lock_results "
	"GROUP BY run_id) s ON s.run_id = r.id WHERE r.id IN (%s) ORDER BY "
	"r.id";

/* A row of @q as members of a JSON object, each column by its name
 * and type. */
static void json_members(JsonBuilder *b, sqlite3_stmt *q, int from)
{
	for (int c = from; c < sqlite3_column_count(q); c++) {
		/* runs.params, the resolved INI text, is the "params" object
		 * beside */
		if (!strcmp(sqlite3_column_name(q, c), "params"))
			continue;
		json_builder_set_member_name(b, sqlite3_column_name(q, c));
		switch (sqlite3_column_type(q, c)) {
		case SQLITE_INTEGER:
			json_builder_add_int_value(b,
						   sqlite3_column_int64(q, c));
			break;
		case SQLITE_FLOAT:
			/* JSON has no inf (an edited or imported file can hold
			 * one): null, as report_json_real writes it */
			if (isfinite(sqlite3_column_double(q, c)))
				json_builder_add_double_value(
					b, sqlite3_column_double(q, c));
			else
				json_builder_add_null_value(b);
			break;
		case SQLITE_NULL:
			json_builder_add_null_value(b);
			break;
		default:
			json_builder_add_string_value(
				b, (const char *)sqlite3_column_text(q, c));
		}
	}
}

/* A row of @q as a JSON object. */
static void json_row(JsonBuilder *b, sqlite3_stmt *q, int from)
{
	json_builder_begin_object(b);
	json_members(b, q, from);
	json_builder_end_object(b);
}

/* Every row of @sql (?1: the run) as an array member @name. */
static bool json_rows(JsonBuilder *b, sqlite3 *db, const char *path,
		      const char *name, const char *sql, int64_t run,
		      GError **error)
{
	sqlite3_stmt *q;
	bool ok;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return db_fail(db, path, error);
	sqlite3_bind_int64(q, 1, run);
	json_builder_set_member_name(b, name);
	json_builder_begin_array(b);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		json_row(b, q, 1);
	json_builder_end_array(b);
	ok = store_step_done(db, path, rc, error);
	sqlite3_finalize(q);
	return ok;
}

static bool export_json(sqlite3 *db, const char *path, GArray *ids, FILE *out,
			GError **error)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	g_autofree char *text = NULL;
	sqlite3_stmt *r = NULL, *p = NULL, *t = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT * FROM runs WHERE id = ?1", -1, &r,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT section, key, value FROM params WHERE "
			       "run_id = ?1 ORDER BY rowid",
			       -1, &p, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, tags_sql, -1, &t, NULL) != SQLITE_OK) {
		db_fail(db, path, error);
		sqlite3_finalize(r);
		sqlite3_finalize(p);
		sqlite3_finalize(t);
		return false;
	}
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "runs");
	json_builder_begin_array(b);
	for (guint i = 0; i < ids->len; i++) {
		int64_t id = g_array_index(ids, int64_t, i);
		/* a copy: column text dies at the next sqlite3_step() */
		g_autofree char *sec = NULL;

		sqlite3_reset(r);
		sqlite3_bind_int64(r, 1, id);
		/* one read transaction (export_main): a selected run is there */
		rc = sqlite3_step(r);
		if (rc != SQLITE_ROW) {
			if (rc == SQLITE_DONE)
				g_set_error(error, EXPORT_ERROR, 1,
					    "%s: run %" PRId64 " went while "
					    "being read",
					    path, id);
			else
				db_fail(db, path, error);
			sqlite3_finalize(r);
			sqlite3_finalize(p);
			sqlite3_finalize(t);
			return false;
		}
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "run");
		json_builder_begin_object(b);
		json_members(b, r, 0);
		json_builder_set_member_name(b, "tags");
		if (!add_tags(b, db, path, t, id, error)) {
			sqlite3_finalize(r);
			sqlite3_finalize(p);
			sqlite3_finalize(t);
			return false;
		}
		json_builder_end_object(b);
		/* the resolved scenario: {section: {key: value}} */
		json_builder_set_member_name(b, "params");
		json_builder_begin_object(b);
		sqlite3_reset(p);
		sqlite3_bind_int64(p, 1, id);
		while ((rc = sqlite3_step(p)) == SQLITE_ROW) {
			const char *s = (const char *)sqlite3_column_text(p, 0);

			if (!sec || strcmp(sec, s)) {
				if (sec)
					json_builder_end_object(b);
				json_builder_set_member_name(b, s);
				json_builder_begin_object(b);
				g_free(sec);
				sec = g_strdup(s);
			}
			json_builder_set_member_name(
				b, (const char *)sqlite3_column_text(p, 1));
			json_builder_add_string_value(
				b, (const char *)sqlite3_column_text(p, 2));
		}
		if (sec)
			json_builder_end_object(b);
		json_builder_end_object(b);
		if (!store_step_done(db, path, rc, error) ||
		    !json_rows(b, db, path, "locks",
			       "SELECT * FROM lock_results WHERE run_id = ?1 "
			       "ORDER BY lock",
			       id, error) ||
		    !json_rows(b, db, path, "vcpus",
			       "SELECT * FROM vcpu_results WHERE run_id = ?1 "
			       "ORDER BY vcpu",
			       id, error) ||
		    !json_rows(b, db, path, "counters",
			       "SELECT run_id, name, value FROM counters WHERE "
			       "run_id = ?1 ORDER BY name",
			       id, error) ||
		    /* a kernel tree's lock: which tree (empty otherwise) */
		    !json_rows(b, db, path, "kernel_tree",
			       "SELECT run_id, path, version, describe FROM "
			       "kernel_tree WHERE run_id = ?1",
			       id, error) ||
		    !json_rows(b, db, path, "kernel_files",
			       "SELECT run_id, path, sha256 FROM kernel_files "
			       "WHERE run_id = ?1 ORDER BY path",
			       id, error)) {
			sqlite3_finalize(r);
			sqlite3_finalize(p);
			sqlite3_finalize(t);
			return false;
		}
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	sqlite3_finalize(r);
	sqlite3_finalize(p);
	sqlite3_finalize(t);
	text = report_json_text(b);
	fprintf(out, "%s\n", text);
	return true;
}

int export_main(const struct export_opts *o, FILE *out, GError **error)
{
	static const char *const tables[] = {"runs",   "locks",	   "vcpus",
					     "params", "counters", NULL};
	static const char *const sqls[] = {
		runs_csv,
		"SELECT * FROM lock_results WHERE run_id IN (%s) ORDER BY "
		"run_id, lock",
		"SELECT * FROM vcpu_results WHERE run_id IN (%s) ORDER BY "
		"run_id, vcpu",
		"SELECT * FROM params WHERE run_id IN (%s) ORDER BY run_id, "
		"rowid",
		"SELECT * FROM counters WHERE run_id IN (%s) ORDER BY run_id, "
		"name",
	};
	const char *format = o->format ? o->format : "csv";
	const char *table = o->table ? o->table : "runs";
	g_autoptr(GArray) ids = NULL;
	g_autofree char *list = NULL, *sql = NULL;
	sqlite3 *db;
	int t = -1;
	bool ok;

	for (int i = 0; tables[i]; i++)
		if (strcmp(tables[i], table) == 0)
			t = i;
	if (strcmp(format, "csv") && strcmp(format, "json")) {
		g_set_error(error, EXPORT_ERROR, 1,
			    "--format '%s': csv or json", format);
		return 1;
	}
	if (o->table && strcmp(format, "csv")) {
		g_set_error(error, EXPORT_ERROR, 1,
			    "--table '%s' with --format %s: --table chooses "
			    "a CSV table; JSON holds them all, each run with "
			    "its locks, vcpus, params and counters",
			    table, format);
		return 1;
	}
	if (t < 0) {
		g_set_error(error, EXPORT_ERROR, 1,
			    "--table '%s': one of runs, locks, vcpus, params, "
			    "counters",
			    table);
		return 1;
	}
	db = read_begin(o->db, error);
	if (!db)
		return 1;
	ids = select_runs(o, db, o->last, error);
	if (!ids) {
		read_end(db);
		return 1;
	}
	list = id_list(ids);
	if (strcmp(format, "json") == 0) {
		ok = export_json(db, o->db, ids, out, error);
	} else {
		sqlite3_stmt *tags = NULL;

		sql = with_ids(sqls[t], ids->len ? list : "NULL");
		/* the runs table ends with each run's tags */
		if (t == 0 && sqlite3_prepare_v2(db, tags_sql, -1, &tags,
						 NULL) != SQLITE_OK)
			ok = db_fail(db, o->db, error);
		else
			ok = csv_query(db, o->db, sql, tags, out, error);
		sqlite3_finalize(tags);
	}
	read_end(db);
	return ok ? 0 : 1;
}
