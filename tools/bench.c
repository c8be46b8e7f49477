// SPDX-License-Identifier: MIT
/*
 * qsim bench; see bench.h.  Every scenario runs in a forked child, so its
 * peak RSS is its own; the child reports its figures through a pipe.
 * Host costs are normalised per simulated second, so scenarios shortened
 * for size compare with the rest.
 */
#include <errno.h>
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/coro.h"
#include "sim/engine.h"
#include "tools/bench.h"
#include "tools/config.h"
#include "tools/model.h"
#include "tools/report.h"

struct bench_case {
	char name[64];
	const char *lock;
	unsigned int vcpus, pcpus;
	const char *cs;
	sim_time_t duration_ps;
	const char *group; /* main, scale-vcpus, scale-time, scale-cs */
};

struct bench_fig {
	double host_s;
	double sim_s;
	uint64_t events, switches, acquisitions;
	long rss_kib;
	int status;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *case_text(const struct bench_case *c)
{
	char d[32];

	return g_strdup_printf("[run]\nduration = %s\nwarmup = 1ms\n"
			       "[machine]\npcpus = %u\n"
			       "[partition]\nvcpus = %u\n"
			       "[lock]\ntype = %s\n"
			       "[workload]\ncs = %s\nthink = 1us\n",
			       sim_format_time(c->duration_ps, d, sizeof(d)),
			       c->pcpus, c->vcpus, c->lock, c->cs);
}

/* Run @c in a child; its figures come back through a pipe. */
static bool run_case(const struct bench_case *c, struct bench_fig *f)
{
	int fd[2];
	pid_t pid;
	struct rusage ru;
	int status;
	ssize_t n;

	memset(f, 0, sizeof(*f));
	if (pipe(fd) != 0)
		return false;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		g_autofree char *text = case_text(c);
		struct qsim_config *cfg;
		struct qsim_results res;
		struct bench_fig out = {0};
		double t0;

		close(fd[0]);
		cfg = cfg_load_text(c->name, text, NULL, NULL);
		if (!cfg)
			_exit(3);
		t0 = now_s();
		qsim_model_run(cfg, &res, NULL);
		out.host_s = now_s() - t0;
		out.sim_s = (double)(cfg->warmup_ps + cfg->duration_ps) /
			    (double)SIM_S;
		out.events = res.events;
		out.switches = res.switches;
		for (unsigned int i = 0; i < res.nlocks; i++)
			out.acquisitions += (uint64_t)res.locks[i].acquisitions;
		out.status = res.status;
		if (write(fd[1], &out, sizeof(out)) != sizeof(out))
			_exit(3);
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], f, sizeof(*f));
	close(fd[0]);
	if (wait4(pid, &status, 0, &ru) != pid || n != sizeof(*f) ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return false;
	f->rss_kib = ru.ru_maxrss;
	return true;
}

/* Reference: an uncontended lock/unlock pair on the host, in ns. */
static double host_lock_pair_ns(void)
{
	static _Atomic unsigned int word;
	const long n = 20000000;
	double t0 = now_s();

	for (long i = 0; i < n; i++) {
		unsigned int z = 0;

		while (!atomic_compare_exchange_weak_explicit(
			&word, &z, 1, memory_order_acquire,
			memory_order_relaxed))
			z = 0;
		atomic_store_explicit(&word, 0, memory_order_release);
	}
	return (now_s() - t0) * 1e9 / (double)n;
}

static long pingpong_left;

static void pingpong(void *arg)
{
	(void)arg;
	while (pingpong_left-- > 0)
		sim_coro_yield();
}

/* Reference: one coroutine switch (resume or yield), in ns. */
static double coro_switch_ns(void)
{
	const long n = 10000000;
	struct sim_coro *co = sim_coro_create(pingpong, NULL, 64 << 10);
	double t0;

	pingpong_left = n;
	t0 = now_s();
	while (!sim_coro_finished(co))
		sim_coro_resume(co);
	t0 = now_s() - t0;
	sim_coro_destroy(co);
	return t0 * 1e9 / (double)(2 * n);
}

/* Reference: engine events with a switch each: cpus that only compute. */
static long work_left;

static void worker(struct sim_cpu *c, void *arg)
{
	(void)arg;
	while (work_left-- > 0)
		sim_cpu_work(c, 1000 + (c->id * 7) % 13);
}

static double event_ns(void)
{
	struct sim s;
	struct sim_cost cost = {
		.hit_ps = 1000, .relax_ps = 1000, .spin_relax_ps = 1000};
	struct sim_topo topo = {.smt = 1, .cores_per_chip = 1, .npcpus = 64};
	double t0;

	sim_init(&s, 1 << 16, 128, &cost, &topo, 64 << 10);
	for (int i = 0; i < 64; i++)
		sim_cpu_create(&s, worker, NULL);
	sim_mem_seal(&s.mem);
	for (int i = 0; i < 64; i++)
		sim_cpu_dispatch(s.cpus[i], 0, i);
	work_left = 10000000;
	t0 = now_s();
	sim_run(&s, SIM_TIME_NEVER - 1);
	t0 = now_s() - t0;
	t0 = t0 * 1e9 / (double)s.events;
	sim_destroy(&s);
	return t0;
}

static GArray *build_cases(bool quick)
{
	GArray *a = g_array_new(FALSE, TRUE, sizeof(struct bench_case));
	static const char *const locks[] = {"pv_qspinlock", "tas", "qspinlock"};
	static const unsigned int sizes[] = {16, 64, 256, 1024};
	/* Simulated time per size: 1s, 1s, 100ms, 10ms (quick: /10). */
	static const sim_time_t dur[] = {SIM_S, SIM_S, 100 * SIM_MS,
					 10 * SIM_MS};
	struct bench_case c;

	for (size_t l = 0; l < G_N_ELEMENTS(locks); l++)
		for (size_t s = 0; s < G_N_ELEMENTS(sizes); s++)
			for (unsigned int oc = 1; oc <= 2; oc++) {
				memset(&c, 0, sizeof(c));
				c.lock = locks[l];
				c.vcpus = sizes[s];
				c.pcpus = sizes[s] / oc;
				c.cs = "200ns";
				c.duration_ps = dur[s] / (quick ? 10 : 1);
				c.group = "main";
				snprintf(c.name, sizeof(c.name), "%s-%u-%ux",
					 c.lock, c.vcpus, oc);
				g_array_append_val(a, c);
			}
	/* Long spin: 1, 10 and 100 us sections, the same acquisitions (the
	 * simulated time grows with the section). */
	for (int i = 0; i < 3; i++) {
		static const char *const cs[] = {"1us", "10us", "100us"};
		static const sim_time_t span[] = {SIM_MS, 10 * SIM_MS,
						  100 * SIM_MS};

		memset(&c, 0, sizeof(c));
		c.lock = "qspinlock";
		c.vcpus = c.pcpus = 16;
		c.cs = cs[i];
		c.duration_ps = span[i] / (quick ? 10 : 1);
		c.group = "scale-cs";
		snprintf(c.name, sizeof(c.name), "longspin-cs-%s", c.cs);
		g_array_append_val(a, c);
	}
	/* Duration scaling: the same scenario for 1x, 2x, 4x the time. */
	for (int i = 0; i < 3; i++) {
		memset(&c, 0, sizeof(c));
		c.lock = "qspinlock";
		c.vcpus = c.pcpus = 64;
		c.cs = "200ns";
		c.duration_ps = (100 * SIM_MS << i) / (quick ? 10 : 1);
		c.group = "scale-time";
		snprintf(c.name, sizeof(c.name), "time-%ux", 1u << i);
		g_array_append_val(a, c);
	}
	return a;
}

/*
 * Run @c @repeat times and keep the fastest; the runs must agree on every
 * simulated figure (the simulation is deterministic), else it is a
 * failure.
 */
static bool run_case_best(const struct bench_case *c, unsigned int repeat,
			  struct bench_fig *f)
{
	struct bench_fig g;

	if (!run_case(c, f))
		return false;
	for (unsigned int r = 1; r < repeat; r++) {
		if (!run_case(c, &g))
			return false;
		if (g.events != f->events ||
		    g.acquisitions != f->acquisitions ||
		    g.switches != f->switches) {
			fprintf(stderr,
				"qsim bench: %s: runs differ (%" PRIu64
				" and %" PRIu64 " events)\n",
				c->name, f->events, g.events);
			return false;
		}
		if (g.host_s < f->host_s)
			*f = g;
	}
	return true;
}

/* The smallest of @repeat measurements of @fn. */
static double best_of(double (*fn)(void), unsigned int repeat)
{
	double best = fn();

	for (unsigned int r = 1; r < repeat; r++)
		best = SIM_MIN(best, fn());
	return best;
}

/* Member @key of case @o as a finite number >= 0 (> 0 if @positive),
 * or false. */
static bool json_number(JsonObject *o, const char *key, bool positive,
			double *v)
{
	JsonNode *n = json_object_get_member(o, key);

	if (!n || JSON_NODE_TYPE(n) != JSON_NODE_VALUE ||
	    (json_node_get_value_type(n) != G_TYPE_DOUBLE &&
	     json_node_get_value_type(n) != G_TYPE_INT64))
		return false;
	*v = json_node_get_double(n);
	return isfinite(*v) && (positive ? *v > 0 : *v >= 0);
}

bool bench_read_json(const char *path, GArray *rows, GError **err)
{
	g_autoptr(JsonParser) p = json_parser_new();
	static const char *const keys[] = {"sim_s", "host_s", "events",
					   "acquisitions"};
	JsonNode *root;
	JsonArray *cases = NULL;

	if (!json_parser_load_from_file(p, path, err)) {
		/* json-glib names the file itself in a parse error */
		if (!g_str_has_prefix((*err)->message, path))
			g_prefix_error(err, "%s: ", path);
		return false;
	}
	root = json_parser_get_root(p);
	if (root && JSON_NODE_HOLDS_OBJECT(root) &&
	    json_object_has_member(json_node_get_object(root), "cases")) {
		JsonNode *cn = json_object_get_member(
			json_node_get_object(root), "cases");

		if (!JSON_NODE_HOLDS_ARRAY(cn)) {
			g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
				    "%s: \"cases\" is not a list (is it a "
				    "file `qsim bench --json` wrote?)",
				    path);
			return false;
		}
		cases = json_node_get_array(cn);
	}
	for (guint i = 0; cases && i < json_array_get_length(cases); i++) {
		JsonNode *cn = json_array_get_element(cases, i);
		JsonObject *c = JSON_NODE_HOLDS_OBJECT(cn)
					? json_node_get_object(cn)
					: NULL;
		const char *name =
			c && json_object_has_member(c, "name")
				? json_object_get_string_member(c, "name")
				: NULL;
		struct bench_row r;
		double v[G_N_ELEMENTS(keys)];

		memset(&r, 0, sizeof(r));
		if (!name || !*name || strlen(name) >= sizeof(r.name)) {
			g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
				    "%s: case %u: a scenario without a "
				    "readable name",
				    path, i + 1);
			return false;
		}
		strcpy(r.name, name);
		/* times positive: a ratio of them is taken; counts below
		 * 2^63, to convert */
		for (size_t k = 0; k < G_N_ELEMENTS(keys); k++)
			if (!json_number(c, keys[k], k < 2, &v[k]) ||
			    (k >= 2 && v[k] >= 9.2e18)) {
				g_set_error(err, G_FILE_ERROR,
					    G_FILE_ERROR_INVAL,
					    "%s: case %u: scenario %s has no "
					    "readable \"%s\"",
					    path, i + 1, r.name, keys[k]);
				return false;
			}
		r.sim_s = v[0];
		r.host_s = v[1];
		r.events = (uint64_t)v[2];
		r.acquisitions = (uint64_t)v[3];
		g_array_append_val(rows, r);
	}
	if (!rows->len) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: no scenarios (is it a file `qsim bench "
			    "--json` wrote?)",
			    path);
		return false;
	}
	return true;
}

void bench_print_compare(FILE *out, const GArray *before, const GArray *now)
{
	double logsum = 0;
	unsigned int n = 0, same = 0, other_time = 0;

	fprintf(out, "%-24s %10s %10s %8s  %s\n", "scenario", "before", "now",
		"ratio", "simulation");
	for (guint i = 0; i < now->len; i++) {
		const struct bench_row *a = NULL,
				       *b = &g_array_index(now,
							   struct bench_row, i);
		double x, y;

		for (guint k = 0; k < before->len && !a; k++)
			if (!strcmp(g_array_index(before, struct bench_row, k)
					    .name,
				    b->name))
				a = &g_array_index(before, struct bench_row, k);
		if (!a || a->sim_s <= 0 || b->sim_s <= 0 || a->host_s <= 0 ||
		    b->host_s <= 0)
			continue;
		x = a->host_s / a->sim_s;
		y = b->host_s / b->sim_s;
		bool eq = a->sim_s == b->sim_s && a->events == b->events &&
			  a->acquisitions == b->acquisitions;
		fprintf(out, "%-24s %10.2f %10.2f %7.2fx  %s\n", b->name, x, y,
			y / x, eq ? "same" : "changed");
		logsum += log(y / x);
		n++;
		same += eq;
		other_time += a->sim_s != b->sim_s;
	}
	if (!n) {
		fprintf(out, "(no scenario in both)\n");
		return;
	}
	fprintf(out,
		"geometric mean of %u ratios: %.2fx (below 1: faster now); "
		"%u of %u simulate the same\n",
		n, exp(logsum / n), same, n);
	if (other_time)
		fprintf(out,
			"WARNING: %u of %u scenarios simulated another length "
			"of time before (a --quick file against a full run, "
			"or the reverse?): their ratios compare unlike runs\n",
			other_time, n);
}

static void json_case(JsonBuilder *b, const struct bench_case *c,
		      const struct bench_fig *f)
{
	json_builder_begin_object(b);
#define JS(k, v)                            \
	json_builder_set_member_name(b, k); \
	json_builder_add_string_value(b, v)
#define JI(k, v)                            \
	json_builder_set_member_name(b, k); \
	json_builder_add_int_value(b, (gint64)(v))
#define JD(k, v)                            \
	json_builder_set_member_name(b, k); \
	json_builder_add_double_value(b, v)
	JS("name", c->name);
	JS("group", c->group);
	JS("lock", c->lock);
	JI("vcpus", c->vcpus);
	JI("pcpus", c->pcpus);
	JS("cs", c->cs);
	JD("sim_s", f->sim_s);
	JD("host_s", f->host_s);
	JI("events", f->events);
	JI("switches", f->switches);
	JI("acquisitions", f->acquisitions);
	JI("rss_kib", f->rss_kib);
	JI("status", f->status);
	json_builder_end_object(b);
}

int bench_main(const struct bench_opts *o, FILE *out)
{
	g_autoptr(GArray) cases = build_cases(o->quick);
	g_autoptr(GArray) before =
		g_array_new(FALSE, TRUE, sizeof(struct bench_row));
	g_autoptr(GArray) now =
		g_array_new(FALSE, TRUE, sizeof(struct bench_row));
	g_autoptr(GError) err = NULL;
	unsigned int repeat = o->repeat ? o->repeat : 1;
	struct bench_fig *figs;
	double pair, sw, ev;
	FILE *j = NULL;
	int rc = 0;
	double pv64 = -1, ls1 = -1, ls100 = -1;
	long rss1024 = 0;

	/* A bad file to compare with, a --json file that cannot be
	 * written, or an --only that matches nothing fails before the long
	 * runs. */
	if (o->compare && !bench_read_json(o->compare, before, &err)) {
		fprintf(stderr, "qsim bench: --compare: %s\n", err->message);
		return 1;
	}
	if (o->json) {
		j = fopen(o->json, "w");
		if (!j) {
			fprintf(stderr,
				"qsim bench: --json: cannot write %s: "
				"%s\n",
				o->json, g_strerror(errno));
			return 1;
		}
	}
	if (o->only) {
		guint hits = 0;

		for (guint i = 0; i < cases->len; i++)
			hits += strstr(g_array_index(cases, struct bench_case,
						     i)
					       .name,
				       o->only) != NULL;
		if (!hits) {
			fprintf(stderr,
				"qsim bench: --only '%s' matches no "
				"scenario; they are:",
				o->only);
			for (guint i = 0; i < cases->len; i++)
				fprintf(stderr, " %s",
					g_array_index(cases, struct bench_case,
						      i)
						.name);
			fprintf(stderr, "\n");
			if (j)
				fclose(j);
			return 1;
		}
	}
	figs = g_new0(struct bench_fig, cases->len);
	pair = best_of(host_lock_pair_ns, repeat);
	sw = best_of(coro_switch_ns, repeat);
	ev = best_of(event_ns, repeat);
	if (repeat > 1)
		fprintf(out,
			"qsim bench (%s; coroutines %s; fastest of %u runs "
			"each)\n",
			o->quick ? "quick" : "full", sim_coro_impl(), repeat);
	else
		fprintf(out, "qsim bench (%s; coroutines %s; one run each)\n",
			o->quick ? "quick" : "full", sim_coro_impl());
	fprintf(out,
		"reference: host lock/unlock pair %.2f ns; coroutine switch "
		"%.2f ns; engine event with switch %.2f ns\n\n",
		pair, sw, ev);
	fprintf(out, "%-24s %7s %9s %10s %9s %10s %8s %9s %8s\n", "scenario",
		"sim s", "host s", "slowdown", "Mev/s", "ns/acq", "ev/acq",
		"Msw/s", "RSS MB");
	for (guint i = 0; i < cases->len; i++) {
		const struct bench_case *c =
			&g_array_index(cases, struct bench_case, i);
		struct bench_fig *f = &figs[i];

		if (o->only && !strstr(c->name, o->only))
			continue;
		if (!run_case_best(c, repeat, f)) {
			fprintf(out, "%-24s failed\n", c->name);
			rc = 3;
			continue;
		}
		fprintf(out,
			"%-24s %7.3f %9.2f %10.2f %9.2f %10.0f %8.1f %9.2f "
			"%8.1f%s\n",
			c->name, f->sim_s, f->host_s, f->host_s / f->sim_s,
			(double)f->events / f->host_s / 1e6,
			f->acquisitions
				? f->host_s * 1e9 / (double)f->acquisitions
				: 0,
			f->acquisitions
				? (double)f->events / (double)f->acquisitions
				: 0,
			(double)f->switches / f->host_s / 1e6,
			(double)f->rss_kib / 1024.0,
			f->status ? "  (violation!)" : "");
		fflush(out);
		if (strcmp(c->name, "pv_qspinlock-64-2x") == 0)
			pv64 = f->host_s / f->sim_s;
		if (strcmp(c->name, "longspin-cs-1us") == 0 && f->acquisitions)
			ls1 = f->host_s / (double)f->acquisitions;
		if (strcmp(c->name, "longspin-cs-100us") == 0 &&
		    f->acquisitions)
			ls100 = f->host_s / (double)f->acquisitions;
		if (c->vcpus == 1024 && f->rss_kib > rss1024)
			rss1024 = f->rss_kib;
		if (!f->status) {
			struct bench_row r = {
				.sim_s = f->sim_s,
				.host_s = f->host_s,
				.events = f->events,
				.acquisitions = f->acquisitions,
			};

			g_strlcpy(r.name, c->name, sizeof(r.name));
			g_array_append_val(now, r);
		}
	}

	/* The scaling tables, from the runs above (a line only where
	 * --only left it a run). */
	{
		g_autoptr(GString) vc = g_string_new(NULL);
		g_autoptr(GString) st = g_string_new(NULL);
		g_autoptr(GString) cs = g_string_new(NULL);

		for (guint i = 0; i < cases->len; i++) {
			const struct bench_case *c =
				&g_array_index(cases, struct bench_case, i);
			const struct bench_fig *f = &figs[i];

			if (!strcmp(c->lock, "qspinlock") &&
			    c->vcpus == c->pcpus && !strcmp(c->group, "main") &&
			    f->sim_s)
				g_string_append_printf(
					vc, "  %u: %.2f (%.4f per vCPU)",
					c->vcpus, f->host_s / f->sim_s,
					f->host_s / f->sim_s / c->vcpus);
			if (!strcmp(c->group, "scale-time") && f->sim_s)
				g_string_append_printf(
					st,
					"  %.3f s sim: %.3f s host (%.2f per "
					"sim s)",
					f->sim_s, f->host_s,
					f->host_s / f->sim_s);
			if (!strcmp(c->group, "scale-cs") && f->acquisitions)
				g_string_append_printf(
					cs, "  cs %s: %.0f", c->cs,
					f->host_s * 1e9 /
						(double)f->acquisitions);
		}
		if (vc->len || st->len || cs->len)
			fprintf(out, "\nscaling (host seconds per simulated "
				     "second):\n");
		if (vc->len)
			fprintf(out, "  vs vCPUs, qspinlock at 1x:%s\n",
				vc->str);
		if (st->len)
			fprintf(out,
				"  vs simulated time, qspinlock 64 vCPUs:%s\n",
				st->str);
		if (cs->len)
			fprintf(out,
				"  vs critical section, qspinlock 16 vCPUs, "
				"host ns per acquisition:%s\n",
				cs->str);
	}

	fprintf(out, "\ntargets:\n");
	fprintf(out, "  event dispatch with switch <= 60 ns: %.1f ns  %s\n", ev,
		ev <= 60 ? "met" : "NOT met");
	if (pv64 >= 0)
		fprintf(out,
			"  pv_qspinlock 64 vCPUs on 32 pCPUs, 1 simulated "
			"second <= 2 host s: %.2f s  %s\n",
			pv64, pv64 <= 2 ? "met" : "NOT met");
	if (rss1024)
		fprintf(out, "  1024 vCPUs under 1 GiB: %.0f MB peak  %s\n",
			(double)rss1024 / 1024,
			rss1024 < (1 << 20) ? "met" : "NOT met");
	if (ls1 > 0 && ls100 > 0)
		fprintf(out,
			"  long spin (100 us sections) within 1.5x of 1 us per "
			"acquisition: %.2fx  %s\n",
			ls100 / ls1, ls100 / ls1 <= 1.5 ? "met" : "NOT met");

	if (o->compare) {
		fprintf(out,
			"\ncompared with %s (host seconds per simulated "
			"second):\n",
			o->compare);
		bench_print_compare(out, before, now);
	}

	if (j) {
		g_autoptr(JsonBuilder) b = json_builder_new();
		g_autofree char *text = NULL;

		json_builder_begin_object(b);
		json_builder_set_member_name(b, "quick");
		json_builder_add_boolean_value(b, o->quick);
		JD("host_lock_pair_ns", pair);
		JD("coro_switch_ns", sw);
		JD("event_ns", ev);
		json_builder_set_member_name(b, "cases");
		json_builder_begin_array(b);
		for (guint i = 0; i < cases->len; i++) {
			const struct bench_case *c =
				&g_array_index(cases, struct bench_case, i);

			if (o->only && !strstr(c->name, o->only))
				continue;
			json_case(b, c, &figs[i]);
		}
		json_builder_end_array(b);
		json_builder_end_object(b);
		text = report_json_text(b);
		fputs(text, j);
		fputc('\n', j);
		fclose(j);
	}
	g_free(figs);
	return rc;
}
