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

#ifdef __cplusplus
extern "C" {
#endif

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
  char cuda_strategy[16];       /* "" or small, direct, separable, fft, mma,
                                 * wgmma, sepmma: forced where it takes the
                                 * kernel */
  int cuda_packed;              /* 0 keeps small integer kernels on the
                                 * float path (no packed lanes, no DP4A);
                                 * 2 ("tiles") keeps them on their
                                 * shared-memory tile kernels (no 3x3
                                 * streaming kernel) */
  int cuda_bands;               /* bands a frame in flight is cut into
                                 * (0: the default) */
  int cuda_match_prune;         /* -1: the GPU's search bounds positions
                                 * first where that pays; 0 never, 1 always */
} KConvTuning;

/* The knobs in force: the defaults, unless set. */
KConvTuning kconv_tuning (void);

/* Sets them for the process; NULL goes back to the defaults. */
void kconv_tuning_set (const KConvTuning * tuning);

/* Forces the path that filters made from now on take on a backend, where
 * the path can take their kernel (else kconv chooses as usual): on
 * KCONV_BACKEND_CPU "direct" or "fft"; on KCONV_BACKEND_CUDA "small",
 * "direct", "separable", "fft", "mma", "wgmma" or "sepmma".  NULL gives the
 * choice back.  KCONV_ERROR_INVALID_ARGUMENT for another backend or name. */
KConvStatus kconv_force_strategy (KConvBackend backend, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* KCONV_TUNING_H */
