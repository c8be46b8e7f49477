// SPDX-License-Identifier: MIT
/*
 * Many runs at once; see points.h.  Workers take points in order from a
 * shared index; a finished run is stored under the store's mutex (one
 * connection, one transaction per run), and the main thread draws the
 * progress until every worker is done.
 */
#include <stdint.h>
#include <string.h>

#include "tools/model.h"
#include "tools/points.h"

void point_free(gpointer p)
{
	struct point *pt = p;

	cfg_free(pt->cfg);
	g_free(pt);
}

bool points_lookup(struct store *st, GPtrArray *points, GError **error)
{
	for (guint i = 0; i < points->len; i++) {
		struct point *p = g_ptr_array_index(points, i);
		g_autofree char *sum = store_params_sha256(p->cfg->resolved);

		if (!store_find_run(st, sum, store_binary_sha256(), &p->run_id,
				    &p->violation, error))
			return false;
		p->reused = p->run_id != 0;
		/* a reused point belongs to this sweep's tag too */
		if (p->reused && st->tag &&
		    !store_tag_run(st, p->run_id, st->tag, error))
			return false;
	}
	return true;
}

struct pool {
	GPtrArray *todo; /* struct point * without a run */
	const struct points_opts *o;
	gint next;
	GMutex lock; /* the store, the counters below, the condition */
	GCond changed;
	unsigned int done, running, violations, workers_left;
	GError *error; /* the first store failure */
};

static void run_point(struct pool *p, struct point *pt)
{
	struct qsim_results res;
	g_autoptr(GError) err = NULL;
	bool ok = qsim_model_run(pt->cfg, &res, &err);

	g_mutex_lock(&p->lock);
	if (ok && !res.interrupted && !p->error) {
		if (store_run_insert(p->o->st, pt->cfg, &res, &pt->run_id,
				     &p->error)) {
			pt->violation = res.status != WL_OK;
			p->violations += pt->violation;
			p->done++;
		} else {
			store_save_beside(p->o->st->path, pt->cfg, &res,
					  p->o->what);
		}
	} else if (!ok && !p->error) {
		p->error = g_steal_pointer(&err);
	}
	p->running--;
	g_cond_signal(&p->changed);
	g_mutex_unlock(&p->lock);
	if (ok)
		qsim_results_clear(&res);
}

static void worker(gpointer data, gpointer user)
{
	struct pool *p = user;

	(void)data;
	for (;;) {
		gint i;

		g_mutex_lock(&p->lock);
		i = p->error || sim_interrupt ? (gint)p->todo->len : p->next++;
		if (i < (gint)p->todo->len)
			p->running++;
		g_mutex_unlock(&p->lock);
		if (i >= (gint)p->todo->len)
			break;
		run_point(p, g_ptr_array_index(p->todo, i));
	}
	g_mutex_lock(&p->lock);
	p->workers_left--;
	g_cond_signal(&p->changed);
	g_mutex_unlock(&p->lock);
}

/* "1:02:03" or "2:03". */
static void clock_text(char *buf, size_t n, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	if (t >= 3600)
		g_snprintf(buf, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60,
			   t % 60);
	else
		g_snprintf(buf, n, "%lu:%02lu", t / 60, t % 60);
}

/* Under p->lock. */
static void draw(struct pool *p, unsigned int reused, unsigned int total,
		 gint64 start, bool last)
{
	const struct points_opts *o = p->o;
	double el = (double)(g_get_monotonic_time() - start) / 1e6;
	unsigned int done = reused + p->done, left = total - done;
	char e[32], eta[32] = "?";
	char bar[31];
	unsigned int fill = total ? 30 * done / total : 30;

	clock_text(e, sizeof(e), el);
	if (p->done)
		clock_text(eta, sizeof(eta), el / p->done * left);
	memset(bar, '#', fill);
	memset(bar + fill, '.', 30 - fill);
	bar[30] = '\0';
	if (o->tty)
		fprintf(o->progress, "\r%s [%s] %u/%u runs", o->what, bar, done,
			total);
	else
		fprintf(o->progress, "%s: %u/%u runs", o->what, done, total);
	if (reused)
		fprintf(o->progress, " (%u stored before)", reused);
	if (!last)
		fprintf(o->progress, ", %u running, %s elapsed, ETA %s",
			p->running, e, eta);
	else
		fprintf(o->progress, ", %s", e);
	if (p->violations)
		fprintf(o->progress, ", %u VIOLATION%s", p->violations,
			p->violations == 1 ? "" : "S");
	fprintf(o->progress, o->tty ? "\033[K%s" : "%s",
		o->tty && !last ? "" : "\n");
	fflush(o->progress);
}

bool points_run(GPtrArray *points, const struct points_opts *o,
		struct points_result *res, GError **error)
{
	g_autoptr(GPtrArray) todo = g_ptr_array_new();
	struct pool p = {.o = o};
	unsigned int jobs = o->jobs ? o->jobs : g_get_num_processors();
	gint64 start = g_get_monotonic_time(), said = start;
	GThreadPool *tp;

	memset(res, 0, sizeof(*res));
	for (guint i = 0; i < points->len; i++) {
		struct point *pt = g_ptr_array_index(points, i);

		if (pt->run_id)
			res->reused++;
		else
			g_ptr_array_add(todo, pt);
	}
	p.todo = todo;
	g_mutex_init(&p.lock);
	g_cond_init(&p.changed);
	jobs = SIM_MAX(1u, SIM_MIN(jobs, todo->len));
	p.workers_left = todo->len ? jobs : 0;
	tp = g_thread_pool_new(worker, &p, (gint)jobs, TRUE, NULL);
	for (unsigned int j = 0; todo->len && j < jobs; j++)
		g_thread_pool_push(tp, GINT_TO_POINTER(1), NULL);
	g_mutex_lock(&p.lock);
	while (p.workers_left) {
		gint64 now = g_get_monotonic_time();
		gint64 every =
			o->tty ? G_TIME_SPAN_SECOND : 10 * G_TIME_SPAN_SECOND;

		if (o->progress && now - said >= every) {
			draw(&p, res->reused, points->len, start, false);
			said = now;
		}
		g_cond_wait_until(&p.changed, &p.lock,
				  now + G_TIME_SPAN_SECOND / 4);
	}
	if (o->progress && points->len)
		draw(&p, res->reused, points->len, start, true);
	g_mutex_unlock(&p.lock);
	g_thread_pool_free(tp, FALSE, TRUE);
	res->ran = p.done;
	res->violations = p.violations;
	for (guint i = 0; i < points->len; i++) {
		struct point *pt = g_ptr_array_index(points, i);

		res->violations += pt->reused && pt->violation;
	}
	res->interrupted = sim_interrupt != 0;
	g_mutex_clear(&p.lock);
	g_cond_clear(&p.changed);
	if (p.error) {
		g_propagate_error(error, p.error);
		return false;
	}
	return true;
}
