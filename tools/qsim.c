// SPDX-License-Identifier: MIT
/*
 * The qsim command: `qsim run`, `qsim list`, `qsim check-config`.
 * Exit codes (docs/cli.md): 0 ok, 1 bad usage or input, 2 a model
 * violation found, 3 internal error.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hypervisor/hv.h"
#include "locks/lock.h"
#include "sim/coro.h"
#include "sim/dist.h"
#include "tools/config.h"
#include "tools/model.h"
#include "tools/report.h"
#include "tools/store.h"
#include "tools/outfile.h"
#include "tools/torture.h"
#include "sim/mm.h"
#include "tools/bench.h"
#include "tools/validate.h"
#include "tools/probe.h"
#include "tools/compare.h"
#include "tools/trace.h"
#include "tools/plot.h"
#include "tools/export.h"

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
		"  run FILE.ini|- [--seed N] [--set section.key=value]... "
		"[--db PATH] [--no-store]\n"
		"      [--tag TAG] [--quiet | --json] [--variant NAME] "
		"[--stat-interval T]\n"
		"        simulate a scenario, print a summary, store every "
		"figure (default results.db)\n"
		"  torture [--lock NAME] [--mapping NAME] [--mutant NAME] "
		"[--seeds N | --time DURATION]\n"
		"          [--memory sc|tso|power] [--jobs J] [--first-seed "
		"S] [--keep-going]\n"
		"          [--out DIR] [--db PATH] [--no-store] [--tag TAG]\n"
		"        many short adversarial runs; stops at the first "
		"violation with its replay command\n"
		"  bench [--quick] [--json FILE] [--only TEXT] [--repeat N]\n"
		"        [--compare FILE]\n"
		"        the benchmark (docs/performance.md); not a test\n"
		"  validate [NAME...] [--seeds N] [--jobs J] [--list] "
		"[--dir DIR] [--markdown FILE]\n"
		"        simulated against published figures "
		"(scenarios/validation)\n"
		"  probe [--quick] [--cpus LIST] [--ini FILE] [--json FILE]\n"
		"        this host's own cache, atomic, barrier and SMT "
		"figures as [machine]\n"
		"        and [cost] keys, and its test-and-set lock against "
		"the model's; not a test\n"
		"  compare [FILE.ini...] [--vary K=V1,V2] [--tagged T] "
		"[--where K=V;...] [--seeds N]\n"
		"          [--fail-if METRIC:worse[:PCT]] [--json F] [--csv "
		"F]\n"
		"        variants over seeds: means, 95%% intervals, a "
		"verdict\n"
		"  sweep FILE.ini [--grid K=V1,V2|LO..HI:STEP]... [--seeds N] "
		"[--jobs J] [--emit-jobs DIR]\n"
		"        a grid of key values (none: the scenario) over seeds, "
		"resumable; or jobs for GNU parallel and Slurm\n"
		"  report [RUN...] [--tagged T] [--where ...] [--last N] "
		"[--lkml]\n"
		"        stored runs as a table\n"
		"  export [RUN...] [--format csv|json] [--table NAME] [-o "
		"FILE]\n"
		"        stored runs as CSV or JSON\n"
		"  plot sweep|cdf|fairness -o FILE.png|FILE.svg [--x K] [--by "
		"K] [--run ID]...\n"
		"        figures from the store, drawn by gnuplot\n"
		"  trace FILE.ini|--run ID [--from T] [--to T] [-o FILE]\n"
		"        a run's timeline for the Perfetto UI\n"
		"  import FILE.db... [--db PATH]\n"
		"        add the runs of other qsim databases (a run saved "
		"beside a busy one)\n"
		"  merge OUT.db IN.db...\n"
		"        merge databases, each run once\n"
		"  check-config FILE.ini [--set section.key=value]...\n"
		"        validate a scenario and print its resolved "
		"parameters\n"
		"  list [locks|policies|presets|mappings|mutants|keys "
		"[SECTION]]\n"
		"        what can be simulated, with parameters and defaults\n"
		"  version, -V\n"
		"  help COMMAND, COMMAND --help\n"
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

struct run_args {
	char *file, *db, *variant, *tag, *stat_interval;
	char **overrides;
	bool no_store, quiet, json;
};

static void run_args_clear(struct run_args *a)
{
	g_free(a->file);
	g_free(a->db);
	g_free(a->variant);
	g_free(a->tag);
	g_free(a->stat_interval);
	g_strfreev(a->overrides);
}

static int parse_run_args(int argc, char **argv, bool run, struct run_args *a)
{
	g_autofree char *seed = NULL;
	g_auto(GStrv) sets = NULL;
	g_autoptr(GOptionContext) ctx = g_option_context_new(
		"FILE.ini - a scenario (- reads it from standard input)");
	g_autoptr(GError) err = NULL;
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	gboolean nostore = FALSE, quiet = FALSE, json = FALSE;
	GOptionEntry entries[] = {
		{"seed", 0, 0, G_OPTION_ARG_STRING, &seed,
		 "seed of the run (overrides run.seed)", "N"},
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override one scenario key", "SECTION.KEY=VALUE"},
		{"variant", 0, 0, G_OPTION_ARG_STRING, &a->variant,
		 "of a validation case: run this [variant]", "NAME"},
		{"db", 0, 0, G_OPTION_ARG_FILENAME, &a->db,
		 "results database (default results.db)", "PATH"},
		{"no-store", 0, 0, G_OPTION_ARG_NONE, &nostore,
		 "do not write the results database", NULL},
		{"tag", 0, 0, G_OPTION_ARG_STRING, &a->tag,
		 "store the run with this tag (runs.tag)", "TAG"},
		{"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
		 "print only the stored run's id", NULL},
		{"json", 0, 0, G_OPTION_ARG_NONE, &json,
		 "print the summary as JSON", NULL},
		{"stat-interval", 0, 0, G_OPTION_ARG_STRING, &a->stat_interval,
		 "print locktorture-style statistics lines every T of "
		 "simulated time, as the run goes",
		 "T"},
		G_OPTION_ENTRY_NULL,
	};

	if (!run) /* check-config: no database, no output options */
		entries[3] = (GOptionEntry)G_OPTION_ENTRY_NULL;
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "qsim %s: %s\n", argv[0], err->message);
		return EXIT_INPUT;
	}
	/* "--" ends the options: what follows is the file, even "-x". */
	if (argc == 3 && strcmp(argv[1], "--") == 0)
		argv[1] = argv[2], argc = 2;
	if (argc != 2) {
		fprintf(stderr,
			"qsim %s: expected one scenario file (qsim %s "
			"--help)\n",
			argv[0], argv[0]);
		return EXIT_INPUT;
	}
	for (char **s = sets; s && *s; s++)
		g_ptr_array_add(all, g_strdup(*s));
	if (a->stat_interval) {
		g_autoptr(GError) e = NULL;

		/* Checked here so that the message names the option, not
		 * the --set it becomes. */
		sim_time_t t = 0;

		if (!cfg_value_check("workload", "stat_interval",
				     a->stat_interval, &e)) {
			fprintf(stderr, "qsim %s: --stat-interval '%s': %s\n",
				argv[0], a->stat_interval, e->message);
			return EXIT_INPUT;
		}
		if (sim_parse_time(a->stat_interval, &t) && t > 0 &&
		    t < SIM_US) {
			fprintf(stderr,
				"qsim %s: --stat-interval '%s': less than 1us "
				"would be more output than simulation; 0 "
				"(none), auto, or from 1us to 1000s\n",
				argv[0], a->stat_interval);
			return EXIT_INPUT;
		}
		g_ptr_array_add(all,
				g_strdup_printf("workload.stat_interval=%s",
						a->stat_interval));
	}
	if (!add_seed(all, seed)) {
		fprintf(stderr,
			"qsim %s: --seed '%s': expected an integer from 0 to "
			"%" PRIu64 "\n",
			argv[0], seed, CFG_SEED_MAX);
		return EXIT_INPUT;
	}
	if (quiet && json) {
		fprintf(stderr, "qsim %s: --quiet or --json, not both\n",
			argv[0]);
		return EXIT_INPUT;
	}
	/* options that would do nothing, as torture refuses them */
	if (nostore && (a->db || a->tag)) {
		fprintf(stderr,
			"qsim %s: --no-store with %s: nothing is stored, so it "
			"would do nothing; give one or the other\n",
			argv[0], a->db ? "--db" : "--tag");
		return EXIT_INPUT;
	}
	g_ptr_array_add(all, NULL);
	a->overrides = (char **)g_ptr_array_steal(all, NULL);
	a->file = g_strdup(argv[1]);
	a->no_store = nostore;
	a->quiet = quiet;
	a->json = json;
	return EXIT_OK;
}

/* `qsim run -`: the scenario from standard input, named "-". */
static struct qsim_config *load_stdin(char **overrides, GError **error)
{
	g_autoptr(GIOChannel) in = g_io_channel_unix_new(STDIN_FILENO);
	g_autofree char *text = NULL;
	gsize len;

	g_io_channel_set_encoding(in, NULL, NULL);
	if (g_io_channel_read_to_end(in, &text, &len, error) !=
	    G_IO_STATUS_NORMAL)
		return NULL;
	if (memchr(text, '\0', len)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "-: a NUL byte on standard input: a scenario is "
			    "text");
		return NULL;
	}
	return cfg_load_text("-", text, overrides, error);
}

/*
 * The scenario @file with @overrides; a validation case
 * (scenarios/validation/) is its base scenario with @variant's overrides
 * first, so --set still wins.
 */
static struct qsim_config *load_scenario_text(const char *file,
					      const char *variant,
					      char **overrides, GError **error)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) vsets = NULL;
	g_autoptr(GPtrArray) all = NULL;

	if (strcmp(file, "-") == 0 && !variant)
		return load_stdin(overrides, error);
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

/* As load_scenario_text, and says when a kernel_* lock is not built from
 * the files the scenario names ([lock] kernel_files_sha256: a torture
 * failure's scenario does): the run goes on, testing this binary's. */
static struct qsim_config *load_scenario(const char *file, const char *variant,
					 char **overrides, GError **error)
{
	struct qsim_config *cfg =
		load_scenario_text(file, variant, overrides, error);
	g_autofree char *why = cfg ? cfg_ktree_mismatch(cfg) : NULL;

	if (why)
		fprintf(stderr, "qsim: warning: %s\n", why);
	return cfg;
}

/*
 * Output paths are checked before anything runs (bad input: exit 1, not
 * a lost result at the end).  A file: its folder exists and may be
 * written ("-": stdout).  A folder (@dir): it, or the nearest folder
 * above it that exists, may be written (it is made when needed).
 */
static bool out_path_ok(const char *what, const char *opt, const char *path,
			bool dir)
{
	g_autofree char *p = NULL;

	if (!path || (!dir && !strcmp(path, "-")))
		return true;
	if (!*path) {
		fprintf(stderr, "%s: %s needs a name\n", what, opt);
		return false;
	}
	if (!dir && g_file_test(path, G_FILE_TEST_IS_DIR)) {
		fprintf(stderr, "%s: %s %s: a folder, not a file\n", what, opt,
			path);
		return false;
	}
	if (!dir && g_file_test(path, G_FILE_TEST_EXISTS) &&
	    access(path, W_OK) != 0) {
		fprintf(stderr, "%s: %s %s: cannot write it: %s\n", what, opt,
			path, g_strerror(errno));
		return false;
	}
	p = dir ? g_strdup(path) : g_path_get_dirname(path);
	while (dir && !g_file_test(p, G_FILE_TEST_EXISTS)) {
		char *up = g_path_get_dirname(p);
		bool top = !strcmp(up, p);

		g_free(p);
		p = up;
		if (top)
			break;
	}
	if (!g_file_test(p, G_FILE_TEST_IS_DIR)) {
		fprintf(stderr, "%s: %s %s: %s %s\n", what, opt, path,
			g_file_test(p, G_FILE_TEST_EXISTS) ? "not a folder:"
							   : "no such folder:",
			p);
		return false;
	}
	/* A file made and removed, not access(): root passes access() in
	 * folders that take no files (/proc, a read-only mount). */
	{
		g_autofree char *probe =
			g_build_filename(p, ".qsim-probe-XXXXXX", NULL);
		int fd = g_mkstemp(probe);

		if (fd < 0) {
			fprintf(stderr, "%s: %s %s: cannot write in %s: %s\n",
				what, opt, path, p, g_strerror(errno));
			return false;
		}
		close(fd);
		g_unlink(probe);
	}
	return true;
}

/* Are @a and @b one file (both exist)? */
static bool same_file(const char *a, const char *b)
{
	GStatBuf x, y;

	return g_stat(a, &x) == 0 && g_stat(b, &y) == 0 &&
	       x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Would output paths @a and @b write one file? */
static bool same_output(const char *a, const char *b)
{
	g_autofree char *x = g_canonicalize_filename(a, NULL);
	g_autofree char *y = g_canonicalize_filename(b, NULL);

	return !strcmp(a, b) || !strcmp(x, y) || same_file(a, b);
}

/* A database this command made, with its WAL files. */
static void remove_db(const char *db)
{
	g_autofree char *wal = g_strconcat(db, "-wal", NULL);
	g_autofree char *shm = g_strconcat(db, "-shm", NULL);

	g_unlink(wal);
	g_unlink(shm);
	g_unlink(db);
}

/*
 * `qsim import FILE.db... [--db PATH]` adds every run; `qsim merge OUT.db
 * IN.db...` adds those OUT does not have yet (same resolved parameters and
 * binary), so merging a sweep's databases twice stores each point once.
 */
static int cmd_import(int argc, char **argv, bool merge)
{
	g_autofree char *db = NULL;
	g_auto(GStrv) files = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(GOptionContext) ctx = g_option_context_new(
		merge ? "OUT.db IN.db... - merge databases, each run once"
		      : "FILE.db... - add other databases' runs");
	GOptionEntry entries[] = {
		{"db", 0, 0, G_OPTION_ARG_FILENAME, &db,
		 "the database to add them to (default results.db)", "PATH"},
		{G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files,
		 NULL, NULL},
		G_OPTION_ENTRY_NULL,
	};
	const char *what = merge ? "qsim merge" : "qsim import";
	char **in;
	struct store *st;
	int rc = EXIT_OK;
	bool made; /* the database is this command's: gone if it fails */
	int64_t went = 0;

	if (merge)
		entries[0] = entries[1], entries[1] = entries[2];
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err) || !files ||
	    (merge && !files[1]) || (db && !*db)) {
		fprintf(stderr, "%s: %s\n", what,
			err	? err->message
			: merge ? "give the output and the databases to merge"
				: "give the files to import");
		return EXIT_INPUT;
	}
	if (merge)
		db = g_strdup(files[0]);
	in = merge ? files + 1 : files;
	/* every input first: a misspelled name or a file that is no qsim
	 * database changes nothing anywhere (not even makes the output) */
	for (char **f = in; *f; f++) {
		if (!g_file_test(*f, G_FILE_TEST_IS_REGULAR)) {
			fprintf(stderr,
				"%s: %s: no such database (not a regular "
				"file); nothing %s\n",
				what, **f ? *f : "\"\"",
				merge ? "merged" : "imported");
			return EXIT_INPUT;
		}
		/* into itself: it would wait on its own lock */
		if (same_file(*f, db ? db : "results.db")) {
			fprintf(stderr,
				"%s: %s is the database %s into; nothing %s\n",
				what, *f, merge ? "merged" : "imported",
				merge ? "merged" : "imported");
			return EXIT_INPUT;
		}
		g_clear_error(&err);
		if (!store_check_source(*f, &err)) {
			fprintf(stderr, "%s: %s; nothing %s\n", what,
				err->message, merge ? "merged" : "imported");
			return EXIT_INPUT;
		}
	}
	if (!db)
		db = g_strdup("results.db");
	made = !g_file_test(db, G_FILE_TEST_EXISTS);
	st = store_open(db, &err);
	if (!st) {
		fprintf(stderr, "%s: %s\n", what, err->message);
		if (made)
			remove_db(db);
		return EXIT_INPUT;
	}
	for (char **f = in; *f; f++) {
		struct store_import_counts n;

		g_clear_error(&err);
		if (!store_import(st, *f, merge, &n, &err)) {
			fprintf(stderr, "%s: %s\n", what, err->message);
			rc = EXIT_INPUT;
			continue;
		}
		went++;
		printf("%s %" PRId64 " run%s from %s into %s",
		       merge ? "merged" : "imported", n.runs,
		       n.runs == 1 ? "" : "s", *f, st->path);
		if (merge)
			printf(" (%" PRId64 " already there)", n.same);
		if (n.tortures || n.tortures_same) {
			printf("; %" PRId64 " torture run%s", n.tortures,
			       n.tortures == 1 ? "" : "s");
			if (merge)
				printf(" (%" PRId64 " already there)",
				       n.tortures_same);
		}
		printf("\n");
	}
	store_close(st);
	/* each file is its own transaction: a failed file leaves nothing
	 * of itself, and the files before it stay in a PATH or OUT that
	 * was there; one this command made goes, for a merge (a part of
	 * the result is not the result) or an import that got no file in */
	if (made && rc != EXIT_OK && (merge || !went)) {
		remove_db(db);
		fprintf(stderr, "%s: %s removed (this command made it)\n", what,
			db);
	}
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

/* `qsim run` on a terminal: simulated time and an ETA, from a second on. */
struct run_watch {
	sim_time_t end;
	gint64 start, said;
	bool shown;
};

static void run_progress(void *data, sim_time_t now)
{
	struct run_watch *w = data;
	gint64 t = g_get_monotonic_time();
	double el = (double)(t - w->start) / 1e6;
	double done = (double)now / (double)w->end;

	if (el < 1.0 || t - w->said < G_TIME_SPAN_SECOND / 4 || !w->end)
		return;
	w->said = t;
	w->shown = true;
	fprintf(stderr,
		"\rqsim run: simulated %.3f of %.3f s (%.0f%%), %.0f s "
		"elapsed, ETA %.0f s\033[K",
		(double)now / (double)SIM_S, (double)w->end / (double)SIM_S,
		100 * done, el, done > 0 ? el / done - el : 0.0);
	fflush(stderr);
}

static void run_stat(void *data, const char *block)
{
	struct run_watch *w = data;

	if (w->shown) { /* the progress line goes; it comes back */
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	fputs(block, stdout);
	fflush(stdout);
}

static int cmd_run(int argc, char **argv)
{
	struct run_args a = {0};
	g_autoptr(GError) err = NULL;
	g_autoptr(qsim_config) cfg = NULL;
	struct store *st = NULL;
	struct qsim_results res;
	struct qsim_hooks hooks = {0};
	struct run_watch watch = {0};
	int64_t run_id = 0;
	bool ok;
	int rc;

	rc = parse_run_args(argc, argv, true, &a);
	if (rc)
		goto out;
	rc = EXIT_INPUT;
	cfg = load_scenario(a.file, a.variant, a.overrides, &err);
	if (!cfg) {
		fprintf(stderr, "qsim run: %s\n", err->message);
		goto out;
	}
	if (a.db && !*a.db) {
		fprintf(stderr, "qsim run: --db needs a file name ('' given; "
				"--no-store stores nothing)\n");
		goto out;
	}
	if (!a.no_store) {
		st = store_open(a.db ? a.db : "results.db", &err);
		if (!st) {
			fprintf(stderr, "qsim run: %s\n", err->message);
			goto out;
		}
		st->tag = a.tag;
	}
	catch_signals();
	watch.end = cfg->warmup_ps + cfg->duration_ps;
	watch.start = watch.said = g_get_monotonic_time();
	hooks.data = &watch;
	if (isatty(STDERR_FILENO) && !a.quiet && !a.json)
		hooks.progress_fn = run_progress;
	if (a.stat_interval && cfg->stat_interval_ps && !a.quiet && !a.json) {
		hooks.stat_fn = run_stat;
		/* the statistics come as the run goes: say whose first */
		printf("qsim: %s, seed %" PRIu64 ": statistics every %s of "
		       "simulated time\n",
		       cfg->path, cfg->seed, a.stat_interval);
	}
	ok = qsim_model_run_hooks(cfg, &res, &hooks, &err);
	if (watch.shown)
		fputs("\r\033[K", stderr);
	if (!ok) {
		fprintf(stderr, "qsim run: internal error: %s\n", err->message);
		store_close(st);
		rc = EXIT_INTERNAL;
		goto out;
	}
	if (hooks.stat_fn) /* printed as they came */
		g_clear_pointer(&res.stat_log, g_free);
	/* cut short in the warm-up: no measured figure exists to show */
	bool in_warmup = res.interrupted && !res.measured_ps;

	if (!a.quiet && !a.json && !in_warmup)
		report_summary(stdout, cfg, &res);
	rc = qsim_results_exit_code(&res);
	if (res.interrupted) {
		/* Decision (docs/cli.md): a run cut short is not stored. */
		FILE *f = a.quiet || a.json ? stderr : stdout;
		const char *sig =
			sim_interrupt == SIGINT ? "SIGINT" : "SIGTERM";
		double at = (double)res.interrupted_ps / (double)SIM_S;

		if (in_warmup)
			fprintf(f,
				"INTERRUPTED by %s at simulated time %.6f s, "
				"in the %.6f s warm-up: nothing measured, "
				"nothing stored\n",
				sig, at,
				(double)cfg->warmup_ps / (double)SIM_S);
		else
			fprintf(f,
				"\nINTERRUPTED by %s at simulated time %.6f s: "
				"the figures above cover the measured time "
				"before it; nothing stored\n",
				sig, at);
		rc = 128 + sim_interrupt;
		store_close(st);
		st = NULL;
	}
	if (st) {
		if (!store_run_insert(st, cfg, &res, &run_id, &err)) {
			fprintf(stderr, "qsim run: %s\n", err->message);
			store_save_beside(st->path, cfg, &res, "qsim run");
			rc = EXIT_INTERNAL;
		} else if (a.quiet) {
			printf("%" PRId64 "\n", run_id);
		} else if (!a.json) {
			printf("\nstored as run %" PRId64 " in %s\n", run_id,
			       st->path);
		}
	}
	if (a.json && !in_warmup) {
		g_autofree char *j =
			report_json(cfg, &res, run_id, st ? st->path : NULL);

		fputs(j, stdout);
		fputs("\n", stdout);
	}
	store_close(st);
	qsim_results_clear(&res);
	fflush(stdout);
out:
	run_args_clear(&a);
	return rc;
}

static int cmd_check_config(int argc, char **argv)
{
	struct run_args a = {0};
	g_autoptr(GError) err = NULL;
	g_autoptr(qsim_config) cfg = NULL;
	int rc;

	rc = parse_run_args(argc, argv, false, &a);
	if (rc)
		goto out;
	cfg = load_scenario(a.file, a.variant, a.overrides, &err);
	if (!cfg) {
		fprintf(stderr, "qsim check-config: %s\n", err->message);
		rc = EXIT_INPUT;
		goto out;
	}
	printf("# %s: valid; resolved parameters:\n%s", a.file, cfg->resolved);
out:
	run_args_clear(&a);
	return rc;
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

	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: qsim list [TOPIC]\n\n"
		       "topics: locks, policies, presets, mappings, mutants, "
		       "keys [SECTION]; none: all of them\n");
		return EXIT_OK;
	}
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-') {
			fprintf(stderr,
				"qsim list: unknown option %s (qsim list "
				"--help)\n",
				argv[i]);
			return EXIT_INPUT;
		}
	if (argc > 3 || (argc == 3 && strcmp(what, "keys"))) {
		fprintf(stderr, "qsim list: too many arguments\n");
		return EXIT_INPUT;
	}
	if (argc == 3) {
		if (!cfg_print_section_keys(stdout, argv[2])) {
			g_autofree char *all_s = cfg_section_names();

			fprintf(stderr,
				"qsim list keys: no section [%s]; the "
				"sections are: %s\n",
				argv[2], all_s);
			return EXIT_INPUT;
		}
		return EXIT_OK;
	}
	if (all || strcmp(what, "locks") == 0) {
		printf("locks ([lock] type), with the [lock] keys they "
		       "read:\n");
		for (unsigned int i = 0; lk_registry[i]; i++) {
			const struct lk_ops *o = lk_registry[i];

			/* a kernel tree's names are longer: their own line */
			if (strlen(o->name) > 14)
				printf("  %s\n  %-14s %s\n", o->name, "",
				       o->desc);
			else
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
	if (all || strcmp(what, "mappings") == 0) {
		printf("pv wait/kick mappings ([lock] pv_mapping; "
		       "docs/locks.md):\n");
		for (unsigned int i = 0; i < LK_PV_NR; i++)
			printf("  %s\n",
			       lk_pv_mapping_name((enum lk_pv_mapping)i));
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
			printf("  %-22s %s%s%s%s%s\n", lk_mutants[i]->mutant,
			       lk_mutants[i]->mutant_desc,
			       lk_mutants[i]->mutant_mapping
				       ? "; exposed with pv_mapping "
				       : "",
			       lk_mutants[i]->mutant_mapping
				       ? lk_mutants[i]->mutant_mapping
				       : "",
			       lk_mutants[i]->mutant_memory ? "; needs memory "
							    : "",
			       lk_mutants[i]->mutant_memory
				       ? lk_mutants[i]->mutant_memory
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
			"policies, presets, mappings, mutants, keys\n",
			what);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* --jobs J as given (G_MININT: not given, the host's cores, 0) into
 * @jobs; false, having said why, if out of range. */
static bool jobs_option(const char *what, gint given, unsigned int *jobs)
{
	if (given != G_MININT && (given < 1 || given > 256)) {
		fprintf(stderr, "%s: --jobs %d: from 1 to 256\n", what, given);
		return false;
	}
	*jobs = given == G_MININT ? 0 : (unsigned int)given;
	return true;
}

/* Parse the options of a command that takes no other arguments; false
 * (after saying why) on a bad option or an unexpected argument. */
static bool parse_no_args(GOptionContext *ctx, const char *what, int *argc,
			  char ***argv)
{
	g_autoptr(GError) err = NULL;

	if (!g_option_context_parse(ctx, argc, argv, &err)) {
		fprintf(stderr, "%s: %s\n", what, err->message);
		return false;
	}
	if (*argc != 1) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", what,
			(*argv)[1]);
		return false;
	}
	return true;
}

/* A host time for --time: a number above 0 with ms, s, min or h. */
static bool parse_host_time(const char *v, double *seconds)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = {{"ms", 1e-3}, {"min", 60}, {"s", 1}, {"h", 3600}};
	char *end;
	double x = g_ascii_strtod(v, &end);

	if (end == v || !isfinite(x) || x <= 0 || !g_ascii_isdigit(*v))
		return false;
	for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
		if (strcmp(end, units[i].unit) == 0) {
			*seconds = x * units[i].s;
			return *seconds <= 1e9;
		}
	return false;
}

static int cmd_torture(int argc, char **argv)
{
	g_autofree char *lock = NULL, *mapping = NULL, *mutant = NULL;
	g_autofree char *seeds = NULL, *time = NULL, *out = NULL, *first = NULL;
	g_autofree char *db = NULL, *tag = NULL, *memory = NULL;
	gint jobs = G_MININT; /* not given: the host's cores */
	gboolean keep_going = FALSE, no_store = FALSE;
	const char *dbp;
	struct store *st = NULL;
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
		{"memory", 0, 0, G_OPTION_ARG_STRING, &memory,
		 "memory model: sc, tso, power (default sc; a barrier "
		 "mutant's own)",
		 "MODEL"},
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
		{"db", 0, 0, G_OPTION_ARG_FILENAME, &db,
		 "store the torture run here (default results.db)", "PATH"},
		{"no-store", 0, 0, G_OPTION_ARG_NONE, &no_store,
		 "do not write the results database", NULL},
		{"tag", 0, 0, G_OPTION_ARG_STRING, &tag,
		 "store it with this tag", "TAG"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!parse_no_args(ctx, "qsim torture", &argc, &argv))
		return EXIT_INPUT;
	if (lock && !lk_find(lock)) {
		g_autoptr(GString) names = g_string_new(NULL);

		for (unsigned int i = 0; lk_registry[i]; i++)
			g_string_append_printf(names, "%s%s", i ? ", " : "",
					       lk_registry[i]->name);
		fprintf(stderr,
			"qsim torture: --lock '%s': not a lock; one of %s\n",
			lock, names->str);
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
	if (memory) {
		unsigned int k = 0;

		while (sim_memory_name(k) && strcmp(memory, sim_memory_name(k)))
			k++;
		if (!sim_memory_name(k)) {
			fprintf(stderr,
				"qsim torture: --memory '%s': one of sc, tso, "
				"power\n",
				memory);
			return EXIT_INPUT;
		}
	}
	if (mutant && !lk_find_mutant(mutant)) {
		g_autoptr(GString) names = g_string_new(NULL);

		for (unsigned int i = 0; lk_mutants[i]; i++)
			g_string_append_printf(names, "%s%s", i ? ", " : "",
					       lk_mutants[i]->mutant);
		fprintf(stderr,
			"qsim torture: --mutant '%s': not a mutant; one of "
			"%s (qsim list mutants says what each breaks)\n",
			mutant, names->str);
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
	/* a mapping for a lock that has no pv paths would do nothing (and
	 * be stored as if it had) */
	if (mapping) {
		const struct lk_ops *ops =
			mutant ? lk_find_mutant(mutant)
			       : lk_find(lock ? lock : "pv_qspinlock");

		if (!lk_reads_key(ops, "pv_mapping")) {
			fprintf(stderr,
				"qsim torture: --mapping %s: lock %s has no "
				"pv mapping (pv_qspinlock, qrwlock and "
				"kernel_pv_qspinlock have)\n",
				mapping, ops->name);
			return EXIT_INPUT;
		}
	}
	if (no_store && (db || tag)) {
		fprintf(stderr,
			"qsim torture: --no-store with %s: nothing is stored, "
			"so it would do nothing; give one or the other\n",
			db ? "--db" : "--tag");
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
		if (!parse_host_time(time, &o.host_seconds)) {
			fprintf(stderr,
				"qsim torture: --time '%s': a host time above "
				"0 with a unit: ms, s, min or h (e.g. 90s, "
				"10min, 2h)\n",
				time);
			return EXIT_INPUT;
		}
		o.seeds = 0;
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
	if (!jobs_option("qsim torture", jobs, &o.jobs))
		return EXIT_INPUT;
	o.lock = lock;
	o.mapping = mapping;
	o.mutant = mutant;
	o.keep_going = keep_going;
	o.out_dir = out ? out : "torture-out";
	/* the default is made only if a seed fails: checked if given */
	if (!out_path_ok("qsim torture", "--out", out, true))
		return EXIT_INPUT;
	if (mutant && !mapping)
		o.mapping = lk_find_mutant(mutant)->mutant_mapping;
	o.memory = memory;
	if (mutant && !memory)
		o.memory = lk_find_mutant(mutant)->mutant_memory;
	o.progress = stderr;
	o.tty = isatty(STDERR_FILENO);
	if (db && !*db) {
		fprintf(stderr, "qsim torture: --db needs a file name\n");
		return EXIT_INPUT;
	}
	dbp = db ? db : "results.db";
	/*
	 * An existing database is opened (and checked) now; a new one is
	 * made only when there is something to store: a torture that ran
	 * no seed leaves no file behind, and never has one to remove that
	 * another writer may have stored in meanwhile.
	 */
	if (!no_store && g_file_test(dbp, G_FILE_TEST_EXISTS)) {
		st = store_open(dbp, &err);
		if (!st) {
			fprintf(stderr, "qsim torture: %s\n", err->message);
			return EXIT_INPUT;
		}
		st->tag = tag;
	} else if (!no_store &&
		   !out_path_ok("qsim torture", "--db", dbp, false)) {
		return EXIT_INPUT;
	}
	catch_signals();
	if (!torture_run(&o, &res, stdout, &err)) {
		fprintf(stderr, "qsim torture: %s\n", err->message);
		store_close(st);
		return EXIT_INTERNAL;
	}
	{
		int rc = res.failures ? EXIT_VIOLATION : EXIT_OK;
		int64_t id;

		if (!no_store && !st && res.seeds_run) {
			st = store_open(dbp, &err);
			if (!st) {
				fprintf(stderr, "qsim torture: %s\n",
					err->message);
				rc = EXIT_INTERNAL;
			} else {
				st->tag = tag;
			}
		}
		if (st && res.seeds_run &&
		    !store_torture_insert(st, &o, &res, &id, &err)) {
			fprintf(stderr, "qsim torture: %s\n", err->message);
			rc = EXIT_INTERNAL;
		} else if (st && res.seeds_run) {
			printf("stored as torture run %" PRId64 " in %s\n", id,
			       st->path);
		}
		store_close(st);
		if (res.interrupted) {
			fprintf(stderr,
				"qsim torture: INTERRUPTED after %" PRIu64
				" seed%s\n",
				res.seeds_run, res.seeds_run == 1 ? "" : "s");
			/* seeds past the done prefix may have run too: going
			 * on from it repeats them, never skips one */
			if (res.next_seed == o.first_seed) {
				fprintf(stderr,
					"qsim torture: seed %" PRIu64
					" did not end; the same "
					"command starts again\n",
					o.first_seed);
			} else if (!res.failures || o.keep_going) {
				fprintf(stderr,
					"qsim torture: seeds %" PRIu64
					" to %" PRIu64 " all ran; to go on, "
					"give the same command with "
					"--first-seed %" PRIu64,
					o.first_seed, res.next_seed - 1,
					res.next_seed);
				if (o.seeds)
					fprintf(stderr, " --seeds %" PRIu64,
						o.first_seed + o.seeds -
							res.next_seed);
				fprintf(stderr, "\n");
			}
			torture_result_clear(&res);
			return 128 + sim_interrupt;
		}

		if (!res.seeds_run) { /* it tested nothing: not a pass */
			fprintf(stderr, "qsim torture: no seed ran (a longer "
					"--time?)\n");
			rc = EXIT_INPUT;
		}
		torture_result_clear(&res);
		return rc;
	}
}

/* `qsim compare` and `qsim sweep`: one parser, compare.c does the rest. */
static int cmd_compare(int argc, char **argv, bool sweep)
{
	g_autofree char *db = NULL, *json = NULL, *csv = NULL, *tag = NULL;
	g_autofree char *seeds = NULL, *first = NULL, *emit = NULL;
	g_auto(GStrv) vary = NULL, grid = NULL, sets = NULL, tagged = NULL;
	g_auto(GStrv) wheres = NULL, metrics = NULL, fail_if = NULL;
	g_auto(GStrv) files = NULL;
	gint jobs = G_MININT; /* not given: the host's cores */
	g_autoptr(GOptionContext) ctx = g_option_context_new(
		sweep ? "FILE.ini - a scenario over a grid of key values"
		      : "[FILE.ini...] - variants over seeds, with a verdict");
	g_autoptr(GError) err = NULL;
	struct compare_opts o = {0};
	GOptionEntry common[] = {
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override one key in every variant", "SECTION.KEY=VALUE"},
		{"seeds", 0, 0, G_OPTION_ARG_STRING, &seeds,
		 sweep ? "seeds per point (default 3)"
		       : "seeds per variant (default 5)",
		 "N"},
		{"first-seed", 0, 0, G_OPTION_ARG_STRING, &first,
		 "first seed (default 1)", "S"},
		{"jobs", 0, 0, G_OPTION_ARG_INT, &jobs,
		 "parallel simulations (default: host cores)", "J"},
		{"db", 0, 0, G_OPTION_ARG_FILENAME, &db,
		 "results database (default results.db); runs already "
		 "there are not run again",
		 "PATH"},
		{"tag", 0, 0, G_OPTION_ARG_STRING, &tag,
		 "store the runs made with this tag", "TAG"},
		{"metric", 0, 0, G_OPTION_ARG_STRING_ARRAY, &metrics,
		 "show this metric (repeat; default: all, a sweep "
		 "throughput and lat_p99_ns)",
		 "NAME"},
		{"json", 0, 0, G_OPTION_ARG_FILENAME, &json,
		 "also write the figures as JSON (- for stdout)", "FILE"},
		{"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv,
		 "also write the figures as CSV (- for stdout)", "FILE"},
		{G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files,
		 NULL, NULL},
		G_OPTION_ENTRY_NULL,
	};
	GOptionEntry cmp[] = {
		{"vary", 0, 0, G_OPTION_ARG_STRING_ARRAY, &vary,
		 "a variant per value (repeat to cross)",
		 "SECTION.KEY=V1,V2,..."},
		{"tagged", 0, 0, G_OPTION_ARG_STRING_ARRAY, &tagged,
		 "a variant of the stored runs with this tag", "TAG"},
		{"where", 0, 0, G_OPTION_ARG_STRING_ARRAY, &wheres,
		 "a variant of the stored runs with these resolved values",
		 "SEC.KEY=VALUE;..."},
		{"fail-if", 0, 0, G_OPTION_ARG_STRING_ARRAY, &fail_if,
		 "exit 2 if a variant is significantly worse than the first "
		 "(by at least PCT percent)",
		 "METRIC:worse[:PCT]"},
		G_OPTION_ENTRY_NULL,
	};
	GOptionEntry swp[] = {
		{"grid", 0, 0, G_OPTION_ARG_STRING_ARRAY, &grid,
		 "values of one key (repeat: the grids multiply)",
		 "SECTION.KEY=V1,V2|LO..HI:STEP"},
		{"emit-jobs", 0, 0, G_OPTION_ARG_FILENAME, &emit,
		 "write one command per point and seed, a GNU parallel "
		 "line and a Slurm array script to DIR; run nothing",
		 "DIR"},
		G_OPTION_ENTRY_NULL,
	};
	const char *what = sweep ? "qsim sweep" : "qsim compare";

	g_option_context_add_main_entries(ctx, common, NULL);
	g_option_context_add_main_entries(ctx, sweep ? swp : cmp, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "%s: %s\n", what, err->message);
		return EXIT_INPUT;
	}
	o.seeds = sweep ? 3 : 5;
	if (seeds) {
		uint64_t n;

		if (!cfg_parse_u64(seeds, &n) || n < 1 || n > 10000) {
			fprintf(stderr,
				"%s: --seeds '%s': a whole number from 1 to "
				"10000\n",
				what, seeds);
			return EXIT_INPUT;
		}
		o.seeds = (unsigned int)n;
	}
	o.first_seed = 1;
	if (first && (!cfg_parse_u64(first, &o.first_seed) ||
		      o.first_seed > CFG_SEED_MAX - o.seeds + 1)) {
		fprintf(stderr,
			"%s: --first-seed '%s': a whole number; the last "
			"seed may be at most %" PRIu64 "\n",
			what, first, CFG_SEED_MAX);
		return EXIT_INPUT;
	}
	if (!jobs_option(what, jobs, &o.jobs))
		return EXIT_INPUT;
	if (db && !*db) {
		fprintf(stderr, "%s: --db needs a file name\n", what);
		return EXIT_INPUT;
	}
	o.db = db ? db : "results.db";
	o.files = files;
	o.vary = vary;
	o.grid = grid;
	o.sets = sets;
	o.tags = tagged;
	o.wheres = wheres;
	o.metrics = metrics;
	o.fail_if = fail_if;
	if (!out_path_ok(what, "--json", json, false) ||
	    !out_path_ok(what, "--csv", csv, false) ||
	    !out_path_ok(what, "--emit-jobs", emit, true))
		return EXIT_INPUT;
	/* one output a file (the second would replace the first) */
	if (json && csv && same_output(json, csv)) {
		fprintf(stderr,
			"%s: --json %s and --csv %s: one file for both; give "
			"each its own (at most one of them '-')\n",
			what, json, csv);
		return EXIT_INPUT;
	}
	/* options that would do nothing: the jobs run later, elsewhere */
	if (emit && (json || csv || jobs != G_MININT)) {
		fprintf(stderr,
			"%s: --emit-jobs runs nothing: %s would do nothing "
			"(parallel.sh takes JOBS=, Slurm its array; the "
			"figures come from the same sweep once merge.sh has "
			"stored the runs)\n",
			what,
			json  ? "--json"
			: csv ? "--csv"
			      : "--jobs");
		return EXIT_INPUT;
	}
	o.json = json;
	o.csv = csv;
	o.tag = tag;
	o.emit = emit;
	o.sweep = sweep;
	o.progress_tty = isatty(STDERR_FILENO);
	catch_signals();
	return compare_main(&o, stdout);
}

/* A time option: a value with a unit, or an error naming @opt. */
static bool parse_time_opt(const char *what, const char *opt, const char *v,
			   sim_time_t *t)
{
	if (v && !sim_parse_time(v, t)) {
		fprintf(stderr,
			"%s: %s '%s': a time with a unit (ps, ns, us, ms, "
			"s)\n",
			what, opt, v);
		return false;
	}
	return true;
}

/* The resolved scenario of stored run @id (the same run again). */
static struct qsim_config *stored_scenario(const char *db, const char *id_s,
					   GError **error)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *q = NULL;
	struct qsim_config *cfg = NULL;
	uint64_t id;

	if (!cfg_parse_u64(id_s, &id)) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--run '%s': a run id", id_s);
		return NULL;
	}
	h = store_read_db(db, error);
	if (!h)
		return NULL;
	if (sqlite3_prepare_v2(h,
			       "SELECT scenario_path, params, binary_sha256 "
			       "FROM runs WHERE id = ?",
			       -1, &q, NULL) != SQLITE_OK) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: cannot read the results database: %s", db,
			    sqlite3_errmsg(h));
	} else {
		int rc;

		sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
		rc = sqlite3_step(q);
		if (rc == SQLITE_DONE) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
				    "%s: no run %" PRIu64, db, id);
		} else if (rc != SQLITE_ROW) {
			store_step_done(h, db, rc, error);
		} else {
			const char *bin =
				(const char *)sqlite3_column_text(q, 2);

			if (!bin || strcmp(bin, store_binary_sha256()))
				fprintf(stderr,
					"qsim trace: run %" PRIu64 " was made "
					"by another qsim binary: the trace "
					"may differ from it\n",
					id);
			cfg = cfg_load_text(
				(const char *)sqlite3_column_text(q, 0),
				(const char *)sqlite3_column_text(q, 1), NULL,
				error);
		}
	}
	sqlite3_finalize(q);
	sqlite3_close(h);
	return cfg;
}

static int cmd_trace(int argc, char **argv)
{
	g_autofree char *seed = NULL, *variant = NULL, *db = NULL;
	g_autofree char *run = NULL, *from = NULL, *to = NULL, *out = NULL;
	g_auto(GStrv) sets = NULL, files = NULL;
	g_autoptr(GOptionContext) ctx = g_option_context_new(
		"FILE.ini | --run ID - a run's timeline for the Perfetto UI");
	g_autoptr(GError) err = NULL;
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(qsim_config) cfg = NULL;
	struct trace_opts o = {0};
	struct trace_result res;
	char b1[32], b2[32];
	GOptionEntry entries[] = {
		{"seed", 0, 0, G_OPTION_ARG_STRING, &seed,
		 "seed of the run (overrides run.seed)", "N"},
		{"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
		 "override one scenario key", "SECTION.KEY=VALUE"},
		{"variant", 0, 0, G_OPTION_ARG_STRING, &variant,
		 "of a validation case: this [variant]", "NAME"},
		{"run", 0, 0, G_OPTION_ARG_STRING, &run,
		 "trace stored run ID again (from --db)", "ID"},
		{"db", 0, 0, G_OPTION_ARG_FILENAME, &db,
		 "results database of --run (default results.db)", "PATH"},
		{"from", 0, 0, G_OPTION_ARG_STRING, &from,
		 "window start (default: the end of the warm-up)", "TIME"},
		{"to", 0, 0, G_OPTION_ARG_STRING, &to,
		 "window end (default: 1ms after its start)", "TIME"},
		{"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		 "the JSON file (default trace.json; - for stdout)", "FILE"},
		{G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files,
		 NULL, NULL},
		G_OPTION_ENTRY_NULL,
	};

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "qsim trace: %s\n", err->message);
		return EXIT_INPUT;
	}
	if (!run == !(files && files[0] && !files[1])) {
		fprintf(stderr, "qsim trace: give one scenario file or --run "
				"ID\n");
		return EXIT_INPUT;
	}
	/* options that would do nothing are refused: a stored run is traced
	 * as it was run, and a scenario file reads no database */
	{
		const char *idle = NULL;

		if (run && seed)
			idle = "--seed";
		else if (run && sets)
			idle = "--set";
		else if (run && variant)
			idle = "--variant";
		else if (!run && db)
			idle = "--db";
		if (idle) {
			fprintf(stderr, "qsim trace: %s with %s: %s\n", idle,
				run ? "--run" : "a scenario file",
				run ? "a stored run is traced with the "
				      "scenario, seed and overrides it ran "
				      "with (qsim trace FILE.ini takes them)"
				    : "--db is where --run ID is read from");
			return EXIT_INPUT;
		}
	}
	if (!parse_time_opt("qsim trace", "--from", from, &o.from_ps) ||
	    !parse_time_opt("qsim trace", "--to", to, &o.to_ps))
		return EXIT_INPUT;
	o.from_set = from != NULL;
	o.out = out ? out : "trace.json";
	if (!out_path_ok("qsim trace", "-o", o.out, false))
		return EXIT_INPUT;
	if (run) {
		cfg = stored_scenario(db ? db : "results.db", run, &err);
	} else {
		for (char **s = sets; s && *s; s++)
			g_ptr_array_add(all, g_strdup(*s));
		if (!add_seed(all, seed)) {
			fprintf(stderr,
				"qsim trace: --seed '%s': a whole "
				"number\n",
				seed);
			return EXIT_INPUT;
		}
		g_ptr_array_add(all, NULL);
		cfg = load_scenario(files[0], variant, (char **)all->pdata,
				    &err);
	}
	if (!cfg) {
		fprintf(stderr, "qsim trace: %s\n", err->message);
		return EXIT_INPUT;
	}
	catch_signals();
	if (!trace_run(cfg, &o, &res, &err)) {
		fprintf(stderr, "qsim trace: %s\n", err->message);
		/* a bad window or an output that cannot be written: 1 */
		return err->domain == G_OPTION_ERROR ||
				       err->domain == G_FILE_ERROR
			       ? EXIT_INPUT
			       : EXIT_INTERNAL;
	}
	fprintf(qsim_out_is_stdout(o.out) ? stderr : stdout,
		"qsim trace: %" PRIu64 " trace events from %s to %s in %s; "
		"open it in the Perfetto UI (https://ui.perfetto.dev, "
		"\"Open trace file\") or chrome://tracing\n",
		res.events, sim_format_time(res.from_ps, b1, sizeof(b1)),
		sim_format_time(res.to_ps, b2, sizeof(b2)), o.out);
	if (res.status != WL_OK) {
		const char *at =
			sim_format_time(res.violation_ps, b1, sizeof(b1));
		char up[32]; /* a --to at or past it: whole microseconds */
		g_autofree char *after =
			res.violation_ps > res.to_ps
				? g_strdup_printf(
					  ", after the window: --to %s shows "
					  "it",
					  sim_format_time(
						  SIM_MIN((res.violation_ps +
							   SIM_US - 1) /
								  SIM_US *
								  SIM_US,
							  res.limit_ps),
						  up, sizeof(up)))
				: NULL;

		fprintf(stderr,
			"qsim trace: VIOLATION at %s: %s; the run stopped "
			"there%s (qsim run gives the report)\n",
			at, res.violation,
			res.violation_ps < res.from_ps
				? ", before the window: nothing is in it"
			: after ? after
				: "");
		g_free(res.violation);
		return EXIT_VIOLATION;
	}
	return EXIT_OK;
}

/* Run ids into @ids; false (said after @what) if one is not. */
static bool parse_run_ids(const char *what, char **args, GArray *ids)
{
	for (char **r = args; r && *r; r++) {
		uint64_t v;
		int64_t id;

		if (!cfg_parse_u64(*r, &v) || v > INT64_MAX) {
			fprintf(stderr, "%s '%s': a run id\n", what, *r);
			return false;
		}
		id = (int64_t)v;
		g_array_append_val(ids, id);
	}
	return true;
}

static int cmd_plot(int argc, char **argv)
{
	g_autofree char *db = NULL, *out = NULL, *x = NULL, *by = NULL;
	g_autofree char *metric = NULL, *title = NULL;
	g_auto(GStrv) tags = NULL, wheres = NULL, runs = NULL, rest = NULL;
	g_autoptr(GOptionContext) ctx = g_option_context_new(
		"sweep|cdf|fairness - figures from the store (gnuplot)");
	g_autoptr(GError) err = NULL;
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	struct plot_opts o = {0};
	GOptionEntry entries[] = {
		{"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		 "the figure: FILE.png or FILE.svg (its script: FILE.gp)",
		 "FILE"},
		{"db", 0, 0, G_OPTION_ARG_FILENAME, &db,
		 "results database (default results.db)", "PATH"},
		{"x", 0, 0, G_OPTION_ARG_STRING, &x, "sweep: the swept key",
		 "SECTION.KEY"},
		{"by", 0, 0, G_OPTION_ARG_STRING, &by,
		 "sweep: one line per value of this key", "SECTION.KEY"},
		{"metric", 0, 0, G_OPTION_ARG_STRING, &metric,
		 "sweep: what to plot (default throughput)", "NAME"},
		{"tagged", 0, 0, G_OPTION_ARG_STRING_ARRAY, &tags,
		 "sweep: only runs with this tag", "TAG"},
		{"where", 0, 0, G_OPTION_ARG_STRING_ARRAY, &wheres,
		 "sweep: only runs with these resolved values",
		 "SEC.KEY=VALUE;..."},
		{"run", 0, 0, G_OPTION_ARG_STRING_ARRAY, &runs,
		 "cdf, fairness: a run (repeat for cdf)", "ID"},
		{"title", 0, 0, G_OPTION_ARG_STRING, &title,
		 "the figure's title", "TEXT"},
		{G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest,
		 NULL, NULL},
		G_OPTION_ENTRY_NULL,
	};
	int rc;

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "qsim plot: %s\n", err->message);
		return EXIT_INPUT;
	}
	if (!rest || !rest[0] || rest[1]) {
		fprintf(stderr, "qsim plot: give one of sweep, cdf, "
				"fairness\n");
		return EXIT_INPUT;
	}
	if (!parse_run_ids("qsim plot: --run", runs, ids))
		return EXIT_INPUT;
	o.kind = rest[0];
	o.db = db ? db : "results.db";
	if (!out_path_ok("qsim plot", "-o", out, false))
		return EXIT_INPUT;
	o.out = out;
	o.x = x;
	o.by = by;
	o.metric = metric;
	o.tags = tags;
	o.wheres = wheres;
	o.runs = (int64_t *)ids->data;
	o.nruns = ids->len;
	o.title = title;
	rc = plot_main(&o, &err);
	if (rc)
		fprintf(stderr, "qsim plot: %s\n", err->message);
	else
		printf("qsim plot: %s (its gnuplot script: %s.gp)\n", o.out,
		       o.out);
	return rc;
}

/* `qsim report` and `qsim export`: one parser, export.c does the rest. */
static int cmd_export(int argc, char **argv, bool report)
{
	g_autofree char *db = NULL, *format = NULL, *table = NULL;
	g_autofree char *out = NULL;
	g_auto(GStrv) tags = NULL, wheres = NULL, rest = NULL;
	gint last = G_MININT; /* not given */
	gboolean lkml = FALSE;
	g_autoptr(GOptionContext) ctx = g_option_context_new(
		report ? "[RUN...] - stored runs as a table"
		       : "[RUN...] - stored runs as CSV or JSON");
	g_autoptr(GError) err = NULL;
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	struct export_opts o = {0};
	GOptionEntry common[] = {
		{"db", 0, 0, G_OPTION_ARG_FILENAME, &db,
		 "results database (default results.db)", "PATH"},
		{"tagged", 0, 0, G_OPTION_ARG_STRING_ARRAY, &tags,
		 "only runs with this tag", "TAG"},
		{"where", 0, 0, G_OPTION_ARG_STRING_ARRAY, &wheres,
		 "only runs with these resolved values", "SEC.KEY=VALUE;..."},
		{"last", 0, 0, G_OPTION_ARG_INT, &last,
		 report ? "the last N runs (default 20)"
			: "the last N runs (default all)",
		 "N"},
		{G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest,
		 NULL, NULL},
		G_OPTION_ENTRY_NULL,
	};
	GOptionEntry rep[] = {
		{"lkml", 0, 0, G_OPTION_ARG_NONE, &lkml,
		 "each run's locktest lines too", NULL},
		G_OPTION_ENTRY_NULL,
	};
	GOptionEntry exp[] = {
		{"format", 0, 0, G_OPTION_ARG_STRING, &format,
		 "csv (default) or json", "FORMAT"},
		{"table", 0, 0, G_OPTION_ARG_STRING, &table,
		 "CSV of runs (default), locks, vcpus, params or counters",
		 "NAME"},
		{"output", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		 "write here (default stdout)", "FILE"},
		G_OPTION_ENTRY_NULL,
	};
	const char *what = report ? "qsim report" : "qsim export";
	g_autofree char *text = NULL;
	struct qsim_out of;
	size_t len = 0;
	FILE *mem;
	int rc;

	g_option_context_add_main_entries(ctx, common, NULL);
	g_option_context_add_main_entries(ctx, report ? rep : exp, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "%s: %s\n", what, err->message);
		return EXIT_INPUT;
	}
	if (!parse_run_ids(what, rest, ids))
		return EXIT_INPUT;
	if (last == G_MININT) {
		last = 0; /* the default: report's 20, export's all */
	} else if (last <= 0) {
		fprintf(stderr, "%s: --last %d: a whole number from 1\n", what,
			last);
		return EXIT_INPUT;
	} else if (ids->len) {
		/* which runs, twice: one of them would do nothing */
		fprintf(stderr,
			"%s: run ids with --last %d: give the runs or --last, "
			"not both\n",
			what, last);
		return EXIT_INPUT;
	}
	o.db = db ? db : "results.db";
	o.ids = (int64_t *)ids->data;
	o.nids = ids->len;
	o.tags = tags;
	o.wheres = wheres;
	o.last = (unsigned int)last;
	o.lkml = lkml;
	o.format = format;
	o.table = table;
	/* -o FILE: written whole or not at all (tools/outfile.h); and
	 * standard output gets nothing from a read that fails midway */
	if (!qsim_out_open(&of, out ? out : "-", &err)) {
		fprintf(stderr, "%s: %s\n", what, err->message);
		return EXIT_INPUT;
	}
	mem = open_memstream(&text, &len);
	if (!mem)
		g_error("%s: out of memory", what);
	rc = report ? report_main(&o, mem, &err) : export_main(&o, mem, &err);
	if (fclose(mem) != 0)
		g_error("%s: out of memory", what);
	if (!rc && !qsim_out_write(&of, text, len, &err))
		rc = 1;
	if (!qsim_out_close(&of, !rc, rc ? NULL : &err))
		rc = 1;
	if (rc)
		fprintf(stderr, "%s: %s\n", what, err->message);
	return rc ? EXIT_INPUT : EXIT_OK;
}

static int cmd_bench(int argc, char **argv)
{
	g_autofree char *json = NULL, *only = NULL, *compare = NULL;
	gboolean quick = FALSE;
	gint repeat = 1;
	g_autoptr(GOptionContext) ctx = g_option_context_new("");
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
	if (!parse_no_args(ctx, "qsim bench", &argc, &argv))
		return EXIT_INPUT;
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

static int cmd_probe(int argc, char **argv)
{
	g_autofree char *ini = NULL, *json = NULL, *cpus = NULL;
	g_autofree char *sysfs = NULL;
	gboolean quick = FALSE;
	g_autoptr(GOptionContext) ctx = g_option_context_new("");
	GOptionEntry entries[] = {
		{"quick", 0, 0, G_OPTION_ARG_NONE, &quick,
		 "a tenth of the measuring time (rougher figures)", NULL},
		{"cpus", 0, 0, G_OPTION_ARG_STRING, &cpus,
		 "measure on these CPUs only (a list such as 0-3,8; default "
		 "every CPU this process may use)",
		 "LIST"},
		{"ini", 0, 0, G_OPTION_ARG_FILENAME, &ini,
		 "write the derived [machine] and [cost] keys here", "FILE"},
		{"json", 0, 0, G_OPTION_ARG_FILENAME, &json,
		 "write the measurements here as JSON", "FILE"},
		{"sysfs", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME,
		 &sysfs, "read the topology from this sysfs root", "DIR"},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};
	struct probe_opts o = {0};

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!parse_no_args(ctx, "qsim probe", &argc, &argv) ||
	    !out_path_ok("qsim probe", "--ini", ini, false) ||
	    !out_path_ok("qsim probe", "--json", json, false))
		return EXIT_INPUT;
	o.quick = quick;
	o.cpus = cpus;
	o.ini = ini;
	o.json = json;
	o.sysfs = sysfs;
	return probe_main(&o, stdout) ? EXIT_INPUT : EXIT_OK;
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
	gint seeds = G_MININT, jobs = G_MININT; /* G_MININT: not given */
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
	if (seeds != G_MININT && (seeds < 1 || seeds > 1000)) {
		fprintf(stderr, "qsim validate: --seeds %d: from 1 to 1000\n",
			seeds);
		return EXIT_INPUT;
	}
	if (!jobs_option("qsim validate", jobs, &o.jobs) ||
	    !out_path_ok("qsim validate", "--markdown", md, false))
		return EXIT_INPUT;
	if (!dir)
		dir = validation_dir();
	o.dir = dir;
	o.names = argc > 1 ? argv + 1 : NULL;
	/* 0: each case's own */
	o.seeds = seeds == G_MININT ? 0 : (unsigned int)seeds;
	o.list = list;
	o.md_path = md;
	if (!validate_main(&o, &res, stdout, &err)) {
		fprintf(stderr, "qsim validate: %s\n", err->message);
		return EXIT_INPUT;
	}
	return list || res.passed == res.figures ? EXIT_OK : EXIT_VIOLATION;
}

static int dispatch(int argc, char **argv)
{
	g_autofree char *prgname = NULL;

	if (argc < 2) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (strcmp(argv[1], "help") == 0 && argc == 3 &&
	    strcmp(argv[2], "help") && strcmp(argv[2], "version")) {
		/* `qsim help CMD` is `qsim CMD --help` */
		char *args[] = {argv[0], argv[2], "--help", NULL};

		return dispatch(3, args);
	}
	/* each command's --help and errors say "qsim CMD" (set once) */
	prgname = g_strdup_printf("qsim %s", argv[1]);
	g_set_prgname(prgname);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "import") == 0)
		return cmd_import(argc - 1, argv + 1, false);
	if (strcmp(argv[1], "compare") == 0)
		return cmd_compare(argc - 1, argv + 1, false);
	if (strcmp(argv[1], "sweep") == 0)
		return cmd_compare(argc - 1, argv + 1, true);
	if (strcmp(argv[1], "report") == 0)
		return cmd_export(argc - 1, argv + 1, true);
	if (strcmp(argv[1], "export") == 0)
		return cmd_export(argc - 1, argv + 1, false);
	if (strcmp(argv[1], "plot") == 0)
		return cmd_plot(argc - 1, argv + 1);
	if (strcmp(argv[1], "trace") == 0)
		return cmd_trace(argc - 1, argv + 1);
	if (strcmp(argv[1], "merge") == 0)
		return cmd_import(argc - 1, argv + 1, true);
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
	if (strcmp(argv[1], "probe") == 0)
		return cmd_probe(argc - 1, argv + 1);
	if (strcmp(argv[1], "version") == 0 ||
	    strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		if (argc > 2 && (strcmp(argv[2], "--help") == 0 ||
				 strcmp(argv[2], "-h") == 0)) {
			printf("Usage:\n  qsim version - the version, build "
			       "type and coroutine switch of this binary, and "
			       "the kernel tree it was built with\n");
			return EXIT_OK;
		}
		if (argc > 2) {
			fprintf(stderr, "qsim version: no arguments\n");
			return EXIT_INPUT;
		}
		printf("qsim %s (%s, coroutines: %s)\n", store_version(),
		       store_build_flags(), sim_coro_impl());
		{
			/* the tree the kernel_* types were built from */
			const struct lk_ktree_identity *id =
				lk_ktree_identity();

			if (id)
				printf("kernel tree %s: Linux %s%s%s%s\n"
				       "kernel files sha256 %s\n",
				       id->path, id->version,
				       *id->describe ? " (" : "", id->describe,
				       *id->describe ? ")" : "",
				       cfg_ktree_files_sha256());
		}
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

int main(int argc, char **argv)
{
	int rc = dispatch(argc, argv);
	g_autoptr(GError) err = NULL;

	/* What went to standard output got there, or the exit says not (a
	 * full disk, a closed pipe: `qsim export > /dev/full`). */
	if (!qsim_stdout_flush(&err)) {
		fprintf(stderr, "%s: %s\n",
			g_get_prgname() ? g_get_prgname() : "qsim",
			err->message);
		if (rc == EXIT_OK)
			rc = EXIT_INPUT;
	}
	return rc;
}
