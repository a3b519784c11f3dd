/* kconv: the knobs that force a path, for measuring and testing
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Read once from the environment (KCONV_CPU_STRATEGY, KCONV_CPU_FIXED,
 * KCONV_CPU_ISA, KCONV_CUDA_STRATEGY, KCONV_CUDA_PACKED,
 * KCONV_CUDA_BANDS, KCONV_CUDA_MATCH_PRUNE, KCONV_CUDA_WAIT,
 * KCONV_CUDA_COPIES); a test or benchmark may set them for the process
 * instead.  A filter takes them when it is made.
 */
#ifndef KCONV_TUNING_H
#define KCONV_TUNING_H

#ifdef __cplusplus
extern "C" {
#endif

/* KCONV_CUDA_WAIT: spin (the CUDA runtime's default), sleep (polls, with
 * 20 us naps between) or block (the runtime's blocking wait). */
enum
{
  KCONV_WAIT_SPIN,
  KCONV_WAIT_SLEEP,
  KCONV_WAIT_BLOCK,
};

/* KCONV_CUDA_COPIES: a filter's upload and download streams are its own,
 * shared with the other filters of its CUDA context, or shared for
 * uploads only (shared-up). */
enum
{
  KCONV_COPIES_OWN,
  KCONV_COPIES_SHARED,
  KCONV_COPIES_SHARED_UP,
};

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
  int cuda_wait;                /* how a thread waits for a frame in flight
                                 * on the GPU: KCONV_WAIT_* */
  int cuda_copies;              /* whose copy streams: KCONV_COPIES_* */
} KConvTuning;

/* The knobs in force: the environment's, unless set. */
KConvTuning kconv_tuning (void);

/* Sets them for the process; NULL goes back to the environment's. */
void kconv_tuning_set (const KConvTuning * tuning);

#ifdef __cplusplus
}
#endif
#endif /* KCONV_TUNING_H */
