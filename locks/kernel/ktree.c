// SPDX-License-Identifier: MIT
/*
 * Kernel-tree mode, qsim's side (docs/kernel-tree.md): the lock types
 * built from a kernel tree's own files, one library copy per partition.
 *
 * The build (locks/kernel/kernel-tree.cmake) compiles each kind of lock
 * file (generic, ppc) with its glue into a shared object and embeds it
 * here.  global_init loads a fresh copy for the partition from a memfd
 * (so each copy has its own statics: two partitions, or two torture
 * workers, never share a hash table), hands it the kapi.h table, lays out
 * its per-CPU data in the partition's guest memory and runs its set-up.
 * The lock verbs find the copy of the running vCPU's partition.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qsim_kernel.h"
#include "locks/kernel/kapi.h"
#include "locks/kernel/ktree.h"

/* --- the embedded libraries (kernel-tree.cmake's blobs.S) --- */

extern const char qsim_klib_generic[], qsim_klib_generic_end[];
extern const char qsim_klib_ppc[], qsim_klib_ppc_end[];

struct kt_knob {
	char *name;
	void *data;
	qk_knob_get get;
	qk_knob_set set;
};

#define KT_MAX_ALLOCS 4

struct qk_inst {
	const struct kt_type *type;
	void *dl;
	int fd; /* the copy's memfd, open while it is loaded */
	const struct qk_info *info;
	void (*lock)(void *);
	void (*unlock)(void *);
	bool (*trylock)(void *);
	struct qk_params params;
	enum lk_pv_mapping mapping;
	unsigned int nr_cpus, numa_nodes;
	bool shared;
	/* Guest memory: per-CPU copies, then boot-time allocations. */
	char *percpu;
	size_t stride;
	char *alloc_next, *alloc_end;
	struct kt_alloc allocs[KT_MAX_ALLOCS];
	unsigned int nallocs;
	char *lib_alloc; /* the library's first allocation (the pv hash) */
	size_t lib_alloc_size;
	GPtrArray *knobs; /* struct kt_knob * */
	int *event_map;	  /* kernel event -> qsim LOCKEVENT_*, or -1 */
	/* splpar-directed: holder cpu + 1 by lock hash; the lock waited on */
	u16 *holders;
	unsigned int holder_bits;
	const void **wait_lock;
};

/* The guest globals of a partition start with this (one line). */
struct kt_guest {
	struct qk_inst *inst;
};

static struct qk_inst *inst_of_current(void)
{
	struct kt_guest *g = lk_guest();

	return g->inst;
}

static size_t roundup_pow2(size_t v)
{
	size_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* --- the interface a library copy calls (kapi.h) --- */

static bool in_arena(struct sim_cpu *c, const volatile void *p)
{
	return c && sim_mem_contains(&c->sim->mem, (const void *)p);
}

static void *k_access(const volatile void *p, int kind)
{
	struct sim_cpu *c = sim_current();

	if (!c)
		return NULL;
	if (in_arena(c, p))
		sim_access(c, (const void *)p, (enum sim_access)kind);
	else if (kind != QK_READ)
		sim_cpu_impure(c); /* host memory: no cost, but no spin */
	return c;
}

static void k_plain(const volatile void *p, size_t size, int kind)
{
	struct sim_cpu *c = sim_current();

	if (!in_arena(c, p))
		return;
	sim_access(c, (const void *)p, (enum sim_access)kind);
	if (c->mm)
		sim_mm_plain(c, p, size, kind == QK_WRITE);
	if (kind == QK_WRITE)
		sim_mem_written(c->sim, (const void *)p, c->access_ps);
}

static void k_written(void *cpu, const volatile void *p)
{
	struct sim_cpu *c = cpu;

	if (in_arena(c, p))
		sim_mem_written(c->sim, (const void *)p, c->access_ps);
}

static bool k_stcx(void *cpu, const volatile void *p)
{
	struct sim_cpu *c = cpu;

	return !in_arena(c, p) || sim_access_stcx(c, (const void *)p);
}

static void k_fence(int full)
{
	lk_shim_barrier(full != 0);
}

static void k_ord_fence(int ord, int entry, int done)
{
	lk_shim_ord_fence(ord, entry != 0, done != 0);
}

/*
 * The weak memory models' hooks (kapi.h): the library calls them only
 * when the scenario has one; host memory and set-up code are plain.
 */
static bool mm_applies(struct sim_cpu *c, const volatile void *p)
{
	return in_arena(c, p) && c->mm;
}

static void k_mm_load(void *cpu, const volatile void *p, void *out, size_t size)
{
	if (mm_applies(cpu, p))
		sim_mm_load(cpu, p, out, size);
}

static void k_mm_store(void *cpu, volatile void *p, const void *val,
		       size_t size)
{
	struct sim_cpu *c = cpu;
	bool changed;

	if (mm_applies(c, p)) {
		sim_mm_store(c, p, val, size);
		return;
	}
	changed = memcmp((const void *)p, val, size) != 0;
	memcpy((void *)p, val, size);
	if (changed && in_arena(c, p))
		sim_mem_written(c->sim, (const void *)p, c->access_ps);
}

static void k_mm_rmw_begin(const volatile void *p, size_t size, int ord)
{
	struct sim_cpu *c = sim_current();

	if (mm_applies(c, p))
		sim_mm_rmw_begin(c, p, size, (enum sim_order)ord);
}

static void k_mm_rmw_written(void *cpu, const volatile void *p, const void *old,
			     size_t size)
{
	if (mm_applies(cpu, p))
		sim_mm_rmw_written(cpu, p, old, size);
}

static void k_mm_rmw_end(int ord)
{
	struct sim_cpu *c = sim_current();

	if (c && c->mm)
		sim_mm_rmw_end(c, (enum sim_order)ord);
}

static void k_hmt(bool low)
{
	struct sim_cpu *c = sim_current();

	if (c)
		sim_cpu_set_hmt_low(c, low);
}

static void k_wait_begin(void)
{
	sim_wait_begin(sim_current());
}

static uint64_t k_wait_block(uint64_t budget)
{
	return sim_wait_block(sim_current(), budget);
}

static void k_wait_end(void)
{
	sim_wait_end(sim_current());
}

static bool k_running(void)
{
	return sim_current() != NULL;
}

static int k_cpu_id(void)
{
	return smp_processor_id();
}

static unsigned int k_nr_cpus(struct qk_inst *in)
{
	return in->nr_cpus;
}

static int k_cpu_to_node(struct qk_inst *in, int cpu)
{
	/* The guest's vCPUs spread evenly over the chips its pool spans,
	 * as ppc_qspinlock.c's model of the same. */
	return (int)((uint64_t)cpu * in->numa_nodes / in->nr_cpus);
}

static uint64_t k_clock_ns(void)
{
	return sched_clock();
}

static uint32_t k_hash_ptr(const void *p, unsigned int bits)
{
	return hash_ptr(p, bits);
}

static bool k_is_shared(struct qk_inst *in)
{
	return in->shared;
}

/* The lppaca of vCPU @cpu of the running vCPU's partition, and the
 * running cpu: the hot path of the powerpc loops (yield counts). */
static struct hv_lppaca *lppaca_of(int cpu, struct sim_cpu **cp)
{
	struct sim_cpu *c = sim_current();
	struct hv_partition *part = ((struct hv_vcpu *)c->owner)->part;

	QSIM_BUG_ON((unsigned int)cpu >= part->nvcpus,
		    "kernel lock asked for vCPU %d of %u", cpu, part->nvcpus);
	*cp = c;
	return part->vcpus[cpu]->lppaca;
}

static uint32_t k_yield_count(int cpu)
{
	struct sim_cpu *c;
	struct hv_lppaca *l = lppaca_of(cpu, &c);

	sim_access(c, &l->yield_count, SIM_READ);
	return *(volatile uint32_t *)&l->yield_count;
}

/* As the shim's vcpu_is_preempted: the steal-time flag of a KVM guest,
 * else an odd yield count on shared processors. */
static bool k_vcpu_is_preempted(int cpu)
{
	struct sim_cpu *c;
	struct hv_lppaca *l = lppaca_of(cpu, &c);
	struct hv_partition *part = ((struct hv_vcpu *)c->owner)->part;

	if (part->kvm_guest) {
		sim_access(c, &l->preempted, SIM_READ);
		return *(volatile uint8_t *)&l->preempted != 0;
	}
	if (!part->shared)
		return false;
	sim_access(c, &l->yield_count, SIM_READ);
	return *(volatile uint32_t *)&l->yield_count & 1;
}

static long k_hcall(long opcode, long a, long b)
{
	return plpar_hcall_norets(opcode, a, b);
}

static int recorded_holder(void *arg)
{
	struct qk_inst *in = arg;
	const void *lock = in->wait_lock[smp_processor_id()];

	if (!lock || !in->holders)
		return -1;
	return (int)READ_ONCE(in->holders[hash_ptr(lock, in->holder_bits)]) - 1;
}

static void k_pv_sleep(struct qk_inst *in, uint8_t *ptr, uint8_t val)
{
	uint64_t before = lk_dispatch_count();

	lk_pv_wait_mapped(in->mapping, ptr, val, recorded_holder, in, true);
	if (lk_dispatch_count() != before)
		lockevent_inc(sim_pv_wait_slept);
}

static void k_pv_wake(struct qk_inst *in, int cpu)
{
	lk_pv_kick_mapped(in->mapping, cpu);
}

static void k_pv_note(struct qk_inst *in, const void *lock, int what)
{
	if (in->mapping != LK_PV_SPLPAR_DIRECTED)
		return;
	if (what == QK_PV_WAITING) {
		in->wait_lock[smp_processor_id()] = lock;
		return;
	}
	in->wait_lock[smp_processor_id()] = NULL;
	WRITE_ONCE(in->holders[hash_ptr(lock, in->holder_bits)],
		   (u16)(smp_processor_id() + 1));
}

static void *guest_alloc(struct qk_inst *in, const char *what, size_t size,
			 size_t align)
{
	char *p = (char *)(((uintptr_t)in->alloc_next + align - 1) &
			   ~(uintptr_t)(align - 1));

	QSIM_BUG_ON(p + size > in->alloc_end,
		    "kernel-tree lock: guest memory for %s exhausted "
		    "(%zu bytes asked)",
		    what, size);
	in->alloc_next = p + size;
	if (in->nallocs < KT_MAX_ALLOCS)
		in->allocs[in->nallocs++] = (struct kt_alloc){
			.what = what, .base = p, .size = size};
	return p;
}

static void *k_alloc(struct qk_inst *in, const char *what, size_t size,
		     size_t align)
{
	void *p = guest_alloc(in, what, size, align);

	if (!in->lib_alloc) { /* alloc_large_system_hash's: the pv hash */
		in->lib_alloc = p;
		in->lib_alloc_size = size;
	}
	return p;
}

static void k_event(struct qk_inst *in, unsigned int ev, uint64_t n)
{
	struct sim_cpu *c = sim_current();
	int e = ev < in->info->nevents ? in->event_map[ev] : -1;

	if (c && e >= 0)
		c->counters[e] += n;
}

static void k_knob(struct qk_inst *in, const char *name, void *data,
		   qk_knob_get get, qk_knob_set set)
{
	struct kt_knob *k = g_new0(struct kt_knob, 1);

	k->name = g_strdup(name);
	k->data = data;
	k->get = get;
	k->set = set;
	g_ptr_array_add(in->knobs, k);
}

static void k_bug(const char *file, int line, const char *what)
{
	if (sim_current())
		lk_violation("kernel %s at %s:%d", what, file, line);
	QSIM_BUG_ON(1, "kernel %s at %s:%d during set-up", what, file, line);
	__builtin_unreachable();
}

static void k_warn(const char *file, int line, const char *what)
{
	k_bug(file, line, what);
}

static const struct qk_api kapi = {
	.version = QK_API_VERSION,
	.access = k_access,
	.plain = k_plain,
	.written = k_written,
	.stcx = k_stcx,
	.fence = k_fence,
	.ord_fence = k_ord_fence,
	.mm_load = k_mm_load,
	.mm_store = k_mm_store,
	.mm_rmw_begin = k_mm_rmw_begin,
	.mm_rmw_written = k_mm_rmw_written,
	.mm_rmw_end = k_mm_rmw_end,
	.mm_acquire = lk_mm_acquire, /* the clean-room shim's own */
	.mm_release = lk_mm_lw,
	.relax = lk_shim_relax,
	.spin_relax = lk_shim_spin_relax,
	.hmt = k_hmt,
	.wait_begin = k_wait_begin,
	.wait_block = k_wait_block,
	.wait_end = k_wait_end,
	.running = k_running,
	.cpu_id = k_cpu_id,
	.nr_cpus = k_nr_cpus,
	.cpu_to_node = k_cpu_to_node,
	.clock_ns = k_clock_ns,
	.hash_ptr = k_hash_ptr,
	.is_shared = k_is_shared,
	.yield_count = k_yield_count,
	.vcpu_is_preempted = k_vcpu_is_preempted,
	.hcall = k_hcall,
	.pv_sleep = k_pv_sleep,
	.pv_wake = k_pv_wake,
	.pv_note = k_pv_note,
	.alloc = k_alloc,
	.event = k_event,
	.knob = k_knob,
	.bug = k_bug,
	.warn = k_warn,
};

/* --- loading a copy --- */

/*
 * A copy is opened by its memfd's /proc path, and the fd stays open as
 * long as the copy is loaded: the dynamic linker takes an object whose
 * name matches one already loaded for that object, so two live copies
 * must never have one fd number (it did: torture --jobs 2 gave two
 * workers one copy, and so one hash table).
 */
static void *load_copy(const struct kt_type *t, int *fdp)
{
	const char *lib = t->lib, *end = t->lib_end;
	char path[64];
	void *dl;
	int fd;

	fd = memfd_create(t->name, MFD_CLOEXEC);
	QSIM_BUG_ON(fd < 0, "memfd_create: %s", g_strerror(errno));
	while (lib < end) {
		ssize_t n = write(fd, lib, (size_t)(end - lib));

		QSIM_BUG_ON(n <= 0, "memfd write: %s", g_strerror(errno));
		lib += n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	QSIM_BUG_ON(!dl, "loading the %s library: %s", t->name, dlerror());
	*fdp = fd;
	return dl;
}

static void *sym(struct qk_inst *in, const char *name)
{
	void *p = dlsym(in->dl, name);

	QSIM_BUG_ON(!p, "kernel-tree library %s lacks %s", in->type->name,
		    name);
	return p;
}

/* Line-rounded size of one CPU's per-CPU copy. */
static size_t percpu_stride(const struct qk_info *info, unsigned int line)
{
	size_t n = (size_t)(info->percpu_end - info->percpu_start);

	return (n + line - 1) / line * line;
}

/* The guest memory a partition needs beyond its per-CPU copies: the pv
 * hash table (16-byte buckets, 4 per CPU rounded to a power of two, at
 * least a page) and the directed mapping's holder table, with room. */
static size_t alloc_budget(const struct lk_params *p, unsigned int nr_cpus)
{
	size_t hash = 16 * roundup_pow2(4 * (size_t)nr_cpus + 8);

	return 2 * SIM_MAX(hash, (size_t)p->page_bytes) + 4096 +
	       4 * (size_t)p->line_bytes;
}

size_t kt_global_size(const struct kt_type *t, const struct lk_params *p,
		      unsigned int nr_cpus)
{
	/* The sizes need the library's per-CPU template: ask a copy. */
	int fd;
	void *dl = load_copy(t, &fd);
	const struct qk_info *info = dlsym(dl, QK_SYM_INFO);
	size_t n;

	QSIM_BUG_ON(!info, "kernel-tree library %s lacks %s", t->name,
		    QK_SYM_INFO);
	n = p->line_bytes + percpu_stride(info, p->line_bytes) * nr_cpus +
	    alloc_budget(p, nr_cpus);
	dlclose(dl);
	close(fd);
	return n;
}

/* qsim's counter for the tree's counter @name: the one of that name,
 * or a tree slot named after it (-1 when the slots are used up). */
static int event_index(const char *name)
{
	for (int e = 0; e < LOCKEVENT_NAMED; e++)
		if (!strcmp(lock_event_names[e], name))
			return e;
	return lk_tree_event_slot(name);
}

void kt_global_init(const struct kt_type *t, void *globals,
		    const struct lk_params *p, unsigned int nr_cpus)
{
	struct kt_guest *g = globals;
	struct qk_inst *in = g_new0(struct qk_inst, 1);
	int (*bind)(const struct qk_api *, struct qk_inst *,
		    const struct qk_params *);
	void (*setup)(char *, size_t);
	size_t pcpu;

	in->type = t;
	in->dl = load_copy(t, &in->fd);
	in->info = sym(in, QK_SYM_INFO);
	QSIM_BUG_ON(in->info->api_version != QK_API_VERSION,
		    "kernel-tree library %s: interface %u, qsim %u", t->name,
		    in->info->api_version, QK_API_VERSION);
	in->params = (struct qk_params){
		.spin_threshold = p->spin_threshold,
		.pending_loops = p->pending_loops,
		.paravirt = t->paravirt,
		.nr_cpus = nr_cpus,
		.line_bytes = p->line_bytes,
		.page_bytes = p->page_bytes,
		.arena_lo = p->arena_lo,
		.arena_hi = p->arena_hi,
		.memory = p->memory,
	};
	in->mapping = p->pv_mapping;
	in->nr_cpus = nr_cpus;
	in->numa_nodes = p->numa_nodes ? p->numa_nodes : 1;
	in->shared = p->shared;
	in->knobs = g_ptr_array_new();
	in->event_map = g_new(int, in->info->nevents + 1);
	for (unsigned int e = 0; e < in->info->nevents; e++)
		in->event_map[e] =
			in->info->event_names[e]
				? event_index(in->info->event_names[e])
				: -1;
	/* Layout: this header's line, per-CPU copies, allocations. */
	g->inst = in;
	in->stride = percpu_stride(in->info, p->line_bytes);
	in->percpu = (char *)globals + p->line_bytes;
	pcpu = (size_t)(in->info->percpu_end - in->info->percpu_start);
	for (unsigned int c = 0; c < nr_cpus; c++)
		memcpy(in->percpu + c * in->stride, in->info->percpu_start,
		       pcpu);
	in->alloc_next = in->percpu + in->stride * nr_cpus;
	in->alloc_end = in->alloc_next + alloc_budget(p, nr_cpus);
	in->wait_lock = g_new0(const void *, nr_cpus);
	if (t->paravirt && in->mapping == LK_PV_SPLPAR_DIRECTED) {
		in->holder_bits = g_bit_storage(nr_cpus) + 1;
		in->holders = guest_alloc(in, "pv holders",
					  sizeof(u16) << in->holder_bits,
					  p->line_bytes);
	}
	bind = sym(in, QK_SYM_BIND);
	setup = sym(in, QK_SYM_SETUP);
	in->lock = sym(in, QK_SYM_LOCK);
	in->unlock = sym(in, QK_SYM_UNLOCK);
	in->trylock = sym(in, QK_SYM_TRYLOCK);
	QSIM_BUG_ON(bind(&kapi, in, &in->params) != QK_API_VERSION,
		    "kernel-tree library %s refused the interface", t->name);
	setup(in->percpu, in->stride);
	kt_apply_knobs(in, p);
}

void kt_global_fini(void *globals)
{
	struct kt_guest *g = globals;
	struct qk_inst *in = g->inst;

	if (!in)
		return;
	dlclose(in->dl);
	close(in->fd);
	for (guint i = 0; i < in->knobs->len; i++) {
		struct kt_knob *k = g_ptr_array_index(in->knobs, i);

		g_free(k->name);
		g_free(k);
	}
	g_ptr_array_free(in->knobs, TRUE);
	g_free(in->event_map);
	g_free(in->wait_lock);
	g_free(in);
	g->inst = NULL;
}

/* --- knobs --- */

bool kt_knob_set(struct qk_inst *in, const char *name, uint64_t val)
{
	for (guint i = 0; i < in->knobs->len; i++) {
		struct kt_knob *k = g_ptr_array_index(in->knobs, i);

		if (!strcmp(k->name, name)) {
			QSIM_BUG_ON(k->set(k->data, val) != 0,
				    "kernel knob %s refused %" PRIu64, name,
				    val);
			return true;
		}
	}
	return false;
}

bool kt_knob_get(struct qk_inst *in, const char *name, uint64_t *val)
{
	for (guint i = 0; i < in->knobs->len; i++) {
		struct kt_knob *k = g_ptr_array_index(in->knobs, i);
		unsigned long long v;

		if (!strcmp(k->name, name)) {
			QSIM_BUG_ON(k->get(k->data, &v) != 0,
				    "kernel knob %s unreadable", name);
			*val = v;
			return true;
		}
	}
	return false;
}

void kt_apply_knobs(struct qk_inst *in, const struct lk_params *p)
{
	unsigned int i = 0;

#define X(knob, def, max, help)                                            \
	if (p->qspl_set & (1u << i))                                       \
		QSIM_BUG_ON(!kt_knob_set(in, "qspl_" #knob, p->qspl.knob), \
			    "the tree's %s registers no knob qspl_" #knob, \
			    in->type->name);                               \
	i++;
	QSPL_TUNABLES(X)
#undef X
}

/* --- the lock verbs --- */

void kt_lock(void *lock)
{
	struct qk_inst *in = inst_of_current();

	in->lock(lock);
}

void kt_unlock(void *lock)
{
	struct qk_inst *in = inst_of_current();

	in->unlock(lock);
}

bool kt_trylock(void *lock)
{
	struct qk_inst *in = inst_of_current();

	return in->trylock(lock);
}

const struct kt_alloc *kt_find_alloc(const void *globals, const char *what)
{
	const struct kt_guest *g = globals;

	for (unsigned int i = 0; g->inst && i < g->inst->nallocs; i++)
		if (!strcmp(g->inst->allocs[i].what, what))
			return &g->inst->allocs[i];
	return NULL;
}

/*
 * The knobs the tree's lock registers (its debugfs files, under qsim's
 * names) as "name=value" with the value its getter reads before any
 * scenario sets it (the tree's default), for the scenario checks and
 * `qsim list`: a scratch guest of one CPU is set up and taken down.
 * NULL-terminated; g_strfreev it.
 */
char **kt_knob_names(const struct kt_type *t)
{
	struct lk_params p = {
		.pv_mapping = LK_PV_SPLPAR_UNDIRECTED,
		.line_bytes = 128,
		.page_bytes = 4096,
		.shared = true,
	};
	GPtrArray *names = g_ptr_array_new();
	size_t n = kt_global_size(t, &p, 1);
	void *g = NULL;

	QSIM_BUG_ON(posix_memalign(&g, 4096, n) != 0, "out of memory");
	memset(g, 0, n);
	p.arena_lo = g;
	p.arena_hi = (const char *)g + n;
	kt_global_init(t, g, &p, 1);
	for (guint i = 0; i < ((struct kt_guest *)g)->inst->knobs->len; i++) {
		struct kt_knob *k = g_ptr_array_index(
			((struct kt_guest *)g)->inst->knobs, i);
		unsigned long long v = 0;

		QSIM_BUG_ON(k->get(k->data, &v) != 0,
			    "kernel knob %s unreadable", k->name);
		g_ptr_array_add(names, g_strdup_printf("%s=%llu", k->name, v));
	}
	kt_global_fini(g);
	free(g);
	g_ptr_array_add(names, NULL);
	return (char **)g_ptr_array_free(names, FALSE);
}

/*
 * The pv hash table of a generic library's copy: the only boot-time
 * allocation those files make is alloc_large_system_hash's, of entries
 * of a lock and a node pointer (sim/observe.h).
 */
static bool kt_pv_hash(void *globals, void **base, size_t *entries)
{
	struct kt_guest *g = globals;

	if (!g->inst || !g->inst->lib_alloc)
		return false;
	*base = g->inst->lib_alloc;
	*entries = g->inst->lib_alloc_size / (2 * sizeof(void *));
	return true;
}

/*
 * Each CPU's queue-node count (observer O7): in the CPU's copy of the
 * per-CPU template, where the library says the count is.
 */
static bool kt_qnode_counts(void *globals, void **base, size_t *stride,
			    unsigned int *ncpus, int *max)
{
	struct kt_guest *g = globals;
	struct qk_inst *in = g->inst;

	if (!in || !in->info->qnode_count)
		return false;
	*base = in->percpu + (in->info->qnode_count - in->info->percpu_start);
	*stride = in->stride;
	*ncpus = in->nr_cpus;
	*max = in->info->qnode_max;
	return true;
}

/* --- the lock types --- */

static void kt_init(void *lock)
{
	(void)lock; /* the arena is zero, and zero is unlocked */
}

#define KT_TYPE(id_, pv_, word_, lib_, params_, desc_)                     \
	static const struct kt_type kt_##id_ = {.name = #id_,              \
						.lib = lib_,               \
						.lib_end = lib_##_end,     \
						.paravirt = pv_};          \
	static size_t id_##_global_size(const struct lk_params *p,         \
					unsigned int n)                    \
	{                                                                  \
		return kt_global_size(&kt_##id_, p, n);                    \
	}                                                                  \
	static void id_##_global_init(void *g, const struct lk_params *p,  \
				      unsigned int n)                      \
	{                                                                  \
		kt_global_init(&kt_##id_, g, p, n);                        \
	}                                                                  \
	static char **id_##_knobs(void)                                    \
	{                                                                  \
		return kt_knob_names(&kt_##id_);                           \
	}                                                                  \
	const struct lk_ops lk_##id_##_ops = {                             \
		.name = #id_,                                              \
		.desc = desc_,                                             \
		.size = 4,                                                 \
		.align = 4,                                                \
		.init = kt_init,                                           \
		.lock = kt_lock,                                           \
		.unlock = kt_unlock,                                       \
		.trylock = kt_trylock,                                     \
		.global_size = id_##_global_size,                          \
		.global_init = id_##_global_init,                          \
		.global_fini = kt_global_fini,                             \
		.params = params_,                                         \
		.paravirt = pv_,                                           \
		.word = word_,                                             \
		.pv_hash = word_ == LK_WORD_QSPINLOCK ? kt_pv_hash : NULL, \
		.qnode_counts = kt_qnode_counts,                           \
		.kernel_tree = true,                                       \
		.knobs = id_##_knobs,                                      \
	}

#ifdef QSIM_KTREE_GENERIC
KT_TYPE(kernel_qspinlock, false, LK_WORD_QSPINLOCK, qsim_klib_generic,
	"_Q_PENDING_LOOPS",
	"the kernel tree's generic qspinlock, native slowpath");
KT_TYPE(kernel_pv_qspinlock, true, LK_WORD_QSPINLOCK, qsim_klib_generic,
	"pv_mapping SPIN_THRESHOLD _Q_PENDING_LOOPS",
	"the kernel tree's generic qspinlock with its pv slowpath");
#endif
#ifdef QSIM_KTREE_PPC
KT_TYPE(kernel_ppc_qspinlock, false, LK_WORD_PPC, qsim_klib_ppc, "qspl_*",
	"the kernel tree's powerpc qspinlock (6.2 on)");
#endif
