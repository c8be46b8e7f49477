// SPDX-License-Identifier: MIT
/*
 * Statistics over seeds; see stats.h.  Student's t distribution from the
 * regularized incomplete beta function, I_x(a, b), evaluated by its
 * continued fraction with the modified Lentz method (Abramowitz and
 * Stegun 26.5.8 and 26.7.1); the quantile by bisection on the CDF.
 */
#include <math.h>

#include "tools/stats.h"

void stats_sample(const double *x, unsigned int n, struct stats_sample *s)
{
	double sum = 0, ss = 0;

	s->n = n;
	for (unsigned int i = 0; i < n; i++)
		sum += x[i];
	s->mean = n ? sum / n : NAN;
	for (unsigned int i = 0; i < n; i++)
		ss += (x[i] - s->mean) * (x[i] - s->mean);
	s->sd = n > 1 ? sqrt(ss / (n - 1)) : NAN;
	s->ci = n > 1 ? stats_t_quantile(0.975, n - 1) * s->sd / sqrt(n) : NAN;
}

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		/* the even step, then the odd one */
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		double del;

		d = 1 + num * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail = 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void stats_welch(const struct stats_sample *a, const struct stats_sample *b,
		 struct stats_diff *d)
{
	double va, vb, se, half;

	d->diff = b->mean - a->mean;
	d->defined = a->n > 1 && b->n > 1;
	if (!d->defined) {
		d->df = d->lo = d->hi = NAN;
		d->significant = false;
		return;
	}
	va = a->sd * a->sd / a->n;
	vb = b->sd * b->sd / b->n;
	se = sqrt(va + vb);
	if (se == 0) { /* no spread at all: the difference is exact */
		d->df = INFINITY;
		d->lo = d->hi = d->diff;
		d->significant = d->diff != 0;
		return;
	}
	d->df = (va + vb) * (va + vb) /
		(va * va / (a->n - 1) + vb * vb / (b->n - 1));
	half = stats_t_quantile(0.975, d->df) * se;
	d->lo = d->diff - half;
	d->hi = d->diff + half;
	d->significant = d->lo > 0 || d->hi < 0;
}
