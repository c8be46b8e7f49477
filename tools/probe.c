// SPDX-License-Identifier: MIT
/*
 * qsim probe: the host's own figures for the machine model
 * (tools/probe.h; docs/cost-model.md, "Measuring a machine").
 *
 * Every measurement runs on threads pinned to the CPUs it names, from a
 * common start, for a fixed time or a fixed number of steps, and keeps
 * the median of three tries.  Nothing here asserts a speed: what comes
 * out is a measurement, printed and written for the user to read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "tools/config.h"
#include "tools/outfile.h"
#include "tools/probe.h"

/* --- topology --- */

bool probe_parse_cpulist(const char *s, GArray *ids)
{
	const char *p = s;

	while (*p && *p != '\n') {
		char *end;
		long a, b;

		if (*p < '0' || *p > '9')
			return false;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return false;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (a < 0 || b < a || b > 1 << 20)
			return false;
		for (long i = a; i <= b; i++) {
			int v = (int)i;

			g_array_append_val(ids, v);
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return false;
	}
	return true;
}

static char *sys_text(const char *root, int cpu, const char *rel, GError **err)
{
	g_autofree char *path = g_strdup_printf(
		"%s/devices/system/cpu/cpu%d/%s", root, cpu, rel);
	char *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, err))
		return NULL;
	return text;
}

static bool sys_int(const char *root, int cpu, const char *rel, int *v,
		    GError **err)
{
	g_autofree char *text = sys_text(root, cpu, rel, err);
	char *end;
	long x;

	if (!text)
		return false;
	x = strtol(text, &end, 10);
	if (end == text || x < -1 || x > INT32_MAX) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s/devices/system/cpu/cpu%d/%s: not a number: %s",
			    root, cpu, rel, g_strstrip(text));
		return false;
	}
	*v = (int)x;
	return true;
}

/* The lowest id of a CPU list file, or -1 if there is none. */
static int sys_list_first(const char *root, int cpu, const char *rel)
{
	g_autofree char *text = sys_text(root, cpu, rel, NULL);
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(int));

	if (!text || !probe_parse_cpulist(g_strstrip(text), ids) || !ids->len)
		return -1;
	return g_array_index(ids, int, 0);
}

/* The cache domain of @cpu: the lowest id sharing its level-2 cache, or
 * -1 if sysfs does not say. */
static int sys_l2_first(const char *root, int cpu, unsigned int *line)
{
	for (int i = 0; i < 8; i++) {
		g_autofree char *rel =
			g_strdup_printf("cache/index%d/level", i);
		g_autofree char *trel =
			g_strdup_printf("cache/index%d/type", i);
		g_autofree char *srel =
			g_strdup_printf("cache/index%d/shared_cpu_list", i);
		g_autofree char *lrel =
			g_strdup_printf("cache/index%d/coherency_line_size", i);
		g_autofree char *type = NULL;
		int level, ls;

		if (!sys_int(root, cpu, rel, &level, NULL))
			return -1;
		type = sys_text(root, cpu, trel, NULL);
		if (level == 1 && type && g_str_has_prefix(type, "Data") &&
		    sys_int(root, cpu, lrel, &ls, NULL) && ls > 0)
			*line = (unsigned int)ls;
		if (level == 2 && (!type || !g_str_has_prefix(type, "Instr")))
			return sys_list_first(root, cpu, srel);
	}
	return -1;
}

bool probe_topo_read(const char *root, const int *ids, unsigned int n,
		     struct probe_topo *t, GError **err)
{
	g_autoptr(GHashTable) cores = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) chips = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) doms = g_hash_table_new(NULL, NULL);
	bool all_doms = n > 0;

	memset(t, 0, sizeof(*t));
	t->cpu = g_new0(struct probe_cpu, MAX(n, 1));
	t->n = n;
	for (unsigned int i = 0; i < n; i++) {
		struct probe_cpu *c = &t->cpu[i];
		unsigned int line = 0;

		c->id = ids[i];
		if (!sys_int(root, c->id, "topology/physical_package_id",
			     &c->pkg, err)) {
			probe_topo_clear(t);
			return false;
		}
		c->core = sys_list_first(root, c->id,
					 "topology/thread_siblings_list");
		if (c->core < 0)
			c->core = c->id;
		c->dom = sys_l2_first(root, c->id, &line);
		if (c->dom < 0) {
			all_doms = false;
			c->dom = c->core;
		}
		if (i == 0)
			t->line_size = line;
	}
	t->have_caches = all_doms;
	/* Threads a core, cores a chip, cores a domain: the most of each
	 * among the CPUs given (counted through hash tables of counts). */
	for (unsigned int i = 0; i < n; i++) {
		struct probe_cpu *c = &t->cpu[i];
		bool first_of_core = true;
		gpointer k = GINT_TO_POINTER(c->core + 1);
		unsigned int th =
			GPOINTER_TO_UINT(g_hash_table_lookup(cores, k)) + 1;

		g_hash_table_insert(cores, k, GUINT_TO_POINTER(th));
		t->smt = MAX(t->smt, th);
		for (unsigned int j = 0; j < i; j++)
			first_of_core &= t->cpu[j].core != c->core;
		if (first_of_core) {
			gpointer pk = GINT_TO_POINTER(c->pkg + 1);
			gpointer dk = GINT_TO_POINTER(c->dom + 1);
			unsigned int pc = GPOINTER_TO_UINT(g_hash_table_lookup(
						  chips, pk)) +
					  1;
			unsigned int dc = GPOINTER_TO_UINT(g_hash_table_lookup(
						  doms, dk)) +
					  1;

			g_hash_table_insert(chips, pk, GUINT_TO_POINTER(pc));
			g_hash_table_insert(doms, dk, GUINT_TO_POINTER(dc));
			t->cores_per_chip = MAX(t->cores_per_chip, pc);
			t->cache_cores = MAX(t->cache_cores, dc);
		}
	}
	t->nchips = g_hash_table_size(chips);
	return true;
}

void probe_topo_clear(struct probe_topo *t)
{
	g_free(t->cpu);
	memset(t, 0, sizeof(*t));
}

enum probe_dist probe_topo_dist(const struct probe_topo *t, unsigned int a,
				unsigned int b)
{
	if (t->cpu[a].dom == t->cpu[b].dom)
		return PD_SMT;
	return t->cpu[a].pkg == t->cpu[b].pkg ? PD_CHIP : PD_REMOTE;
}

void probe_figs_init(struct probe_figs *f)
{
	memset(f, 0, sizeof(*f));
	f->hit_ns = f->memory_ns = f->rmw_ns = f->barrier_ns = f->relax_ns = -1;
	f->low_speed = -1;
	for (int d = 0; d < PD_NR; d++)
		f->oneway_ns[d] = f->oneway_lo[d] = f->oneway_hi[d] = -1;
}

const char *probe_preset_for(const char *cpuinfo)
{
#if defined(__powerpc64__) || defined(__powerpc__)
	/* "cpu : POWER10 (architected)", "POWER9, altivec supported" */
	if (cpuinfo && (strstr(cpuinfo, "POWER1") || strstr(cpuinfo, "Power1")))
		return "power10";
	return "power9";
#else
	(void)cpuinfo;
	return "x86";
#endif
}

/* --- the host's instructions --- */

/* cpu_relax() as Linux has it on this architecture. */
static inline void host_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__powerpc64__) || defined(__powerpc__)
	/* the priority nops, low then medium */
	__asm__ __volatile__("or 1,1,1\n\tor 2,2,2" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* A full barrier as Linux's smp_mb() makes it: on x86-64 a locked add
 * to the stack (since Linux 4.15; mfence before), on POWER `sync`, on
 * arm64 `dmb ish`; elsewhere the compiler's. */
static inline void host_mb(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("lock addl $0,-4(%%rsp)" ::: "memory", "cc");
#elif defined(__powerpc64__) || defined(__powerpc__)
	__asm__ __volatile__("sync" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb ish" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* A spin loop's start and end (powerpc's low and medium priority). */
static inline void host_spin_begin(void)
{
#if defined(__powerpc64__) || defined(__powerpc__)
	__asm__ __volatile__("or 1,1,1" ::: "memory");
#endif
}

static inline void host_spin_end(void)
{
#if defined(__powerpc64__) || defined(__powerpc__)
	__asm__ __volatile__("or 2,2,2" ::: "memory");
#endif
}

/* One iteration of a spin loop's body beyond its read: on x86 (and
 * POWER10 in the kernel) a relax; on POWER9 nothing. */
static inline void host_spin_relax(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	host_relax();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- pinned threads from a common start --- */

struct ctl {
	int ready __attribute__((aligned(256)));
	int failed;
	int go __attribute__((aligned(256)));
	int stop __attribute__((aligned(256)));
};

struct pthr {
	pthread_t th;
	int cpu;
	void (*fn)(struct pthr *t);
	void *arg;
	struct ctl *ctl;
	uint64_t count;
	uint64_t changes; /* test-and-set: acquisitions from another owner */
	double secs;	  /* the thread's own timing, where it keeps one */
};

static bool pin_self(int cpu)
{
	cpu_set_t *set = CPU_ALLOC((size_t)cpu + 1);
	size_t sz = CPU_ALLOC_SIZE((size_t)cpu + 1);
	bool ok;

	if (!set)
		return false;
	CPU_ZERO_S(sz, set);
	CPU_SET_S((size_t)cpu, sz, set);
	ok = sched_setaffinity(0, sz, set) == 0;
	CPU_FREE(set);
	return ok;
}

static void *pthr_main(void *p)
{
	struct pthr *t = p;

	if (!pin_self(t->cpu))
		__atomic_store_n(&t->ctl->failed, t->cpu + 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&t->ctl->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&t->ctl->go, __ATOMIC_ACQUIRE))
		host_relax();
	if (!__atomic_load_n(&t->ctl->failed, __ATOMIC_ACQUIRE))
		t->fn(t);
	return NULL;
}

/* Run @n threads from a common start; with @secs > 0 tell them to stop
 * after that long (they return on their own otherwise).  Returns the
 * time from start to stop, or -1 with @err set. */
static double run_threads(struct pthr *t, unsigned int n, double secs,
			  GError **err)
{
	struct ctl *ctl = NULL;
	double t0, el;
	int failed;

	if (posix_memalign((void **)&ctl, 256, sizeof(*ctl))) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
			    "out of memory");
		return -1;
	}
	memset(ctl, 0, sizeof(*ctl));

	for (unsigned int i = 0; i < n; i++) {
		t[i].ctl = ctl;
		t[i].count = 0;
		t[i].changes = 0;
		t[i].secs = 0;
		if (pthread_create(&t[i].th, NULL, pthr_main, &t[i])) {
			g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED,
				    "cannot start a thread");
			__atomic_store_n(&ctl->failed, 1, __ATOMIC_SEQ_CST);
			__atomic_store_n(&ctl->go, 1, __ATOMIC_SEQ_CST);
			for (unsigned int j = 0; j < i; j++)
				pthread_join(t[j].th, NULL);
			free(ctl);
			return -1;
		}
	}
	while (__atomic_load_n(&ctl->ready, __ATOMIC_SEQ_CST) < (int)n)
		sched_yield();
	t0 = now_s();
	__atomic_store_n(&ctl->go, 1, __ATOMIC_RELEASE);
	if (secs > 0 && !__atomic_load_n(&ctl->failed, __ATOMIC_SEQ_CST))
		g_usleep((gulong)(secs * 1e6));
	el = now_s() - t0;
	__atomic_store_n(&ctl->stop, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < n; i++)
		pthread_join(t[i].th, NULL);
	failed = ctl->failed;
	free(ctl);
	if (failed) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM,
			    "cannot run a thread on CPU %d: %s", failed - 1,
			    g_strerror(EINVAL));
		return -1;
	}
	return el;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median3(double a, double b, double c)
{
	double v[3] = {a, b, c};

	qsort(v, 3, sizeof(v[0]), cmp_d);
	return v[1];
}

/* --- single-thread latencies --- */

static uint64_t g_sink;

struct chase {
	size_t bytes, line;
	uint64_t steps;
	double ns;
};

static void chase_fn(struct pthr *t)
{
	struct chase *c = t->arg;
	size_t n = c->bytes / c->line;
	char *buf = NULL;
	size_t *next = g_new(size_t, n);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	void **p;
	double t0;

	if (posix_memalign((void **)&buf, 2u << 20, c->bytes)) {
		g_free(next);
		c->ns = -1;
		return;
	}
#ifdef MADV_HUGEPAGE
	madvise(buf, c->bytes, MADV_HUGEPAGE);
#endif
	/* One random cycle through every line (Sattolo's shuffle, a fixed
	 * xorshift): the next address is never predictable. */
	for (size_t i = 0; i < n; i++)
		next[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j, tmp;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % i);
		tmp = next[i];
		next[i] = next[j];
		next[j] = tmp;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + i * c->line) = buf + next[i] * c->line;
	g_free(next);
	p = (void **)buf;
	for (size_t i = 0; i < n; i++) /* warm: one lap */
		p = *p;
	t0 = now_s();
	for (uint64_t i = 0; i < c->steps; i++)
		p = *(void **)p;
	c->ns = (now_s() - t0) * 1e9 / (double)c->steps;
	g_sink += (uint64_t)(uintptr_t)p;
	free(buf);
}

static uint64_t rmw_word __attribute__((aligned(256)));
static uint64_t store_word __attribute__((aligned(256)));

struct loop {
	int kind; /* 0 rmw, 1 store+fence, 2 store alone, 3 relax */
	uint64_t n;
	double ns;
};

static void loop_fn(struct pthr *t)
{
	struct loop *l = t->arg;
	double t0 = now_s();

	switch (l->kind) {
	case 0:
		for (uint64_t i = 0; i < l->n; i++)
			__atomic_fetch_add(&rmw_word, 1, __ATOMIC_RELAXED);
		break;
	case 1:
		for (uint64_t i = 0; i < l->n; i++) {
			__atomic_store_n(&store_word, i, __ATOMIC_RELAXED);
			host_mb();
		}
		break;
	case 2:
		for (uint64_t i = 0; i < l->n; i++) {
			__atomic_store_n(&store_word, i, __ATOMIC_RELAXED);
			__asm__ __volatile__("" ::: "memory");
		}
		break;
	default:
		for (uint64_t i = 0; i < l->n; i++)
			host_relax();
		break;
	}
	l->ns = (now_s() - t0) * 1e9 / (double)l->n;
}

static double one_thread(int cpu, void (*fn)(struct pthr *), void *arg,
			 GError **err)
{
	struct pthr t = {.cpu = cpu, .fn = fn, .arg = arg};

	return run_threads(&t, 1, 0, err);
}

static double chase_ns(int cpu, size_t bytes, size_t line, uint64_t steps,
		       GError **err)
{
	double v[3];

	for (int i = 0; i < 3; i++) {
		struct chase c = {bytes, line, steps, -1};

		if (one_thread(cpu, chase_fn, &c, err) < 0)
			return NAN;
		v[i] = c.ns;
	}
	return median3(v[0], v[1], v[2]);
}

static double loop_ns(int cpu, int kind, uint64_t n, GError **err)
{
	double v[3];

	for (int i = 0; i < 3; i++) {
		struct loop l = {kind, n, -1};

		if (one_thread(cpu, loop_fn, &l, err) < 0)
			return NAN;
		v[i] = l.ns;
	}
	return median3(v[0], v[1], v[2]);
}

/* --- ping-pong --- */

#define PP_STOP UINT64_MAX

static void pp_first(struct pthr *t)
{
	uint64_t *f = t->arg, i = 0;
	double t0 = now_s();

	for (;;) {
		__atomic_store_n(f, 2 * i + 1, __ATOMIC_RELAXED);
		while (__atomic_load_n(f, __ATOMIC_RELAXED) != 2 * i + 2)
			;
		i++;
		if (!(i & 255) &&
		    __atomic_load_n(&t->ctl->stop, __ATOMIC_RELAXED))
			break;
	}
	t->secs = now_s() - t0;
	t->count = i;
	__atomic_store_n(f, PP_STOP, __ATOMIC_RELAXED);
}

static void pp_second(struct pthr *t)
{
	uint64_t *f = t->arg;

	for (uint64_t i = 0;; i++) {
		uint64_t x;

		while ((x = __atomic_load_n(f, __ATOMIC_RELAXED)) != 2 * i + 1)
			if (x == PP_STOP)
				return;
		__atomic_store_n(f, 2 * i + 2, __ATOMIC_RELAXED);
	}
}

static double pingpong_ns(int a, int b, double secs, GError **err)
{
	uint64_t *line = NULL;
	double v[3];

	if (posix_memalign((void **)&line, 256, 256))
		return NAN;
	for (int k = 0; k < 3; k++) {
		struct pthr t[2] = {{.cpu = a, .fn = pp_first, .arg = line},
				    {.cpu = b, .fn = pp_second, .arg = line}};

		*line = 0;
		if (run_threads(t, 2, secs / 3, err) < 0) {
			free(line);
			return NAN;
		}
		v[k] = t[0].count ? t[0].secs * 1e9 / (2.0 * (double)t[0].count)
				  : NAN;
	}
	free(line);
	return median3(v[0], v[1], v[2]);
}

/* --- a core's threads --- */

static void work_fn(struct pthr *t)
{
	uint64_t a = 1, b = 2, c = 3, d = 4, n = 0;

	while (!__atomic_load_n(&t->ctl->stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < 256; i++) {
			a = a * 6364136223846793005ULL + 1442695040888963407ULL;
			b ^= b << 13;
			b ^= b >> 7;
			b ^= b << 17;
			c += a >> 3;
			d ^= c + b;
		}
		n += 256;
	}
	t->count = n;
	__atomic_add_fetch(&g_sink, a ^ b ^ c ^ d, __ATOMIC_RELAXED);
}

static void low_spin_fn(struct pthr *t)
{
	host_spin_begin();
	while (!__atomic_load_n(&t->ctl->stop, __ATOMIC_RELAXED))
		host_spin_relax();
	host_spin_end();
}

/* Work counts of threads on @cpus[0..k) together (each's fn given). */
static bool core_run(const int *cpus, unsigned int k,
		     void (*const *fns)(struct pthr *), double secs,
		     uint64_t *counts, GError **err)
{
	struct pthr t[PROBE_SMT_MAX];

	memset(t, 0, sizeof(t));
	for (unsigned int i = 0; i < k; i++) {
		t[i].cpu = cpus[i];
		t[i].fn = fns[i];
	}
	if (run_threads(t, k, secs, err) < 0)
		return false;
	for (unsigned int i = 0; i < k; i++)
		counts[i] = t[i].count;
	return true;
}

/* --- a test-and-set lock --- */

static void tas_fn(struct pthr *t)
{
	uint32_t *l = t->arg;
	uint32_t me = (uint32_t)t->cpu + 1;
	uint64_t n = 0, changes = 0;

	while (!__atomic_load_n(&t->ctl->stop, __ATOMIC_RELAXED)) {
		for (;;) {
			uint32_t z = 0;

			if (__atomic_compare_exchange_n(l, &z, 1, false,
							__ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				break;
			host_spin_begin();
			while (__atomic_load_n(l, __ATOMIC_RELAXED))
				host_spin_relax();
			host_spin_end();
		}
		n++;
		/* the owner before us, on the lock's line (held: a hit) */
		if (__atomic_load_n(l + 1, __ATOMIC_RELAXED) != me) {
			__atomic_store_n(l + 1, me, __ATOMIC_RELAXED);
			changes++;
		}
		__atomic_store_n(l, 0, __ATOMIC_RELEASE);
	}
	t->count = n;
	t->changes = changes;
}

static void atom_fn(struct pthr *t)
{
	uint64_t *w = t->arg, n = 0, changes = 0, last = UINT64_MAX - 1;

	while (!__atomic_load_n(&t->ctl->stop, __ATOMIC_RELAXED)) {
		uint64_t old = __atomic_fetch_add(w, 1, __ATOMIC_RELAXED);

		/* another thread added since our last: the line came back */
		changes += old != last + 1;
		last = old;
		n++;
	}
	t->count = n;
	t->changes = changes;
}

/*
 * @n threads running @fn on one 256-byte line (zeroed before each try)
 * on @cpus: ns per operation over all of them, and (if asked) the
 * per-thread max / min and the operations per change of owner (what
 * tas_fn counts).  Medians of three tries.
 */
static bool contend_point(const int *cpus, unsigned int n, double secs,
			  void (*fn)(struct pthr *), double *ns, double *spread,
			  double *run, GError **err)
{
	struct pthr *t = g_new0(struct pthr, n);
	uint64_t *line = NULL;
	double v[3], s[3], r[3];
	bool ok = true;

	if (posix_memalign((void **)&line, 256, 256)) {
		g_free(t);
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
			    "out of memory");
		return false;
	}
	for (int k = 0; k < 3 && ok; k++) {
		uint64_t sum = 0, lo = UINT64_MAX, hi = 0, ch = 0;
		double el;

		memset(line, 0, 256);
		for (unsigned int i = 0; i < n; i++) {
			t[i].cpu = cpus[i];
			t[i].fn = fn;
			t[i].arg = line;
		}
		el = run_threads(t, n, secs / 3, err);
		ok = el >= 0;
		for (unsigned int i = 0; ok && i < n; i++) {
			sum += t[i].count;
			lo = MIN(lo, t[i].count);
			hi = MAX(hi, t[i].count);
			ch += t[i].changes;
		}
		v[k] = sum ? el * 1e9 / (double)sum : NAN;
		s[k] = lo ? (double)hi / (double)lo : INFINITY;
		r[k] = ch ? (double)sum / (double)ch : INFINITY;
	}
	if (ok) {
		*ns = median3(v[0], v[1], v[2]);
		if (spread)
			*spread = median3(s[0], s[1], s[2]);
		if (run)
			*run = median3(r[0], r[1], r[2]);
	}
	free(line);
	g_free(t);
	return ok;
}

/* --- measuring --- */

static bool measure(const struct probe_topo *t, bool quick,
		    struct probe_figs *f, FILE *out, GError **err)
{
	double pp_secs = quick ? 0.03 : 0.3, core_secs = quick ? 0.03 : 0.3;
	double tas_secs = quick ? 0.03 : 0.3;
	uint64_t loops = quick ? 1u << 20 : 1u << 23;
	size_t line = t->line_size ? t->line_size : 128;
	int c0 = t->cpu[0].id;
	int sib[PROBE_SMT_MAX];
	unsigned int nsib = 0;
	int tcpu[1u << PROBE_TAS_MAX];
	unsigned int ncores = 0;
	double store;

	fprintf(out, "measuring on CPU %d", c0);
	fflush(out);
	f->hit_ns = chase_ns(c0, 4096, line, loops * 4, err);
	if (isnan(f->hit_ns))
		return false;
	f->memory_ns = chase_ns(c0, quick ? 64u << 20 : 256u << 20, line,
				loops / 4, err);
	if (isnan(f->memory_ns))
		return false;
	f->rmw_ns = loop_ns(c0, 0, loops, err);
	if (isnan(f->rmw_ns))
		return false;
	f->barrier_ns = loop_ns(c0, 1, loops, err);
	if (isnan(f->barrier_ns))
		return false;
	store = loop_ns(c0, 2, loops, err);
	if (isnan(store))
		return false;
	f->relax_ns = loop_ns(c0, 3, loops / 4, err);
	if (isnan(f->relax_ns))
		return false;
	f->barrier_ns = MAX(f->barrier_ns - store, 0);

	/* Ping-pong: up to three pairs of each class, no core in two pairs
	 * of a class, in the order the CPUs were given. */
	fprintf(out, ", ping-pong");
	fflush(out);
	for (int d = 0; d < PD_NR; d++) {
		g_autoptr(GHashTable) used = g_hash_table_new(NULL, NULL);
		double v[3];
		unsigned int np = 0;

		for (unsigned int a = 0; a < t->n && np < 3; a++) {
			gpointer ka = GINT_TO_POINTER(t->cpu[a].core + 1);

			if (g_hash_table_contains(used, ka))
				continue;
			for (unsigned int b = a + 1; b < t->n; b++) {
				gpointer kb =
					GINT_TO_POINTER(t->cpu[b].core + 1);

				if (probe_topo_dist(t, a, b) !=
					    (enum probe_dist)d ||
				    (kb != ka &&
				     g_hash_table_contains(used, kb)))
					continue;
				v[np] = pingpong_ns(t->cpu[a].id, t->cpu[b].id,
						    pp_secs, err);
				if (isnan(v[np]))
					return false;
				np++;
				g_hash_table_add(used, ka);
				g_hash_table_add(used, kb);
				break;
			}
		}
		f->pairs[d] = np;
		if (!np)
			continue;
		qsort(v, np, sizeof(v[0]), cmp_d);
		f->oneway_ns[d] =
			np % 2 ? v[np / 2] : (v[np / 2 - 1] + v[np / 2]) / 2;
		f->oneway_lo[d] = v[0];
		f->oneway_hi[d] = v[np - 1];
	}

	/* The core of the first CPU: its threads busy 1..smt at a time,
	 * then one working beside one spinning at low priority. */
	for (unsigned int i = 0; i < t->n && nsib < PROBE_SMT_MAX; i++)
		if (t->cpu[i].core == t->cpu[0].core)
			sib[nsib++] = t->cpu[i].id;
	fprintf(out, ", SMT");
	fflush(out);
	{
		void (*fns[PROBE_SMT_MAX])(struct pthr *);
		uint64_t cnt[PROBE_SMT_MAX];
		double work[PROBE_SMT_MAX][3], low[3];

		/* Three tries of each, the median of each figure. */
		for (int k3 = 0; k3 < 3; k3++) {
			for (unsigned int k = 1; k <= nsib; k++) {
				uint64_t sum = 0;

				for (unsigned int i = 0; i < k; i++)
					fns[i] = work_fn;
				if (!core_run(sib, k, fns, core_secs, cnt, err))
					return false;
				for (unsigned int i = 0; i < k; i++)
					sum += cnt[i];
				work[k - 1][k3] = (double)sum;
			}
			if (nsib >= 2) {
				fns[0] = work_fn;
				fns[1] = low_spin_fn;
				if (!core_run(sib, 2, fns, core_secs, cnt, err))
					return false;
				low[k3] = (double)cnt[0];
			}
		}
		for (unsigned int k = 0; k < nsib; k++) {
			double alone =
				median3(work[0][0], work[0][1], work[0][2]);

			f->tput[k] = alone > 0 ? median3(work[k][0], work[k][1],
							 work[k][2]) /
							 alone
					       : NAN;
			if (k == 1 && alone > 0)
				f->low_speed =
					median3(low[0], low[1], low[2]) / alone;
		}
		f->nsmt = nsib;
	}

	/* Test-and-set: the first thread of each core of the first CPU's
	 * chip, 1, 2, 4, ... of them. */
	for (unsigned int i = 0; i < t->n && ncores < G_N_ELEMENTS(tcpu); i++) {
		bool first = t->cpu[i].pkg == t->cpu[0].pkg;

		for (unsigned int j = 0; first && j < i; j++)
			first = t->cpu[j].core != t->cpu[i].core;
		if (first)
			tcpu[ncores++] = t->cpu[i].id;
	}
	fprintf(out, ", test-and-set and atomic adds");
	fflush(out);
	for (unsigned int n = 1; n <= ncores && f->ntas < PROBE_TAS_MAX;
	     n *= 2) {
		f->tas_threads[f->ntas] = n;
		if (!contend_point(tcpu, n, tas_secs, tas_fn,
				   &f->tas_ns[f->ntas], &f->tas_spread[f->ntas],
				   &f->tas_run[f->ntas], err) ||
		    !contend_point(tcpu, n, tas_secs, atom_fn,
				   &f->atom_ns[f->ntas], NULL,
				   &f->atom_run[f->ntas], err))
			return false;
		f->ntas++;
	}
	fprintf(out, ": done\n");
	return true;
}

/* --- deriving --- */

static int64_t to_ps(double ns)
{
	return ns > 0 ? (int64_t)llround(ns * 1000.0) : 0;
}

static void set_ps(GKeyFile *kf, const char *group, const char *key, double ns)
{
	g_autofree char *v = g_strdup_printf("%" PRId64 "ps", to_ps(ns));

	g_key_file_set_value(kf, group, key, v);
}

static void note(GHashTable *notes, const char *key, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

/* [cost] @key = @ns if a time key takes it (0 to 1 ms); else a note
 * that it is left out.  True when set. */
static bool put_cost(GKeyFile *kf, GHashTable *notes, const char *key,
		     double ns)
{
	g_autofree char *full = g_strdup_printf("cost.%s", key);

	if (!(ns >= 0 && ns <= 1e6)) {
		note(notes, full,
		     "not set: %.0f ns is outside the key's 0 to 1 ms (a "
		     "measurement disturbed?)",
		     ns);
		return false;
	}
	set_ps(kf, "cost", key, ns);
	return true;
}
static void note(GHashTable *notes, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (!notes)
		return;
	va_start(ap, fmt);
	g_hash_table_insert(notes, g_strdup(key), g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

/*
 * The transfer cost at which the model's ping-pong of class @d takes
 * @want ns one way.  The model's time grows with the cost in straight
 * pieces; a secant from two costs, then one more step from the best two,
 * finds it (checked: the answer's own simulation is returned in *got).
 */
static double solve_xfer(enum probe_dist d, double want, double hit, bool hold,
			 double *got)
{
	int64_t hp = to_ps(hit);
	double x0 = 0, x1 = MAX(want, 1);
	double y0 = probe_sim_oneway_ns(d, 0, hp, hold);
	double y1 = probe_sim_oneway_ns(d, to_ps(x1), hp, hold);

	if (want <= y0) {
		*got = y0;
		return 0;
	}
	for (int it = 0; it < 4 && fabs(y1 - want) > 0.01 && y1 != y0; it++) {
		double x2 = x1 + (want - y1) * (x1 - x0) / (y1 - y0);

		x2 = MAX(x2, 0);
		x0 = x1;
		y0 = y1;
		x1 = x2;
		y1 = probe_sim_oneway_ns(d, to_ps(x1), hp, hold);
	}
	*got = y1;
	return x1;
}

/* The model's rule for a working thread beside nl = 1 sibling of weight
 * w: the core delivers T(1 + w) (T interpolated), shared by weight, at
 * most 1 each: speed = min(1, T(1 + w) / (1 + w)).  Solved for w by
 * bisection (the speed falls as w grows). */
static double low_weight(const struct probe_figs *f, double t2)
{
	double lo = 0, hi = 1;

	if (f->low_speed >= 1)
		return 0;
	for (int i = 0; i < 40; i++) {
		double w = (lo + hi) / 2;
		double s = MIN(1.0, (1 + w * (t2 - 1)) / (1 + w));

		if (s > f->low_speed)
			lo = w;
		else
			hi = w;
	}
	return (lo + hi) / 2;
}

static const char *const dist_key[PD_NR] = {"smt", "chip", "remote"};

bool probe_derive(const struct probe_topo *t, const struct probe_figs *f,
		  const char *preset, GKeyFile *out, GHashTable *notes,
		  GError **err)
{
	g_autofree char *base =
		g_strdup_printf("[machine]\npreset = %s\n", preset);
	g_autoptr(qsim_config) pc = cfg_load_text("(preset)", base, NULL, err);
	double hit;
	bool hold;

	if (!pc)
		return false;
	g_key_file_set_value(out, "machine", "preset", preset);
	if (t->smt >= 1 && t->smt <= SIM_SMT_MAX) {
		g_key_file_set_integer(out, "machine", "smt", (gint)t->smt);
		note(notes, "machine.smt", "most threads of one core");
	}
	if (t->cores_per_chip >= 1 && t->cores_per_chip <= 256) {
		g_key_file_set_integer(out, "machine", "cores_per_chip",
				       (gint)t->cores_per_chip);
		note(notes, "machine.cores_per_chip",
		     "most cores of one package");
	}
	if (t->have_caches && t->cache_cores >= 1 && t->cache_cores <= 64) {
		g_key_file_set_integer(out, "machine", "cache_cores",
				       (gint)t->cache_cores);
		note(notes, "machine.cache_cores",
		     "most cores sharing one level-2 cache");
	}
	if (t->line_size >= 16 && t->line_size <= 1024 &&
	    !(t->line_size & (t->line_size - 1))) {
		g_key_file_set_integer(out, "machine", "line_size",
				       (gint)t->line_size);
		note(notes, "machine.line_size",
		     "the level-1 data cache's coherency line");
	}
	if (f->nsmt >= 1 && f->nsmt == t->smt) {
		GString *s = g_string_new(NULL);
		unsigned int prev = 100;

		for (unsigned int k = 0; k < f->nsmt; k++) {
			unsigned int pct =
				(unsigned int)lround(f->tput[k] * 100);

			/* the key takes no fall and at most 800 */
			pct = k == 0 ? 100 : MIN(MAX(pct, prev), 800);
			g_string_append_printf(s, "%s%u", k ? "," : "", pct);
			prev = pct;
		}
		g_key_file_set_value(out, "machine", "smt_throughput", s->str);
		note(notes, "machine.smt_throughput",
		     "a core's work done with 1..%u threads busy over one "
		     "alone (a falling figure is kept level)",
		     f->nsmt);
		g_string_free(s, TRUE);
	}
	if (f->low_speed >= 0 && f->nsmt >= 2) {
		/* T(2) as the key has it (kept level, at least 1) */
		double t2 = MAX(f->tput[1], 1.0);

		if (t2 >= 2 && f->low_speed < 1) {
			note(notes, "machine.hmt_low",
			     "not set: a core that doubles its work with two "
			     "threads gives a thread its full speed whatever "
			     "its sibling's weight, yet one ran at %.3f",
			     f->low_speed);
		} else {
			double w = low_weight(f, t2);

			g_key_file_set_integer(out, "machine", "hmt_low",
					       (gint)lround(w * 100));
			note(notes, "machine.hmt_low",
			     "a thread beside a low-priority spinning sibling "
			     "ran at %.3f of alone; the model's share gives "
			     "that at this weight",
			     f->low_speed);
		}
	}

	/* the hold the transfers are solved under: the caller's, else the
	 * preset's */
	if (g_key_file_has_key(out, "cost", "hold", NULL))
		hold = g_key_file_get_boolean(out, "cost", "hold", NULL);
	else
		hold = pc->cost.hold;
	g_key_file_set_boolean(out, "cost", "hold", hold);
	hit = f->hit_ns >= 0 ? f->hit_ns : (double)pc->cost.hit_ps / 1000;
	if (f->hit_ns >= 0 && put_cost(out, notes, "hit", f->hit_ns)) {
		note(notes, "cost.hit",
		     "a dependent load walking 4 KiB at random");
	}
	if (f->memory_ns >= 0 && put_cost(out, notes, "memory", f->memory_ns)) {
		note(notes, "cost.memory",
		     "a dependent load walking a buffer far larger than the "
		     "caches (with its TLB misses)");
	}
	if (f->rmw_ns >= 0 &&
	    put_cost(out, notes, "atomic", MAX(f->rmw_ns - hit, 0))) {
		note(notes, "cost.atomic",
		     "an uncontended atomic add, %.2f ns, less a hit",
		     f->rmw_ns);
	}
	if (f->barrier_ns >= 0 &&
	    put_cost(out, notes, "barrier", f->barrier_ns)) {
		note(notes, "cost.barrier",
		     "a store and smp_mb()'s instruction, less the store "
		     "alone");
	}
	if (f->relax_ns >= 0 && !strcmp(preset, "power10")) {
		note(notes, "cost.relax",
		     "not set: POWER10's cpu_relax() is pause_short, which "
		     "the probe does not issue (it times the priority nops)");
	} else if (f->relax_ns >= 0 &&
		   put_cost(out, notes, "relax", f->relax_ns)) {
		note(notes, "cost.relax", "one cpu_relax() in a loop");
		if (pc->relax_yields &&
		    put_cost(out, notes, "spin_relax", f->relax_ns))
			note(notes, "cost.spin_relax",
			     "cpu_relax() again: on this preset a spin "
			     "loop's iteration relaxes so");
	}
	for (int d = 0; d < PD_NR; d++) {
		double got, x;

		if (f->oneway_ns[d] < 0)
			continue;
		x = solve_xfer((enum probe_dist)d, f->oneway_ns[d], hit, hold,
			       &got);
		if (put_cost(out, notes, dist_key[d], x)) {
			g_autofree char *k =
				g_strdup_printf("cost.%s", dist_key[d]);

			note(notes, k,
			     "a ping-pong one way took %.1f ns (%u pair%s); "
			     "the model's takes %.1f ns at this cost",
			     f->oneway_ns[d], f->pairs[d],
			     f->pairs[d] == 1 ? "" : "s", got);
		}
	}
	/* What it gives must load as a scenario's keys. */
	{
		g_autofree char *text = g_key_file_to_data(out, NULL, NULL);
		g_autoptr(qsim_config) chk =
			cfg_load_text("(qsim probe)", text, NULL, err);

		if (!chk)
			return false;
	}
	return true;
}

/* --- printing --- */

static void print_figs(FILE *out, const struct probe_topo *t,
		       const struct probe_figs *f, GKeyFile *kf,
		       GHashTable *notes, const char *preset)
{
	static const char *const dist_name[PD_NR] = {
		"same cache domain", "same chip", "another chip"};
	g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);

	fprintf(out, "\nmeasured\n");
	fprintf(out, "  L1 hit (dependent loads)          %8.2f ns\n",
		f->hit_ns);
	fprintf(out, "  memory (dependent loads)          %8.2f ns\n",
		f->memory_ns);
	fprintf(out, "  atomic add, uncontended           %8.2f ns\n",
		f->rmw_ns);
	fprintf(out, "  full barrier after a store        %8.2f ns\n",
		f->barrier_ns);
	fprintf(out, "  cpu_relax()                       %8.2f ns\n",
		f->relax_ns);
	for (int d = 0; d < PD_NR; d++) {
		if (f->oneway_ns[d] < 0)
			fprintf(out,
				"  ping-pong one way, %-17s     none "
				"(no such pair)\n",
				dist_name[d]);
		else
			fprintf(out,
				"  ping-pong one way, %-17s%7.1f ns  (%u "
				"pair%s, %.1f-%.1f)\n",
				dist_name[d], f->oneway_ns[d], f->pairs[d],
				f->pairs[d] == 1 ? "" : "s", f->oneway_lo[d],
				f->oneway_hi[d]);
	}
	fprintf(out, "  a core's work, 1..%u threads     ", f->nsmt);
	for (unsigned int k = 0; k < f->nsmt; k++)
		fprintf(out, "%s%.2f", k ? ", " : " ", f->tput[k]);
	fprintf(out, "\n");
	if (f->low_speed >= 0)
		fprintf(out,
			"  beside a low-priority spinner      %7.3f of alone\n",
			f->low_speed);
	fprintf(out,
		"\nkeys (over preset %s; `qsim run S --set "
		"SECTION.KEY=VALUE`, or these sections in the scenario)\n",
		preset);
	for (size_t g = 0; groups && groups[g]; g++) {
		g_auto(GStrv) keys =
			g_key_file_get_keys(kf, groups[g], NULL, NULL);

		for (size_t i = 0; keys && keys[i]; i++) {
			g_autofree char *v = g_key_file_get_value(
				kf, groups[g], keys[i], NULL);
			g_autofree char *full =
				g_strdup_printf("%s.%s", groups[g], keys[i]);
			const char *why = g_hash_table_lookup(notes, full);

			fprintf(out, "  %-24s %-16s %s\n", full, v,
				why ? why : "");
		}
	}
	(void)t;
}

static void print_tas(FILE *out, const struct probe_figs *f, const char *preset,
		      const double *pre_ns, const double *pre_sp,
		      const double *pro_ns, const double *pro_sp)
{
	fprintf(out,
		"\ntest-and-set lock, one thread a core on one chip, no "
		"critical section, no think time\n"
		"  (ns per acquisition; spread: per-thread max / min; run: "
		"acquisitions per change of owner)\n"
		"  threads      host ns  spread     run   qsim %-7s ns  "
		"spread   qsim probed ns  spread\n",
		preset);
	for (unsigned int i = 0; i < f->ntas; i++) {
		char run[32] = "      -"; /* one thread: no change of owner */

		if (f->tas_threads[i] > 1)
			snprintf(run, sizeof(run), "%7.1f", f->tas_run[i]);
		fprintf(out,
			"  %7u   %10.1f  %6.2f %s   %15.1f  %6.2f   "
			"%14.1f  %6.2f\n",
			f->tas_threads[i], f->tas_ns[i], f->tas_spread[i], run,
			pre_ns[i], pre_sp[i], pro_ns[i], pro_sp[i]);
	}
}

static void print_atom(FILE *out, const struct probe_figs *f,
		       const char *preset, const double *pre, const double *pro)
{
	fprintf(out,
		"\natomic adds to one word, the same threads (ns per add, "
		"all threads together;\n  run: adds per change of the "
		"thread adding)\n"
		"  threads      host ns     run   qsim %-7s ns   qsim probed "
		"ns\n",
		preset);
	for (unsigned int i = 0; i < f->ntas; i++) {
		char run[32] = "      -";

		if (f->tas_threads[i] > 1)
			snprintf(run, sizeof(run), "%7.1f", f->atom_run[i]);
		fprintf(out, "  %7u   %10.1f %s   %15.1f   %14.1f\n",
			f->tas_threads[i], f->atom_ns[i], run, pre[i], pro[i]);
	}
}

static bool write_json(const char *path, const struct probe_topo *t,
		       const struct probe_figs *f, GKeyFile *kf,
		       const double *pre_ns, const double *pro_ns,
		       const double *pre_at, const double *pro_at, GError **err)
{
	static const char *const dn[PD_NR] = {"smt", "chip", "remote"};
	g_autoptr(JsonBuilder) b = json_builder_new();
	g_autoptr(JsonGenerator) gen = json_generator_new();
	g_autoptr(JsonNode) root = NULL;
	g_autofree char *text = NULL, *ini = NULL;
	struct utsname u;

	json_builder_begin_object(b);
	if (uname(&u) == 0) {
		json_builder_set_member_name(b, "host");
		json_builder_add_string_value(b, u.nodename);
		json_builder_set_member_name(b, "kernel");
		json_builder_add_string_value(b, u.release);
		json_builder_set_member_name(b, "arch");
		json_builder_add_string_value(b, u.machine);
	}
	json_builder_set_member_name(b, "cpus");
	json_builder_begin_array(b);
	for (unsigned int i = 0; i < t->n; i++) {
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "id");
		json_builder_add_int_value(b, t->cpu[i].id);
		json_builder_set_member_name(b, "package");
		json_builder_add_int_value(b, t->cpu[i].pkg);
		json_builder_set_member_name(b, "core");
		json_builder_add_int_value(b, t->cpu[i].core);
		json_builder_set_member_name(b, "cache_domain");
		json_builder_add_int_value(b, t->cpu[i].dom);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
#define NUM(name, v)                                         \
	do {                                                 \
		json_builder_set_member_name(b, name);       \
		if ((v) >= 0 && isfinite(v))                 \
			json_builder_add_double_value(b, v); \
		else                                         \
			json_builder_add_null_value(b);      \
	} while (0)
	NUM("hit_ns", f->hit_ns);
	NUM("memory_ns", f->memory_ns);
	NUM("atomic_ns", f->rmw_ns);
	NUM("barrier_ns", f->barrier_ns);
	NUM("relax_ns", f->relax_ns);
	for (int d = 0; d < PD_NR; d++) {
		g_autofree char *k = g_strdup_printf("pingpong_%s_ns", dn[d]);

		NUM(k, f->oneway_ns[d]);
	}
	json_builder_set_member_name(b, "smt_work");
	json_builder_begin_array(b);
	for (unsigned int k = 0; k < f->nsmt; k++)
		json_builder_add_double_value(b, f->tput[k]);
	json_builder_end_array(b);
	NUM("low_sibling_speed", f->low_speed);
	json_builder_set_member_name(b, "tas");
	json_builder_begin_array(b);
	for (unsigned int i = 0; i < f->ntas; i++) {
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "threads");
		json_builder_add_int_value(b, f->tas_threads[i]);
		NUM("host_ns", f->tas_ns[i]);
		NUM("host_spread", f->tas_spread[i]);
		NUM("host_run", f->tas_threads[i] > 1 ? f->tas_run[i] : -1);
		NUM("qsim_preset_ns", pre_ns[i]);
		NUM("qsim_probed_ns", pro_ns[i]);
		NUM("host_atomic_ns", f->atom_ns[i]);
		NUM("host_atomic_run",
		    f->tas_threads[i] > 1 ? f->atom_run[i] : -1);
		NUM("qsim_preset_atomic_ns", pre_at[i]);
		NUM("qsim_probed_atomic_ns", pro_at[i]);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
#undef NUM
	ini = g_key_file_to_data(kf, NULL, NULL);
	json_builder_set_member_name(b, "keys");
	json_builder_add_string_value(b, ini);
	json_builder_end_object(b);
	root = json_builder_get_root(b);
	json_generator_set_root(gen, root);
	json_generator_set_pretty(gen, TRUE);
	text = json_generator_to_data(gen, NULL);
	{
		g_autofree char *nl = g_strconcat(text, "\n", NULL);

		return qsim_write_file(path, nl, err);
	}
}

/* The share of the host's CPU time busy over @secs (from /proc/stat's
 * first line: user, nice, system, irq, softirq and steal against idle
 * and iowait), or -1 if it cannot be read. */
static double host_busy(double secs)
{
	double v[2][2];

	for (int k = 0; k < 2; k++) {
		g_autofree char *text = NULL;
		unsigned long long u, n, sy, id, io, irq, sirq, st = 0;

		if (k)
			g_usleep((gulong)(secs * 1e6));
		if (!g_file_get_contents("/proc/stat", &text, NULL, NULL) ||
		    sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &u, &n, &sy, &id, &io, &irq, &sirq, &st) < 7)
			return -1;
		v[k][0] = (double)(u + n + sy + irq + sirq + st);
		v[k][1] = (double)(id + io);
	}
	if (v[1][0] + v[1][1] <= v[0][0] + v[0][1])
		return -1;
	return (v[1][0] - v[0][0]) / (v[1][0] + v[1][1] - v[0][0] - v[0][1]);
}

static bool host_cpus(const char *list, GArray *ids, GError **err)
{
	cpu_set_t set;

	if (list) {
		if (!probe_parse_cpulist(list, ids) || !ids->len) {
			g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
				    "--cpus %s: a CPU list such as 0-3,8 "
				    "(ids from 0)",
				    list);
			return false;
		}
		for (unsigned int i = 0; i < ids->len; i++)
			for (unsigned int j = 0; j < i; j++)
				if (g_array_index(ids, int, i) ==
				    g_array_index(ids, int, j)) {
					g_set_error(err, G_FILE_ERROR,
						    G_FILE_ERROR_INVAL,
						    "--cpus %s: CPU %d given "
						    "twice",
						    list,
						    g_array_index(ids, int, i));
					return false;
				}
		return true;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "sched_getaffinity: %s", g_strerror(errno));
		return false;
	}
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			g_array_append_val(ids, i);
	return true;
}

/*
 * The keys twice, their transfers solved without the hold and with it,
 * and the one whose contended adds come nearer the host's (the preset's
 * hold when nothing was measured with two threads): into *@kf, *@notes.
 */
static bool derive_with_hold(const struct probe_topo *t,
			     const struct probe_figs *f, const char *preset,
			     GKeyFile **kf, GHashTable **notes, GError **err)
{
	g_autofree char *base =
		g_strdup_printf("[machine]\npreset = %s\n", preset);
	g_autoptr(qsim_config) pc = cfg_load_text("(preset)", base, NULL, err);
	GKeyFile *k[2];
	GHashTable *n[2];
	bool hold, ok = pc != NULL;

	hold = pc && pc->cost.hold;
	for (int h = 0; h < 2; h++) {
		k[h] = g_key_file_new();
		n[h] = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					     g_free);
		g_key_file_set_boolean(k[h], "cost", "hold", h);
		ok = ok && probe_derive(t, f, preset, k[h], n[h], err);
	}
	ok = ok && probe_choose_hold(preset, k[0], k[1], f, &hold, n[0], err);
	if (ok) {
		const char *why = g_hash_table_lookup(n[0], "cost.hold");

		if (why)
			g_hash_table_insert(n[1], g_strdup("cost.hold"),
					    g_strdup(why));
		else
			for (int h = 0; h < 2; h++)
				g_hash_table_insert(
					n[h], g_strdup("cost.hold"),
					g_strdup("the preset's: nothing was "
						 "measured with two threads"));
	}
	*kf = k[hold];
	*notes = n[hold];
	g_key_file_free(k[!hold]);
	g_hash_table_unref(n[!hold]);
	return ok;
}

int probe_main(const struct probe_opts *o, FILE *out)
{
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GError) err = NULL;
	g_autoptr(GKeyFile) kf = NULL;
	g_autoptr(GHashTable) notes = NULL;
	g_autofree char *cpuinfo = NULL;
	struct probe_topo t;
	struct probe_figs f;
	const char *preset;
	double pre_ns[PROBE_TAS_MAX], pre_sp[PROBE_TAS_MAX];
	double pro_ns[PROBE_TAS_MAX], pro_sp[PROBE_TAS_MAX];
	double pre_at[PROBE_TAS_MAX], pro_at[PROBE_TAS_MAX];
	struct utsname u;
	const char *root = o->sysfs ? o->sysfs : "/sys";
	struct probe_topo all = {0};
	const struct probe_topo *keyt;
	int rc = 1;

	memset(&u, 0, sizeof(u));
	if (uname(&u) != 0)
		g_strlcpy(u.nodename, "(unknown host)", sizeof(u.nodename));
	if (!host_cpus(o->cpus, ids, &err) ||
	    !probe_topo_read(root, (const int *)(void *)ids->data, ids->len, &t,
			     &err)) {
		fprintf(stderr, "qsim probe: %s\n", err->message);
		return 1;
	}
	if (!t.line_size) {
		/* no cache files: what the C library knows */
		long ls = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

		if (ls >= 16 && ls <= 1024)
			t.line_size = (unsigned int)ls;
	}
	/* The topology keys describe the machine, not the CPUs measured:
	 * from every online CPU when sysfs lists them. */
	{
		g_autofree char *path =
			g_strdup_printf("%s/devices/system/cpu/online", root);
		g_autofree char *text = NULL;
		g_autoptr(GArray) on = g_array_new(FALSE, FALSE, sizeof(int));

		if (g_file_get_contents(path, &text, NULL, NULL) &&
		    probe_parse_cpulist(g_strstrip(text), on) && on->len &&
		    probe_topo_read(root, (const int *)(void *)on->data,
				    on->len, &all, NULL))
			all.line_size = t.line_size;
		else
			probe_topo_clear(&all);
	}
	keyt = all.n ? &all : &t;
	g_file_get_contents("/proc/cpuinfo", &cpuinfo, NULL, NULL);
	preset = probe_preset_for(cpuinfo);
	fprintf(out, "qsim probe: %s, Linux %s %s\n", u.nodename, u.release,
		u.machine);
	fprintf(out,
		"%u CPU%s%s: %u chip%s, up to %u core%s a chip, %u thread%s a "
		"core, %u core%s a cache domain%s; ",
		keyt->n, keyt->n == 1 ? "" : "s", all.n ? " online" : "",
		keyt->nchips, keyt->nchips == 1 ? "" : "s",
		keyt->cores_per_chip, keyt->cores_per_chip == 1 ? "" : "s",
		keyt->smt, keyt->smt == 1 ? "" : "s", keyt->cache_cores,
		keyt->cache_cores == 1 ? "" : "s",
		keyt->have_caches ? "" : " (no cache files: a core each)");
	if (t.line_size)
		fprintf(out, "%u-byte lines\n", t.line_size);
	else
		fprintf(out, "line size unknown\n");
	if (t.n != keyt->n)
		fprintf(out,
			"measuring on %u of them (--cpus or the process's "
			"affinity)\n",
			t.n);
	{
		/* Other work on the CPUs makes every figure wrong: say so. */
		double busy = host_busy(0.2);

		if (busy > 0.1)
			fprintf(out,
				"WARNING: the host was %.0f%% busy before the "
				"probe began: its figures measure that load "
				"too; run it on an idle machine\n",
				busy * 100);
	}
	probe_figs_init(&f);
	if (!measure(&t, o->quick, &f, out, &err) ||
	    !derive_with_hold(keyt, &f, preset, &kf, &notes, &err) ||
	    !probe_sim_tas(preset, NULL, &f, pre_ns, pre_sp, &err) ||
	    !probe_sim_tas(preset, kf, &f, pro_ns, pro_sp, &err) ||
	    !probe_sim_atomic(preset, NULL, &f, pre_at, &err) ||
	    !probe_sim_atomic(preset, kf, &f, pro_at, &err)) {
		fprintf(stderr, "qsim probe: %s\n",
			err ? err->message : "a measurement failed");
		goto out;
	}
	print_figs(out, &t, &f, kf, notes, preset);
	print_tas(out, &f, preset, pre_ns, pre_sp, pro_ns, pro_sp);
	print_atom(out, &f, preset, pre_at, pro_at);
	if (o->ini) {
		g_autofree char *body = g_key_file_to_data(kf, NULL, NULL);
		g_autofree char *text = g_strdup_printf(
			"# qsim probe on %s (Linux %s %s): the host's own "
			"figures\n# (docs/cost-model.md, \"Measuring a "
			"machine\")\n%s",
			u.nodename, u.release, u.machine, body);

		if (!qsim_write_file(o->ini, text, &err)) {
			fprintf(stderr, "qsim probe: %s\n", err->message);
			goto out;
		}
	}
	if (o->json && !write_json(o->json, &t, &f, kf, pre_ns, pro_ns, pre_at,
				   pro_at, &err)) {
		fprintf(stderr, "qsim probe: %s\n", err->message);
		goto out;
	}
	rc = 0;
out:
	probe_topo_clear(&t);
	probe_topo_clear(&all);
	return rc;
}
