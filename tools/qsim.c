// SPDX-License-Identifier: MIT
/*
 * The qsim command: `qsim run`, `qsim list`, `qsim check-config`.
 * Exit codes (docs/cli.md): 0 ok, 1 bad usage or input, 2 a model
 * violation found, 3 internal error.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hypervisor/hv.h"
#include "locks/lock.h"
#include "sim/coro.h"
#include "tools/config.h"
#include "tools/model.h"
#include "tools/report.h"
#include "tools/store.h"

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
		"  check-config FILE.ini [--set section.key=value]...\n"
		"        validate a scenario and print its resolved "
		"parameters\n"
		"  list [locks|policies|presets|keys]\n"
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
	char *end;
	guint64 v;

	if (!seed)
		return true;
	if (!g_ascii_isdigit(*seed))
		return false;
	v = g_ascii_strtoull(seed, &end, 10);
	if (*end)
		return false;
	g_ptr_array_add(sets,
			g_strdup_printf("run.seed=%" G_GUINT64_FORMAT, v));
	return true;
}

static int parse_run_args(int argc, char **argv, bool with_db, char **file,
			  char ***overrides, char **db, bool *no_store)
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
		{"no-store", 0, 0, G_OPTION_ARG_NONE, &nostore,
		 "do not write the results database", NULL},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	if (!with_db) {
		entries[2].long_name = NULL;
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
			"18446744073709551615\n",
			argv[0], seed);
		return EXIT_INPUT;
	}
	g_ptr_array_add(all, NULL);
	*overrides = (char **)g_ptr_array_steal(all, NULL);
	*file = g_strdup(argv[1]);
	*no_store = nostore;
	return EXIT_OK;
}

static int cmd_run(int argc, char **argv)
{
	g_autofree char *file = NULL, *db = NULL;
	g_auto(GStrv) overrides = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(qsim_config) cfg = NULL;
	struct store *st = NULL;
	struct qsim_results res;
	bool no_store = false;
	int64_t run_id = 0;
	int rc;

	rc = parse_run_args(argc, argv, true, &file, &overrides, &db,
			    &no_store);
	if (rc)
		return rc;
	cfg = cfg_load(file, overrides, &err);
	if (!cfg) {
		fprintf(stderr, "qsim run: %s\n", err->message);
		return EXIT_INPUT;
	}
	if (!no_store) {
		st = store_open(db ? db : "results.db", &err);
		if (!st) {
			fprintf(stderr, "qsim run: %s\n", err->message);
			return EXIT_INPUT;
		}
	}
	if (!qsim_model_run(cfg, &res, &err)) {
		fprintf(stderr, "qsim run: internal error: %s\n", err->message);
		store_close(st);
		return EXIT_INTERNAL;
	}
	report_summary(stdout, cfg, &res);
	rc = qsim_results_exit_code(&res);
	if (st) {
		if (!store_run_insert(st, cfg, &res, &run_id, &err)) {
			fprintf(stderr, "qsim run: %s\n", err->message);
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
	g_autofree char *file = NULL, *db = NULL;
	g_auto(GStrv) overrides = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(qsim_config) cfg = NULL;
	bool no_store;
	int rc;

	rc = parse_run_args(argc, argv, false, &file, &overrides, &db,
			    &no_store);
	if (rc)
		return rc;
	cfg = cfg_load(file, overrides, &err);
	if (!cfg) {
		fprintf(stderr, "qsim check-config: %s\n", err->message);
		return EXIT_INPUT;
	}
	printf("# %s: valid; resolved parameters:\n%s", file, cfg->resolved);
	return EXIT_OK;
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
		printf("locks ([lock] type):\n");
		for (unsigned int i = 0; lk_registry[i]; i++)
			printf("  %-14s %s\n", lk_registry[i]->name,
			       lk_registry[i]->desc);
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
	if (all || strcmp(what, "keys") == 0) {
		printf("scenario keys:\n");
		cfg_print_keys(stdout);
		any = true;
	}
	if (!any) {
		fprintf(stderr,
			"qsim list: unknown topic '%s'; topics are: locks, "
			"policies, presets, keys\n",
			what);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "check-config") == 0)
		return cmd_check_config(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "version") == 0 ||
	    strcmp(argv[1], "--version") == 0) {
		printf("qsim %s (%s, coroutines: %s)\n", QSIM_VERSION,
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
