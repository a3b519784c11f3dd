/* kconv: large kernels on the CPU through the FFT (FFTW)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame is cut into tiles (overlap-save: a tile's transform covers its
 * outputs and the kernel's halo around them, with the border rule applied
 * where the halo leaves the frame, so every border mode works), each
 * transformed, multiplied by the conjugate spectrum of the kernel (a
 * correlation) and transformed back, the tiles spread over the threads.
 * A frame smaller than a tile is one tile of its own size.
 * Exact kernels in double precision: the error stays far below 0.5, so
 * rounding recovers the exact integer sum and the output has the same bits
 * as the direct path.  Other kernels, whose outputs need only be within 1
 * of the exact result, in single precision where FFTW's float library is
 * built in (half the memory traffic, twice the values a vector).  Plans and
 * buffers are made on the first frame of a size and kept.
 *
 * The body is kconv-fft-impl.h, included here once per precision.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fftw3.h>
#include <pthread.h>
#include "kconv-cpu.h"
#include "kconv-error.h"
#include "kconv-team.h"

/* most time FFTW may spend choosing each plan, at the first frame of a size */
#define PLAN_SECONDS 1.0

/* A tile's transform side for a kernel side k: large frames go through in
 * tiles whose transforms stay in the caches (overlap-save), each giving
 * side - k + 1 outputs a side.  Measured on 1080p and 4K RGBA: 256 is best
 * up to 61x61 (128 to 320 within 5% for 31x31; 1024 1.7x slower), 480 for
 * 121x121. */
static int
kconv_fft_tile (int k)
{
  const int want = 4 * (k - 1);
  return kconv_fft_size (want < 256 ? 256 : want);
}


typedef struct KConvCpuFftD KConvCpuFftD;
#define REAL double
#define F(x) fftw_##x
#define NAME(x) x##_d
#define FFT_T KConvCpuFftD
#ifdef KCONV_FFTW_THREADS
#define FFT_THREADS 1
#else
#define FFT_THREADS 0
#endif
#include "kconv-fft-impl.h"

#ifdef KCONV_HAVE_FFTWF
typedef struct KConvCpuFftF KConvCpuFftF;
#define REAL float
#define F(x) fftwf_##x
#define NAME(x) x##_f
#define FFT_T KConvCpuFftF
#ifdef KCONV_FFTWF_THREADS
#define FFT_THREADS 1
#else
#define FFT_THREADS 0
#endif
#include "kconv-fft-impl.h"
#endif

/* one precision or the other, chosen by the kernel */
struct KConvCpuFft
{
  KConvCpuFftD *d;
#ifdef KCONV_HAVE_FFTWF
  KConvCpuFftF *f;
#endif
};

KConvCpuFft *
kconv_cpu_fft_new (const KConvPlan * plan)
{
  KConvCpuFft *fft = calloc (1, sizeof *fft);
  if (!fft)
    return NULL;
#ifdef KCONV_HAVE_FFTWF
  if (!plan->exact) {
    if (!(fft->f = kconv_cpu_fft_new_f (plan))) {
      free (fft);
      return NULL;
    }
    return fft;
  }
#endif
  if (!(fft->d = kconv_cpu_fft_new_d (plan))) {
    free (fft);
    return NULL;
  }
  return fft;
}

KConvStatus
kconv_cpu_fft_run (KConvCpuFft * fft, int n_threads, const KConvImage * src,
    const KConvImage * dst)
{
#ifdef KCONV_HAVE_FFTWF
  if (fft->f)
    return kconv_cpu_fft_run_f (fft->f, n_threads, src, dst);
#endif
  return kconv_cpu_fft_run_d (fft->d, n_threads, src, dst);
}

void
kconv_cpu_fft_free (KConvCpuFft * fft)
{
  if (!fft)
    return;
  kconv_cpu_fft_free_d (fft->d);
#ifdef KCONV_HAVE_FFTWF
  kconv_cpu_fft_free_f (fft->f);
#endif
  free (fft);
}
