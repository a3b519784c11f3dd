/* kconv: clock and median for the benchmark programs
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_BENCH_UTIL_H
#define KCONV_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double
bench_now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* the median of n values (sorts them) */
static inline double
bench_median (double *t, int n)
{
  qsort (t, n, sizeof t[0], bench_cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* [--threads N] [--quick]; 0, or 2 after printing the usage. */
static inline int
bench_parse_args (int argc, char **argv, int *threads, int *quick)
{
  *threads = 0;
  *quick = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--threads") && i + 1 < argc)
      *threads = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--quick"))
      *quick = 1;
    else {
      fprintf (stderr, "usage: %s [--threads N] [--quick]\n", argv[0]);
      return 2;
    }
  }
  return 0;
}

#endif
