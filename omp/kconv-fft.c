/* kconv: large kernels on the CPU through the FFT (FFTW)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame is laid into zero-filled planes with the border rule applied to
 * the kernel's halo (every border mode works), transformed, multiplied by
 * the conjugate spectrum of the kernel (a correlation) and transformed back.
 * Double precision: for exact kernels the error stays far below 0.5, so
 * rounding recovers the exact integer sum and the output has the same bits
 * as the direct path.  Plans and buffers are made on the first frame of a
 * size and kept.
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

struct KConvCpuFft
{
  const KConvPlan *plan;
  int width, height, nch, threads;      /* what the plans were made for */
  int fw, fh;
  fftw_plan fwd, inv;
  double *real;                 /* nch planes of fh x fw */
  fftw_complex *spec;           /* nch planes of fh x (fw / 2 + 1) */
  fftw_complex *kspec;          /* conj (FFT (kernel)) / (fw * fh) */
};


static void
fft_release (KConvCpuFft * f)
{
  if (f->fwd)
    fftw_destroy_plan (f->fwd);
  if (f->inv)
    fftw_destroy_plan (f->inv);
  fftw_free (f->real);
  fftw_free (f->spec);
  fftw_free (f->kspec);
  f->fwd = f->inv = NULL;
  f->real = NULL;
  f->spec = f->kspec = NULL;
  f->width = f->height = f->nch = 0;
}

#ifdef KCONV_FFTW_THREADS
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

static void
fftw_setup (void)
{
  fftw_make_planner_thread_safe ();
  fftw_init_threads ();
  fftw_threads_set_callback (fftw_parallel_loop, NULL);
}
#endif

static void
fftw_setup_once (void)
{
#ifdef KCONV_FFTW_THREADS
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, fftw_setup);
#endif
}

static KConvStatus
fft_prepare (KConvCpuFft * f, int width, int height, int nch, int threads)
{
  const KConvPlan *plan = f->plan;
  fft_release (f);
  f->fw = kconv_fft_size (width + plan->cols - 1);
  f->fh = kconv_fft_size (height + plan->rows - 1);
  const int fwc = f->fw / 2 + 1;
  const size_t plane = (size_t) f->fw * f->fh, cplane = (size_t) fwc * f->fh;
  f->real = fftw_alloc_real (plane * nch);
  f->spec = fftw_alloc_complex (cplane * nch);
  f->kspec = fftw_alloc_complex (cplane);
  if (!f->real || !f->spec || !f->kspec) {
    fft_release (f);
    return KCONV_ERROR_OUT_OF_MEMORY;
  }

  fftw_setup_once ();
#ifdef KCONV_FFTW_THREADS
  fftw_plan_with_nthreads (threads);
#endif
  /* measured plans run about 1.5x faster than estimated ones; planning
   * happens once per frame size and is capped */
  fftw_set_timelimit (PLAN_SECONDS);
  int n[2] = { f->fh, f->fw };
  f->fwd = fftw_plan_many_dft_r2c (2, n, nch, f->real, NULL, 1, (int) plane,
      f->spec, NULL, 1, (int) cplane, FFTW_MEASURE);
  f->inv = fftw_plan_many_dft_c2r (2, n, nch, f->spec, NULL, 1, (int) cplane,
      f->real, NULL, 1, (int) plane, FFTW_MEASURE);
  fftw_plan one = fftw_plan_dft_r2c_2d (f->fh, f->fw, f->real, f->kspec,
      FFTW_MEASURE);
  if (!f->fwd || !f->inv || !one) {
    if (one)
      fftw_destroy_plan (one);
    fft_release (f);
    return KCONV_ERROR_OUT_OF_MEMORY;
  }

  /* the kernel's spectrum: the weights at the origin of a zero plane */
  const double scale = plan->exact ? 1.0 : 1.0 / plan->divisor_f;
  memset (f->real, 0, sizeof (double) * plane);
  for (int r = 0; r < plan->rows; r++)
    for (int c = 0; c < plan->cols; c++)
      f->real[(size_t) r * f->fw + c] = plan->weights[r * plan->cols + c] *
          scale;
  fftw_execute (one);
  fftw_destroy_plan (one);
  const double norm = 1.0 / (double) plane;
  for (size_t i = 0; i < cplane; i++) {
    f->kspec[i][0] *= norm;
    f->kspec[i][1] *= -norm;
  }

  f->width = width;
  f->height = height;
  f->nch = nch;
  f->threads = threads;
  return KCONV_OK;
}

KConvCpuFft *
kconv_cpu_fft_new (const KConvPlan * plan)
{
  KConvCpuFft *f = calloc (1, sizeof *f);
  if (f)
    f->plan = plan;
  return f;
}

/* One frame's three passes between the transforms, each in bands. */
typedef struct
{
  const KConvCpuFft *f;
  const KConvImage *src, *dst;
} FftFrame;

/* source samples, border applied, into the planes */
static void
load_planes (int t, int n, void *ctx)
{
  const FftFrame *fr = ctx;
  const KConvCpuFft *f = fr->f;
  const KConvPlan *plan = f->plan;
  const KConvImage *src = fr->src;
  const int fw = f->fw, nch = f->nch, ps = src->pixel_stride;
  const size_t plane = (size_t) fw * f->fh;
  const int win_w = src->width + plan->cols - 1;
  const int win_h = src->height + plan->rows - 1;
  int y0, y1;
  kconv_band (f->fh, t, n, &y0, &y1);
  for (int y = y0; y < y1; y++) {
    int sy = y < win_h ? kconv_border_index (plan->border, y - plan->ay,
        src->height) : -1;
    const uint8_t *srow = sy < 0 ? NULL : src->data + (ptrdiff_t) sy *
        src->stride;
    for (int c = 0; c < nch; c++) {
      double *o = f->real + c * plane + (size_t) y * fw;
      for (int x = 0; x < fw; x++) {
        int sx = srow && x < win_w ? kconv_border_index (plan->border,
            x - plan->ax, src->width) : -1;
        o[x] = sx < 0 ? 0.0 : srow[(size_t) sx * ps + src->channel_offset[c]];
      }
    }
  }
}

/* each channel's spectrum times the kernel's */
static void
multiply_spectra (int t, int n, void *ctx)
{
  const KConvCpuFft *f = ((const FftFrame *) ctx)->f;
  const size_t cplane = (size_t) (f->fw / 2 + 1) * f->fh;
  const size_t i0 = cplane * t / n, i1 = cplane * (t + 1) / n;
  for (size_t i = i0; i < i1; i++) {
    const double kr = f->kspec[i][0], ki = f->kspec[i][1];
    for (int c = 0; c < f->nch; c++) {
      fftw_complex *s = &f->spec[c * cplane + i];
      const double sr = (*s)[0], si = (*s)[1];
      (*s)[0] = sr * kr - si * ki;
      (*s)[1] = sr * ki + si * kr;
    }
  }
}

/* back to 8 bits by the rule in kconv.h; untouched bytes copied */
static void
store_rows (int t, int n, void *ctx)
{
  const FftFrame *fr = ctx;
  const KConvCpuFft *f = fr->f;
  const KConvPlan *plan = f->plan;
  const KConvImage *src = fr->src, *dst = fr->dst;
  const int nch = f->nch, ps = src->pixel_stride;
  const size_t plane = (size_t) f->fw * f->fh;
  int y0, y1;
  kconv_band (src->height, t, n, &y0, &y1);
  for (int y = y0; y < y1; y++) {
    uint8_t *drow = dst->data + (ptrdiff_t) y * dst->stride;
    if (nch < ps && !dst->keep_other_bytes)
      memcpy (drow, src->data + (ptrdiff_t) y * src->stride,
          (size_t) src->width * ps);
    for (int c = 0; c < nch; c++) {
      const double *v = f->real + c * plane + (size_t) y * f->fw;
      uint8_t *d = drow + src->channel_offset[c];
      for (int x = 0; x < src->width; x++) {
        uint8_t out;
        if (plan->exact) {
          out = kconv_finish_exact (plan, (int64_t) llrint (v[x]));
        } else {
          double v2 = plan->absolute ? fabs (v[x]) : v[x];
          v2 = floor (v2 + plan->offset_f + 0.5);
          out = v2 < 0.0 ? 0 : v2 > 255.0 ? 255 : (uint8_t) v2;
        }
        d[(size_t) x * ps] = out;
      }
    }
  }
}

KConvStatus
kconv_cpu_fft_run (KConvCpuFft * f, int n_threads, const KConvImage * src,
    const KConvImage * dst)
{
  const int nch = src->n_channels;
  if (src->width != f->width || src->height != f->height || nch != f->nch
      || n_threads != f->threads) {
    KConvStatus st = fft_prepare (f, src->width, src->height, nch, n_threads);
    if (st != KCONV_OK)
      return st;
  }
  FftFrame fr = { f, src, dst };
  kconv_parallel (n_threads, load_planes, &fr);
  fftw_execute (f->fwd);
  kconv_parallel (n_threads, multiply_spectra, &fr);
  fftw_execute (f->inv);
  kconv_parallel (n_threads, store_rows, &fr);
  return KCONV_OK;
}

void
kconv_cpu_fft_free (KConvCpuFft * f)
{
  if (!f)
    return;
  fft_release (f);
  free (f);
}
