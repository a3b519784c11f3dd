/* kconv: the threads of the CPU backend's parallel regions (OpenMP)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU backend runs its parallel work with OpenMP.  A region asks
 * kconv_team_reserve() how many threads it may start: OpenMP's own thread
 * limit counts per contention group, and every pipeline's streaming thread
 * starts its own, so pipelines that filter at the same time would each
 * start a thread per core.  kconv keeps one count of the threads its
 * regions run, process-wide, and gives a region no more than the cores
 * that are free (the caller's own thread always runs).  Nesting is off: a
 * region inside someone else's parallel region runs on the caller alone.
 * Built without OpenMP (-Dopenmp=disabled) every region runs on the
 * caller.
 */
#ifndef KCONV_TEAM_H
#define KCONV_TEAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* Threads for a region that wants up to `want` (at least 1): no more than
 * the cores no other kconv region holds now, 1 inside another parallel
 * region.  Give them back with kconv_team_release (n). */
int kconv_team_reserve (int want);
void kconv_team_release (int n);

/* part t of n (0 <= t < n) */
typedef void (*KConvPartFunc) (int t, int n, void *ctx);

/* Runs fn (t, n, ctx) for every t in 0 .. n - 1 in an OpenMP parallel
 * loop, one part a thread in order (the parts are equal bands or tiles,
 * each with its own scratch), on the threads kconv_team_reserve () gives:
 * when that is fewer than n, a thread runs several parts.  Parts must not
 * wait for each other. */
static inline void
kconv_team_run (int n, KConvPartFunc fn, void *ctx)
{
  if (n <= 1) {
    fn (0, 1, ctx);             /* no team to start */
    return;
  }
  const int team = kconv_team_reserve (n);
#pragma omp parallel for num_threads (team) schedule (dynamic, 1) if (team > 1)
  for (int t = 0; t < n; t++)
    fn (t, n, ctx);
  kconv_team_release (team);
}

/* Rows 0 .. rows - 1 in n equal bands: the first and one-past-last row of
 * band t. */
static inline void
kconv_band (int rows, int t, int n, int *y0, int *y1)
{
  *y0 = (int) ((long long) rows * t / n);
  *y1 = (int) ((long long) rows * (t + 1) / n);
}

/* Cores this process may run on (at least 1). */
int kconv_cpu_count (void);

/* Threads for n-threads=0: the OpenMP runtime's default (OMP_NUM_THREADS,
 * else one per core), never more than the cores. */
int kconv_default_threads (void);

/* The threads a filter or matcher asked for n (0: OpenMP's default) runs
 * on: more than the cores only wait on each other (and each takes scratch
 * memory), so at most one a core. */
int kconv_team_threads (int n);

/* memcpy of `rows` rows of row_bytes, on up to n_threads threads (one for
 * small blocks): the CPU backend's copies and the CUDA backend's staging
 * of pageable frames. */
void kconv_copy_rows (uint8_t * dst, ptrdiff_t dst_stride,
    const uint8_t * src, ptrdiff_t src_stride, size_t row_bytes, int rows,
    int n_threads);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KCONV_TEAM_H */
