// SPDX-License-Identifier: MIT
/*
 * qsim compare and qsim sweep; see compare.h.  Every figure is read back
 * from the store, whether the run was made now or before, so a variant of
 * fresh runs and a group of stored ones are judged by the same queries.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "tools/compare.h"
#include "tools/config.h"
#include "tools/outfile.h"
#include "tools/points.h"
#include "tools/report.h"
#include "tools/stats.h"
#include "tools/store.h"

enum { EXIT_OK, EXIT_INPUT, EXIT_CHECK, EXIT_INTERNAL };

/* What a run is judged by: one value per run, from the store (?1: run id). */
struct metric {
	const char *name, *unit;
	int better; /* +1: higher is better, -1: lower */
	const char *sql;
};

static const struct metric metrics[] = {
	{"throughput", "op/s", +1,
	 "SELECT SUM(throughput) FROM lock_results WHERE run_id = ?1"},
	{"work", "units/s", +1,
	 "SELECT SUM(v.units) * 1e12 / r.measured_ps FROM vcpu_results v "
	 "JOIN runs r ON r.id = v.run_id WHERE v.run_id = ?1"},
	{"lat_p50_ns", "ns", -1,
	 "SELECT MAX(lat_p50_ns) FROM lock_results WHERE run_id = ?1"},
	{"lat_p99_ns", "ns", -1,
	 "SELECT MAX(lat_p99_ns) FROM lock_results WHERE run_id = ?1"},
	{"handoff_ns", "ns", -1,
	 "SELECT SUM(handoff_mean_ns * handoffs) / SUM(handoffs) FROM "
	 "lock_results WHERE run_id = ?1 AND handoffs > 0"},
	{"lhp_events", "", -1,
	 "SELECT SUM(lhp_events) FROM lock_results WHERE run_id = ?1"},
	{"lhp_total_ns", "ns", -1,
	 "SELECT SUM(lhp_total_ns) FROM lock_results WHERE run_id = ?1"},
	{"lwp_events", "", -1,
	 "SELECT SUM(lwp_events) FROM lock_results WHERE run_id = ?1"},
	{"lwp_total_ns", "ns", -1,
	 "SELECT SUM(lwp_total_ns) FROM lock_results WHERE run_id = ?1"},
	{"jain", "", +1, "SELECT jain FROM runs WHERE id = ?1"},
	{"spin_share", "", -1,
	 "SELECT SUM(spin_ns) / SUM(run_ns + spin_ns + hcall_ns) FROM "
	 "vcpu_results WHERE run_id = ?1"},
};
#define NM G_N_ELEMENTS(metrics)

static const char *const sweep_default[] = {"throughput", "lat_p99_ns", NULL};

/* What tells two simulations apart: a run's engine events, measured
 * time and acquisitions. */
struct print {
	int64_t events, measured_ps, acquisitions;
};

struct variant {
	char *label;
	/* a fresh variant: a scenario and its overrides */
	char *path;
	char **sets;
	/* a stored group: a condition on runs r and its bound texts */
	char *cond;
	GPtrArray *binds;
	/* filled in */
	GArray *runs; /* int64_t, the runs that ended well */
	unsigned int violations, reused;
	/* A stored selection: its condition before compare_distinct_sql,
	 * and how many copies of its runs it had. */
	char *raw_cond;
	unsigned int copies;
	/* Its runs by workload type: a figure of work of their own (ebizzy,
	 * kbuild, netperf), or not known (a run stored before schema 12's
	 * params); locktest's and locktorture's unit is an acquisition. */
	unsigned int own_work, unknown_work;
	GArray *vals[NM]; /* double, one per run */
	GArray *prints;	  /* struct print, one per run, sorted */
	struct stats_sample s[NM];
	struct stats_diff d[NM];
};

static void variant_free(gpointer p)
{
	struct variant *v = p;

	g_free(v->label);
	g_free(v->path);
	g_strfreev(v->sets);
	g_free(v->cond);
	g_free(v->raw_cond);
	if (v->binds)
		g_ptr_array_free(v->binds, TRUE);
	g_array_free(v->runs, TRUE);
	g_array_free(v->prints, TRUE);
	for (unsigned int m = 0; m < NM; m++)
		g_array_free(v->vals[m], TRUE);
	g_free(v);
}

static struct variant *variant_new(char *label)
{
	struct variant *v = g_new0(struct variant, 1);

	v->label = label;
	v->runs = g_array_new(FALSE, FALSE, sizeof(int64_t));
	v->prints = g_array_new(FALSE, FALSE, sizeof(struct print));
	for (unsigned int m = 0; m < NM; m++)
		v->vals[m] = g_array_new(FALSE, FALSE, sizeof(double));
	return v;
}

const char *compare_metric_sql(const char *name, const char **unit)
{
	for (unsigned int m = 0; m < NM; m++)
		if (strcmp(metrics[m].name, name) == 0) {
			if (unit)
				*unit = metrics[m].unit;
			return metrics[m].sql;
		}
	return NULL;
}

static int metric_find(const char *name)
{
	for (unsigned int m = 0; m < NM; m++)
		if (strcmp(metrics[m].name, name) == 0)
			return (int)m;
	return -1;
}

char *compare_metric_names(void)
{
	GString *s = g_string_new(NULL);

	for (unsigned int m = 0; m < NM; m++)
		g_string_append_printf(s, "%s%s", m ? ", " : "",
				       metrics[m].name);
	return g_string_free(s, FALSE);
}

/* A "section.key=..." whose key part names a section and a key. */
static bool split_setting(const char *spec, char **key, char **value,
			  GError **error)
{
	const char *eq = strchr(spec, '=');
	const char *dot = strchr(spec, '.');

	if (!eq || !dot || dot > eq || dot == spec || dot + 1 == eq) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "'%s': expected section.key=value", spec);
		return false;
	}
	*key = g_strndup(spec, (gsize)(eq - spec));
	*value = g_strdup(eq + 1);
	/* a misspelled key would select nothing, or fail far from here */
	{
		g_autofree char *sec = g_strndup(spec, (gsize)(dot - spec));
		g_autoptr(GError) e = NULL;

		if (!cfg_key_check(sec, *key + (dot - spec) + 1, &e)) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE, "'%s': %s", spec,
				    e->message);
			g_clear_pointer(key, g_free);
			g_clear_pointer(value, g_free);
			return false;
		}
	}
	return true;
}

/* A decimal the way a scenario writes it: 1, 1.25, 0.5. */
static char *decimal_text(double x)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	return g_strdup(g_ascii_formatd(buf, sizeof(buf), "%.10g", x));
}

bool compare_grid_values(const char *spec, char **key, GPtrArray *values,
			 GError **error)
{
	g_autofree char *v = NULL;
	const char *dots;

	if (!split_setting(spec, key, &v, error))
		return false;
	dots = strstr(v, "..");
	if (dots) {
		/* LO..HI[:STEP], inclusive, step 1 by default */
		g_autofree char *lo_s = g_strndup(v, (gsize)(dots - v));
		const char *colon = strchr(dots + 2, ':');
		g_autofree char *hi_s =
			colon ? g_strndup(dots + 2, (gsize)(colon - dots - 2))
			      : g_strdup(dots + 2);
		char *e1, *e2, *e3 = NULL;
		double lo = g_ascii_strtod(lo_s, &e1);
		double hi = g_ascii_strtod(hi_s, &e2);
		double step = colon ? g_ascii_strtod(colon + 1, &e3) : 1;
		double n;

		if (!*lo_s || *e1 || !*hi_s || *e2 || (colon && *e3) ||
		    !(step > 0) || !(hi >= lo) || !isfinite(lo) ||
		    !isfinite(hi)) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--grid '%s': a range is LO..HI or "
				    "LO..HI:STEP, with LO <= HI and STEP > 0",
				    spec);
			g_clear_pointer(key, g_free);
			return false;
		}
		n = floor((hi - lo) / step + 1e-9);
		if (n >= 10000) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--grid '%s': %.0f values; at most 10000",
				    spec, n + 1);
			g_clear_pointer(key, g_free);
			return false;
		}
		for (double i = 0; i <= n; i++)
			g_ptr_array_add(values, decimal_text(lo + i * step));
		return true;
	}
	{
		/* "KEY=" splits into no parts at all: one empty value */
		g_auto(GStrv) parts = g_strsplit(*v ? v : ",", ",", -1);

		for (char **p = parts; *p; p++) {
			if (!**p) {
				g_set_error(error, G_OPTION_ERROR,
					    G_OPTION_ERROR_BAD_VALUE,
					    "'%s': an empty value", spec);
				g_clear_pointer(key, g_free);
				return false;
			}
			g_ptr_array_add(values, g_strdup(*p));
		}
	}
	return true;
}

/*
 * The cross product of @specs (KEY=V1,V2 or ranges) as lists of
 * "key=value" settings, the first spec outermost.  NULL with @error.
 */
static GPtrArray *cross(char **specs, GError **error)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_ptr_array_unref);

	g_autoptr(GHashTable) keys =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	g_ptr_array_add(rows, g_ptr_array_new_with_free_func(g_free));
	for (char **s = specs; s && *s; s++) {
		g_autofree char *key = NULL;
		g_autoptr(GPtrArray) vals =
			g_ptr_array_new_with_free_func(g_free);
		GPtrArray *next = g_ptr_array_new_with_free_func(
			(GDestroyNotify)g_ptr_array_unref);

		if (!compare_grid_values(*s, &key, vals, error)) {
			g_ptr_array_unref(next);
			g_ptr_array_unref(rows);
			return NULL;
		}
		/* twice: the last value would win, the label show both */
		if (!g_hash_table_add(keys, g_strdup(key))) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "%s varied twice: give all its values in "
				    "one (%s=A,B,...)",
				    key, key);
			g_ptr_array_unref(next);
			g_ptr_array_unref(rows);
			return NULL;
		}
		for (guint r = 0; r < rows->len; r++) {
			GPtrArray *row = g_ptr_array_index(rows, r);

			for (guint k = 0; k < vals->len; k++) {
				GPtrArray *n =
					g_ptr_array_new_with_free_func(g_free);

				for (guint c = 0; c < row->len; c++)
					g_ptr_array_add(
						n, g_strdup(g_ptr_array_index(
							   row, c)));
				g_ptr_array_add(
					n, g_strdup_printf(
						   "%s=%s", key,
						   (char *)g_ptr_array_index(
							   vals, k)));
				g_ptr_array_add(next, n);
			}
		}
		g_ptr_array_unref(rows);
		rows = next;
		if (rows->len > 100000) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "more than 100000 points");
			g_ptr_array_unref(rows);
			return NULL;
		}
	}
	return rows;
}

/* A fresh variant: @path with the common sets, then @row's. */
static struct variant *fresh_variant(const struct compare_opts *o,
				     const char *path, GPtrArray *row,
				     bool name_file)
{
	g_autoptr(GString) label = g_string_new(NULL);
	g_autoptr(GPtrArray) sets = g_ptr_array_new();
	struct variant *v;

	if (name_file || !row->len) {
		g_autofree char *base = g_path_get_basename(path);

		g_string_append(label, base);
	}
	for (char **s = o->sets; s && *s; s++)
		g_ptr_array_add(sets, g_strdup(*s));
	for (guint c = 0; c < row->len; c++) {
		const char *kv = g_ptr_array_index(row, c);

		g_string_append_printf(label, "%s%s", label->len ? " " : "",
				       kv);
		g_ptr_array_add(sets, g_strdup(kv));
	}
	g_ptr_array_add(sets, NULL);
	v = variant_new(g_strdup(label->str));
	v->path = g_strdup(path);
	v->sets = (char **)g_ptr_array_free(g_steal_pointer(&sets), FALSE);
	return v;
}

bool compare_where_sql(const char *tag, const char *where, GString *cond,
		       GPtrArray *binds, GError **error)
{
	if (tag) {
		g_string_append_printf(cond,
				       "%sEXISTS (SELECT 1 FROM run_tags t "
				       "WHERE t.run_id = r.id AND t.tag = ?)",
				       cond->len ? " AND " : "");
		g_ptr_array_add(binds, g_strdup(tag));
		return true;
	}
	g_auto(GStrv) parts = g_strsplit(where, ";", -1);
	bool any = false;

	for (char **p = parts; *p; p++) {
		g_autofree char *k = NULL, *val = NULL;
		char *dot;

		g_strstrip(*p);
		if (!**p)
			continue;
		if (!split_setting(*p, &k, &val, error))
			return false;
		dot = strchr(k, '.');
		*dot = '\0';
		g_string_append_printf(cond,
				       "%sEXISTS (SELECT 1 FROM params p WHERE "
				       "p.run_id = r.id AND p.section = ? AND "
				       "p.key = ? AND p.value = ?)",
				       cond->len ? " AND " : "");
		g_ptr_array_add(binds, g_strdup(k));
		g_ptr_array_add(binds, g_strdup(dot + 1));
		g_ptr_array_add(binds, g_strdup(val));
		any = true;
	}
	if (!any) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--where '%s': no condition", where);
		return false;
	}
	return true;
}

void compare_distinct_sql(GString *cond)
{
	g_autofree char *inner = g_strdup(cond->str);

	g_string_printf(cond,
			"r.id IN (SELECT MIN(r.id) FROM runs r WHERE %s GROUP "
			"BY COALESCE(r.params_sha256, r.id), "
			"COALESCE(r.binary_sha256, r.id))",
			inner);
}

/* A stored group by tag, or by "sec.key=value;..." of resolved keys. */
static struct variant *stored_variant(const char *tag, const char *where,
				      GError **error)
{
	g_autoptr(GString) cond = g_string_new(NULL);
	GPtrArray *binds = g_ptr_array_new_with_free_func(g_free);
	struct variant *v;

	if (!compare_where_sql(tag, where, cond, binds, error)) {
		g_ptr_array_free(binds, TRUE);
		return NULL;
	}
	v = variant_new(tag ? g_strdup_printf("tag %s", tag)
			    : g_strdup_printf("where %s", where));
	v->raw_cond = g_strdup(cond->str);
	compare_distinct_sql(cond);
	v->cond = g_strdup(cond->str);
	v->binds = binds;
	return v;
}

/*
 * No two variants the same (a file given twice, a value listed twice, a
 * tag or selection twice): each would be compared with itself, and their
 * runs counted twice.
 */
static bool distinct_variants(const struct compare_opts *o, GPtrArray *vs,
			      GError **error)
{
	g_autoptr(GHashTable) seen =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < vs->len; i++) {
		struct variant *v = g_ptr_array_index(vs, i);
		g_autoptr(GString) id = g_string_new(NULL);
		gpointer first;

		if (v->path) {
			g_autofree char *canon =
				g_canonicalize_filename(v->path, NULL);

			g_string_append_printf(id, "file %s", canon);
			for (char **k = v->sets; *k; k++)
				g_string_append_printf(id, "\n%s", *k);
		} else {
			g_string_append_printf(id, "stored %s", v->cond);
			for (guint b = 0; b < v->binds->len; b++)
				g_string_append_printf(
					id, "\n%s",
					(char *)g_ptr_array_index(v->binds, b));
		}
		if (g_hash_table_lookup_extended(seen, id->str, NULL, &first)) {
			const struct variant *f =
				g_ptr_array_index(vs, GPOINTER_TO_UINT(first));

			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "%s %s and %s are the same (%s): it would "
				    "be %s itself; give each once",
				    o->sweep ? "points" : "variants", f->label,
				    v->label,
				    v->path ? "one scenario, the same settings"
					    : "the same stored runs",
				    o->sweep ? "run as" : "compared with");
			return false;
		}
		g_hash_table_insert(seen,
				    g_string_free(g_steal_pointer(&id), FALSE),
				    GUINT_TO_POINTER(i));
	}
	return true;
}

static GPtrArray *build_variants(const struct compare_opts *o, GError **error)
{
	g_autoptr(GPtrArray) vs = g_ptr_array_new_with_free_func(variant_free);
	g_autoptr(GPtrArray) rows = cross(o->sweep ? o->grid : o->vary, error);
	guint nfiles = o->files ? g_strv_length(o->files) : 0;

	if (!rows) {
		/* name the option the spec came from (unless it does) */
		if (!g_str_has_prefix((*error)->message, "--"))
			g_prefix_error(error, "%s ",
				       o->sweep ? "--grid" : "--vary");
		return NULL;
	}
	for (guint f = 0; f < nfiles; f++)
		for (guint r = 0; r < rows->len; r++)
			g_ptr_array_add(
				vs, fresh_variant(o, o->files[f],
						  g_ptr_array_index(rows, r),
						  nfiles > 1 || !o->sweep));
	for (char **t = o->tags; t && *t; t++)
		g_ptr_array_add(vs, stored_variant(*t, NULL, error));
	for (char **w = o->wheres; w && *w; w++) {
		struct variant *v = stored_variant(NULL, *w, error);

		if (!v)
			return NULL;
		g_ptr_array_add(vs, v);
	}
	if (!distinct_variants(o, vs, error))
		return NULL;
	return g_steal_pointer(&vs);
}

/*
 * The loader names every override "--set KEY"; a value that came from
 * --grid or --vary is named so (the user wrote no --set for it).
 */
static void name_option(const struct compare_opts *o, const struct variant *v,
			GError *err)
{
	const char *k;
	size_t n;
	char *m;

	if (!g_str_has_prefix(err->message, "--set "))
		return;
	k = err->message + strlen("--set ");
	n = strcspn(k, " =:");
	/* the variant's own settings come after the common --set ones and
	 * win: a key among them is the one whose value was refused */
	for (char **s = v->sets + (o->sets ? g_strv_length(o->sets) : 0); *s;
	     s++)
		if (!strncmp(*s, k, n) && (*s)[n] == '=') {
			m = g_strconcat(o->sweep ? "--grid " : "--vary ", k,
					NULL);
			g_free(err->message);
			err->message = m;
			return;
		}
}

/* Every point of the fresh variants, loaded and checked: bad input is
 * found before anything runs. */
static GPtrArray *make_points(const struct compare_opts *o, GPtrArray *vs,
			      GError **error)
{
	g_autoptr(GPtrArray) pts = g_ptr_array_new_with_free_func(point_free);

	for (guint i = 0; i < vs->len; i++) {
		struct variant *v = g_ptr_array_index(vs, i);

		if (!v->path)
			continue;
		for (unsigned int s = 0; s < o->seeds; s++) {
			g_autoptr(GPtrArray) sets = g_ptr_array_new();
			g_autofree char *seed =
				g_strdup_printf("run.seed=%" G_GUINT64_FORMAT,
						o->first_seed + s);
			struct point *p = g_new0(struct point, 1);

			for (char **k = v->sets; *k; k++)
				g_ptr_array_add(sets, *k);
			g_ptr_array_add(sets, seed);
			g_ptr_array_add(sets, NULL);
			p->variant = i;
			p->cfg = cfg_load(v->path, (char **)sets->pdata, error);
			if (!p->cfg) {
				g_free(p);
				name_option(o, v, *error);
				return NULL;
			}
			g_ptr_array_add(pts, p);
		}
	}
	return g_steal_pointer(&pts);
}

/* @sql prepared on @st, or NULL with @error naming the store. */
static sqlite3_stmt *prepare(struct store *st, const char *sql, GError **error)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		g_set_error(error, STORE_ERROR, 1, "%s: %s", st->path,
			    sqlite3_errmsg(st->db));
		return NULL;
	}
	return q;
}

/* "@head WHERE @cond @tail" with @v's texts bound. */
static sqlite3_stmt *stored_query(struct store *st, const struct variant *v,
				  const char *head, const char *cond,
				  const char *tail, GError **error)
{
	g_autofree char *sql =
		g_strdup_printf("%s WHERE %s %s", head, cond, tail);
	sqlite3_stmt *q = prepare(st, sql, error);

	if (!q)
		return NULL;
	for (guint b = 0; b < v->binds->len; b++)
		sqlite3_bind_text(q, (int)b + 1, g_ptr_array_index(v->binds, b),
				  -1, SQLITE_STATIC);
	return q;
}

static bool stored_runs(struct store *st, struct variant *v, GError **error)
{
	sqlite3_stmt *q =
		stored_query(st, v, "SELECT id, status <> 'ok' FROM runs r",
			     v->cond, "ORDER BY id", error);
	int rc;

	if (!q)
		return false;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);

		if (sqlite3_column_int(q, 1))
			v->violations++;
		else
			g_array_append_val(v->runs, id);
		v->reused++;
	}
	if (!store_step_done(st->db, st->path, rc, error)) {
		sqlite3_finalize(q);
		return false;
	}
	sqlite3_finalize(q);
	q = stored_query(st, v, "SELECT COUNT(*) FROM runs r", v->raw_cond, "",
			 error);
	if (!q)
		return false;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		v->copies =
			(unsigned int)sqlite3_column_int64(q, 0) - v->reused;
		rc = SQLITE_DONE;
	}
	if (!store_step_done(st->db, st->path, rc, error)) {
		sqlite3_finalize(q);
		return false;
	}
	sqlite3_finalize(q);
	return true;
}

static int print_cmp(const void *a, const void *b)
{
	const struct print *x = a, *y = b;

	if (x->events != y->events)
		return x->events < y->events ? -1 : 1;
	if (x->measured_ps != y->measured_ps)
		return x->measured_ps < y->measured_ps ? -1 : 1;
	if (x->acquisitions != y->acquisitions)
		return x->acquisitions < y->acquisitions ? -1 : 1;
	return 0;
}

/* The prints of @v's runs, sorted (runs finish in any order). */
static bool read_prints(struct store *st, struct variant *v, GError **error)
{
	sqlite3_stmt *q;

	q = prepare(st,
		    "SELECT r.events, r.measured_ps, (SELECT "
		    "SUM(acquisitions) FROM lock_results WHERE "
		    "run_id = r.id) FROM runs r WHERE r.id = ?1",
		    error);
	if (!q)
		return false;
	for (guint r = 0; r < v->runs->len; r++) {
		struct print p = {0};
		int rc;

		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, g_array_index(v->runs, int64_t, r));
		rc = sqlite3_step(q);
		if (rc == SQLITE_ROW) {
			p.events = sqlite3_column_int64(q, 0);
			p.measured_ps = sqlite3_column_int64(q, 1);
			p.acquisitions = sqlite3_column_int64(q, 2);
		} else if (!store_step_done(st->db, st->path, rc, error)) {
			sqlite3_finalize(q);
			return false;
		}
		g_array_append_val(v->prints, p);
	}
	sqlite3_finalize(q);
	g_array_sort(v->prints, print_cmp);
	return true;
}

/*
 * Two variants that differ in their settings but simulated exactly alike
 * on every seed: a key varied that this scenario never reads (a lock's
 * tunable under another lock, say).  Said on stderr, so that a "same"
 * verdict is not taken for a measured one.
 */
static void note_identical(GPtrArray *vs, const char *what)
{
	unsigned int said = 0;

	for (guint i = 0; i < vs->len; i++) {
		const struct variant *a = g_ptr_array_index(vs, i);

		for (guint j = i + 1; j < vs->len && said < 8; j++) {
			const struct variant *b = g_ptr_array_index(vs, j);

			if (!a->prints->len ||
			    a->prints->len != b->prints->len ||
			    memcmp(a->prints->data, b->prints->data,
				   a->prints->len * sizeof(struct print)))
				continue;
			fprintf(stderr,
				"%s: note: %s and %s simulated exactly alike "
				"on every run (the same events, measured "
				"time and acquisitions): what they differ in "
				"has no "
				"effect on this scenario\n",
				what, a->label, b->label);
			said++;
		}
	}
}

/* Each metric of each run of @v, from the store; NAN where it has none. */
/* Count @v's runs whose workload has units of its own, or is not known. */
static bool read_work_types(struct store *st, struct variant *v, GError **error)
{
	sqlite3_stmt *q;

	q = prepare(st,
		    "SELECT value FROM params WHERE run_id = ?1 "
		    "AND section = 'workload' AND key = 'type'",
		    error);
	if (!q)
		return false;
	for (guint r = 0; r < v->runs->len; r++) {
		int rc;

		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, g_array_index(v->runs, int64_t, r));
		rc = sqlite3_step(q);
		if (rc != SQLITE_ROW) {
			if (!store_step_done(st->db, st->path, rc, error)) {
				sqlite3_finalize(q);
				return false;
			}
			v->unknown_work++;
		} else {
			const char *t = (const char *)sqlite3_column_text(q, 0);

			if (t && strcmp(t, "locktest") != 0 &&
			    strcmp(t, "locktorture") != 0)
				v->own_work++;
		}
	}
	sqlite3_finalize(q);
	return true;
}

static bool read_metrics(struct store *st, struct variant *v, GError **error)
{
	if (!read_prints(st, v, error) || !read_work_types(st, v, error))
		return false;
	for (unsigned int m = 0; m < NM; m++) {
		sqlite3_stmt *q;

		q = prepare(st, metrics[m].sql, error);
		if (!q)
			return false;
		for (guint r = 0; r < v->runs->len; r++) {
			double x = NAN;
			int rc;

			sqlite3_reset(q);
			sqlite3_bind_int64(q, 1,
					   g_array_index(v->runs, int64_t, r));
			rc = sqlite3_step(q);
			if (rc == SQLITE_ROW) {
				if (sqlite3_column_type(q, 0) != SQLITE_NULL)
					x = sqlite3_column_double(q, 0);
			} else if (!store_step_done(st->db, st->path, rc,
						    error)) {
				sqlite3_finalize(q);
				return false;
			}
			g_array_append_val(v->vals[m], x);
		}
		sqlite3_finalize(q);
	}
	return true;
}

static void judge(GPtrArray *vs)
{
	for (guint i = 0; i < vs->len; i++) {
		struct variant *v = g_ptr_array_index(vs, i);

		for (unsigned int m = 0; m < NM; m++) {
			g_autoptr(GArray) ok =
				g_array_new(FALSE, FALSE, sizeof(double));

			for (guint r = 0; r < v->vals[m]->len; r++) {
				double x = g_array_index(v->vals[m], double, r);

				if (!isnan(x))
					g_array_append_val(ok, x);
			}
			stats_sample((double *)ok->data, ok->len, &v->s[m]);
		}
	}
	for (guint i = 1; i < vs->len; i++) {
		struct variant *a = g_ptr_array_index(vs, 0);
		struct variant *b = g_ptr_array_index(vs, i);

		for (unsigned int m = 0; m < NM; m++)
			stats_welch(&a->s[m], &b->s[m], &b->d[m]);
	}
}

static const char *verdict(const struct variant *b, unsigned int m)
{
	const struct stats_diff *d = &b->d[m];

	if (!d->defined)
		return "too few runs";
	if (!d->significant)
		return "no significant difference";
	return (d->diff > 0) == (metrics[m].better > 0) ? "better" : "worse";
}

/* @x briefly: 1.146M, 35.8k, 131.0, 0.9999. */
static char *num(double x)
{
	if (isnan(x))
		return g_strdup("-");
	if (fabs(x) >= 1e6)
		return g_strdup_printf("%.4gM", x / 1e6);
	if (fabs(x) >= 1e4)
		return g_strdup_printf("%.4gk", x / 1e3);
	return g_strdup_printf("%.4g", x);
}

/* @part as a percentage of @whole, signed (a change) or not (a spread). */
static char *pct(double part, double whole, bool sign)
{
	if (isnan(part) || !isfinite(part / whole))
		return g_strdup("-");
	return g_strdup_printf(sign ? "%+.2f%%" : "%.2f%%",
			       100 * part / fabs(whole));
}

/* Whether the shown metrics are @o's or the defaults; "work" is shown only
 * where it is not the throughput (a workload other than the lock loops). */
static bool shown(const struct compare_opts *o, GPtrArray *vs, unsigned int m)
{
	if (o->metrics)
		return g_strv_contains((const char *const *)o->metrics,
				       metrics[m].name);
	if (o->sweep)
		return g_strv_contains(sweep_default, metrics[m].name);
	if (strcmp(metrics[m].name, "work") == 0) {
		/* Only where a workload has units of its own: locktest's
		 * and locktorture's are acquisitions (counted when a step
		 * ends, not when the lock is taken, so at the window's edges
		 * they may differ by one a vCPU).  A run stored without its
		 * type shows it if it is not the throughput within 0.1%. */
		unsigned int t = (unsigned int)metric_find("throughput");

		for (guint i = 0; i < vs->len; i++) {
			struct variant *v = g_ptr_array_index(vs, i);

			if (v->own_work || (v->unknown_work &&
					    fabs(v->s[m].mean - v->s[t].mean) >
						    1e-3 * fabs(v->s[t].mean)))
				return true;
		}
		return false;
	}
	return true;
}

static void print_variants(FILE *out, GPtrArray *vs)
{
	for (guint i = 0; i < vs->len; i++) {
		struct variant *v = g_ptr_array_index(vs, i);

		fprintf(out, "  %c  %s: %u run%s", 'A' + (int)(i % 26),
			v->label, v->runs->len, v->runs->len == 1 ? "" : "s");
		if (v->reused && v->path)
			fprintf(out, " (%u stored before)", v->reused);
		if (v->violations)
			fprintf(out, "; %u ended in a VIOLATION, left out",
				v->violations);
		fprintf(out, "\n");
	}
}

static void print_compare(FILE *out, const struct compare_opts *o,
			  GPtrArray *vs)
{
	fprintf(out,
		"qsim compare: %u variants; mean over runs with its 95%% "
		"interval (Student's t);\nchange against A with its 95%% "
		"interval (Welch's t): a verdict where it excludes 0\n\n",
		vs->len);
	print_variants(out, vs);
	/* "±" is two bytes and one column: its field is a byte wider */
	fprintf(out, "\n%-13s %-3s %4s %10s %10s %9s %-21s %s\n", "metric", "",
		"n", "mean", "±95%", "change", "95% interval", "verdict");
	for (unsigned int m = 0; m < NM; m++) {
		if (!shown(o, vs, m))
			continue;
		for (guint i = 0; i < vs->len; i++) {
			struct variant *v = g_ptr_array_index(vs, i);
			struct variant *a = g_ptr_array_index(vs, 0);
			g_autofree char *mean = num(v->s[m].mean);
			g_autofree char *ci =
				pct(v->s[m].ci, v->s[m].mean, false);
			g_autofree char *ch = NULL, *lo = NULL, *hi = NULL;
			g_autofree char *iv = NULL;

			fprintf(out, "%-13s %-3c %4u %10s %9s",
				i ? "" : metrics[m].name, 'A' + (int)(i % 26),
				v->s[m].n, mean, ci);
			if (i) {
				ch = pct(v->d[m].diff, a->s[m].mean, true);
				lo = pct(v->d[m].lo, a->s[m].mean, true);
				hi = pct(v->d[m].hi, a->s[m].mean, true);
				iv = v->d[m].defined
					     ? g_strdup_printf("[%s, %s]", lo,
							       hi)
					     : g_strdup("");
				fprintf(out, " %9s %-21s %s", ch, iv,
					verdict(v, m));
			}
			fprintf(out, "\n");
		}
	}
}

static void print_sweep(FILE *out, const struct compare_opts *o, GPtrArray *vs)
{
	int w = 5;

	for (guint i = 0; i < vs->len; i++)
		w = MAX(w,
			(int)strlen(((struct variant *)g_ptr_array_index(vs, i))
					    ->label));
	fprintf(out, "\n%-*s %4s", w, "point", "n");
	for (unsigned int m = 0; m < NM; m++)
		if (shown(o, vs, m))
			fprintf(out, "  %21s", metrics[m].name);
	fprintf(out, "\n");
	for (guint i = 0; i < vs->len; i++) {
		struct variant *v = g_ptr_array_index(vs, i);

		fprintf(out, "%-*s %4u", w, v->label, v->runs->len);
		for (unsigned int m = 0; m < NM; m++) {
			g_autofree char *mean = NULL, *ci = NULL;
			g_autofree char *cell = NULL;

			if (!shown(o, vs, m))
				continue;
			mean = num(v->s[m].mean);
			ci = pct(v->s[m].ci, v->s[m].mean, false);
			cell = g_strdup_printf("%s ±%s", mean, ci);
			fprintf(out, "  %21s", cell);
		}
		fprintf(out, "\n");
	}
	fprintf(out, "(mean over seeds, then the half-width of its 95%% "
		     "interval, Student's t, as a percentage of the mean)\n");
}

static char *to_json(const struct compare_opts *o, GPtrArray *vs)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "command");
	json_builder_add_string_value(b, o->sweep ? "sweep" : "compare");
	json_builder_set_member_name(b, "method");
	json_builder_add_string_value(
		b, o->sweep ? "mean with its 95% interval (Student's t)"
			    : "mean with its 95% interval (Student's t); "
			      "difference against the first variant with its "
			      "95% interval (Welch's t)");
	json_builder_set_member_name(b, "variants");
	json_builder_begin_array(b);
	for (guint i = 0; i < vs->len; i++) {
		struct variant *v = g_ptr_array_index(vs, i);

		json_builder_begin_object(b);
		json_builder_set_member_name(b, "label");
		json_builder_add_string_value(b, v->label);
		json_builder_set_member_name(b, "runs");
		json_builder_begin_array(b);
		for (guint r = 0; r < v->runs->len; r++)
			json_builder_add_int_value(
				b, g_array_index(v->runs, int64_t, r));
		json_builder_end_array(b);
		json_builder_set_member_name(b, "violations");
		json_builder_add_int_value(b, v->violations);
		json_builder_set_member_name(b, "metrics");
		json_builder_begin_object(b);
		for (unsigned int m = 0; m < NM; m++) {
			if (!shown(o, vs, m))
				continue;
			json_builder_set_member_name(b, metrics[m].name);
			json_builder_begin_object(b);
			json_builder_set_member_name(b, "n");
			json_builder_add_int_value(b, v->s[m].n);
			report_json_real(b, "mean", v->s[m].mean);
			report_json_real(b, "sd", v->s[m].sd);
			report_json_real(b, "ci95", v->s[m].ci);
			if (i && !o->sweep) {
				report_json_real(b, "diff", v->d[m].diff);
				report_json_real(b, "diff_lo", v->d[m].lo);
				report_json_real(b, "diff_hi", v->d[m].hi);
				json_builder_set_member_name(b, "verdict");
				json_builder_add_string_value(b, verdict(v, m));
			}
			json_builder_end_object(b);
		}
		json_builder_end_object(b);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	return report_json_text(b);
}

/* @x and a comma, or only the comma where @x is not a number (no runs,
 * or one: no spread), as an empty cell. */
static void csv_num(GString *s, double x, const char *end)
{
	if (isfinite(x))
		g_string_append_printf(s, "%.10g", x);
	g_string_append(s, end);
}

static char *to_csv(const struct compare_opts *o, GPtrArray *vs)
{
	GString *s = g_string_new("metric,variant,n,mean,sd,ci95,diff,"
				  "diff_lo,diff_hi,verdict\n");

	for (unsigned int m = 0; m < NM; m++) {
		if (!shown(o, vs, m))
			continue;
		for (guint i = 0; i < vs->len; i++) {
			struct variant *v = g_ptr_array_index(vs, i);
			g_autofree char *q = g_strdup(v->label);
			bool d = i && !o->sweep;

			g_strdelimit(q, "\",", ' ');
			g_string_append_printf(s, "%s,%s,%u,", metrics[m].name,
					       q, v->s[m].n);
			csv_num(s, v->s[m].mean, ",");
			csv_num(s, v->s[m].sd, ",");
			csv_num(s, v->s[m].ci, ",");
			if (d) {
				csv_num(s, v->d[m].diff, ",");
				csv_num(s, v->d[m].lo, ",");
				csv_num(s, v->d[m].hi, ",");
				g_string_append_printf(s, "%s\n",
						       verdict(v, m));
			} else {
				g_string_append(s, ",,,\n");
			}
		}
	}
	return g_string_free(s, FALSE);
}

static bool write_out(const char *path, const char *text, FILE *out,
		      GError **error)
{
	if (strcmp(path, "-") == 0) {
		fputs(text, out);
		return true;
	}
	return qsim_write_file(path, text, error);
}

/* --fail-if METRIC:worse[:PCT]: checked, then applied. */
static bool parse_fail_if(const char *spec, int *m, double *limit,
			  GError **error)
{
	g_auto(GStrv) p = g_strsplit(spec, ":", 3);
	char *end = NULL;

	*m = p[0] ? metric_find(p[0]) : -1;
	*limit = 0;
	if (*m >= 0 && p[1] && strcmp(p[1], "worse") == 0 &&
	    (!p[2] || ((*limit = g_ascii_strtod(p[2], &end)) >= 0 &&
		       end != p[2] && !*end)))
		return true;
	{
		g_autofree char *names = compare_metric_names();

		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--fail-if '%s': expected METRIC:worse or "
			    "METRIC:worse:PCT, METRIC one of %s",
			    spec, names);
	}
	return false;
}

/* Does one of @specs ("section.key=...") set @key (up to its '=')? */
static bool sets_key(char **specs, const char *spec)
{
	size_t n = strcspn(spec, "=");

	for (char **s = specs; s && *s; s++)
		if (strncmp(*s, spec, n) == 0 && (*s)[n] == '=')
			return true;
	return false;
}

/*
 * Settings that cannot do what they say: a seed (every point runs the
 * seeds of --seeds and --first-seed, which would replace it), and a key
 * both --set and varied (the varied values would replace the --set one).
 */
static bool check_settings(const struct compare_opts *o, GError **error)
{
	const char *vopt = o->sweep ? "--grid" : "--vary";
	char **varied = o->sweep ? o->grid : o->vary;
	const struct {
		const char *opt;
		char **specs;
	} all[] = {{"--set", o->sets}, {vopt, varied}};

	for (unsigned int i = 0; i < G_N_ELEMENTS(all); i++)
		for (char **s = all[i].specs; s && *s; s++)
			if (g_str_has_prefix(*s, "run.seed=")) {
				g_set_error(
					error, G_OPTION_ERROR,
					G_OPTION_ERROR_BAD_VALUE,
					"%s '%s': every %s runs the seeds "
					"--first-seed S to S + --seeds N - 1 "
					"(default 1 to %u), which would "
					"replace it; give those instead",
					all[i].opt, *s,
					o->sweep ? "point" : "variant",
					o->sweep ? 3 : 5);
				return false;
			}
	for (char **s = o->sets; s && *s; s++)
		if (sets_key(varied, *s)) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--set '%s': %s gives the same key, whose "
				    "values would replace it; give the key in "
				    "one of them",
				    *s, vopt);
			return false;
		}
	return true;
}

static bool check_input(const struct compare_opts *o, GError **error)
{
	if (!check_settings(o, error))
		return false;
	for (char **m = o->metrics; m && *m; m++)
		if (metric_find(*m) < 0) {
			g_autofree char *names = compare_metric_names();

			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--metric '%s': one of %s", *m, names);
			return false;
		}
	for (char **f = o->fail_if; f && *f; f++) {
		int m;
		double l;

		if (!parse_fail_if(*f, &m, &l, error))
			return false;
	}
	return true;
}

/* How many of the variants --fail-if finds worse, named on stdout. */
static unsigned int failed_checks(const struct compare_opts *o, GPtrArray *vs,
				  FILE *out)
{
	unsigned int n = 0;

	for (char **f = o->fail_if; f && *f; f++) {
		int m;
		double limit;

		parse_fail_if(*f, &m, &limit, NULL);
		for (guint i = 1; i < vs->len; i++) {
			struct variant *a = g_ptr_array_index(vs, 0);
			struct variant *v = g_ptr_array_index(vs, i);
			double change =
				100 * fabs(v->d[m].diff) / fabs(a->s[m].mean);

			/* A gate that cannot decide does not pass. */
			if (!v->d[m].defined) {
				fprintf(out,
					"FAIL --fail-if %s: %s against %s: too "
					"few runs to decide (%u and %u; a "
					"verdict needs 2 on each side)\n",
					*f, v->label, a->label, v->s[m].n,
					a->s[m].n);
				n++;
				continue;
			}
			if (strcmp(verdict(v, (unsigned int)m), "worse") ||
			    change < limit)
				continue;
			fprintf(out,
				"FAIL --fail-if %s: %s is worse than %s by "
				"%.2f%%\n",
				*f, v->label, a->label, change);
			n++;
		}
	}
	return n;
}

/* A file of the job directory, executable when it is a script. */
static bool put(const char *dir, const char *name, const char *text,
		bool script, GError **error)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);

	if (!g_file_set_contents(path, text, -1, error))
		return false;
	if (script && g_chmod(path, 0755) != 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", path, g_strerror(errno));
		return false;
	}
	return true;
}

/*
 * qsim sweep --emit-jobs DIR: every point and seed as one `qsim run` line
 * of DIR/jobs.txt, each into its own database under DIR/db, run from DIR
 * on a copy of the scenario; DIR/parallel.sh runs them with GNU parallel,
 * DIR/slurm.sbatch as a Slurm job array (chunks of lines, so that the
 * array stays under Slurm's default MaxArraySize of 1001), and
 * DIR/merge.sh merges the databases into the sweep's --db.  Runs nothing.
 */
/*
 * The database the jobs' results are merged into, checked now, not after
 * every job has run: an existing one must be a qsim database (migrated now,
 * as the merge would), a new one creatable in its folder.
 */
static bool emit_db_ok(const char *db, GError **error)
{
	struct store *st;
	int fd;

	if (g_file_test(db, G_FILE_TEST_EXISTS)) {
		st = store_open(db, error);
		if (!st)
			return false;
		store_close(st);
		return true;
	}
	/* a trial creation, taken back: nothing is left under the name */
	fd = g_open(db, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "--db %s: the merge could not create it (%s): use "
			    "another --db",
			    db, g_strerror(errno));
		return false;
	}
	close(fd);
	g_unlink(db);
	return true;
}

/* @text (from option @opt) has no line break, or an error says so. */
static bool one_line(const char *opt, const char *text, GError **error)
{
	if (text && strpbrk(text, "\n\r")) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--emit-jobs: %s holds a line break, which would "
			    "split its job in jobs.txt",
			    opt);
		return false;
	}
	return true;
}

static bool emit_jobs(const struct compare_opts *o, GPtrArray *pts, FILE *out,
		      GError **error)
{
	g_autofree char *exe = g_file_read_link("/proc/self/exe", error);
	g_autofree char *dir = NULL, *db = NULL, *text = NULL;
	g_autofree char *qexe = NULL, *qdir = NULL, *qdb = NULL;
	g_autofree char *qini = NULL, *ini = NULL, *qqdb = NULL;
	g_autoptr(GDir) d = NULL;
	g_autoptr(GString) jobs = g_string_new(NULL);
	g_autofree char *par = NULL, *merge = NULL, *slurm = NULL;
	guint chunk, tasks;

	if (!exe)
		return false;
	dir = g_canonicalize_filename(o->emit, NULL);
	db = g_canonicalize_filename(o->db, NULL);
	/* jobs.txt is read a line a job: a line break in a word of one
	 * would split it (and run its second half as a command) */
	if (!one_line("qsim", exe, error) ||
	    !one_line("--emit-jobs", dir, error) ||
	    !one_line("--db", db, error) || !one_line("--tag", o->tag, error))
		return false;
	for (guint i = 0; i < pts->len; i++) {
		struct point *p = g_ptr_array_index(pts, i);

		for (char **s = p->cfg->overrides; s && *s; s++)
			if (!one_line("--set", *s, error))
				return false;
	}
	if (g_mkdir_with_parents(dir, 0755) != 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", dir, g_strerror(errno));
		return false;
	}
	/* An earlier sweep's folder: its joblog would skip the new jobs
	 * and its db/ files would be merged as this sweep's results. */
	d = g_dir_open(dir, 0, error);
	if (!d)
		return false;
	if (g_dir_read_name(d)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
			    "--emit-jobs %s: the folder is not empty (an "
			    "earlier sweep's jobs?); give a new or empty "
			    "folder (to finish that sweep, run its "
			    "parallel.sh or slurm-submit.sh again)",
			    dir);
		return false;
	}
	if (!g_file_get_contents(o->files[0], &text, NULL, error) ||
	    !put(dir, "scenario.ini", text, false, error))
		return false;
	qexe = g_shell_quote(exe);
	qdir = g_shell_quote(dir);
	qdb = g_shell_quote(db);
	qqdb = g_shell_quote(qdb); /* printed as the quoted name */
	/* by its full name, so that a stored run's replay works from
	 * anywhere the folder is seen */
	ini = g_build_filename(dir, "scenario.ini", NULL);
	qini = g_shell_quote(ini);
	for (guint i = 0; i < pts->len; i++) {
		struct point *p = g_ptr_array_index(pts, i);

		/* A finished job (its done mark) is not run again, by a
		 * second parallel.sh or a resubmitted Slurm array. */
		g_string_append_printf(jobs,
				       "test -e db/%06u.done || { %s run %s",
				       i + 1, qexe, qini);
		for (char **s = p->cfg->overrides; s && *s; s++) {
			g_autofree char *q = g_shell_quote(*s);

			g_string_append_printf(jobs, " --set %s", q);
		}
		if (o->tag) {
			g_autofree char *q = g_shell_quote(o->tag);

			g_string_append_printf(jobs, " --tag %s", q);
		}
		/* A model violation (exit 2) is a finished result, stored
		 * with its replay: the job succeeds (so no retry adds a
		 * copy) and leaves a mark for parallel.sh to count; any
		 * other failure keeps its exit code. */
		g_string_append_printf(
			jobs,
			" --db db/%06u.db --quiet; s=$?; if [ $s -eq 2 ]; then "
			": > db/%06u.violation; elif [ $s -ne 0 ]; then exit "
			"$s; fi; : > db/%06u.done; }\n",
			i + 1, i + 1, i + 1);
	}
	chunk = (pts->len + 999) / 1000;
	chunk = chunk ? chunk : 1;
	tasks = (pts->len + chunk - 1) / chunk;
	par = g_strdup_printf(
		"#!/bin/sh\n"
		"# Every job of this sweep with GNU parallel (JOBS=N: at most "
		"N "
		"at once;\n# default one per core), then the merge.  Finished "
		"jobs are not run again\n# (--resume-failed and joblog.txt).\n"
		"# Exit 0: every job ran clean; 2: some found a model "
		"violation (stored with\n# its replay); 3: some failed (run "
		"this again to retry them) or the merge did.\n"
		"db=%s\ncd %s || exit 1\nmkdir -p db\n"
		"parallel --jobs \"${JOBS:-100%%}\" --joblog joblog.txt "
		"--resume-failed < jobs.txt > /dev/null\nfailed=$?\n"
		"./merge.sh || exit 3\n"
		"if [ \"$failed\" -ne 0 ]; then\n"
		"\techo \"parallel.sh: jobs failed (GNU parallel: $failed; "
		"joblog.txt); run this again to retry them\" >&2\n"
		"\texit 3\nfi\n"
		"n=$(find db -type f -name '*.violation' | wc -l)\n"
		"if [ \"$n\" -gt 0 ]; then\n"
		"\tprintf 'parallel.sh: %%s of the jobs found a model "
		"violation, stored with its replay command (qsim report "
		"--db %%s)\\n' \"$n\" %s >&2\n"
		"\texit 2\nfi\nexit 0\n",
		qdb, qdir, qqdb);
	merge = g_strdup_printf(
		"#!/bin/sh\n"
		"# Merge every job's database into the sweep's (or into $1, "
		"from the folder\n# this is called in); a run it has "
		"already is not added twice.\n"
		"out=${1:-%s}\ncase $out in /*) ;; *) out=$(pwd)/$out ;; "
		"esac\ncd %s || exit 1\n"
		"find db -type f -name '*.db' -print0 | sort -z | xargs -0 -r "
		"%s merge "
		"\"$out\"\n",
		qdb, qdir, qexe);
	slurm = g_strdup_printf(
		"#!/bin/sh\n"
		"# The sweep as a Slurm job array: task T runs lines %u*T+1 to "
		"%u*T+%u of jobs.txt.\n# Submit with ./slurm-submit.sh (the "
		"array, then the merge after it).\n"
		"#SBATCH --job-name=qsim-sweep\n#SBATCH --array=0-%u\n"
		"#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
		"#SBATCH --output=log/%%A_%%a.out\n"
		"cd %s || exit 1\nmkdir -p db\n"
		"first=$((SLURM_ARRAY_TASK_ID * %u + 1))\n"
		"sed -n \"${first},$((first + %u - 1))p\" jobs.txt | {\n"
		"\trc=0\n\twhile IFS= read -r job; do\n"
		"\t\tsh -c \"$job\" > /dev/null || rc=3\n\tdone\n"
		"\texit $rc\n}\n",
		chunk, chunk, chunk, tasks - 1, qdir, chunk, chunk);
	if (!put(dir, "jobs.txt", jobs->str, false, error) ||
	    !put(dir, "parallel.sh", par, true, error) ||
	    !put(dir, "merge.sh", merge, true, error) ||
	    !put(dir, "slurm.sbatch", slurm, true, error))
		return false;
	{
		g_autofree char *sub = g_strdup_printf(
			"#!/bin/sh\n# Submit the array, then the merge once "
			"every task has ended.\ncd %s || exit 1\nmkdir -p "
			"log\nid=$(sbatch --parsable slurm.sbatch) || exit 1\n"
			"sbatch --parsable --dependency=afterany:\"${id%%%%;*}"
			"\" --output=log/merge.out --wrap ./merge.sh\n",
			qdir);

		if (!put(dir, "slurm-submit.sh", sub, true, error))
			return false;
	}
	fprintf(out,
		"qsim sweep: %u jobs in %s/jobs.txt (%u Slurm array tasks of "
		"%u)\n  GNU parallel:  %s/parallel.sh\n  Slurm:         "
		"%s/slurm-submit.sh\n  then the results are in %s\n",
		pts->len, dir, tasks, chunk, dir, dir, db);
	return true;
}

int compare_main(const struct compare_opts *o, FILE *out)
{
	const char *what = o->sweep ? "qsim sweep" : "qsim compare";
	g_autoptr(GError) err = NULL;
	g_autoptr(GPtrArray) vs = NULL;
	g_autoptr(GPtrArray) pts = NULL;
	struct points_opts po = {0};
	struct points_result pr;
	struct store *st;
	FILE *data = out; /* where --json - and --csv - go */
	int rc = EXIT_OK;

	if (!check_input(o, &err) || !(vs = build_variants(o, &err)) ||
	    !(pts = make_points(o, vs, &err))) {
		fprintf(stderr, "%s: %s\n", what, err->message);
		return EXIT_INPUT;
	}
	if (o->sweep && (!o->files || g_strv_length(o->files) != 1)) {
		fprintf(stderr, "%s: give one scenario file\n", what);
		return EXIT_INPUT;
	}
	if (!o->sweep && o->vary && !o->files) {
		fprintf(stderr,
			"%s: --vary makes variants of a scenario file: give "
			"one (qsim compare FILE.ini --vary KEY=A,B)\n",
			what);
		return EXIT_INPUT;
	}
	if (!o->sweep && vs->len < 2) {
		fprintf(stderr,
			"%s: give two or more variants (scenario files, "
			"--vary, --tagged, --where)\n",
			what);
		return EXIT_INPUT;
	}
	if (o->emit) {
		if (!o->sweep || !emit_db_ok(o->db, &err) ||
		    !emit_jobs(o, pts, out, &err)) {
			fprintf(stderr, "%s: %s\n", what,
				err ? err->message
				    : "--emit-jobs is for qsim sweep");
			return EXIT_INPUT;
		}
		return EXIT_OK;
	}
	/* only stored variants: nothing to write, so a read-only file
	 * will do */
	st = pts->len ? store_open(o->db, &err) : store_open_read(o->db, &err);
	if (!st) {
		fprintf(stderr, "%s: %s\n", what, err->message);
		return EXIT_INPUT;
	}
	st->tag = o->tag;
	po.st = st;
	po.jobs = o->jobs;
	po.what = what;
	po.progress = stderr;
	po.tty = o->progress_tty;
	if (!points_lookup(st, pts, &err) || !points_run(pts, &po, &pr, &err)) {
		fprintf(stderr, "%s: %s\n", what, err->message);
		store_close(st);
		return EXIT_INTERNAL;
	}
	if (pr.interrupted) {
		fprintf(stderr,
			"%s: INTERRUPTED: %u run%s stored, the ones in flight "
			"not; run the same command again to go on\n",
			what, pr.ran + pr.reused,
			pr.ran + pr.reused == 1 ? "" : "s");
		store_close(st);
		return 128 + sim_interrupt;
	}
	for (guint i = 0; i < pts->len; i++) {
		struct point *p = g_ptr_array_index(pts, i);
		struct variant *v = g_ptr_array_index(vs, p->variant);

		v->reused += p->reused;
		if (p->violation)
			v->violations++;
		else
			g_array_append_val(v->runs, p->run_id);
	}
	for (guint i = 0; i < vs->len; i++) {
		struct variant *v = g_ptr_array_index(vs, i);

		/* a file that cannot be read through (damaged) is bad
		 * input */
		if ((v->cond && !stored_runs(st, v, &err)) ||
		    !read_metrics(st, v, &err)) {
			fprintf(stderr, "%s: %s\n", what, err->message);
			store_close(st);
			return EXIT_INPUT;
		}
		if (v->copies)
			fprintf(stderr,
				"%s: %s: %u run%s repeating another (the same "
				"parameters and binary) not counted again\n",
				what, v->label, v->copies,
				v->copies == 1 ? "" : "s");
		/* a selection that matches nothing is a mistake, not a tie:
		 * a --fail-if gate must not pass on it */
		if (v->cond && !v->reused) {
			fprintf(stderr,
				"%s: %s selects no stored run in %s (qsim "
				"report --db %s lists them)\n",
				what, v->label, st->path, st->path);
			store_close(st);
			return EXIT_INPUT;
		}
	}
	store_close(st);
	note_identical(vs, what);
	judge(vs);
	/* --json - or --csv -: standard output holds that alone, the table
	 * and the verdicts go to standard error */
	if ((o->json && qsim_out_is_stdout(o->json)) ||
	    (o->csv && qsim_out_is_stdout(o->csv))) {
		data = out;
		out = stderr;
	}
	if (o->sweep) {
		fprintf(out, "qsim sweep: %u point%s, %u seed%s each\n",
			vs->len, vs->len == 1 ? "" : "s", o->seeds,
			o->seeds == 1 ? "" : "s");
		print_sweep(out, o, vs);
	} else {
		print_compare(out, o, vs);
	}
	if (o->json) {
		g_autofree char *j = to_json(o, vs);

		if (!write_out(o->json, j, data, &err)) {
			fprintf(stderr, "%s: %s\n", what, err->message);
			return EXIT_INPUT;
		}
	}
	if (o->csv) {
		g_autofree char *c = to_csv(o, vs);

		if (!write_out(o->csv, c, data, &err)) {
			fprintf(stderr, "%s: %s\n", what, err->message);
			return EXIT_INPUT;
		}
	}
	if (failed_checks(o, vs, out))
		rc = EXIT_CHECK;
	if (pr.violations) {
		fprintf(out,
			"%u run%s ended in a model violation (its report and "
			"replay command are in the store: runs.report, "
			"runs.replay)\n",
			pr.violations, pr.violations == 1 ? "" : "s");
		rc = EXIT_CHECK;
	}
	return rc;
}
