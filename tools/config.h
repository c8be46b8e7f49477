/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: INI read with GKeyFile into a validated qsim_config.
 *
 * Every key is declared once, in CFG_KEYS (config.c): section, name, type,
 * default, range and a line of help.  That one table drives parsing,
 * validation, the error messages (which always name the file, section,
 * key and what is allowed), `qsim list`, the resolved-parameter text that
 * the store keeps with every run, and docs/scenarios.md.  An unknown
 * section or key is an error: a typo never falls back to a default.
 */
#ifndef QSIM_TOOLS_CONFIG_H
#define QSIM_TOOLS_CONFIG_H

/* Cross-calls keep a csd line per sender and target (workload.ipi_prob). */
#define QSIM_IPI_MAX_VCPUS 256u

#include <glib.h>
#include <stdio.h>

#include "locks/lock.h"
#include "sim/dist.h"
#include "sim/mem.h"

#define CFG_ERROR (cfg_error_quark())
GQuark cfg_error_quark(void);

enum cfg_error_code {
	CFG_ERROR_IO,
	CFG_ERROR_SYNTAX,
	CFG_ERROR_UNKNOWN,
	CFG_ERROR_VALUE,
};

/* A duration that may be left out (empty in the scenario). */
struct cfg_odur {
	bool set;
	struct sim_duration d;
};

struct qsim_config {
	char *path;	  /* scenario file as given */
	char *text;	  /* its contents, stored with every run */
	char *resolved;	  /* every key with its final value, as INI */
	char **overrides; /* the --set arguments, for the replay command */

	/* [run] */
	sim_time_t duration_ps;
	sim_time_t warmup_ps;
	uint64_t seed;
	bool dtl_records;
	/* [machine] */
	char *preset;
	unsigned int pcpus;    /* derived from overcommit_req when it is set */
	double overcommit_req; /* [machine] overcommit, 0: auto */
	unsigned int smt;
	unsigned int cores_per_chip;
	unsigned int line_bytes;
	unsigned int stack_kib;
	unsigned int page_bytes;
	unsigned int cache_cores;
	char *smt_tput_text;
	unsigned int smt_tput[SIM_SMT_MAX]; /* parsed */
	unsigned int hmt_low_pct;
	char *atomics;
	char *memory; /* sc, tso, power (sim/mm.h) */
	sim_time_t memory_window_ps, store_delay_ps;
	bool relax_yields;
	bool raw_spin;
	/* [cost] */
	struct sim_cost cost;
	/* [guest] */
	unsigned int hz;
	sim_time_t tick_ps;
	unsigned int irq_rate;
	sim_time_t irq_ps;
	/* [hypervisor] */
	char *policy;
	sim_time_t slice_ps;
	sim_time_t dispatch_latency_ps;
	sim_time_t hcall_ps;
	sim_time_t wake_latency_ps;
	bool prod_cuts_directed_confer;
	sim_time_t window_ps;
	sim_time_t min_granularity_ps;
	bool whole_core;
	sim_time_t ple_window_ps;
	sim_time_t halt_poll_ps;
	unsigned int halt_poll_shrink;
	sim_time_t partition_switch_ps, vcpu_migrate_ps;
	bool kick_boost;
	bool kick_yield;
	sim_time_t balance_interval_ps;
	sim_time_t migration_cost_ps;
	sim_time_t wakeup_granularity_ps;
	/* [partition] */
	unsigned int vcpus;
	bool shared;
	unsigned int entitlement_cpu; /* hundredths of a PU; resolved */
	bool capped;
	unsigned int weight;
	/* [noise] */
	unsigned int noise_parts;
	unsigned int noise_vcpus;
	unsigned int noise_entitlement_cpu;
	bool noise_capped;
	bool noise_locktest;
	bool think_idle;
	unsigned int noise_weight;
	/* Each noise partition as resolved: a [noise] key holds one value
	 * for all, or one per partition, comma separated. */
#define CFG_MAX_NOISE 64
	struct cfg_noise_part {
		unsigned int vcpus, entitlement_cpu, weight;
		bool capped, locktest;
	} noise[CFG_MAX_NOISE];
	/* How many values each listable [noise] key was given (0: one for
	 * all), and the raw text, for the checks. */
	unsigned int noise_list_len[5];
	char *noise_list_text[5];
	/* [lock] */
	char *lock;
	char *mutant;
	unsigned int spin_threshold;
	unsigned int pending_loops;
	char *wait_early;
	char *steal;
	char *backoff;
	char *pv_mapping;
	char *kernel_files_sha256; /* "" or the files a kernel_* lock expects */
	/* the ppc_qspinlock qspl_* tunables */
	uint32_t qspl_set; /* bit i: the i-th qspl_* key was given */
#define X(name, def, max, help) unsigned int qspl_##name;
	QSPL_TUNABLES(X)
#undef X
	/* [workload] */
	char *workload;
	unsigned int nlocks;
	struct sim_duration cs;
	struct sim_duration think;
	char *pick;
	unsigned int read_pct;
	unsigned int readers;
	char *lock_cs_text;	      /* "" or one duration per lock */
	struct sim_duration *lock_cs; /* parsed, or NULL */
	struct cfg_odur read_cs, write_cs;
	sim_time_t long_hold_ps;
	double long_hold_prob;
	double nest_prob;
	double ipi_prob;
	unsigned int ipi_targets;
	sim_time_t ipi_handler_ps;
	sim_time_t stutter_ps;
	unsigned int steps;
	struct cfg_odur unit_idle;
	sim_time_t stat_interval_ps;
	/* [check] */
	sim_time_t hang_bound_ps;
	unsigned int host_timeout_s;
	sim_time_t sleep_bound_ps;
	bool drain; /* [check] drain */
	unsigned int trace_events;
	/* [adversarial] */
	double point_prob[16];
	double spurious_wake;
	double drain_late;
};

/*
 * Load @path, apply @overrides ("section.key=value", may be NULL) and
 * validate.  On error returns NULL with a message naming the problem.
 */
struct qsim_config *cfg_load(const char *path, char **overrides,
			     GError **error);
/* The same from text already read (tests, `check-config -`). */
/*
 * The one parser of every integer the user gives (scenario keys, --seed,
 * torture's --seeds and --first-seed): decimal digits only, no sign, no
 * overflow.  Seeds run from 0 to CFG_SEED_MAX, 2^63 - 1, so that every
 * seed is stored as it is (SQLite's integers are signed 64-bit).
 */
#define CFG_SEED_MAX ((uint64_t)INT64_MAX)
bool cfg_parse_u64(const char *v, uint64_t *out);

struct qsim_config *cfg_load_text(const char *path, const char *text,
				  char **overrides, GError **error);
void cfg_free(struct qsim_config *cfg);
/* vCPUs of every partition (guest and noise) per pCPU of the pool. */
double cfg_overcommit(const struct qsim_config *cfg);
/* vCPUs of all the noise partitions together. */
unsigned int cfg_noise_vcpus(const struct qsim_config *cfg);
/* Whether [lock] type has a reader side (read_pct, readers and read_cs
 * act only then). */
bool cfg_lock_reads(const struct qsim_config *cfg);
/* machine.memory as the engine's enum (sim/mm.h). */
int cfg_memory(const struct qsim_config *cfg);
typedef struct qsim_config qsim_config;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(qsim_config, cfg_free)

/* The default of [section] key as text (preset-dependent ones for power9). */
char *cfg_key_default(const char *section, const char *key);
/* Whether [section] key is a scenario key; if not, @error names the
 * section's keys (or the sections). */
bool cfg_key_check(const char *section, const char *key, GError **error);
/* Would @value do for [@section] @key?  If not, @error says what would
 * ("expected ..."), for a message that names an option. */
bool cfg_value_check(const char *section, const char *key, const char *value,
		     GError **error);
/* Print every section and key with type, default, range and help. */
void cfg_print_keys(FILE *out);
/* The keys of one section; false if there is no such section. */
bool cfg_print_section_keys(FILE *out, const char *section);
/* "[run], [machine], ...": every section (a new string). */
char *cfg_section_names(void);
/* The cost-model preset names, NULL-terminated. */
extern const char *const cfg_presets[];

/* The SHA-256 over kernel files: over @lines, one "PATH SHA256\n" a file
 * (cfg_ktree_digest_add; sorted here, in byte order); a new string. */
void cfg_ktree_digest_add(GPtrArray *lines, const char *path,
			  const char *sha256);
char *cfg_ktree_digest(GPtrArray *lines);
/* That of the kernel files this binary's kernel_* types were built from
 * (`qsim version` prints it); NULL in a build without a kernel tree. */
const char *cfg_ktree_files_sha256(void);
/* "Linux VERSION from PATH (DESCRIBE)": a kernel tree named in one
 * phrase (a new string). */
char *cfg_ktree_name(const struct lk_ktree_identity *id);
/* Why @cfg's kernel_* lock is not the one [lock] kernel_files_sha256 was
 * written for (a new string, for a warning); NULL when it is, or when
 * the key is not set or the lock is qsim's own. */
char *cfg_ktree_mismatch(const struct qsim_config *cfg);

/* hypervisor.ple_window resolved: "auto" is the preset's window (KVM's 4096
 * cycles on x86) under policy kvm and off otherwise. */
sim_time_t cfg_ple_window(const struct qsim_config *cfg);

/* The hypervisor costs resolved ("auto": per policy and preset, with
 * their sources in docs/hypervisor.md, "Costs"). */
sim_time_t cfg_hcall(const struct qsim_config *cfg);
sim_time_t cfg_wake_latency(const struct qsim_config *cfg);
sim_time_t cfg_partition_switch(const struct qsim_config *cfg);
sim_time_t cfg_slice(const struct qsim_config *cfg);
sim_time_t cfg_halt_poll(const struct qsim_config *cfg);

#endif
