/* kconv tests: the path-forcing knobs, from the environment
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * kconv reads no environment; the tests and benchmarks that measure or
 * check one path at a time read these variables here and set the knobs
 * (kernels/support/kconv-tuning.h) for their process:
 *   KCONV_CPU_STRATEGY=direct|fft     the CPU's path for large kernels
 *   KCONV_CPU_FIXED=0                 blurs in floats, not 16-bit lanes
 *   KCONV_CPU_ISA=avx2|baseline       the CPU held to a narrower set
 *   KCONV_CUDA_STRATEGY=NAME          a CUDA path (kconv_force_strategy;
 *                                     test-cuda-vs-reference --list)
 *   KCONV_CUDA_BANDS=N                bands a frame in flight is cut into
 *   KCONV_CUDA_MATCH_PRUNE=0|1        the GPU's search bounds positions
 *                                     first never, or always
 *   KCONV_CUDA_MATCH_FFT=0|1          the GPU correlates directly, never
 *                                     through the FFT; or through it
 *                                     wherever it is exact
 *   KCONV_CUDA_MATCH_LEFT=0|1         the groups of positions the bounds
 *                                     leave summed a thread each, or a
 *                                     block each however many are left
 *   KCONV_CUDA_WINDOWS_IN_TURN=1      the regions' windows on CUDA filtered
 *                                     one after another, not side by side
 */
#ifndef KCONV_TUNING_ENV_H
#define KCONV_TUNING_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kconv-tuning.h"

static inline void
tuning_from_environment (void)
{
  KConvTuning t = kconv_tuning ();
  const char *v;
  if ((v = getenv ("KCONV_CPU_STRATEGY")))
    snprintf (t.cpu_strategy, sizeof t.cpu_strategy, "%s", v);
  if ((v = getenv ("KCONV_CPU_FIXED")))
    t.cpu_fixed = strcmp (v, "0") != 0;
  if ((v = getenv ("KCONV_CPU_ISA")))
    t.cpu_isa = !strcmp (v, "avx2") ? KCONV_ISA_AVX2 :
        !strcmp (v, "baseline") ? KCONV_ISA_BASELINE : KCONV_ISA_AVX512;
  if ((v = getenv ("KCONV_CUDA_STRATEGY")))
    snprintf (t.cuda_strategy, sizeof t.cuda_strategy, "%s", v);
  if ((v = getenv ("KCONV_CUDA_BANDS")))
    t.cuda_bands = atoi (v);
  if ((v = getenv ("KCONV_CUDA_MATCH_PRUNE")))
    t.cuda_match_prune = atoi (v) != 0;
  if ((v = getenv ("KCONV_CUDA_MATCH_FFT")))
    t.cuda_match_fft = atoi (v) > 0 ? 1 : atoi (v) == 0 ? 0 : -1;
  if ((v = getenv ("KCONV_CUDA_MATCH_LEFT")))
    t.cuda_match_left = atoi (v) > 0 ? 1 : atoi (v) == 0 ? 0 : -1;
  if ((v = getenv ("KCONV_CUDA_WINDOWS_IN_TURN")))
    t.cuda_windows_in_turn = atoi (v) != 0;
  kconv_tuning_set (&t);
}

#endif /* KCONV_TUNING_ENV_H */
