/* kconv: large kernels on the CPU through the FFT (FFTW)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame is laid into zero-filled planes with the border rule applied to
 * the kernel's halo (every border mode works), transformed, multiplied by
 * the conjugate spectrum of the kernel (a correlation) and transformed back.
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
#include "kconv-threads.h"

/* most time FFTW may spend choosing each plan, at the first frame of a size */
#define PLAN_SECONDS 1.0

#if defined(KCONV_FFTW_THREADS) || defined(KCONV_FFTWF_THREADS)
/* FFTW's parallel loops run on our workers, which sleep when idle */
typedef struct
{
  void *(*work) (char *);
  char *data;
  size_t elsize;
} FftwLoop;

static void
fftw_part (int t, int n, void *ctx)
{
  const FftwLoop *l = ctx;
  (void) n;
  l->work (l->data + (size_t) t * l->elsize);
}

static void
fftw_parallel_loop (void *(*work) (char *), char *jobdata, size_t elsize,
    int njobs, void *data)
{
  FftwLoop l = { work, jobdata, elsize };
  (void) data;
  kconv_parallel (njobs, fftw_part, &l);
}

#endif

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
