// SPDX-License-Identifier: MIT
/*
 * qsim plot; see plot.h.  Each figure is a gnuplot script with its data
 * in inline data blocks, written to OUT.gp and run by gnuplot; its exit
 * status says whether it drew (what it says on stderr, a warning, is
 * passed on).  A figure of one point gets its axes' ranges from qsim, so
 * gnuplot need not warn of an empty range.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "tools/compare.h"
#include "tools/config.h"
#include "tools/plot.h"
#include "tools/stats.h"
#include "tools/store.h"

enum { EXIT_OK, EXIT_INPUT, EXIT_CHECK, EXIT_INTERNAL };

#define PLOT_ERROR (g_quark_from_static_string("qsim-plot"))

static bool db_error(sqlite3 *db, const char *path, GError **error)
{
	g_set_error(error, PLOT_ERROR, EXIT_INPUT, "%s: %s", path,
		    sqlite3_errmsg(db));
	return false;
}

/* A gnuplot string literal: single quotes, a quote doubled. */
static char *gp_quote(const char *s)
{
	GString *q = g_string_new("'");

	for (; *s; s++) {
		if (*s == '\'')
			g_string_append_c(q, '\'');
		g_string_append_c(q, *s);
	}
	g_string_append_c(q, '\'');
	return g_string_free(q, FALSE);
}

/* The terminal for @out by its extension; NULL if neither. */
static const char *terminal(const char *out)
{
	if (g_str_has_suffix(out, ".svg"))
		return "svg size 900,540 dynamic noenhanced font 'sans,11'";
	if (g_str_has_suffix(out, ".png"))
		return "pngcairo size 900,540 noenhanced font 'sans,10'";
	return NULL;
}

static void preamble(GString *gp, const struct plot_opts *o, const char *title,
		     const char *xl, const char *yl)
{
	g_autofree char *qo = gp_quote(o->out);
	g_autofree char *qt = gp_quote(o->title ? o->title : title);
	g_autofree char *qx = gp_quote(xl);
	g_autofree char *qy = gp_quote(yl);

	g_string_append_printf(
		gp,
		"# qsim plot %s: edit and run `gnuplot FILE` "
		"to draw it again\n"
		"set terminal %s\nset output %s\n"
		"set title %s noenhanced\n"
		"set xlabel %s noenhanced\n"
		"set ylabel %s noenhanced\n"
		"set grid\nset key outside right top noenhanced\n"
		"set format y '%%g'\n"
		"set offsets graph 0.03, graph 0.03, graph "
		"0.05, 0\n",
		o->kind, terminal(o->out), qo, qt, qx, qy);
}

/* A power of 1000 that brings @maxabs into [1, 1000), and the unit it
 * makes of @unit ("op/s" -> "Mop/s", "ns" -> "us"): gnuplot has no %g
 * with an SI prefix, so qsim scales the data and names the unit. */
static double si_scale(double maxabs, const char *unit, char **scaled)
{
	static const char *const pre[] = {"", "k", "M", "G", "T"};
	static const char *const ns[] = {"ns", "us", "ms", "s", "ks"};
	static const char *const times[] = {"", "x1000", "x1e6", "x1e9",
					    "x1e12"};
	unsigned int e = 0;
	double f = 1;

	while (e + 1 < G_N_ELEMENTS(pre) && maxabs >= 1000 * f)
		f *= 1000, e++;
	if (strcmp(unit, "ns") == 0)
		*scaled = g_strdup(ns[e]);
	else if (*unit)
		*scaled = g_strdup_printf("%s%s", pre[e], unit);
	else
		*scaled = g_strdup(times[e]);
	return f;
}

/* Run gnuplot on @gp, kept as OUT.gp. */
static bool draw(const struct plot_opts *o, const char *gp, GError **error)
{
	g_autofree char *script = g_strconcat(o->out, ".gp", NULL);
	g_autofree char *err = NULL;
	const char *argv[] = {"gnuplot", script, NULL};
	struct stat was, now;
	bool there = stat(o->out, &was) == 0;
	int status;

	if (!g_file_set_contents(script, gp, -1, error))
		return false;
	if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
			  NULL, NULL, &err, &status, error)) {
		g_prefix_error(error, "gnuplot (tools/setup.sh installs it): ");
		return false;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		g_set_error(error, PLOT_ERROR, EXIT_INTERNAL,
			    "gnuplot failed on %s: %s", script,
			    err && *err ? err : "no message");
		/* what it drew, if anything, is not the figure; an image
		 * that was there and that it did not touch (it failed
		 * before `set output`) stays as it was */
		if (stat(o->out, &now) == 0 &&
		    (!there || now.st_dev != was.st_dev ||
		     now.st_ino != was.st_ino || now.st_size != was.st_size ||
		     now.st_mtim.tv_sec != was.st_mtim.tv_sec ||
		     now.st_mtim.tv_nsec != was.st_mtim.tv_nsec))
			g_unlink(o->out);
		return false;
	}
	if (err && *err)
		fprintf(stderr, "qsim plot: gnuplot on %s: %s%s", script, err,
			g_str_has_suffix(err, "\n") ? "" : "\n");
	return true;
}

static gint cmp_x(gconstpointer a, gconstpointer b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	char *ex, *ey;
	double dx = g_ascii_strtod(x, &ex), dy = g_ascii_strtod(y, &ey);

	if (!*ex && !*ey && ex != x && ey != y)
		return (dx > dy) - (dx < dy);
	return strcmp(x, y);
}

/* @h's keys (GLib 2.74's g_hash_table_get_keys_as_ptr_array; Debian 12
 * has 2.74 but the build may meet older). */
static GPtrArray *keys_of(GHashTable *h)
{
	GPtrArray *a = g_ptr_array_new();
	GHashTableIter it;
	gpointer k;

	g_hash_table_iter_init(&it, h);
	while (g_hash_table_iter_next(&it, &k, NULL))
		g_ptr_array_add(a, k);
	return a;
}

/* line (by value) -> x value -> GArray of doubles */
static void add_value(GHashTable *lines, const char *line, const char *x,
		      double v)
{
	GHashTable *xs = g_hash_table_lookup(lines, line);
	GArray *vals;

	if (!xs) {
		xs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   (GDestroyNotify)g_array_unref);
		g_hash_table_insert(lines, g_strdup(line), xs);
	}
	vals = g_hash_table_lookup(xs, x);
	if (!vals) {
		vals = g_array_new(FALSE, FALSE, sizeof(double));
		g_hash_table_insert(xs, g_strdup(x), vals);
	}
	g_array_append_val(vals, v);
}

/* "section.key" as its two parts, or an error naming @opt. */
static bool section_key(const char *opt, const char *v, char **sec, char **key,
			GError **error)
{
	const char *dot = v ? strchr(v, '.') : NULL;

	if (!dot || dot == v || !dot[1]) {
		g_set_error(error, PLOT_ERROR, EXIT_INPUT,
			    "%s '%s': expected section.key", opt, v ? v : "");
		return false;
	}
	*sec = g_strndup(v, (gsize)(dot - v));
	*key = g_strdup(dot + 1);
	{
		g_autoptr(GError) e = NULL;

		if (!cfg_key_check(*sec, *key, &e)) {
			g_set_error(error, PLOT_ERROR, EXIT_INPUT,
				    "%s '%s': %s", opt, v, e->message);
			g_clear_pointer(sec, g_free);
			g_clear_pointer(key, g_free);
			return false;
		}
	}
	return true;
}

static bool plot_sweep(const struct plot_opts *o, sqlite3 *db, GString *gp,
		       GError **error)
{
	const char *metric = o->metric ? o->metric : "throughput";
	const char *unit = "";
	const char *msql = compare_metric_sql(metric, &unit);
	g_autofree char *xs = NULL, *xk = NULL, *bs = NULL, *bk = NULL;
	g_autoptr(GString) cond = g_string_new(NULL);
	g_autoptr(GPtrArray) binds = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) lines =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
				      (GDestroyNotify)g_hash_table_unref);
	g_autofree char *sql = NULL, *title = NULL, *yl = NULL, *sunit = NULL;
	double maxabs = 0, scale, ylo = INFINITY, yhi = -INFINITY;
	g_autoptr(GPtrArray) names = NULL;
	sqlite3_stmt *q = NULL, *m = NULL;
	unsigned int n = 0, i = 0;
	int rc, mrc = SQLITE_DONE;

	if (!msql) {
		g_autofree char *all = compare_metric_names();

		g_set_error(error, PLOT_ERROR, EXIT_INPUT,
			    "--metric '%s': one of %s", metric, all);
		return false;
	}
	if (!section_key("--x", o->x, &xs, &xk, error) ||
	    (o->by && !section_key("--by", o->by, &bs, &bk, error)))
		return false;
	for (char **t = o->tags; t && *t; t++)
		if (!compare_where_sql(*t, NULL, cond, binds, error))
			return false;
	for (char **w = o->wheres; w && *w; w++)
		if (!compare_where_sql(NULL, *w, cond, binds, error))
			return false;
	if (!cond->len)
		g_string_assign(cond, "1");
	compare_distinct_sql(cond);
	sql = g_strdup_printf(
		"SELECT r.id, px.value, COALESCE(pb.value, '') FROM runs r "
		"JOIN params px ON px.run_id = r.id AND px.section = ?1 AND "
		"px.key = ?2 LEFT JOIN params pb ON pb.run_id = r.id AND "
		"pb.section = ?3 AND pb.key = ?4 WHERE r.status = 'ok'%s%s",
		cond->len ? " AND " : "", cond->str);
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, msql, -1, &m, NULL) != SQLITE_OK) {
		sqlite3_finalize(q);
		return db_error(db, o->db, error);
	}
	sqlite3_bind_text(q, 1, xs, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, xk, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, bs ? bs : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, bk ? bk : "", -1, SQLITE_STATIC);
	for (guint b = 0; b < binds->len; b++)
		sqlite3_bind_text(q, (int)b + 5, g_ptr_array_index(binds, b),
				  -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		sqlite3_reset(m);
		sqlite3_bind_int64(m, 1, sqlite3_column_int64(q, 0));
		mrc = sqlite3_step(m);
		if (mrc != SQLITE_ROW && mrc != SQLITE_DONE) {
			rc = mrc;
			break;
		}
		if (mrc != SQLITE_ROW ||
		    sqlite3_column_type(m, 0) == SQLITE_NULL)
			continue;
		add_value(lines, (const char *)sqlite3_column_text(q, 2),
			  (const char *)sqlite3_column_text(q, 1),
			  sqlite3_column_double(m, 0));
		maxabs = fmax(maxabs, fabs(sqlite3_column_double(m, 0)));
		n++;
	}
	if (!store_step_done(db, o->db, rc, error)) {
		sqlite3_finalize(q);
		sqlite3_finalize(m);
		return false;
	}
	sqlite3_finalize(q);
	sqlite3_finalize(m);
	if (!n) {
		g_set_error(error, PLOT_ERROR, EXIT_INPUT,
			    "%s: no stored run has [%s] %s (and the "
			    "selection): nothing to plot",
			    o->db, xs, xk);
		return false;
	}
	title = g_strdup_printf("%s against %s%s%s (mean, 95%% interval)",
				metric, o->x, o->by ? " by " : "",
				o->by ? o->by : "");
	scale = si_scale(maxabs, unit, &sunit);
	/* the unit the plotted numbers are in, once: lat_p99_ns scaled to
	 * microseconds is "lat_p99 (us)", not "lat_p99_ns (us)" */
	{
		g_autofree char *suffix = g_strdup_printf("_%s", unit);
		int len = (int)strlen(metric);

		if (*unit && g_str_has_suffix(metric, suffix))
			len -= (int)strlen(suffix);
		yl = *sunit ? g_strdup_printf("%.*s (%s)", len, metric, sunit)
			    : g_strdup(metric);
	}
	preamble(gp, o, title, o->x, yl);
	names = keys_of(lines);
	g_ptr_array_sort(names, cmp_x);
	/* every x value over all lines: numeric, a real axis; otherwise one
	 * category each, in order */
	{
		g_autoptr(GHashTable) seen =
			g_hash_table_new(g_str_hash, g_str_equal);
		g_autoptr(GPtrArray) all = g_ptr_array_new();
		bool numeric = true;
		char lo[32], hi[32];

		for (i = 0; i < names->len; i++) {
			GHashTableIter it;
			gpointer x;

			g_hash_table_iter_init(
				&it,
				g_hash_table_lookup(
					lines, g_ptr_array_index(names, i)));
			while (g_hash_table_iter_next(&it, &x, NULL)) {
				char *end;

				g_ascii_strtod(x, &end);
				numeric &= *end == '\0' && end != (char *)x;
				if (!g_hash_table_contains(seen, x)) {
					g_hash_table_add(seen, x);
					g_ptr_array_add(all, x);
				}
			}
		}
		g_ptr_array_sort(all, cmp_x);
		for (i = 0; i < names->len; i++) {
			GHashTable *xv = g_hash_table_lookup(
				lines, g_ptr_array_index(names, i));

			g_string_append_printf(gp, "$d%u << EOD\n", i);
			for (guint k = 0; k < all->len; k++) {
				const char *x = g_ptr_array_index(all, k);
				GArray *v = g_hash_table_lookup(xv, x);
				struct stats_sample st;

				if (!v)
					continue;
				stats_sample((double *)v->data, v->len, &st);
				{
					double ci = isnan(st.ci) ? 0.0 : st.ci;

					ylo = fmin(ylo, (st.mean - ci) / scale);
					yhi = fmax(yhi, (st.mean + ci) / scale);
				}
				if (numeric)
					g_string_append_printf(gp, "%s", x);
				else
					g_string_append_printf(gp, "%u \"%s\"",
							       k, x);
				g_string_append_printf(
					gp, " %.10g %.10g %u\n",
					st.mean / scale,
					isnan(st.ci) ? 0.0 : st.ci / scale,
					st.n);
			}
			g_string_append(gp, "EOD\n");
		}
		if (!numeric)
			g_string_append(gp, "set offsets 0.5, 0.5, 0, 0\n");
		/* one x value, or one y: a range around it (gnuplot warns
		 * of an empty one and widens it itself) */
		if (all->len == 1 && numeric) {
			double x =
				g_ascii_strtod(g_ptr_array_index(all, 0), NULL);
			double d = x ? fabs(x) / 10 : 1;

			g_string_append_printf(gp, "set xrange [%.10g:%.10g]\n",
					       x - d, x + d);
		} else if (all->len == 1) {
			g_string_append(gp, "set xrange [-0.5:0.5]\n");
		}
		g_snprintf(lo, sizeof(lo), "%.10g", ylo);
		g_snprintf(hi, sizeof(hi), "%.10g", yhi);
		if (strcmp(lo, hi) == 0) { /* as gnuplot reads them */
			double d = ylo ? fabs(ylo) / 10 : 1;

			g_string_append_printf(gp, "set yrange [%.10g:%.10g]\n",
					       ylo - d, yhi + d);
		}
		g_string_append(gp, "plot ");
		for (i = 0; i < names->len; i++) {
			const char *line = g_ptr_array_index(names, i);
			g_autofree char *qt = gp_quote(*line   ? line
						       : o->by ? "(unset)"
							       : metric);

			g_string_append_printf(
				gp,
				"%s$d%u using %s with yerrorlines lw 2 pt 7 "
				"title %s",
				i ? ", \\\n     " : "", i,
				numeric ? "1:2:3" : "1:3:4:xtic(2)", qt);
		}
	}
	g_string_append(gp, "\n");
	return true;
}

static bool plot_cdf(const struct plot_opts *o, sqlite3 *db, GString *gp,
		     GError **error)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (!o->nruns) {
		g_set_error(error, PLOT_ERROR, EXIT_INPUT,
			    "cdf: give the runs (--run ID, repeat)");
		return false;
	}
	preamble(gp, o, "acquisition latency", "latency (ns)",
		 "share of acquisitions at most");
	g_string_append(gp, "set logscale x\nset yrange [0:1]\n");
	if (sqlite3_prepare_v2(db,
			       "SELECT lo_ps, hi_ps, SUM(count) FROM "
			       "histograms WHERE run_id = ? AND metric = "
			       "'latency' GROUP BY lo_ps, hi_ps ORDER BY hi_ps",
			       -1, &q, NULL) != SQLITE_OK)
		return db_error(db, o->db, error);
	for (unsigned int i = 0; i < o->nruns; i++) {
		g_autoptr(GArray) hi =
			g_array_new(FALSE, FALSE, sizeof(double));
		g_autoptr(GArray) cnt =
			g_array_new(FALSE, FALSE, sizeof(double));
		double total = 0, sum = 0, lo0 = -1;

		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, o->runs[i]);
		while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			double h = sqlite3_column_double(q, 1) / 1000.0;
			double c = sqlite3_column_double(q, 2);

			if (lo0 < 0) /* the CDF starts at 0 below it */
				lo0 = sqlite3_column_double(q, 0) / 1000.0;
			g_array_append_val(hi, h);
			g_array_append_val(cnt, c);
			total += c;
		}
		if (!store_step_done(db, o->db, rc, error)) {
			sqlite3_finalize(q);
			return false;
		}
		if (!total) {
			sqlite3_finalize(q);
			g_set_error(error, PLOT_ERROR, EXIT_INPUT,
				    "%s: run %" PRId64 " has no latency "
				    "histogram (no such run, or no "
				    "acquisitions)",
				    o->db, o->runs[i]);
			return false;
		}
		g_string_append_printf(gp, "$d%u << EOD\n%.10g 0\n", i,
				       lo0 > 0 ? lo0 : 0.001);
		for (guint k = 0; k < hi->len; k++) {
			sum += g_array_index(cnt, double, k);
			g_string_append_printf(gp, "%.10g %.10g\n",
					       g_array_index(hi, double, k),
					       sum / total);
		}
		g_string_append(gp, "EOD\n");
	}
	sqlite3_finalize(q);
	g_string_append(gp, "plot ");
	for (unsigned int i = 0; i < o->nruns; i++)
		g_string_append_printf(gp,
				       "%s$d%u using 1:2 with steps lw 2 title "
				       "'run %" PRId64 "'",
				       i ? ", \\\n     " : "", i, o->runs[i]);
	g_string_append(gp, "\n");
	return true;
}

static bool plot_fairness(const struct plot_opts *o, sqlite3 *db, GString *gp,
			  GError **error)
{
	sqlite3_stmt *q = NULL;
	g_autofree char *title = NULL;
	unsigned int n = 0;
	int rc;

	if (o->nruns != 1) {
		g_set_error(error, PLOT_ERROR, EXIT_INPUT,
			    "fairness: give one run (--run ID)");
		return false;
	}
	title = g_strdup_printf("per-vCPU acquisitions, run %" PRId64,
				o->runs[0]);
	preamble(gp, o, title, "vCPU", "acquisitions");
	g_string_append(gp, "set format y '%.0f'\n"
			    "set style fill solid 0.6\nset boxwidth 0.8\n"
			    "set yrange [0:*]\nset key off\n$d0 << EOD\n");
	if (sqlite3_prepare_v2(db,
			       "SELECT vcpu, acquisitions FROM vcpu_results "
			       "WHERE run_id = ? ORDER BY vcpu",
			       -1, &q, NULL) != SQLITE_OK)
		return db_error(db, o->db, error);
	sqlite3_bind_int64(q, 1, o->runs[0]);
	for (; (rc = sqlite3_step(q)) == SQLITE_ROW; n++)
		g_string_append_printf(gp, "%d %" PRId64 "\n",
				       sqlite3_column_int(q, 0),
				       (int64_t)sqlite3_column_int64(q, 1));
	if (!store_step_done(db, o->db, rc, error)) {
		sqlite3_finalize(q);
		return false;
	}
	sqlite3_finalize(q);
	if (!n) {
		g_set_error(error, PLOT_ERROR, EXIT_INPUT,
			    "%s: no run %" PRId64, o->db, o->runs[0]);
		return false;
	}
	g_string_append(gp, "EOD\nplot $d0 using 1:2 with boxes\n");
	return true;
}

int plot_main(const struct plot_opts *o, GError **error)
{
	g_autoptr(GString) gp = g_string_new(NULL);
	sqlite3 *db = NULL;
	bool ok;

	if (!o->out || !terminal(o->out)) {
		g_set_error(error, PLOT_ERROR, EXIT_INPUT,
			    "-o '%s': a .png or .svg file",
			    o->out ? o->out : "");
		return EXIT_INPUT;
	}
	db = store_read_db(o->db, error);
	if (!db)
		return EXIT_INPUT;
	if (strcmp(o->kind, "sweep") == 0)
		ok = plot_sweep(o, db, gp, error);
	else if (strcmp(o->kind, "cdf") == 0)
		ok = plot_cdf(o, db, gp, error);
	else if (strcmp(o->kind, "fairness") == 0)
		ok = plot_fairness(o, db, gp, error);
	else {
		g_set_error(error, PLOT_ERROR, EXIT_INPUT,
			    "'%s': a plot is one of sweep, cdf, fairness",
			    o->kind);
		ok = false;
	}
	sqlite3_close(db);
	if (!ok)
		return EXIT_INPUT;
	return draw(o, gp->str, error) ? EXIT_OK : EXIT_INTERNAL;
}
