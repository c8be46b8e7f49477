/* SPDX-License-Identifier: MIT */
/*
 * qsim probe: measure, on the host it runs on, the figures the machine
 * model takes (docs/cost-model.md, "Measuring a machine: qsim probe"),
 * turn them into [machine] and [cost] keys, and compare a test-and-set
 * lock on the host with the same lock in the model.
 *
 * The measuring (host threads, timed) and the deriving (pure arithmetic
 * and simulations, tested) are kept apart: probe_derive() and
 * probe_topo_read() never time anything.
 */
#ifndef QSIM_TOOLS_PROBE_H
#define QSIM_TOOLS_PROBE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where the data of a pair of CPUs comes from, as the model's classes. */
enum probe_dist {
	PD_SMT,	   /* the same cache domain (a core, or a core pair) */
	PD_CHIP,   /* another domain of the same chip */
	PD_REMOTE, /* another chip */
	PD_NR,
};

struct probe_cpu {
	int id;	  /* the kernel's CPU number */
	int pkg;  /* physical_package_id */
	int core; /* a key unique over packages (lowest sibling's id) */
	int dom;  /* cache domain: lowest CPU id sharing its L2 */
};

struct probe_topo {
	unsigned int n;
	struct probe_cpu *cpu; /* in the order the ids were given */
	unsigned int smt;      /* most threads of one core */
	unsigned int cores_per_chip;
	unsigned int cache_cores; /* most cores of one cache domain */
	unsigned int nchips;
	unsigned int line_size; /* 0: not known */
	bool have_caches;	/* the L2 sharing came from sysfs */
};

/*
 * Read the topology of CPUs @ids[0..n) from a sysfs tree at @root
 * ("/sys" on a live system; tests give a fixture).  A CPU with no
 * topology files is an error naming the file; missing cache files are
 * not (the cache domain is then the core).
 */
bool probe_topo_read(const char *root, const int *ids, unsigned int n,
		     struct probe_topo *t, GError **err);
void probe_topo_clear(struct probe_topo *t);
enum probe_dist probe_topo_dist(const struct probe_topo *t, unsigned int a,
				unsigned int b);
/* Parse a kernel CPU list ("0-3,8,10-11") into ids; false if malformed. */
bool probe_parse_cpulist(const char *s, GArray *ids);

#define PROBE_SMT_MAX 8
#define PROBE_TAS_MAX 8

/* What was measured on the host; a figure below 0 was not measured. */
struct probe_figs {
	double hit_ns;	   /* a dependent load within L1 */
	double memory_ns;  /* a dependent load that misses every cache */
	double rmw_ns;	   /* an uncontended atomic read-modify-write */
	double barrier_ns; /* a full barrier after a store, beyond the store */
	double relax_ns;   /* one cpu_relax() in a loop */
	/* one way of a ping-pong between two CPUs of each class: median,
	 * least and most over the pairs tried */
	double oneway_ns[PD_NR], oneway_lo[PD_NR], oneway_hi[PD_NR];
	unsigned int pairs[PD_NR];
	/* core throughput with k threads busy, k = 1..nsmt (tput[0] = 1) */
	unsigned int nsmt;
	double tput[PROBE_SMT_MAX];
	/* a working thread's speed beside one sibling spinning at low
	 * priority, relative to alone */
	double low_speed;
	/* test-and-set lock, threads on cores of their own on one chip, no
	 * critical section and no think time */
	unsigned int ntas;
	unsigned int tas_threads[PROBE_TAS_MAX];
	double tas_ns[PROBE_TAS_MAX];	  /* ns per acquisition */
	double tas_spread[PROBE_TAS_MAX]; /* per-thread max / min */
	/* acquisitions per change of owner (1: every acquisition a
	 * hand-off; more: the holder takes it again on its own) */
	double tas_run[PROBE_TAS_MAX];
	/* the same threads adding to one word with a relaxed atomic: ns per
	 * add over all of them */
	double atom_ns[PROBE_TAS_MAX];
	double atom_run[PROBE_TAS_MAX]; /* adds per change of adder */
};

void probe_figs_init(struct probe_figs *f);

/* The preset a host of this architecture starts from (x86, power9,
 * power10), from the compiler's target and /proc/cpuinfo's text. */
const char *probe_preset_for(const char *cpuinfo);

/*
 * The keys the model takes from @f on @t, over @preset's, as a key file
 * of [machine] and [cost] (only what was measured; the rest stays the
 * preset's), and a note per key of where it came from in @notes (key ->
 * text).  The transfer costs are the ones at which the model's own
 * ping-pong takes the measured time (probe_sim_oneway_ns) with @out's
 * cost.hold if it has one, else the preset's; @out gets cost.hold
 * either way.
 */
bool probe_derive(const struct probe_topo *t, const struct probe_figs *f,
		  const char *preset, GKeyFile *out, GHashTable *notes,
		  GError **err);

/*
 * The model's one-way ping-pong time between two CPUs of class @d, with
 * @d's transfer cost @xfer_ps and @hit_ps for a hit, everything else
 * zero and no jitter, and cost.hold as @hold: the time a store takes to
 * be seen by a CPU spinning on it there, half a round trip.
 * (tools/probe_sim.c)
 */
double probe_sim_oneway_ns(enum probe_dist d, int64_t xfer_ps, int64_t hit_ps,
			   bool hold);

/*
 * The model's test-and-set curve with @keys (a key file of [machine]
 * and [cost], or NULL for @preset's alone): ns per acquisition and the
 * per-thread spread for each thread count of @f, threads on cores of
 * their own on one chip, as the host ran it.  (tools/probe_sim.c)
 */
bool probe_sim_tas(const char *preset, GKeyFile *keys,
		   const struct probe_figs *f, double *ns, double *spread,
		   GError **err);

/*
 * The model's contended atomic: @f's thread counts, each cpu on a core
 * of its own on one chip adding to one word in a loop for 20 us (the
 * preset's atomics, llsc or locked, and @keys' costs): ns per add over
 * all of them.  (tools/probe_sim.c)
 */
bool probe_sim_atomic(const char *preset, GKeyFile *keys,
		      const struct probe_figs *f, double *ns, GError **err);

/*
 * cost.hold from the contended adds: with more than one thread measured,
 * the model's adds with @off_keys (their transfers solved without the
 * hold; given hold = false here) and with @on_keys (solved with it;
 * hold = true), over @preset, and *@hold set to whichever comes nearer
 * the host's figure on a log scale; a note says the three figures.
 * Nothing measured with more than one thread: *@hold as it was.
 * (tools/probe_sim.c)
 */
bool probe_choose_hold(const char *preset, GKeyFile *off_keys,
		       GKeyFile *on_keys, const struct probe_figs *f,
		       bool *hold, GHashTable *notes, GError **err);

struct probe_opts {
	bool quick;	   /* shorter measurements */
	const char *cpus;  /* a CPU list to use, or NULL: all allowed */
	const char *ini;   /* write the derived keys here, or NULL */
	const char *json;  /* write the measurements here, or NULL */
	const char *sysfs; /* sysfs root (tests), or NULL: /sys */
};

/* Measure, derive, print; the exit code. */
int probe_main(const struct probe_opts *o, FILE *out);

#endif
