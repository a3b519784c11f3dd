/* kconv: the knobs that force a path, for measuring and testing
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Not the public API: the tests and benchmarks include this header and set
 * the knobs from their own code (tests/tuning-env.h reads them from the
 * environment for them); kconv itself reads no environment.  A filter
 * takes them when it is made.
 */
#ifndef KCONV_TUNING_H
#define KCONV_TUNING_H

#include "kconv.h"

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* KCONV_CPU_ISA: avx512 (the default: as wide as the CPU allows), avx2
 * (x86-64-v3) or baseline (plain x86-64, SSE2) */
enum
{
  KCONV_ISA_BASELINE,
  KCONV_ISA_AVX2,
  KCONV_ISA_AVX512,
};

typedef struct
{
  char cpu_strategy[16];        /* "" (measured choice), "direct" or "fft" */
  int cpu_fixed;                /* 0 keeps blurs on the CPU in floats (no
                                 * 16-bit fixed point) */
  int cpu_isa;                  /* the widest instruction set the CPU's
                                 * paths may take, KCONV_ISA_*: narrower
                                 * than the CPU's to test and time those
                                 * paths (KCONV_CPU_ISA=avx2, baseline) */
  char cuda_strategy[16];       /* "" or a CUDA path's name
                                 * (kconv_strategy_name): forced where it
                                 * takes the kernel */
  int cuda_bands;               /* bands a frame in flight is cut into
                                 * (0: the default) */
  int cuda_match_prune;         /* -1: the GPU's search bounds positions
                                 * first where that pays; 0 never, 1 always */
  int cuda_match_fft;           /* -1: the GPU correlates through the FFT
                                 * where it is exact (16-bit samples) and,
                                 * for 8-bit ones, costs less; 1 wherever
                                 * it is exact; 0 never (directly) */
  int cuda_match_left;          /* -1: where bounding leaves few groups of
                                 * positions, the GPU sums each with a
                                 * block of threads; 1 always; 0 never (a
                                 * thread each, where they lie) */
  int cuda_windows_in_turn;     /* 1: the windows of a frame's regions in
                                 * device memory filtered one after another
                                 * on the filter's stream, not side by
                                 * side on side streams */
} KConvTuning;

/* The knobs in force: the defaults, unless set. */
KConvTuning kconv_tuning (void);

/* Sets them for the process; NULL goes back to the defaults. */
void kconv_tuning_set (const KConvTuning * tuning);

/* The name of the backend's path i (0, 1, ...), as kconv_force_strategy
 * takes it; NULL past the last, and on a backend with one path (or none in
 * this build). */
const char *kconv_strategy_name (KConvBackend backend, int i);

/* Forces the path that filters made from now on take on a backend, where
 * the path can take their kernel (else kconv chooses as usual): one of
 * kconv_strategy_name's.  NULL gives the choice back.
 * KCONV_ERROR_INVALID_ARGUMENT for another backend or name. */
KConvStatus kconv_force_strategy (KConvBackend backend, const char *name);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KCONV_TUNING_H */
