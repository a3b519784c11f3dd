/* kconv: the worker threads the CPU backend and the CUDA backend's staging
 * share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One pool of worker threads for the whole process.  A parallel region is
 * cut into n parts; the caller runs part 0 and any part no worker has taken
 * yet, so a region always finishes, even when every worker is busy with
 * another caller's.  Idle workers sleep on a condition variable: between
 * frames they use no CPU, which leaves the cores to the rest of the
 * pipeline (OpenMP's default spin-waiting kept them busy for milliseconds
 * after each region, and its wait policy can only be set before the
 * runtime loads).
 */
#ifndef KCONV_THREADS_H
#define KCONV_THREADS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* part t of n (0 <= t < n) */
typedef void (*KConvPartFunc) (int t, int n, void *ctx);

/* Runs fn (t, n, ctx) for every t in 0 .. n - 1, on up to n threads (the
 * caller's among them), and returns when all have returned.  Parts must not
 * wait for each other. */
void kconv_parallel (int n, KConvPartFunc fn, void *ctx);

/* Rows 0 .. rows - 1 in n equal bands: the first and one-past-last row of
 * band t. */
static inline void
kconv_band (int rows, int t, int n, int *y0, int *y1)
{
  *y0 = (int) ((long long) rows * t / n);
  *y1 = (int) ((long long) rows * (t + 1) / n);
}

/* Cores of this machine (at least 1). */
int kconv_cpu_count (void);

/* memcpy of `rows` rows of row_bytes, on up to n_threads threads (one for
 * small blocks): the CPU backend's copies and the CUDA backend's staging
 * of pageable frames. */
void kconv_copy_rows (uint8_t * dst, ptrdiff_t dst_stride,
    const uint8_t * src, ptrdiff_t src_stride, size_t row_bytes, int rows,
    int n_threads);

#ifdef __cplusplus
}
#endif
#endif /* KCONV_THREADS_H */
