// SPDX-License-Identifier: MIT
/*
 * The qsim command: `qsim run`, `qsim list`, `qsim check-config`.
 * Exit codes (docs/cli.md): 0 ok, 1 bad usage or input, 2 a model
 * violation found, 3 internal error.
 */
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hypervisor/hv.h"
#include "locks/lock.h"
#include "sim/coro.h"
#include "tools/config.h"
#include "tools/model.h"
#include "tools/report.h"
#include "tools/store.h"
#include "tools/torture.h"
#include "tools/bench.h"
#include "tools/validate.h"

enum {
	EXIT_OK = 0,
	EXIT_INPUT = 1,
	EXIT_VIOLATION = 2,
	EXIT_INTERNAL = 3,
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: qsim COMMAND [ARGS]\n"
		"\n"
		"  run FILE.ini [--seed N] [--set section.key=value]... "
		"[--db PATH] [--no-store]\n"
		"        simulate a scenario, print a summary, store every "
		"figure (default results.db)\n"
		"  torture [--lock NAME] [--mapping NAME] [--mutant NAME] "
		"[--seeds N | --time DURATION]\n"
		"          [--jobs J] [--first-seed S] [--keep-going] "
		"[--out DIR]\n"
		"        many short adversarial runs; stops at the first "
		"violation with its replay command\n"
		"  bench [--quick] [--json FILE] [--only TEXT] [--repeat N]\n"
		"        [--compare FILE]\n"
		"        the benchmark (docs/performance.md); not a test\n"
		"  validate [NAME...] [--seeds N] [--jobs J] [--list] "
		"[--dir DIR] [--markdown FILE]\n"
		"        simulated against published figures "
		"(scenarios/validation)\n"
		"  import FILE.db... [--db PATH]\n"
		"        add the runs of other qsim databases (a run saved "
		"beside a busy one)\n"
		"  check-config FILE.ini [--set section.key=value]...\n"
		"        validate a scenario and print its resolved "
		"parameters\n"
		"  list [locks|policies|presets|mutants|keys]\n"
		"        what can be simulated, with parameters and defaults\n"
		"  version\n"
		"\n"
		"exit codes: 0 ok, 1 bad usage or input, 2 model violation, "
		"3 internal error\n"
		"manual: docs/cli.md\n");
}

/* Parse "--seed" into a "run.seed=" override appended to @sets. */
static bool add_seed(GPtrArray *sets, const char *seed)
{
	uint64_t v;

	if (!seed)
		return true;
	if (!cfg_parse_u64(seed, &v) || v > CFG_SEED_MAX)
		return false;
	g_ptr_array_add(sets,
			g_strdup_printf("run.seed=%" G_GUINT64_FORMAT, v));
	return true;
}

static int parse_run_args(int argc, char **argv, bool with_db, char **file,
			  char ***overrides, char **db, bool *no_store,
			  char **variant)
{
	g_autofree char *seed = NULL;
	g_auto(GStrv) sets = NULL;
	g_autoptr(GOptionContext) ctx = g_option_context_new("FILE.ini");
	g_autoptr(GError) err = NULL;
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	gboolean nostore = FALSE;
	GOptionEntry entries[] = {
		{"seed", 0, 0, G_OPTION_ARG_STRING, &seed,
		 "seed of the run (overrides run.seed)", "N"},
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override one scenario key", "SECTION.KEY=VALUE"},
		{"db", 0, 0, G_OPTION_ARG_FILENAME, db,
		 "results database (default results.db)", "PATH"},
		{"variant", 0, 0, G_OPTION_ARG_STRING, variant,
		 "of a validation case: run this [variant]", "NAME"},
		{"no-store", 0, 0, G_OPTION_ARG_NONE, &nostore,
		 "do not write the results database", NULL},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	if (!with_db) {
		entries[2] = entries[3];
		entries[3] = entries[4];
	}
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "qsim %s: %s\n", argv[0], err->message);
		return EXIT_INPUT;
	}
	if (argc != 2) {
		fprintf(stderr, "qsim %s: expected one scenario file\n",
			argv[0]);
		usage(stderr);
		return EXIT_INPUT;
	}
	for (char **s = sets; s && *s; s++)
		g_ptr_array_add(all, g_strdup(*s));
	if (!add_seed(all, seed)) {
		fprintf(stderr,
			"qsim %s: --seed '%s': expected an integer from 0 to "
			"%" PRIu64 "\n",
			argv[0], seed, CFG_SEED_MAX);
		return EXIT_INPUT;
	}
	g_ptr_array_add(all, NULL);
	*overrides = (char **)g_ptr_array_steal(all, NULL);
	*file = g_strdup(argv[1]);
	*no_store = nostore;
	return EXIT_OK;
}

/*
 * The scenario @file with @overrides; a validation case
 * (scenarios/validation/) is its base scenario with @variant's overrides
 * first, so --set still wins.
 */
static struct qsim_config *load_scenario(const char *file, const char *variant,
					 char **overrides, GError **error)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) vsets = NULL;
	g_autoptr(GPtrArray) all = NULL;

	if (!validate_is_case(file)) {
		if (variant) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
				    "%s: --variant is for validation cases "
				    "(files with a [validate] section)",
				    file);
			return NULL;
		}
		return cfg_load(file, overrides, error);
	}
	if (!validate_case_scenario(file, variant, &text, &vsets, error))
		return NULL;
	all = g_ptr_array_new();
	for (char **s = vsets; *s; s++)
		g_ptr_array_add(all, *s);
	for (char **s = overrides; s && *s; s++)
		g_ptr_array_add(all, *s);
	g_ptr_array_add(all, NULL);
	return cfg_load_text(file, text, (char **)all->pdata, error);
}

/*
 * A finished run is never lost: when its database cannot take it (still
 * locked after the wait, a full disk), it goes to a new file of its own
 * beside it, which `qsim import` adds later.
 */
static void save_beside(const char *db, const struct qsim_config *cfg,
			const struct qsim_results *res)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%dT%H%M%S");
	g_autofree char *path = g_strdup_printf("%s.unstored-%s-%d.db", db,
						stamp, (int)getpid());
	g_autoptr(GError) err = NULL;
	struct store *st = store_open(path, &err);
	int64_t id;

	if (st && store_run_insert(st, cfg, res, &id, &err)) {
		g_autofree char *qp = g_shell_quote(path);
		g_autofree char *qd = g_shell_quote(db);

		fprintf(stderr,
			"qsim run: the run is saved in %s; add it with: "
			"qsim import %s --db %s\n",
			path, qp, qd);
	} else {
		fprintf(stderr,
			"qsim run: could not save the run beside it "
			"either: %s\n",
			err ? err->message : "?");
	}
	store_close(st);
}

static int cmd_import(int argc, char **argv)
{
	g_autofree char *db = NULL;
	g_auto(GStrv) files = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(GOptionContext) ctx =
		g_option_context_new("FILE.db... - add other databases' runs");
	GOptionEntry entries[] = {
		{"db", 0, 0, G_OPTION_ARG_FILENAME, &db,
		 "the database to add them to (default results.db)", "PATH"},
		{G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files,
		 NULL, NULL},
		G_OPTION_ENTRY_NULL,
	};
	struct store *st;
	int rc = EXIT_OK;

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err) || !files ||
	    (db && !*db)) {
		fprintf(stderr, "qsim import: %s\n",
			err ? err->message : "give the files to import");
		return EXIT_INPUT;
	}
	st = store_open(db ? db : "results.db", &err);
	if (!st) {
		fprintf(stderr, "qsim import: %s\n", err->message);
		return EXIT_INPUT;
	}
	for (char **f = files; *f; f++) {
		int64_t n;

		g_clear_error(&err);
		if (!**f) {
			fprintf(stderr, "qsim import: an empty file name\n");
			rc = EXIT_INPUT;
			continue;
		}
		if (!store_import(st, *f, &n, &err)) {
			fprintf(stderr, "qsim import: %s\n", err->message);
			rc = EXIT_INPUT;
			continue;
		}
		printf("imported %" PRId64 " run%s from %s into %s\n", n,
		       n == 1 ? "" : "s", *f, st->path);
	}
	store_close(st);
	return rc;
}

static void on_signal(int sig)
{
	sim_interrupt = sig;
}

/* SIGINT and SIGTERM stop the run at the guard's next look (within a
 * few milliseconds of host time) instead of killing it. */
static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int cmd_run(int argc, char **argv)
{
	g_autofree char *file = NULL, *db = NULL, *variant = NULL;
	g_auto(GStrv) overrides = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(qsim_config) cfg = NULL;
	struct store *st = NULL;
	struct qsim_results res;
	bool no_store = false;
	int64_t run_id = 0;
	int rc;

	rc = parse_run_args(argc, argv, true, &file, &overrides, &db, &no_store,
			    &variant);
	if (rc)
		return rc;
	cfg = load_scenario(file, variant, overrides, &err);
	if (!cfg) {
		fprintf(stderr, "qsim run: %s\n", err->message);
		return EXIT_INPUT;
	}
	if (db && !*db) {
		fprintf(stderr, "qsim run: --db needs a file name ('' given; "
				"--no-store stores nothing)\n");
		return EXIT_INPUT;
	}
	if (!no_store) {
		st = store_open(db ? db : "results.db", &err);
		if (!st) {
			fprintf(stderr, "qsim run: %s\n", err->message);
			return EXIT_INPUT;
		}
	}
	catch_signals();
	if (!qsim_model_run(cfg, &res, &err)) {
		fprintf(stderr, "qsim run: internal error: %s\n", err->message);
		store_close(st);
		return EXIT_INTERNAL;
	}
	report_summary(stdout, cfg, &res);
	rc = qsim_results_exit_code(&res);
	if (res.interrupted) {
		/* Decision (docs/cli.md): a run cut short is not stored. */
		printf("\nINTERRUPTED by %s at simulated time %.6f s: the "
		       "figures above cover the measured time before it; "
		       "nothing stored\n",
		       sim_interrupt == SIGINT ? "SIGINT" : "SIGTERM",
		       (double)res.interrupted_ps / (double)SIM_S);
		rc = 128 + sim_interrupt;
		store_close(st);
		st = NULL;
	}
	if (st) {
		if (!store_run_insert(st, cfg, &res, &run_id, &err)) {
			fprintf(stderr, "qsim run: %s\n", err->message);
			save_beside(st->path, cfg, &res);
			rc = EXIT_INTERNAL;
		} else {
			printf("\nstored as run %" PRId64 " in %s\n", run_id,
			       st->path);
		}
		store_close(st);
	}
	qsim_results_clear(&res);
	fflush(stdout);
	return rc;
}

static int cmd_check_config(int argc, char **argv)
{
	g_autofree char *file = NULL, *db = NULL, *variant = NULL;
	g_auto(GStrv) overrides = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(qsim_config) cfg = NULL;
	bool no_store;
	int rc;

	rc = parse_run_args(argc, argv, false, &file, &overrides, &db,
			    &no_store, &variant);
	if (rc)
		return rc;
	cfg = load_scenario(file, variant, overrides, &err);
	if (!cfg) {
		fprintf(stderr, "qsim check-config: %s\n", err->message);
		return EXIT_INPUT;
	}
	printf("# %s: valid; resolved parameters:\n%s", file, cfg->resolved);
	return EXIT_OK;
}

/* "key=default ..." for the [lock] keys @o reads. */
static void print_lock_params(const struct lk_ops *o)
{
	g_auto(GStrv) keys = NULL;

	if (!o->params)
		return;
	printf("  %-14s", "");
	if (o->knobs && strcmp(o->params, "qspl_*") == 0) {
		/* a kernel tree's own tunables, with its defaults */
		g_auto(GStrv) have = o->knobs();

		for (char **h = have; *h; h++)
			printf(" %s", *h);
		printf("\n");
		return;
	}
	if (strcmp(o->params, "qspl_*") == 0) {
#define X(name, def, max, help) printf(" qspl_" #name "=%u", (unsigned int)def);
		QSPL_TUNABLES(X)
#undef X
		printf("\n");
		return;
	}
	keys = g_strsplit(o->params, " ", -1);
	for (char **k = keys; *k; k++) {
		g_autofree char *def = cfg_key_default("lock", *k);

		printf(" %s=%s", *k, def ? def : "?");
	}
	printf("\n");
}

static int cmd_list(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	bool all = strcmp(what, "all") == 0;
	bool any = false;

	if (argc > 2) {
		fprintf(stderr, "qsim list: too many arguments\n");
		return EXIT_INPUT;
	}
	if (all || strcmp(what, "locks") == 0) {
		printf("locks ([lock] type), with the [lock] keys they "
		       "read:\n");
		for (unsigned int i = 0; lk_registry[i]; i++) {
			const struct lk_ops *o = lk_registry[i];

			printf("  %-14s %s\n", o->name, o->desc);
			print_lock_params(o);
		}
		any = true;
	}
	if (all || strcmp(what, "policies") == 0) {
		printf("dispatcher policies ([hypervisor] policy):\n");
		for (unsigned int i = 0; hv_policies[i]; i++)
			printf("  %-14s %s\n", hv_policies[i]->name,
			       hv_policies[i]->desc);
		any = true;
	}
	if (all || strcmp(what, "presets") == 0) {
		printf("machine presets ([machine] preset):\n");
		for (unsigned int i = 0; cfg_presets[i]; i++)
			printf("  %s\n", cfg_presets[i]);
		any = true;
	}
	if (all || strcmp(what, "mutants") == 0) {
		printf("mutants ([lock] mutant, qsim torture --mutant):\n");
		for (unsigned int i = 0; lk_mutants[i]; i++)
			printf("  %-22s %s%s%s\n", lk_mutants[i]->mutant,
			       lk_mutants[i]->mutant_desc,
			       lk_mutants[i]->mutant_mapping
				       ? "; exposed with pv_mapping "
				       : "",
			       lk_mutants[i]->mutant_mapping
				       ? lk_mutants[i]->mutant_mapping
				       : "");
		any = true;
	}
	if (all || strcmp(what, "keys") == 0) {
		printf("scenario keys:\n");
		cfg_print_keys(stdout);
		any = true;
	}
	if (!any) {
		fprintf(stderr,
			"qsim list: unknown topic '%s'; topics are: locks, "
			"policies, presets, mutants, keys\n",
			what);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

static int cmd_torture(int argc, char **argv)
{
	g_autofree char *lock = NULL, *mapping = NULL, *mutant = NULL;
	g_autofree char *seeds = NULL, *time = NULL, *out = NULL, *first = NULL;
	gint jobs = 0;
	gboolean keep_going = FALSE;
	g_autoptr(GOptionContext) ctx = g_option_context_new("");
	g_autoptr(GError) err = NULL;
	struct torture_opts o = {0};
	struct torture_result res;
	GOptionEntry entries[] = {
		{"lock", 0, 0, G_OPTION_ARG_STRING, &lock,
		 "lock to torture (default pv_qspinlock)", "NAME"},
		{"mapping", 0, 0, G_OPTION_ARG_STRING, &mapping,
		 "pv mapping (default: random per seed)", "NAME"},
		{"mutant", 0, 0, G_OPTION_ARG_STRING, &mutant,
		 "torture a mutant build (qsim list mutants)", "NAME"},
		{"seeds", 0, 0, G_OPTION_ARG_STRING, &seeds,
		 "number of seeds (default 1000)", "N"},
		{"time", 0, 0, G_OPTION_ARG_STRING, &time,
		 "run for this long in host time instead (e.g. 60s)", "T"},
		{"first-seed", 0, 0, G_OPTION_ARG_STRING, &first,
		 "first seed (default 1)", "S"},
		{"jobs", 0, 0, G_OPTION_ARG_INT, &jobs,
		 "parallel simulations (default: host cores)", "J"},
		{"keep-going", 0, 0, G_OPTION_ARG_NONE, &keep_going,
		 "do not stop at the first violation", NULL},
		{"out", 0, 0, G_OPTION_ARG_FILENAME, &out,
		 "where failing scenarios and traces go (torture-out)", "DIR"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "qsim torture: %s\n", err->message);
		return EXIT_INPUT;
	}
	if (argc != 1) {
		fprintf(stderr, "qsim torture: unexpected argument '%s'\n",
			argv[1]);
		return EXIT_INPUT;
	}
	if (lock && !lk_find(lock)) {
		fprintf(stderr,
			"qsim torture: --lock '%s': not a lock; see "
			"qsim list locks\n",
			lock);
		return EXIT_INPUT;
	}
	if (mapping && !lk_pv_mapping_valid(mapping)) {
		fprintf(stderr,
			"qsim torture: --mapping '%s': one of "
			"splpar-undirected, "
			"splpar-directed, splpar-cede, kvm\n",
			mapping);
		return EXIT_INPUT;
	}
	if (mutant && !lk_find_mutant(mutant)) {
		fprintf(stderr,
			"qsim torture: --mutant '%s': not a mutant; "
			"see qsim list mutants\n",
			mutant);
		return EXIT_INPUT;
	}
	if (mutant && lock && strcmp(lock, lk_find_mutant(mutant)->name)) {
		fprintf(stderr,
			"qsim torture: mutant %s is a build of %s, not "
			"of %s\n",
			mutant, lk_find_mutant(mutant)->name, lock);
		return EXIT_INPUT;
	}
	if (seeds && time) {
		fprintf(stderr, "qsim torture: --seeds or --time, not both\n");
		return EXIT_INPUT;
	}
	o.seeds = 1000;
	if (seeds) {
		if (!cfg_parse_u64(seeds, &o.seeds) || !o.seeds ||
		    o.seeds > CFG_SEED_MAX) {
			fprintf(stderr,
				"qsim torture: --seeds '%s': a whole "
				"number from 1\n",
				seeds);
			return EXIT_INPUT;
		}
	}
	if (time) {
		sim_time_t t;

		if (!sim_parse_time(time, &t) || !t) {
			fprintf(stderr,
				"qsim torture: --time '%s': a time "
				"with a unit (e.g. 90s, 500ms)\n",
				time);
			return EXIT_INPUT;
		}
		o.seeds = 0;
		o.host_seconds = (double)t / (double)SIM_S;
	}
	o.first_seed = 1;
	if (first) {
		if (!cfg_parse_u64(first, &o.first_seed) ||
		    o.first_seed > CFG_SEED_MAX) {
			fprintf(stderr,
				"qsim torture: --first-seed '%s': a "
				"whole number from 0 to %" PRIu64 "\n",
				first, CFG_SEED_MAX);
			return EXIT_INPUT;
		}
	}
	/* Every seed must be one a run accepts: none may pass the last. */
	if (o.seeds && o.seeds - 1 > CFG_SEED_MAX - o.first_seed) {
		fprintf(stderr,
			"qsim torture: --first-seed %" PRIu64 " with --seeds "
			"%" PRIu64 " passes the last seed, %" PRIu64 "\n",
			o.first_seed, o.seeds, CFG_SEED_MAX);
		return EXIT_INPUT;
	}
	if (jobs < 0 || jobs > 256) {
		fprintf(stderr, "qsim torture: --jobs %d: from 1 to 256\n",
			jobs);
		return EXIT_INPUT;
	}
	o.lock = lock;
	o.mapping = mapping;
	o.mutant = mutant;
	o.jobs = (unsigned int)jobs;
	o.keep_going = keep_going;
	o.out_dir = out ? out : "torture-out";
	if (mutant && !mapping)
		o.mapping = lk_find_mutant(mutant)->mutant_mapping;
	if (!torture_run(&o, &res, stdout, &err)) {
		fprintf(stderr, "qsim torture: %s\n", err->message);
		return EXIT_INTERNAL;
	}
	{
		int rc = res.failures ? EXIT_VIOLATION : EXIT_OK;

		if (!res.seeds_run) { /* it tested nothing: not a pass */
			fprintf(stderr, "qsim torture: no seed ran (a longer "
					"--time?)\n");
			rc = EXIT_INPUT;
		}
		torture_result_clear(&res);
		return rc;
	}
}

static int cmd_bench(int argc, char **argv)
{
	g_autofree char *json = NULL, *only = NULL, *compare = NULL;
	gboolean quick = FALSE;
	gint repeat = 1;
	g_autoptr(GOptionContext) ctx = g_option_context_new("");
	g_autoptr(GError) err = NULL;
	GOptionEntry entries[] = {
		{"quick", 0, 0, G_OPTION_ARG_NONE, &quick,
		 "a tenth of the simulated time", NULL},
		{"json", 0, 0, G_OPTION_ARG_FILENAME, &json,
		 "also write the table as JSON", "FILE"},
		{"only", 0, 0, G_OPTION_ARG_STRING, &only,
		 "run only scenarios whose name contains TEXT", "TEXT"},
		{"repeat", 0, 0, G_OPTION_ARG_INT, &repeat,
		 "run each scenario N times (1-100) and keep the fastest", "N"},
		{"compare", 0, 0, G_OPTION_ARG_FILENAME, &compare,
		 "compare with an earlier --json FILE", "FILE"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	struct bench_opts o;

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err) || argc != 1) {
		fprintf(stderr, "qsim bench: %s\n",
			err ? err->message : "unexpected argument");
		return EXIT_INPUT;
	}
	if (repeat < 1 || repeat > 100) {
		fprintf(stderr,
			"qsim bench: --repeat %d: allowed 1 to 100 runs per "
			"scenario\n",
			repeat);
		return EXIT_INPUT;
	}
	o.quick = quick;
	o.json = json;
	o.only = only;
	o.repeat = (unsigned int)repeat;
	o.compare = compare;
	return bench_main(&o, stdout);
}

/* scenarios/validation here, or else in the source tree qsim came from. */
static char *validation_dir(void)
{
	if (g_file_test("scenarios/validation", G_FILE_TEST_IS_DIR))
		return g_strdup("scenarios/validation");
	return g_build_filename(QSIM_SOURCE_DIR, "scenarios", "validation",
				NULL);
}

static int cmd_validate(int argc, char **argv)
{
	g_autofree char *dir = NULL, *md = NULL;
	gint seeds = 0, jobs = 0;
	gboolean list = FALSE;
	g_autoptr(GOptionContext) ctx = g_option_context_new("[NAME...]");
	g_autoptr(GError) err = NULL;
	struct validate_opts o = {0};
	struct validate_result res;
	GOptionEntry entries[] = {
		{"seeds", 0, 0, G_OPTION_ARG_INT, &seeds,
		 "seeds per variant (default: each case's, 3)", "N"},
		{"jobs", 0, 0, G_OPTION_ARG_INT, &jobs,
		 "parallel simulations (default: host cores)", "J"},
		{"list", 0, 0, G_OPTION_ARG_NONE, &list, "list the cases",
		 NULL},
		{"dir", 0, 0, G_OPTION_ARG_FILENAME, &dir,
		 "where the cases are (default scenarios/validation)", "DIR"},
		{"markdown", 0, 0, G_OPTION_ARG_FILENAME, &md,
		 "also write the table as Markdown", "FILE"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "qsim validate: %s\n", err->message);
		return EXIT_INPUT;
	}
	if (seeds < 0 || seeds > 1000 || jobs < 0 || jobs > 256) {
		fprintf(stderr, "qsim validate: --seeds from 1 to 1000, --jobs "
				"from 1 to 256\n");
		return EXIT_INPUT;
	}
	if (!dir)
		dir = validation_dir();
	o.dir = dir;
	o.names = argc > 1 ? argv + 1 : NULL;
	o.seeds = (unsigned int)seeds;
	o.jobs = (unsigned int)jobs;
	o.list = list;
	o.md_path = md;
	if (!validate_main(&o, &res, stdout, &err)) {
		fprintf(stderr, "qsim validate: %s\n", err->message);
		return EXIT_INPUT;
	}
	return list || res.passed == res.figures ? EXIT_OK : EXIT_VIOLATION;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "import") == 0)
		return cmd_import(argc - 1, argv + 1);
	if (strcmp(argv[1], "check-config") == 0)
		return cmd_check_config(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "torture") == 0)
		return cmd_torture(argc - 1, argv + 1);
	if (strcmp(argv[1], "bench") == 0)
		return cmd_bench(argc - 1, argv + 1);
	if (strcmp(argv[1], "validate") == 0)
		return cmd_validate(argc - 1, argv + 1);
	if (strcmp(argv[1], "version") == 0 ||
	    strcmp(argv[1], "--version") == 0) {
		printf("qsim %s (%s, coroutines: %s)\n", store_version(),
		       store_build_flags(), sim_coro_impl());
		return EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	fprintf(stderr, "qsim: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_INPUT;
}
