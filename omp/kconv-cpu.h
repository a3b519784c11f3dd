/* kconv: CPU backends (scalar reference and the threaded, vectorised one)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_CPU_H
#define KCONV_CPU_H

#include "kconv-plan.h"
#include "kconv-team.h"
#include "kconv-tuning.h"

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* A plan's 16-bit path (kconv-fixed.c, below) */
typedef struct KConvCpuFixed KConvCpuFixed;
/* A box's integer running sums (kconv-box.c, below) */
typedef struct KConvCpuBox KConvCpuBox;

/* The widest instruction set the CPU's paths take (KCONV_ISA_*, see
 * kconv-tuning.h): what the CPU has, held to KCONV_CPU_ISA where that is
 * narrower.  kconv_cpu_avx512 (): 1 where it is AVX-512 (F and BW). */
int kconv_cpu_isa (void);
int kconv_cpu_avx512 (void);

/* A mask of the bytes to write in each 4-byte pixel (0xff each) as a bit
 * a byte over 64 bytes, for AVX-512's byte blends; 0 for 0. */
static inline uint64_t
kconv_cpu_keep_bits (uint32_t keep)
{
  uint64_t bits = 0;
  for (int b = 0; b < 64; b++)
    if (keep >> (8 * (b % 4)) & 0xff)
      bits |= 1ull << b;
  return bits;
}

/* Working memory of the CPU backend, kept between frames. */
typedef struct
{
  float *data;
  size_t n_floats;
} KConvCpuScratch;

/* How kconv_cpu_run convolves: one 2D pass, or horizontal then vertical
 * taps, in floats; or in 16-bit lanes (kconv_cpu_fixed_kind says which);
 * or, for an exact kernel whose weights are all one value (a box), by
 * running sums, at a cost that does not grow with its size. */
typedef enum
{
  KCONV_CPU_DIRECT,
  KCONV_CPU_SEPARABLE,
  KCONV_CPU_FIXED,
  KCONV_CPU_BOX,
} KConvCpuPass;

/* fixed and box: the plan's integer paths, NULL where none takes it */
KConvStatus kconv_cpu_run (const KConvPlan * plan, KConvCpuPass pass,
    const KConvCpuFixed * fixed, const KConvCpuBox * box, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst);
/* At least n_floats of scratch, zeroed when it grows (row tails past an
 * image are read, never written: they stay defined). */
KConvStatus kconv_cpu_scratch_reserve (KConvCpuScratch * scratch,
    size_t n_floats);
void kconv_cpu_scratch_clear (KConvCpuScratch * scratch);
/* How the integer paths (kconv-fixed.c, kconv-box.c, kconv-words.c) run a
 * frame: fn (t, n, job) for n bands of src's rows (n_threads, at least 1,
 * at most the rows), band t's scratch per_thread bytes from *mem, with
 * *xmap the plan's border map for src's width while they run. */
KConvStatus kconv_cpu_bands (const KConvPlan * plan, const KConvImage * src,
    int n_threads, KConvCpuScratch * scratch, size_t per_thread,
    uint8_t ** mem, int **xmap, KConvPartFunc fn, void *job);

/* The 16-bit paths (kconv-fixed.c), on a CPU with AVX2: exact kernels with
 * 255 * sum |w| + divisor / 2 < 2^15, up to 7x7 in a 2D pass, or rank-1
 * from 3x3 to 33x33 in two; and blurs: separable inexact kernels
 * with non-negative taps, factors summing to at most 1 and at most 33 taps
 * each (two passes, within 1). */
typedef enum
{
  KCONV_CPU_FIXED_NONE,
  KCONV_CPU_FIXED_INT,
  KCONV_CPU_FIXED_INT_SEPARABLE,
  KCONV_CPU_FIXED_BLUR,
} KConvCpuFixedKind;
/* Worked out once for a plan (the division's magic number among it); NULL
 * where neither kind takes it.  The plan must outlive the object. */
KConvCpuFixed *kconv_cpu_fixed_new (const KConvPlan * plan);
KConvCpuFixedKind kconv_cpu_fixed_kind (const KConvCpuFixed * fixed);
void kconv_cpu_fixed_free (KConvCpuFixed * fixed);
/* src with every byte of a pixel a channel, in memory order; keep, if not
 * 0, marks the bytes of each 4-byte pixel to convolve, the others copied. */
KConvStatus kconv_cpu_fixed_run (const KConvCpuFixed * fixed, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    uint32_t keep);

/* Boxes by running sums in integer lanes (kconv-box.c), on a CPU with AVX2:
 * exact kernels whose weights are all one value w, |w| dividing the
 * divisor, at any size; NULL for others.  The plan must outlive the
 * object.  src as for kconv_cpu_fixed_run. */
KConvCpuBox *kconv_cpu_box_new (const KConvPlan * plan);
void kconv_cpu_box_free (KConvCpuBox * box);
KConvStatus kconv_cpu_box_run (const KConvCpuBox * box, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    uint32_t keep);

/* Small kernels on 16-bit words in one pass (kconv-words.c), on a CPU with
 * AVX2: exact ones up to 7x7 with maxval * sum |w| under 2^30 (2^23 where
 * the divisor is not a power of two) in 32-bit integer sums; inexact ones
 * of up to 9 taps, or separable up to 7x7, in floats.
 * kconv_cpu_words_takes: whether it takes the plan (at its depth). */
int kconv_cpu_words_takes (const KConvPlan * plan);
/* src's pixels all channels (pixel_stride 2 * n_channels, words in order);
 * keep, if >= 0, is the word of each 4-word pixel copied from src. */
KConvStatus kconv_cpu_words_run (const KConvPlan * plan, int n_threads,
    KConvCpuScratch * scratch, const KConvImage * src, const KConvImage * dst,
    int keep);

/* Large kernels through FFTW (built where FFTW is found: KCONV_HAVE_FFTW).
 * The plan must outlive the object. */
typedef struct KConvCpuFft KConvCpuFft;
KConvCpuFft *kconv_cpu_fft_new (const KConvPlan * plan);
KConvStatus kconv_cpu_fft_run (KConvCpuFft * fft, int n_threads,
    const KConvImage * src, const KConvImage * dst);
void kconv_cpu_fft_free (KConvCpuFft * fft);



/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KCONV_CPU_H */
