/* kconv: the CUDA matcher of 16-bit samples, for its files
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * kmatch-cuda-deep.cu: the template, the region staged as values, the SAD
 * search; kmatch-cuda-deep-scored.cu: the ssd, ncc and zncc searches.
 */
#ifndef KMATCH_CUDA_DEEP_PRIVATE_H
#define KMATCH_CUDA_DEEP_PRIVATE_H

#include <cuda_runtime.h>
#include <cufft.h>
#include "kmatch-cuda-deep.h"

struct KMatchCudaDeep
{
  int device;
  cudaStream_t stream;
  int tw, th;
  unsigned generation; /* bumped with each template */
  uint16_t *d_tmpl;    /* the values (0 where they do not count) */
  uint16_t *d_keep;    /* 0xffff where they count, 0 elsewhere; NULL: all */
  uint16_t *d_values;  /* the region's values, pitch values a row */
  size_t values_size;
  uint8_t *d_raw; /* a host region's words, as they came */
  size_t raw_size;
  uint64_t *d_map;
  size_t map_size;
  unsigned long long *d_best; /* the least sum, then its first position */
  unsigned long long *h_best;
  /* the scored searches' (kmatch-cuda-deep-scored.cu) */
  double *d_tmpl_f64; /* the template as doubles, for generation: */
  unsigned tmpl_f64_generation;
  size_t tmpl_f64_size;
  double *d_ft;      /* the sum of F T at every position (exact) */
  size_t ft_size;
  uint64_t *d_col;   /* column sums of F and of F^2 */
  size_t col_size;
  double *d_scores;
  size_t scores_size;
  double2 *d_blocks; /* each block's best: score, then index */
  size_t blocks_size;
  KMatchSums *d_sums, *h_sums;
  int2 *d_picks;
  int picks_cap;
  /* the correlation through the FFT: plans for nx x ny, the region's
   * plane and spectra, the template's bytes' spectra (for generation) */
  int nx, ny;
  cufftHandle fwd, inv;
  int have_plans;
  double *d_real, *d_real2;
  double2 *d_spec, *d_spec2, *d_kspec;
  unsigned kspec_generation;
};

/* The region (as kmatch_cuda_deep_search takes it) unpacked into
 * d->d_values, *pitch values a row, queued on d->stream. */
KConvStatus kmatch_cuda_deep_stage (KMatchCudaDeep * d, const uint8_t * frame,
    ptrdiff_t stride, int on_device, const KMatchCudaWords * words, int mw,
    int mh, int *pitch);

/* Frees what the scored searches made */
void kmatch_cuda_deep_scored_release (KMatchCudaDeep * d);

#endif
