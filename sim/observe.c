// SPDX-License-Identifier: MIT
/*
 * Observers (observe.h): invariants read from guest memory at each write
 * to a watched line.  The engine calls obs_on_write after the bytes of a
 * write are in memory (sim_mem_written), so the observer sees every
 * transition of a watched word, in the order the machine made them.
 */
#include "sim/observe.h"
#include "sim/mm.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "sim/engine.h"

#define Q_LOCKED_MASK 0xffu
#define Q_SLOW_VAL    3u

struct obs_lock {
	uint32_t *word;
	unsigned int idx;
	uint32_t last; /* the word as of the last write seen */
	int holder;    /* cpu id of the word's holder, or -1 */
};

struct obs_pv_entry {
	void *lock;
	void *node;
};

struct obs {
	struct sim *sim;
	enum obs_kind kind;
	char *who;
	GHashTable *locks;  /* guest address -> struct obs_lock */
	GPtrArray *owned;   /* the struct obs_count it watches */
	GHashTable *counts; /* guest lock address -> entries (unwatched
			       locks too: an rwlock's wait_lock) */
	struct obs_pv_entry *hash;
	size_t nentries;
	void **shadow; /* per entry: its lock pointer as last seen */
};

/* A cpu's queue-node count (O7). */
struct obs_count {
	int *count;
	int max;
	unsigned int cpu;
};

/* What a watched line holds: a lock word, a cpu's node count, or part of
 * a hash table. */
struct obs_slot {
	struct obs *o;
	struct obs_lock *lock;	 /* or NULL: */
	struct obs_count *count; /* or NULL: hash entries */
};

struct obs_set {
	GHashTable *slots; /* line index -> struct obs_slot */
	GPtrArray *all;
};

static void report(struct obs *o, struct sim_cpu *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(struct obs *o, struct sim_cpu *c, const char *fmt, ...)
{
	g_autofree char *what = NULL;
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	what = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	msg = g_strdup_printf("observer (%s): %s", o->who, what);
	if (c)
		sim_report_violation(c, msg);
}

static int count_of(struct obs *o, void *lock)
{
	return GPOINTER_TO_INT(g_hash_table_lookup(o->counts, lock));
}

/*
 * The entries for @lock that its holder can find.  Under a weak memory
 * model (sim/mm.h) an entry whose clearing store still waits in a store
 * buffer is in memory but gone for the cpu that cleared it, the only
 * one that looks it up (a head that found the lock free unhashes itself
 * with a plain store and holds on): it does not count.
 */
static int live_count(struct obs *o, void *lock)
{
	int n = count_of(o, lock);

	if (n <= 1 || !o->sim->mm)
		return n;
	for (size_t i = 0; i < o->nentries; i++)
		if (o->shadow[i] == lock &&
		    sim_mm_pending(o->sim, &o->hash[i].lock,
				   sizeof(o->hash[i].lock)))
			n--;
	return n;
}

static void count_add(struct obs *o, void *lock, int d)
{
	int n = count_of(o, lock) + d;

	if (n)
		g_hash_table_insert(o->counts, lock, GINT_TO_POINTER(n));
	else
		g_hash_table_remove(o->counts, lock);
}

#define PPC_LOCKED 0x00000001u
#define PPC_LOW	   0x0000ffffu /* locked, owner, sleepy */
#define PPC_MUST_Q 0x00010000u
#define PPC_TAIL   0xfffe0000u

static void on_ppc_lock(struct obs *o, struct obs_lock *l, struct sim_cpu *c)
{
	uint32_t old = l->last, now = *(volatile uint32_t *)l->word;
	int who = c ? (int)c->id : -1;

	l->last = now;
	if ((now & PPC_MUST_Q) && !(now & PPC_TAIL))
		report(o, c,
		       "O5: lock %u's must-queue set with no one queued, by "
		       "cpu %d (word %#" PRIx32 " -> %#" PRIx32 ")",
		       l->idx, who, old, now);
	if ((now & PPC_LOW) && !(now & PPC_LOCKED))
		report(o, c,
		       "O6: lock %u has an owner or sleepy bit but is not "
		       "locked, by cpu %d (word %#" PRIx32 " -> %#" PRIx32 ")",
		       l->idx, who, old, now);
}

static void on_count(struct obs *o, struct obs_count *n, struct sim_cpu *c)
{
	int now = *(volatile int *)n->count;

	if (now < 0 || now > n->max)
		report(o, c,
		       "O7: cpu %u's queue-node count is %d (it has %d "
		       "nodes), by cpu %d",
		       n->cpu, now, n->max, c ? (int)c->id : -1);
}

static void on_lock(struct obs *o, struct obs_lock *l, struct sim_cpu *c)
{
	uint32_t old = l->last, now = *(volatile uint32_t *)l->word;
	uint32_t ol = old & Q_LOCKED_MASK, nl = now & Q_LOCKED_MASK;
	int who = c ? (int)c->id : -1;
	/* O3 asks what the lock's holder can find, O4 what memory holds:
	 * a release must not be seen before its unhash. */
	int hashed = live_count(o, l->word), in_memory = count_of(o, l->word);

	l->last = now;
	if (nl != 0 && nl != 1 && nl != Q_SLOW_VAL)
		report(o, c,
		       "O1: lock %u's locked byte is %#x (word %#" PRIx32
		       ", was %#" PRIx32 ")",
		       l->idx, nl, now, old);
	if (nl == Q_SLOW_VAL && ol != Q_SLOW_VAL && hashed != 1 &&
	    !(ol != 0 && who == l->holder))
		report(o, c,
		       "O3: lock %u set to _Q_SLOW_VAL by cpu %d, a waiter, "
		       "with %d pv hash entries for it (word %#" PRIx32
		       " -> %#" PRIx32 ")",
		       l->idx, who, hashed, old, now);
	if (ol == Q_SLOW_VAL && nl == 0 && in_memory != 0)
		report(o, c,
		       "O4: lock %u released from _Q_SLOW_VAL by cpu %d with "
		       "its pv hash entry still there",
		       l->idx, who);
	if (ol == 0 && nl != 0)
		l->holder = who;
	else if (nl == 0)
		l->holder = -1;
}

static void on_hash(struct obs *o, const void *p, struct sim_cpu *c)
{
	struct sim_mem *m = &o->sim->mem;
	size_t line = sim_mem_line_of(m, p);
	const char *start = (const char *)m->base + (line << m->line_shift);
	ptrdiff_t off = start - (const char *)o->hash;
	size_t first = off > 0 ? (size_t)off / sizeof(*o->hash) : 0;
	size_t per = ((size_t)1 << m->line_shift) / sizeof(*o->hash) + 1;

	for (size_t i = first; i < first + per && i < o->nentries; i++) {
		void *now = *(void *volatile *)&o->hash[i].lock;
		void *was = o->shadow[i];

		if (sim_mem_line_of(m, &o->hash[i]) != line || now == was)
			continue;
		o->shadow[i] = now;
		if (was)
			count_add(o, was, -1);
		if (now) {
			struct obs_lock *l = g_hash_table_lookup(o->locks, now);

			count_add(o, now, 1);
			if (live_count(o, now) > 1)
				report(o, c,
				       "O2: lock %d hashed twice (a second pv "
				       "hash entry, %zu, by cpu %d)",
				       l ? (int)l->idx : -1, i,
				       c ? (int)c->id : -1);
		}
	}
}

static void obs_on_write(void *data, struct sim_cpu *c, const void *p)
{
	struct obs_set *set = data;
	struct sim *s = c ? c->sim : NULL;
	struct obs_slot *slot;

	if (!s) /* the hypervisor writes no watched line */
		return;
	slot = g_hash_table_lookup(
		set->slots, GSIZE_TO_POINTER(sim_mem_line_of(&s->mem, p) + 1));
	if (!slot)
		return;
	if (slot->count)
		on_count(slot->o, slot->count, c);
	else if (slot->lock && slot->o->kind == OBS_PPC)
		on_ppc_lock(slot->o, slot->lock, c);
	else if (slot->lock)
		on_lock(slot->o, slot->lock, c);
	else
		on_hash(slot->o, p, c);
}

static void set_free(struct obs_set *set)
{
	g_hash_table_destroy(set->slots);
	g_ptr_array_free(set->all, TRUE);
	g_free(set);
}

static void watch_line(struct obs *o, const void *p, struct obs_lock *l,
		       struct obs_count *n)
{
	struct sim *s = o->sim;
	struct obs_set *set = s->write_data;
	struct obs_slot *slot = g_new0(struct obs_slot, 1);

	slot->o = o;
	slot->lock = l;
	slot->count = n;
	g_hash_table_insert(set->slots,
			    GSIZE_TO_POINTER(sim_mem_line_of(&s->mem, p) + 1),
			    slot);
	sim_mem_observe(s, p);
}

struct obs *obs_new(struct sim *s, enum obs_kind kind, const char *who)
{
	struct obs *o = g_new0(struct obs, 1);
	struct obs_set *set = s->write_data;

	if (!s->write_hook) {
		set = g_new0(struct obs_set, 1);
		set->slots = g_hash_table_new_full(NULL, NULL, NULL, g_free);
		set->all = g_ptr_array_new();
		s->write_hook = obs_on_write;
		s->write_data = set;
	}
	QSIM_BUG_ON(s->write_hook != obs_on_write, "two write hooks");
	g_ptr_array_add(set->all, o);
	o->sim = s;
	o->kind = kind;
	o->who = g_strdup(who);
	o->locks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	o->counts = g_hash_table_new(NULL, NULL);
	o->owned = g_ptr_array_new_with_free_func(g_free);
	return o;
}

void obs_watch_lock(struct obs *o, void *lock, unsigned int idx)
{
	struct obs_lock *l = g_new0(struct obs_lock, 1);

	l->word = lock;
	l->idx = idx;
	l->last = *(uint32_t *)lock;
	l->holder = -1;
	g_hash_table_insert(o->locks, lock, l);
	watch_line(o, lock, l, NULL);
}

void obs_watch_qnode_counts(struct obs *o, void *base, size_t stride,
			    unsigned int ncpus, int max)
{
	for (unsigned int i = 0; i < ncpus; i++) {
		struct obs_count *n = g_new0(struct obs_count, 1);

		n->count = (int *)((char *)base + (size_t)i * stride);
		n->max = max;
		n->cpu = i;
		g_ptr_array_add(o->owned, n);
		watch_line(o, n->count, NULL, n);
	}
}

void obs_watch_pv_hash(struct obs *o, void *base, size_t entries)
{
	size_t line = (size_t)1 << o->sim->mem.line_shift;

	o->hash = base;
	o->nentries = entries;
	o->shadow = g_new0(void *, entries);
	for (size_t i = 0; i < entries; i++)
		o->shadow[i] = o->hash[i].lock;
	for (size_t b = 0; b < entries * sizeof(*o->hash); b += line)
		watch_line(o, (char *)base + b, NULL, NULL);
	watch_line(o, (char *)base + entries * sizeof(*o->hash) - 1, NULL,
		   NULL);
}

void obs_free(struct obs *o)
{
	struct sim *s = o->sim;
	struct obs_set *set = s->write_data;

	g_ptr_array_remove(set->all, o);
	if (!set->all->len) {
		set_free(set);
		s->write_hook = NULL;
		s->write_data = NULL;
	}
	g_hash_table_destroy(o->locks);
	g_hash_table_destroy(o->counts);
	g_ptr_array_free(o->owned, TRUE);
	g_free(o->shadow);
	g_free(o->who);
	g_free(o);
}
