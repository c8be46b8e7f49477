// SPDX-License-Identifier: MIT
/*
 * qsim probe's simulated side: the model's own ping-pong, whose time
 * turns a measured ping-pong into a transfer cost, and the model's
 * test-and-set curve to set beside the host's (tools/probe.h).
 */
#include <math.h>
#include <string.h>

#include "qsim_kernel.h"
#include "tools/config.h"
#include "tools/model.h"
#include "tools/probe.h"

/* Round trips simulated, and how many of the first are left out (the
 * line's first fill from memory). */
#define PP_ROUNDS 400
#define PP_SKIP	  40

struct pp {
	uint64_t *flag;
	bool first; /* writes the odd values and times the round trips */
	sim_time_t t0, t1;
};

static void pp_main(struct sim_cpu *c, void *arg)
{
	struct pp *p = arg;

	for (uint64_t i = 0; i < PP_ROUNDS; i++) {
		if (p->first) {
			if (i == PP_SKIP)
				p->t0 = c->now_ps;
			WRITE_ONCE(*p->flag, 2 * i + 1);
			smp_cond_load_relaxed(p->flag, VAL == 2 * i + 2);
		} else {
			smp_cond_load_relaxed(p->flag, VAL == 2 * i + 1);
			WRITE_ONCE(*p->flag, 2 * i + 2);
		}
	}
	if (p->first)
		p->t1 = c->now_ps;
}

double probe_sim_oneway_ns(enum probe_dist d, int64_t xfer_ps, int64_t hit_ps,
			   bool hold)
{
	/* Two threads a core, two cores a chip, a domain a core: pCPU 1 is
	 * pCPU 0's sibling, 2 is on the same chip, 4 on the other. */
	static const struct sim_topo topo = {
		.smt = 2,
		.cores_per_chip = 2,
		.cache_cores = 1,
		.npcpus = 8,
		.smt_tput = {100, 200},
	};
	static const int peer[PD_NR] = {1, 2, 4};
	struct sim_cost cost = {0};
	struct pp a = {0}, b = {0};
	struct sim_cpu *ca, *cb;
	struct sim *s = g_new0(struct sim, 1);
	double ns;

	cost.hit_ps = (sim_time_t)MAX(hit_ps, 0);
	cost.smt_ps = cost.chip_ps = cost.remote_ps = cost.mem_ps =
		(sim_time_t)MAX(xfer_ps, 0);
	cost.read_fanout = 1;
	cost.hold = hold;
	sim_init(s, 1 << 16, 128, &cost, &topo, 64 << 10);
	/* No jitter, two cpus: the seed picks nothing that changes the
	 * time, but the arbitration's stream must be seeded. */
	sim_set_seed(s, 1);
	a.flag = b.flag = sim_mem_alloc(&s->mem, 128, 128);
	a.first = true;
	ca = sim_cpu_create(s, pp_main, &a);
	cb = sim_cpu_create(s, pp_main, &b);
	sim_mem_seal(&s->mem);
	sim_cpu_dispatch(ca, 0, 0);
	sim_cpu_dispatch(cb, 0, peer[d]);
	sim_run(s, SIM_S);
	ns = a.t1 > a.t0 ? (double)(a.t1 - a.t0) / SIM_NS /
				   (2.0 * (PP_ROUNDS - PP_SKIP))
			 : NAN;
	sim_destroy(s);
	g_free(s);
	return ns;
}

/* The scenario of one point of the curve: @n threads, each on a core of
 * its own on one chip, a tas lock, no critical section, no think time. */
static char *tas_text(const char *preset, GKeyFile *keys, unsigned int n,
		      unsigned int cc, unsigned int seed)
{
	static const char *const skip[] = {"preset", "smt", "cores_per_chip",
					   "pcpus"};
	static const char *const groups[] = {"machine", "cost"};
	GString *t = g_string_new(NULL);

	g_string_append_printf(t,
			       "[run]\nduration = 2ms\nwarmup = 200us\n"
			       "seed = %u\n[machine]\npreset = %s\nsmt = 1\n"
			       "cores_per_chip = %u\npcpus = %u\n",
			       seed, preset, (n + cc - 1) / cc * cc, n);
	for (size_t g = 0; keys && g < G_N_ELEMENTS(groups); g++) {
		g_auto(GStrv) k =
			g_key_file_get_keys(keys, groups[g], NULL, NULL);

		if (g == 1)
			g_string_append(t, "[cost]\n");
		for (size_t i = 0; k && k[i]; i++) {
			g_autofree char *v = NULL;
			bool skipped = false;

			for (size_t j = 0; g == 0 && j < G_N_ELEMENTS(skip);
			     j++)
				skipped |= strcmp(k[i], skip[j]) == 0;
			if (skipped)
				continue;
			v = g_key_file_get_value(keys, groups[g], k[i], NULL);
			g_string_append_printf(t, "%s = %s\n", k[i], v);
		}
	}
	g_string_append_printf(
		t,
		"[hypervisor]\npolicy = rr\n[partition]\n"
		"vcpus = %u\nshared = false\n[lock]\ntype = tas\n"
		"[workload]\ncs = 0\nthink = 0\n",
		n);
	return g_string_free(t, FALSE);
}

#define TAS_SEEDS 3

/* The cores of a cache domain, the keys' or the preset's: tas_text
 * rounds a chip up to whole domains with it (the threads take the
 * first n cores). */
static bool domain_cores(const char *preset, GKeyFile *keys, unsigned int *cc,
			 GError **err)
{
	g_autofree char *base =
		g_strdup_printf("[machine]\npreset = %s\n", preset);
	g_autoptr(qsim_config) pc = cfg_load_text("(preset)", base, NULL, err);

	if (!pc)
		return false;
	*cc = pc->cache_cores ? pc->cache_cores : 1;
	if (keys && g_key_file_has_key(keys, "machine", "cache_cores", NULL))
		*cc = (unsigned int)MAX(g_key_file_get_integer(keys, "machine",
							       "cache_cores",
							       NULL),
					1);
	return true;
}

struct ca {
	atomic_t *v;
	sim_time_t end;
	uint64_t n;
};

static void ca_main(struct sim_cpu *c, void *arg)
{
	struct ca *a = arg;

	while (c->now_ps < a->end) {
		atomic_add(1, a->v);
		a->n++;
	}
}

#define CA_TIME (20 * SIM_US)

bool probe_sim_atomic(const char *preset, GKeyFile *keys,
		      const struct probe_figs *f, double *ns, GError **err)
{
	unsigned int cc;

	if (!domain_cores(preset, keys, &cc, err))
		return false;
	for (unsigned int i = 0; i < f->ntas; i++) {
		unsigned int n = f->tas_threads[i];
		g_autofree char *text = tas_text(preset, keys, n, cc, 1);
		g_autoptr(qsim_config) cfg =
			cfg_load_text("(qsim probe)", text, NULL, err);
		struct sim_topo topo;
		struct sim *s;
		struct ca *a;
		atomic_t *v;
		uint64_t sum = 0;

		if (!cfg)
			return false;
		/* tas_text's machine: smt 1, n pCPUs */
		qsim_model_topo(cfg, &topo);
		s = g_new0(struct sim, 1);
		a = g_new0(struct ca, n);
		sim_init(s, 1 << 16, cfg->line_bytes, &cfg->cost, &topo,
			 64 << 10);
		sim_set_seed(s, 1);
		v = sim_mem_alloc(&s->mem, sizeof(*v), cfg->line_bytes);
		for (unsigned int k = 0; k < n; k++) {
			a[k].v = v;
			a[k].end = CA_TIME;
			sim_cpu_create(s, ca_main, &a[k]);
		}
		sim_mem_seal(&s->mem);
		for (unsigned int k = 0; k < n; k++)
			sim_cpu_dispatch(s->cpus[k], 0, (int)k);
		sim_run(s, 2 * CA_TIME);
		for (unsigned int k = 0; k < n; k++)
			sum += a[k].n;
		ns[i] = sum ? (double)CA_TIME / SIM_NS / (double)sum : NAN;
		sim_destroy(s);
		g_free(a);
		g_free(s);
	}
	return true;
}

bool probe_sim_tas(const char *preset, GKeyFile *keys,
		   const struct probe_figs *f, double *ns, double *spread,
		   GError **err)
{
	unsigned int cc;

	if (!domain_cores(preset, keys, &cc, err))
		return false;
	for (unsigned int i = 0; i < f->ntas; i++) {
		double sum_ns = 0, sum_sp = 0;

		for (unsigned int s = 1; s <= TAS_SEEDS; s++) {
			g_autofree char *text = tas_text(
				preset, keys, f->tas_threads[i], cc, s);
			struct qsim_config *cfg;
			struct qsim_results r;
			uint64_t acq = 0;

			cfg = cfg_load_text("(qsim probe)", text, NULL, err);
			if (!cfg)
				return false;
			if (!qsim_model_run(cfg, &r, err)) {
				cfg_free(cfg);
				return false;
			}
			for (unsigned int l = 0; l < r.nlocks; l++)
				acq += r.locks[l].acquisitions;
			sum_ns += acq ? (double)r.measured_ps / SIM_NS /
						  (double)acq
				      : NAN;
			sum_sp += r.acq_min > 0 ? (double)r.acq_max /
							  (double)r.acq_min
						: INFINITY;
			qsim_results_clear(&r);
			cfg_free(cfg);
		}
		ns[i] = sum_ns / TAS_SEEDS;
		spread[i] = sum_sp / TAS_SEEDS;
	}
	return true;
}

bool probe_choose_hold(const char *preset, GKeyFile *off_keys,
		       GKeyFile *on_keys, const struct probe_figs *f,
		       bool *hold, GHashTable *notes, GError **err)
{
	struct probe_figs two = *f;
	double off, on;
	char *text;

	/* the first point with more than one thread */
	two.ntas = 0;
	for (unsigned int i = 0; i < f->ntas; i++) {
		if (f->tas_threads[i] > 1 && f->atom_ns[i] > 0) {
			two.ntas = 1;
			two.tas_threads[0] = f->tas_threads[i];
			two.atom_ns[0] = f->atom_ns[i];
			break;
		}
	}
	if (!two.ntas)
		return true; /* nothing measured to tell */
	g_key_file_set_boolean(off_keys, "cost", "hold", FALSE);
	g_key_file_set_boolean(on_keys, "cost", "hold", TRUE);
	if (!probe_sim_atomic(preset, off_keys, &two, &off, err) ||
	    !probe_sim_atomic(preset, on_keys, &two, &on, err))
		return false;
	/* the nearer on a log scale */
	*hold = fabs(log(on / two.atom_ns[0])) <
		fabs(log(off / two.atom_ns[0]));
	text = g_strdup_printf(
		"%u threads adding to one word took %.1f ns an add; the model "
		"gives %.1f without the hold, %.1f with it",
		two.tas_threads[0], two.atom_ns[0], off, on);
	if (notes)
		g_hash_table_insert(notes, g_strdup("cost.hold"), text);
	else
		g_free(text);
	return true;
}
