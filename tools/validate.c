// SPDX-License-Identifier: MIT
/*
 * qsim validate; see validate.h for the file format and the criterion.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/config.h"
#include "tools/outfile.h"
#include "tools/model.h"
#include "tools/validate.h"

/* X(name, help): the metrics a figure can use. */
#define VAL_METRICS(X)                                                      \
	X(throughput, "acquisitions per simulated second, all locks")       \
	X(read_throughput, "reader acquisitions per simulated second")      \
	X(write_throughput, "writer acquisitions per simulated second")     \
	X(spread, "per-vCPU acquisitions, max / min (locktest's spread)")   \
	X(jain, "Jain's fairness index over per-vCPU acquisitions")         \
	X(spin_share, "time spinning / time dispatched (run+spin+hcall)")   \
	X(lat_p99_ns, "acquisition latency, 99th percentile, worst lock")   \
	X(handoff_ns, "mean release-to-next-acquire with waiters, lock 0")  \
	X(lhp_share, "waiter time lost to holder preemption / waiter time") \
	X(units, "the workload's units of work per simulated second")

enum val_metric {
#define X(name, help) VM_##name,
	VAL_METRICS(X)
#undef X
		VM_NR,
};

static const char *const metric_names[VM_NR] = {
#define X(name, help) #name,
	VAL_METRICS(X)
#undef X
};

enum val_kind {
	VK_RATIO,
	VK_VALUE,
	VK_MIN,
	VK_MAX,
};

struct val_variant {
	char *name;
	char **sets; /* NULL-terminated overrides */
	double *m;   /* seeds x VM_NR */
	bool *bad;   /* per seed: a violation or a failed load */
	double med[VM_NR];
};

struct val_figure {
	char *name, *label;
	enum val_kind kind;
	enum val_metric metric;
	int of, to;
	double published, tolerance;
	/* filled in */
	double simulated;
	bool pass;
};

struct val_case {
	char *path, *stem, *name, *title, *source;
	char *base; /* the base scenario text */
	unsigned int seeds;
	GPtrArray *variants; /* struct val_variant * */
	GPtrArray *figures;  /* struct val_figure * */
};

static void variant_free(gpointer p)
{
	struct val_variant *v = p;

	g_free(v->name);
	g_strfreev(v->sets);
	g_free(v->m);
	g_free(v->bad);
	g_free(v);
}

static void figure_free(gpointer p)
{
	struct val_figure *f = p;

	g_free(f->name);
	g_free(f->label);
	g_free(f);
}

static void case_free(gpointer p)
{
	struct val_case *c = p;

	g_free(c->path);
	g_free(c->stem);
	g_free(c->name);
	g_free(c->title);
	g_free(c->source);
	g_free(c->base);
	g_ptr_array_free(c->variants, TRUE);
	g_ptr_array_free(c->figures, TRUE);
	g_free(c);
}

static int variant_find(struct val_case *c, const char *name)
{
	for (guint i = 0; i < c->variants->len; i++) {
		struct val_variant *v = g_ptr_array_index(c->variants, i);

		if (strcmp(v->name, name) == 0)
			return (int)i;
	}
	return -1;
}

static bool bad_key(GError **error, const char *path, const char *group,
		    const char *key, const char *what)
{
	g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		    "%s: [%s] %s: %s", path, group, key, what);
	return false;
}

/* Every key of @group is one of @keys: a misspelt `tolerence` would
 * otherwise be dropped, and its figure judged by the default. */
static bool only_keys(GKeyFile *kf, const char *path, const char *group,
		      const char *const *keys, GError **error)
{
	g_auto(GStrv) have = g_key_file_get_keys(kf, group, NULL, NULL);

	for (char **k = have; k && *k; k++)
		if (!g_strv_contains(keys, *k)) {
			g_autofree char *list = g_strjoinv(", ", (char **)keys);
			g_autofree char *what = g_strdup_printf(
				"unknown key; [%s] takes %s", group, list);

			return bad_key(error, path, group, *k, what);
		}
	return true;
}

static bool parse_figure(struct val_case *c, GKeyFile *kf, const char *group,
			 GError **error)
{
	static const char *const keys[] = {"label",	"what", "metric",
					   "of",	"to",	"published",
					   "tolerance", NULL};
	struct val_figure *f = g_new0(struct val_figure, 1);
	g_autofree char *what = g_key_file_get_string(kf, group, "what", NULL);
	g_autofree char *metric =
		g_key_file_get_string(kf, group, "metric", NULL);
	g_autofree char *of = g_key_file_get_string(kf, group, "of", NULL);
	g_autofree char *to = g_key_file_get_string(kf, group, "to", NULL);
	g_autofree char *pub =
		g_key_file_get_string(kf, group, "published", NULL);
	g_autofree char *tol =
		g_key_file_get_string(kf, group, "tolerance", NULL);
	char *end;

	g_ptr_array_add(c->figures, f);
	if (!only_keys(kf, c->path, group, keys, error))
		return false;
	f->name = g_strdup(group + strlen("figure "));
	f->label = g_key_file_get_string(kf, group, "label", NULL);
	if (!f->label)
		f->label = g_strdup(f->name);
	f->metric = VM_NR;
	for (int m = 0; metric && m < VM_NR; m++)
		if (strcmp(metric, metric_names[m]) == 0)
			f->metric = (enum val_metric)m;
	if (f->metric == VM_NR) {
		GString *s = g_string_new("expected one of:");

		for (int m = 0; m < VM_NR; m++)
			g_string_append_printf(s, " %s", metric_names[m]);
		bad_key(error, c->path, group, "metric", s->str);
		g_string_free(s, TRUE);
		return false;
	}
	if (!what || strcmp(what, "ratio") == 0)
		f->kind = VK_RATIO;
	else if (strcmp(what, "value") == 0)
		f->kind = VK_VALUE;
	else if (strcmp(what, "min") == 0)
		f->kind = VK_MIN;
	else if (strcmp(what, "max") == 0)
		f->kind = VK_MAX;
	else
		return bad_key(error, c->path, group, "what",
			       "expected ratio, value, min or max");
	if (!of || (f->of = variant_find(c, of)) < 0)
		return bad_key(error, c->path, group, "of",
			       "expected the name of a [variant] section");
	f->to = -1;
	if ((f->kind == VK_RATIO || to) &&
	    (!to || (f->to = variant_find(c, to)) < 0))
		return bad_key(error, c->path, group, "to",
			       "expected the name of a [variant] section");
	/* Finite: a NaN printed as >=inf, 1e400 as inf (session 14).  A
	 * bound (min, max) may be 0, not below: every figure is a count, a
	 * rate, a share or a ratio. */
	f->published = pub ? g_ascii_strtod(pub, &end) : 0;
	if (!pub || end == pub || *end || !isfinite(f->published) ||
	    !(f->published > 0 ||
	      ((f->kind == VK_MIN || f->kind == VK_MAX) && f->published == 0)))
		return bad_key(error, c->path, group, "published",
			       f->kind == VK_MIN || f->kind == VK_MAX
				       ? "expected a finite number, 0 or more"
				       : "expected a finite positive number");
	f->tolerance = 1.5;
	if (tol) {
		f->tolerance = g_ascii_strtod(tol, &end);
		if (end == tol || *end || !isfinite(f->tolerance) ||
		    !(f->tolerance >= 1.0 && f->tolerance <= 1000))
			return bad_key(error, c->path, group, "tolerance",
				       "expected a factor from 1 to 1000");
	}
	return true;
}

static struct val_case *case_load(const char *path, GError **error)
{
	static const char *const validate_keys[] = {"name", "title", "source",
						    "seeds", NULL};
	static const char *const variant_keys[] = {"set", NULL};
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_auto(GStrv) groups = NULL;
	struct val_case *c = g_new0(struct val_case, 1);
	g_autofree char *base = g_path_get_basename(path);

	c->path = g_strdup(path);
	c->stem = g_strndup(base, strcspn(base, "."));
	c->variants = g_ptr_array_new_with_free_func(variant_free);
	c->figures = g_ptr_array_new_with_free_func(figure_free);
	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_KEEP_COMMENTS,
				       error))
		goto fail;
	c->name = g_key_file_get_string(kf, "validate", "name", NULL);
	c->title = g_key_file_get_string(kf, "validate", "title", NULL);
	c->source = g_key_file_get_string(kf, "validate", "source", NULL);
	if (!c->name || !c->title || !c->source || !*g_strstrip(c->name) ||
	    !*g_strstrip(c->title) || !*g_strstrip(c->source)) {
		bad_key(error, path, "validate", "name, title, source",
			"every case names itself, what it reproduces and "
			"where that was published");
		goto fail;
	}
	if (!only_keys(kf, path, "validate", validate_keys, error))
		goto fail;
	c->seeds = 3;
	if (g_key_file_has_key(kf, "validate", "seeds", NULL)) {
		g_autofree char *t =
			g_key_file_get_string(kf, "validate", "seeds", NULL);
		uint64_t n;

		if (!t || !cfg_parse_u64(t, &n) || n < 1 || n > 1000) {
			bad_key(error, path, "validate", "seeds",
				"expected an integer from 1 to 1000");
			goto fail;
		}
		c->seeds = (unsigned int)n;
	}
	groups = g_key_file_get_groups(kf, NULL);
	for (char **g = groups; *g; g++) {
		if (g_str_has_prefix(*g, "variant ")) {
			struct val_variant *v;

			if (!only_keys(kf, path, *g, variant_keys, error))
				goto fail;
			v = g_new0(struct val_variant, 1);

			v->name = g_strdup(*g + strlen("variant "));
			v->sets = g_key_file_get_string_list(kf, *g, "set",
							     NULL, NULL);
			if (!v->sets)
				v->sets = g_new0(char *, 1);
			for (char **s = v->sets; *s; s++)
				g_strstrip(*s);
			g_ptr_array_add(c->variants, v);
		}
	}
	for (char **g = groups; *g; g++)
		if (g_str_has_prefix(*g, "figure ") &&
		    !parse_figure(c, kf, *g, error))
			goto fail;
	if (!c->variants->len || !c->figures->len) {
		bad_key(error, path, "variant/figure", "sections",
			"a case needs at least one variant and one figure");
		goto fail;
	}
	/* What is left is the base scenario. */
	for (char **g = groups; *g; g++)
		if (!strcmp(*g, "validate") ||
		    g_str_has_prefix(*g, "variant ") ||
		    g_str_has_prefix(*g, "figure "))
			g_key_file_remove_group(kf, *g, NULL);
	c->base = g_key_file_to_data(kf, NULL, NULL);
	return c;
fail:
	case_free(c);
	return NULL;
}

bool validate_is_case(const char *path)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();

	/* Only a regular file is read (a FIFO would block here); the
	 * scenario loader says what else is wrong with it. */
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
		return false;
	return g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL) &&
	       g_key_file_has_group(kf, "validate");
}

bool validate_case_scenario(const char *path, const char *variant, char **text,
			    char ***sets, GError **error)
{
	struct val_case *c = case_load(path, error);
	g_autoptr(GString) names = g_string_new(NULL);
	int i;

	if (!c)
		return false;
	if (!variant) {
		*text = g_strdup(c->base);
		*sets = g_new0(char *, 1);
		case_free(c);
		return true;
	}
	i = variant_find(c, variant);
	if (i < 0) {
		for (guint k = 0; k < c->variants->len; k++) {
			struct val_variant *v =
				g_ptr_array_index(c->variants, k);

			g_string_append_printf(names, "%s%s", k ? ", " : "",
					       v->name);
		}
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: no [variant %s]; the variants are: %s", path,
			    variant, names->str);
		case_free(c);
		return false;
	}
	*text = g_strdup(c->base);
	*sets = g_strdupv(
		((struct val_variant *)g_ptr_array_index(c->variants, (guint)i))
			->sets);
	case_free(c);
	return true;
}

/* --- running --- */

struct val_job {
	struct val_case *c;
	struct val_variant *v;
	unsigned int seed_idx;
};

struct val_pool {
	GPtrArray *jobs;
	gint next;
};

static double metric_of(const struct qsim_results *r, enum val_metric m)
{
	double secs = (double)r->measured_ps / (double)SIM_S;
	double a = 0, rd = 0, wr = 0, spin = 0, disp = 0, lhp = 0, wait = 0;

	for (unsigned int i = 0; i < r->nlocks; i++) {
		a += (double)r->locks[i].acquisitions;
		rd += (double)r->locks[i].read_acquisitions;
		wr += (double)r->locks[i].write_acquisitions;
		lhp += r->locks[i].lhp_waiter_ns;
		wait += r->locks[i].lat_mean_ns *
			(double)r->locks[i].acquisitions;
	}
	for (unsigned int i = 0; i < r->nvcpus; i++) {
		spin += r->vcpus[i].spin_ns;
		disp += r->vcpus[i].run_ns + r->vcpus[i].spin_ns +
			r->vcpus[i].hcall_ns;
	}
	switch (m) {
	case VM_throughput:
		return secs > 0 ? a / secs : 0;
	case VM_read_throughput:
		return secs > 0 ? rd / secs : 0;
	case VM_write_throughput:
		return secs > 0 ? wr / secs : 0;
	case VM_spread:
		return r->acq_min > 0 ? (double)r->acq_max / (double)r->acq_min
				      : INFINITY;
	case VM_jain:
		return r->jain;
	case VM_spin_share:
		return disp > 0 ? spin / disp : 0;
	case VM_lat_p99_ns: {
		double w = 0;

		for (unsigned int i = 0; i < r->nlocks; i++)
			w = fmax(w, r->locks[i].lat_p99_ns);
		return w;
	}
	case VM_handoff_ns:
		return r->nlocks ? r->locks[0].handoff_mean_ns : 0;
	case VM_lhp_share:
		return wait > 0 ? lhp / wait : 0;
	case VM_units:
		return secs > 0 ? (double)r->units / secs : 0;
	case VM_NR:
		break;
	}
	return NAN;
}

static void run_job(struct val_job *j)
{
	g_autofree char *seed = g_strdup_printf("run.seed=%u", j->seed_idx + 1);
	g_autoptr(GPtrArray) o = g_ptr_array_new();
	g_autoptr(GError) err = NULL;
	struct qsim_config *cfg;
	struct qsim_results res;
	double *m = &j->v->m[j->seed_idx * VM_NR];

	for (char **s = j->v->sets; *s; s++)
		g_ptr_array_add(o, *s);
	g_ptr_array_add(o, seed);
	g_ptr_array_add(o, NULL);
	cfg = cfg_load_text(j->c->path, j->c->base, (char **)o->pdata, &err);
	if (!cfg) {
		/* Checked before anything runs; cannot happen here. */
		j->v->bad[j->seed_idx] = true;
		return;
	}
	qsim_model_run(cfg, &res, NULL);
	for (int k = 0; k < VM_NR; k++)
		m[k] = metric_of(&res, (enum val_metric)k);
	j->v->bad[j->seed_idx] = res.status != WL_OK;
	qsim_results_clear(&res);
	cfg_free(cfg);
}

static void worker(gpointer data, gpointer user)
{
	struct val_pool *p = user;
	gint i;

	(void)data;
	while ((i = g_atomic_int_add(&p->next, 1)) < (gint)p->jobs->len)
		run_job(g_ptr_array_index(p->jobs, i));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, unsigned int n, unsigned int stride)
{
	g_autofree double *s = g_new(double, n);

	for (unsigned int i = 0; i < n; i++)
		s[i] = v[i * stride];
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void judge(struct val_case *c)
{
	for (guint i = 0; i < c->variants->len; i++) {
		struct val_variant *v = g_ptr_array_index(c->variants, i);

		for (int k = 0; k < VM_NR; k++)
			v->med[k] = median(&v->m[k], c->seeds, VM_NR);
	}
	for (guint i = 0; i < c->figures->len; i++) {
		struct val_figure *f = g_ptr_array_index(c->figures, i);
		struct val_variant *a = g_ptr_array_index(c->variants, f->of);
		double x = a->med[f->metric], lim = log(f->tolerance);
		bool clean = true;

		for (unsigned int s = 0; s < c->seeds; s++)
			clean &= !a->bad[s];
		if (f->to >= 0) {
			struct val_variant *b =
				g_ptr_array_index(c->variants, f->to);

			for (unsigned int s = 0; s < c->seeds; s++)
				clean &= !b->bad[s];
			x = x / b->med[f->metric];
		}
		f->simulated = x;
		switch (f->kind) {
		case VK_RATIO:
			f->pass = isfinite(x) && x > 0 &&
				  fabs(log(x / f->published)) <= lim + 1e-12 &&
				  (f->published == 1.0 ||
				   (x > 1.0) == (f->published > 1.0));
			break;
		case VK_VALUE:
			f->pass = isfinite(x) && x > 0 &&
				  fabs(log(x / f->published)) <= lim + 1e-12;
			break;
		case VK_MIN:
			f->pass = x >= f->published;
			break;
		case VK_MAX:
			f->pass = x <= f->published;
			break;
		}
		f->pass &= clean;
	}
}

static const char *kind_sign(enum val_kind k)
{
	switch (k) {
	case VK_MIN:
		return ">=";
	case VK_MAX:
		return "<=";
	default:
		return "";
	}
}

/* @x as a short text: 1.234, 56.7k, 1.992M or inf. */
static void print_num(GString *s, double x)
{
	if (!isfinite(x))
		g_string_append(s, "inf");
	else if (fabs(x) >= 1e6)
		g_string_append_printf(s, "%.3fM", x / 1e6);
	else if (fabs(x) >= 1e4)
		g_string_append_printf(s, "%.1fk", x / 1e3);
	else
		g_string_append_printf(s, "%.3f", x);
}

static void print_case(FILE *out, GString *md, struct val_case *c)
{
	unsigned int passed = 0;

	fprintf(out, "\n%s  %s\n    source: %s\n", c->name, c->title,
		c->source);
	fprintf(out, "    %-46s %10s %12s %8s  %s\n", "figure", "simulated",
		"published", "sim/pub", "result");
	if (md)
		g_string_append_printf(md,
				       "\n**%s** %s (%s)\n\n"
				       "| figure | simulated | published | "
				       "sim/pub | result |\n"
				       "|---|---|---|---|---|\n",
				       c->name, c->title, c->source);
	for (guint i = 0; i < c->figures->len; i++) {
		struct val_figure *f = g_ptr_array_index(c->figures, i);
		g_autoptr(GString) sim = g_string_new(NULL);
		g_autoptr(GString) pub = g_string_new(kind_sign(f->kind));
		g_autofree char *ratio = NULL;

		print_num(sim, f->simulated);
		print_num(pub, f->published);
		ratio = f->kind == VK_RATIO || f->kind == VK_VALUE
				? g_strdup_printf("%.2f",
						  f->simulated / f->published)
				: g_strdup("");
		/* a label wider than its column gets a line of its own */
		if (strlen(f->label) > 46)
			fprintf(out, "    %s\n", f->label);
		fprintf(out, "    %-46s %10s %12s %8s  %s\n",
			strlen(f->label) > 46 ? "" : f->label, sim->str,
			pub->str, ratio, f->pass ? "pass" : "FAIL");
		if (md)
			g_string_append_printf(
				md, "| %s | %s | %s | %s | %s |\n", f->label,
				sim->str, pub->str, ratio,
				f->pass ? "pass" : "FAIL");
		passed += f->pass;
	}
	fprintf(out, "    %s: %u of %u figures pass\n", c->name, passed,
		c->figures->len);
}

static bool selected(const struct validate_opts *o, const struct val_case *c)
{
	if (!o->names || !*o->names)
		return true;
	for (char **n = o->names; *n; n++)
		if (!g_ascii_strcasecmp(*n, c->name) || !strcmp(*n, c->stem))
			return true;
	return false;
}

static gint cmp_path(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every case file of @dir, sorted by name. */
static GPtrArray *load_cases(const struct validate_opts *o, GError **error)
{
	g_autoptr(GDir) d = g_dir_open(o->dir, 0, error);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *cases;
	const char *n;

	if (!d)
		return NULL;
	while ((n = g_dir_read_name(d)))
		if (g_str_has_suffix(n, ".ini"))
			g_ptr_array_add(files,
					g_build_filename(o->dir, n, NULL));
	g_ptr_array_sort(files, cmp_path);
	cases = g_ptr_array_new_with_free_func(case_free);
	for (guint i = 0; i < files->len; i++) {
		struct val_case *c =
			case_load(g_ptr_array_index(files, i), error);

		if (!c) {
			g_ptr_array_free(cases, TRUE);
			return NULL;
		}
		g_ptr_array_add(cases, c);
	}
	return cases;
}

/* Check every variant's scenario before anything runs. */
static bool check_variants(struct val_case *c, GError **error)
{
	for (guint i = 0; i < c->variants->len; i++) {
		struct val_variant *v = g_ptr_array_index(c->variants, i);
		struct qsim_config *cfg =
			cfg_load_text(c->path, c->base, v->sets, error);

		if (!cfg) {
			/* the override's message says --set: name the file
			 * and the section's key it came from */
			g_prefix_error(error, "%s: [variant %s] set: ", c->path,
				       v->name);
			return false;
		}
		cfg_free(cfg);
	}
	return true;
}

bool validate_main(const struct validate_opts *o, struct validate_result *res,
		   FILE *out, GError **error)
{
	g_autoptr(GPtrArray) cases = load_cases(o, error);
	g_autoptr(GPtrArray) run = g_ptr_array_new();
	g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func(g_free);
	unsigned int njobs = o->jobs ? o->jobs : g_get_num_processors();
	struct val_pool pool = {0};
	g_autoptr(GString) md = o->md_path ? g_string_new(NULL) : NULL;
	gint64 t0 = g_get_monotonic_time();
	GThreadPool *tp;
	bool ok = true;

	/* --markdown to standard output: it has the table alone */
	if (o->md_path && qsim_out_is_stdout(o->md_path))
		out = stderr;

	memset(res, 0, sizeof(*res));
	if (!cases)
		return false;
	for (guint i = 0; i < cases->len; i++) {
		struct val_case *c = g_ptr_array_index(cases, i);

		if (!selected(o, c))
			continue;
		if (!o->list && !check_variants(c, error))
			return false;
		if (o->seeds)
			c->seeds = o->seeds;
		g_ptr_array_add(run, c);
	}
	for (char **n = o->names; n && *n; n++) {
		bool found = false;

		for (guint i = 0; i < run->len; i++) {
			struct val_case *c = g_ptr_array_index(run, i);

			found |= !g_ascii_strcasecmp(*n, c->name) ||
				 !strcmp(*n, c->stem);
		}
		if (!found) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
				    "no validation case '%s' in %s (qsim "
				    "validate --list)",
				    *n, o->dir);
			return false;
		}
	}
	for (guint i = 0; o->list && i < run->len; i++) {
		struct val_case *c = g_ptr_array_index(run, i);

		fprintf(out, "%-4s %-28s %s\n", c->name, c->stem, c->title);
	}
	if (o->list)
		return true;
	for (guint i = 0; i < run->len; i++) {
		struct val_case *c = g_ptr_array_index(run, i);

		for (guint k = 0; k < c->variants->len; k++) {
			struct val_variant *v =
				g_ptr_array_index(c->variants, k);

			v->m = g_new0(double, (gsize)c->seeds *VM_NR);
			v->bad = g_new0(bool, c->seeds);
			for (unsigned int s = 0; s < c->seeds; s++) {
				struct val_job *j = g_new0(struct val_job, 1);

				j->c = c;
				j->v = v;
				j->seed_idx = s;
				g_ptr_array_add(jobs, j);
			}
		}
	}
	fprintf(out, "qsim validate: %u case%s, %u simulations on %u jobs\n",
		run->len, run->len == 1 ? "" : "s", jobs->len, njobs);
	fflush(out);
	pool.jobs = jobs;
	tp = g_thread_pool_new(worker, &pool, (gint)njobs, TRUE, error);
	if (!tp)
		return false;
	for (unsigned int i = 0; i < njobs; i++)
		g_thread_pool_push(tp, GINT_TO_POINTER(i + 1), NULL);
	g_thread_pool_free(tp, FALSE, TRUE);

	for (guint i = 0; i < run->len; i++) {
		struct val_case *c = g_ptr_array_index(run, i);

		judge(c);
		print_case(out, md, c);
		res->cases++;
		for (guint k = 0; k < c->figures->len; k++) {
			struct val_figure *f = g_ptr_array_index(c->figures, k);

			res->figures++;
			res->passed += f->pass;
		}
	}
	fprintf(out,
		"\nvalidate: %u of %u figures pass in %u case%s (%.1f s "
		"host)\n",
		res->passed, res->figures, res->cases,
		res->cases == 1 ? "" : "s",
		(double)(g_get_monotonic_time() - t0) / 1e6);
	if (md) {
		ok = qsim_write_file(o->md_path, md->str, error);
		if (!ok)
			g_prefix_error(error, "--markdown %s: ", o->md_path);
	}
	return ok;
}
