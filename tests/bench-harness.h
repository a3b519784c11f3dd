/* kconv: what every benchmark program shares: one argument parser, one
 * timing loop and median, one CSV writer
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Options (each program accepts those it names):
 *   --threads N   CPU threads for kconv and the CPU peers (0: one per core)
 *   --quick       fewer cases and repetitions
 *   --csv FILE    every row also as CSV
 *   --only TEXT   only the cases whose name contains TEXT
 *   --frames N    frames per streaming run
 */
#ifndef KCONV_BENCH_HARNESS_H
#define KCONV_BENCH_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kconv.h"

enum
{
  BENCH_THREADS = 1 << 0,
  BENCH_QUICK = 1 << 1,
  BENCH_CSV = 1 << 2,
  BENCH_ONLY = 1 << 3,
  BENCH_FRAMES = 1 << 4,
  BENCH_PHOTOS = 1 << 5,
  BENCH_PIPELINES = 1 << 6,
};

typedef struct
{
  int threads;
  int quick;
  const char *csv_path;
  const char *only;
  int frames;
  const char *photos;           /* tests/photos.sh's folder, or NULL */
  int pipelines;                /* copies of a pipeline run at once */
  FILE *csv;                    /* open while the program runs, or NULL */
} BenchArgs;

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

typedef void (*BenchFunc) (void *ctx);

/* One warm-up, then repetitions until budget_ms or max_reps (at most 101),
 * at least 3: the median in ms. */
static inline double
bench_time_ms (BenchFunc fn, void *ctx, double budget_ms, int max_reps)
{
  double t[101];
  fn (ctx);
  const double start = bench_now_ms ();
  int n = 0;
  while (n < max_reps && n < 101
      && (n < 3 || bench_now_ms () - start < budget_ms)) {
    const double t0 = bench_now_ms ();
    fn (ctx);
    t[n++] = bench_now_ms () - t0;
  }
  return bench_median (t, n);
}

/* One kconv_filter_run, for bench_time_ms; a failure ends the program. */
typedef struct
{
  KConvFilter *filter;
  KConvImage src, dst;
} BenchFilterRun;

static inline void
bench_filter_run (void *p)
{
  BenchFilterRun *r = p;
  if (kconv_filter_run (r->filter, &r->src, &r->dst) != KCONV_OK) {
    fprintf (stderr, "kconv_filter_run failed: %s\n", kconv_last_error ());
    exit (1);
  }
}

/* Parses the options in `accepted` and opens the CSV file with `header`;
 * 0, or 2 after printing the usage. */
static inline int
bench_args_parse (int argc, char **argv, unsigned accepted,
    const char *csv_header, BenchArgs * a)
{
  static const struct
  {
    unsigned flag;
    const char *name, *arg;
  } opts[] = {
    {BENCH_THREADS, "--threads", "N"}, {BENCH_QUICK, "--quick", NULL},
    {BENCH_CSV, "--csv", "FILE"}, {BENCH_ONLY, "--only", "TEXT"},
    {BENCH_FRAMES, "--frames", "N"}, {BENCH_PHOTOS, "--photos", "DIR"},
    {BENCH_PIPELINES, "--pipelines", "N"},
  };
  const int n_opts = sizeof opts / sizeof opts[0];
  memset (a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    int k = 0;
    while (k < n_opts && !((accepted & opts[k].flag)
            && !strcmp (argv[i], opts[k].name)))
      k++;
    if (k == n_opts || (opts[k].arg && i + 1 >= argc)) {
      fprintf (stderr, "usage: %s", argv[0]);
      for (k = 0; k < n_opts; k++)
        if (accepted & opts[k].flag)
          fprintf (stderr, " [%s%s%s]", opts[k].name, opts[k].arg ? " " : "",
              opts[k].arg ? opts[k].arg : "");
      fprintf (stderr, "\n");
      return 2;
    }
    const char *v = opts[k].arg ? argv[++i] : NULL;
    switch (opts[k].flag) {
      case BENCH_THREADS:
        a->threads = atoi (v) > 0 ? atoi (v) : 0;
        break;
      case BENCH_QUICK:
        a->quick = 1;
        break;
      case BENCH_CSV:
        a->csv_path = v;
        break;
      case BENCH_ONLY:
        a->only = v;
        break;
      case BENCH_FRAMES:
        a->frames = atoi (v);
        break;
      case BENCH_PHOTOS:
        a->photos = v;
        break;
      case BENCH_PIPELINES:
        a->pipelines = atoi (v) > 0 ? atoi (v) : 0;
        break;
    }
  }
  if (a->csv_path) {
    if (!(a->csv = fopen (a->csv_path, "w"))) {
      fprintf (stderr, "cannot write %s\n", a->csv_path);
      return 2;
    }
    fprintf (a->csv, "%s\n", csv_header);
  }
  return 0;
}

/* Whether --only lets the case named `name` run. */
static inline int
bench_selected (const BenchArgs * a, const char *name)
{
  return !a->only || strstr (name, a->only) != NULL;
}

/* A CSV row (printf-style, no newline), where --csv asked for one. */
static inline void
bench_csv_row (const BenchArgs * a, const char *format, ...)
{
  if (!a->csv)
    return;
  va_list args;
  va_start (args, format);
  vfprintf (a->csv, format, args);
  va_end (args);
  fputc ('\n', a->csv);
  fflush (a->csv);
}

static inline void
bench_args_clear (BenchArgs * a)
{
  if (a->csv)
    fclose (a->csv);
  a->csv = NULL;
}

#endif /* KCONV_BENCH_HARNESS_H */
