/* SPDX-License-Identifier: MIT */
/*
 * The glue compiled after the kernel's own file in one translation unit
 * of a kernel-tree lock library (kernel-tree mode): the library's link to
 * qsim (kapi.h), its boot-time services, and the entry points qsim calls.
 * Included once by each glue/<kind>.c after the kernel file.
 */
#ifndef QSIM_KERNEL_GLUE_COMMON_H
#define QSIM_KERNEL_GLUE_COMMON_H

#define QK_EXPORT __attribute__((visibility("default")))
/* Not instrumented: the hooks themselves, and what they read. */
#define QK_HOOK __attribute__((visibility("default"), no_sanitize_thread))

const struct qk_api *qk;
struct qk_inst *qk_self;
struct qk_params qk_params;
char *qk_percpu_base;
size_t qk_percpu_stride;
struct dentry *arch_debugfs_dir;

/* Weak: a file without initcalls or per-CPU data has no such section. */
extern const char __start_qk_percpu[] __attribute__((weak));
extern const char __stop_qk_percpu[] __attribute__((weak));
extern initcall_t __start_qk_initcall[] __attribute__((weak));
extern initcall_t __stop_qk_initcall[] __attribute__((weak));

/*
 * The kernel's boot-time hash allocator, for the pv hash table: guest
 * memory of this partition, a power of two of buckets, zeroed.
 */
void *alloc_large_system_hash(const char *name, unsigned long bucketsize,
			      unsigned long numentries, int scale, int flags,
			      unsigned int *hash_shift, unsigned int *hash_mask,
			      unsigned long low_limit, unsigned long high_limit)
{
	unsigned long n = numentries > low_limit ? numentries : low_limit;
	unsigned int shift;
	char *table;

	if (high_limit && n > high_limit)
		n = high_limit;
	shift = ilog2(n ? n : 1);
	table = qk->alloc(qk_self, name, bucketsize << shift, SMP_CACHE_BYTES);
	__builtin_memset(table, 0, bucketsize << shift);
	if (hash_shift)
		*hash_shift = shift;
	if (hash_mask)
		*hash_mask = (1U << shift) - 1;
	return table;
}

/*
 * Plain accesses.  The kernel files are compiled with the compiler's
 * thread-sanitizer instrumentation (as the kernel's own KCSAN is), and
 * these are its hooks: every unmarked load and store of guest memory is
 * a simulated access, so that it is costed, ordered in time, and seen by
 * other vCPUs' waits and raw spins (kernel code reads and writes shared
 * fields plainly where it tolerates the race: a node's sleepy flag).
 * Marked accesses (READ_ONCE and the atomics) are volatile and already
 * simulated by the arch: their hooks do nothing.
 */
static inline __attribute__((no_sanitize_thread)) void qk_plain(const void *p,
								size_t size,
								int kind)
{
	const char *c = p;

	if (c >= qk_params.arena_lo && c < qk_params.arena_hi)
		qk->plain(p, size, kind);
}

#define QK_TSAN(n)                                               \
	QK_HOOK void __tsan_read##n(void *p)                     \
	{                                                        \
		qk_plain(p, n, QK_READ);                         \
	}                                                        \
	QK_HOOK void __tsan_write##n(void *p)                    \
	{                                                        \
		qk_plain(p, n, QK_WRITE);                        \
	}                                                        \
	QK_HOOK void __tsan_unaligned_read##n(void *p)           \
	{                                                        \
		qk_plain(p, n, QK_READ);                         \
	}                                                        \
	QK_HOOK void __tsan_unaligned_write##n(void *p)          \
	{                                                        \
		qk_plain(p, n, QK_WRITE);                        \
	}                                                        \
	QK_HOOK void __tsan_volatile_read##n(void *p)            \
	{                                                        \
		(void)p;                                         \
	}                                                        \
	QK_HOOK void __tsan_volatile_write##n(void *p)           \
	{                                                        \
		(void)p;                                         \
	}                                                        \
	QK_HOOK void __tsan_unaligned_volatile_read##n(void *p)  \
	{                                                        \
		(void)p;                                         \
	}                                                        \
	QK_HOOK void __tsan_unaligned_volatile_write##n(void *p) \
	{                                                        \
		(void)p;                                         \
	}
QK_TSAN(1)
QK_TSAN(2)
QK_TSAN(4)
QK_TSAN(8)
QK_TSAN(16)

QK_HOOK void __tsan_read_range(void *p, unsigned long n)
{
	qk_plain(p, n, QK_READ);
}

QK_HOOK void __tsan_write_range(void *p, unsigned long n)
{
	qk_plain(p, n, QK_WRITE);
}

QK_HOOK void __tsan_init(void)
{
}

QK_HOOK void __tsan_func_entry(void *pc)
{
	(void)pc;
}

QK_HOOK void __tsan_func_exit(void)
{
}

QK_EXPORT int qk_bind(const struct qk_api *api, struct qk_inst *in,
		      const struct qk_params *p)
{
	qk = api;
	qk_self = in;
	qk_params = *p;
	return QK_API_VERSION;
}

/* Each CPU's copy of the per-CPU data is at @percpu + cpu * @stride,
 * already a copy of the template (qsim made it). */
static void qk_setup_common(char *percpu, size_t stride)
{
	qk_percpu_base = percpu;
	qk_percpu_stride = stride;
	for (initcall_t *f = __start_qk_initcall;
	     __start_qk_initcall && f < __stop_qk_initcall; f++)
		(*f)();
}

#endif
