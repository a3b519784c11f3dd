/* kconv: template matching on the CPU
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_CPU_H
#define KMATCH_CPU_H

#include <stdint.h>
#include <stddef.h>
#include "kmatch.h"

/* The samples a search compares, packed: w x h pixels of `ch` bytes from
 * rows `stride` apart of pixel_stride bytes, the bytes at offsets[0 ..
 * ch - 1]; or with luma, one byte, the luma of R, G, B at offsets[0 .. 2]. */
void kmatch_cpu_pack (uint8_t * dst, const uint8_t * src, ptrdiff_t stride,
    int pixel_stride, const int *offsets, int ch, int luma, int w, int h,
    int n_threads);

/* byte_mask (both maps): NULL, or tw * th * ch bytes, 0xff where the
 * template counts and 0 where it does not; the threaded map wants the
 * template's bytes that do not count set to 0. */
/* As kmatch_reference_map (reference/kconv-reference.h), on up to
 * n_threads threads. */
void kmatch_cpu_map (const uint8_t * frame, ptrdiff_t stride,
    const uint8_t * tmpl, int tw, int th, int ch, int mw, int mh,
    uint64_t * map, const uint8_t * byte_mask, int n_threads);

/* What the CPU keeps for a matcher's correlations through the FFT: plans,
 * tiles and kernels' spectra (NULL where FFTW is not built in). */
typedef struct KMatchFft KMatchFft;
KMatchFft *kmatch_fft_new (void);
void kmatch_fft_free (KMatchFft * f);

/* A correlation of ch planes of rw x rh bytes (plane c at planes + c * rw
 * * rh) with ch kernel planes of tw x th bytes (plane c at kernel + c * tw
 * * th): at each of mw x mh positions, row-major, the sum over c, j, i of
 * F_c(x+i, y+j) K_c(i, j), or with squares (K 0 or 1 then) of
 * F_c(x+i, y+j)^2 K_c(i, j); exact (16-bit values times bytes too:
 * the FFT's error stays under 0.05 for 250 x 250 kernels).  fft: NULL, or where the CPU may
 * keep what its FFT path makes (a kernel's spectrum is kept by its
 * address: the kernel must not change while fft lives). */
typedef struct
{
  const uint8_t *planes;
  int rw, rh;
  const uint8_t *kernel;
  int tw, th, ch, mw, mh, squares, n_threads;
  KMatchFft *fft;
  /* or (planes NULL) planes of 16-bit values, not squared: a 16-bit
   * template is correlated as its high and low bytes, each a kernel */
  const uint16_t *planes16;
} KMatchCorrelation;

/* The correlation through the FFT (kmatch-fft.c): 0, or -1 when memory is
 * short. */
int kmatch_fft_correlate (KMatchFft * f, const KMatchCorrelation * q,
    uint64_t * out);

/* The correlation on up to n_threads threads: 0, or -1 when memory is
 * short. */
int kmatch_cpu_correlate (const KMatchCorrelation * q, uint64_t * out);

/* The values of a w x h region of 16-bit words (pixel_stride bytes apart,
 * depth bits, shift bits up, either byte order), packed. */
void kmatch_cpu_pack_deep (uint16_t * dst, const uint8_t * src,
    ptrdiff_t stride, int pixel_stride, int depth, int shift, int big_endian,
    int w, int h, int n_threads);

/* 16-bit values, one channel (rows `stride` values apart), as
 * kmatch_reference_map_deep, on up to n_threads threads; tmpl is 0 where
 * mask (NULL, or a byte a pixel) says the pixel does not count.  0, or -1
 * when memory is short. */
int kmatch_cpu_map_deep (const uint16_t * frame, ptrdiff_t stride,
    const uint16_t * tmpl, const uint8_t * mask, int tw, int th, int mw,
    int mh, uint64_t * map, int n_threads);

/* Exact search that prunes (kmatch-prune.c): the same positions as the
 * exhaustive map and greedy pick of kmatch.c.  With byte_mask (as for
 * kmatch_cpu_map), tmpl is the template with its bytes that do not count
 * set to 0.
 * Writes up to max_matches positions (relative to frame) to out and
 * returns their count; -1 when memory is short; KMATCH_PRUNE_NOT_WORTH_IT
 * for templates too small for it to pay (under 16 pixels a side) or too
 * large for its 32-bit block sums (2^24 pixels). */
#define KMATCH_PRUNE_NOT_WORTH_IT (-2)
typedef struct KMatchPrune KMatchPrune;
KMatchPrune *kmatch_prune_new (void);
int kmatch_prune_search (KMatchPrune * k, const uint8_t * frame,
    ptrdiff_t stride, const uint8_t * tmpl, const uint8_t * byte_mask, int tw,
    int th, int ch, int mw, int mh, int max_matches, KMatchPosition * out,
    int n_threads);
void kmatch_prune_free (KMatchPrune * k);

/* The same for 16-bit values, one channel (rows `stride` values apart; tmpl
 * 0 where mask, a byte a pixel, says the pixel does not count). */
typedef struct KMatchPruneDeep KMatchPruneDeep;
KMatchPruneDeep *kmatch_prune_deep_new (void);
int kmatch_prune_deep_search (KMatchPruneDeep * k, const uint16_t * frame,
    ptrdiff_t stride, const uint16_t * tmpl, const uint8_t * mask, int tw,
    int th, int ch, int mw, int mh, int max_matches, KMatchPosition * out,
    int n_threads);
void kmatch_prune_deep_free (KMatchPruneDeep * k);

#endif
