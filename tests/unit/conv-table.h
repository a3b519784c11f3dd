/* kconv: a backend against the scalar reference, over a table of cases
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_CONV_TABLE_H
#define KCONV_CONV_TABLE_H

#include "kconv.h"
#include "bench-harness.h"

/* Runs every case of the table on `backend` and on the reference, with
 * random data and poisoned outputs; counts through CHECK.  max_kernel caps
 * the kernel sizes (the reference is slow). */
void conv_table_run (KConvBackend backend, unsigned seed, int max_kernel);

/* Frames several FFT tiles (256 a side) across and down, for kernels up to
 * 25 a side, every border, exact and not: run with the FFT forced. */
void conv_table_run_tiles (KConvBackend backend, unsigned seed);

/* --bench: the table's named cases at full size on backend, kconv's own
 * path and then each of `strategies` forced (a path listed once however
 * many names lead to it); one row each, CSV where args ask for it. */
void conv_table_bench (KConvBackend backend, const BenchArgs * args,
    const char *const *strategies, int n_strategies);

#endif
