/* kconv: the FFT path's body, for one precision
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Included by kconv-fft.c once per precision, with REAL (double, float),
 * F (x) (fftw_x, fftwf_x: FFTW's names for it), NAME (x) (x_d, x_f),
 * FFT_T (the state's type) and FFT_THREADS (1 where that library's threads
 * are driven through kconv's workers) defined; it undefines them at its
 * end.
 */
struct FFT_T
{
  const KConvPlan *plan;
  int width, height, nch, threads;      /* what the plans were made for */
  int fw, fh;
    F (plan) fwd, inv;
  REAL *real;                   /* nch planes of fh x fw */
    F (complex) * spec;         /* nch planes of fh x (fw / 2 + 1) */
    F (complex) * kspec;        /* conj (FFT (kernel)) / (fw * fh) */
};


static void NAME (fft_release) (FFT_T * f)
{
  if (f->fwd)
    F (destroy_plan) (f->fwd);
  if (f->inv)
    F (destroy_plan) (f->inv);
  F (free) (f->real);
  F (free) (f->spec);
  F (free) (f->kspec);
  f->fwd = f->inv = NULL;
  f->real = NULL;
  f->spec = f->kspec = NULL;
  f->width = f->height = f->nch = 0;
}

#if FFT_THREADS
static void NAME (threads_setup) (void)
{
  F (make_planner_thread_safe) ();
  F (init_threads) ();
  F (threads_set_callback) (fftw_parallel_loop, NULL);
}
#endif

static void NAME (setup_once) (void)
{
#if FFT_THREADS
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, NAME (threads_setup));
#endif
}

static KConvStatus
NAME (fft_prepare) (FFT_T * f, int width, int height, int nch, int threads)
{
  const KConvPlan * plan = f->plan;
  NAME (fft_release) (f);
  f->fw = kconv_fft_size (width + plan->cols - 1);
  f->fh = kconv_fft_size (height + plan->rows - 1);
  const int fwc = f->fw / 2 + 1;
  const size_t plane = (size_t) f->fw * f->fh, cplane = (size_t) fwc *f->fh;
  f->real = F (alloc_real) (plane * nch);
  f->spec = F (alloc_complex) (cplane * nch);
  f->kspec = F (alloc_complex) (cplane);
  if (!f->real || !f->spec || !f->kspec) {
    NAME (fft_release) (f);
    return KCONV_ERROR_OUT_OF_MEMORY;
  }

  NAME (setup_once) ();
#if FFT_THREADS
  F (plan_with_nthreads) (threads);
#endif
  /* measured plans run about 1.5x faster than estimated ones; planning
   * happens once per frame size and is capped */
  F (set_timelimit) (PLAN_SECONDS);
  int n[2] = { f->fh, f->fw };
  f->fwd = F (plan_many_dft_r2c) (2, n, nch, f->real, NULL, 1, (int) plane,
      f->spec, NULL, 1, (int) cplane, FFTW_MEASURE);
  f->inv = F (plan_many_dft_c2r) (2, n, nch, f->spec, NULL, 1, (int) cplane,
      f->real, NULL, 1, (int) plane, FFTW_MEASURE);
  F (plan) one = F (plan_dft_r2c_2d) (f->fh, f->fw, f->real, f->kspec,
      FFTW_MEASURE);
  if (!f->fwd || !f->inv || !one) {
    if (one)
      F (destroy_plan) (one);
    NAME (fft_release) (f);
    return KCONV_ERROR_OUT_OF_MEMORY;
  }

  /* the kernel's spectrum: the weights at the origin of a zero plane */
  const REAL scale = plan->exact ? 1.0 : 1.0 / plan->divisor_f;
  memset (f->real, 0, sizeof (REAL) * plane);
  for (int r = 0; r < plan->rows; r++)
    for (int c = 0; c < plan->cols; c++)
      f->real[(size_t) r * f->fw + c] = plan->weights[r * plan->cols + c] *
          scale;
  F (execute) (one);
  F (destroy_plan) (one);
  const REAL norm = 1.0 / (REAL) plane;
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

static FFT_T *NAME (kconv_cpu_fft_new) (const KConvPlan * plan)
{
  FFT_T * f = calloc (1, sizeof *f);
  if (f)
    f->plan = plan;
  return f;
}

/* One frame's three passes between the transforms, each in bands. */
typedef struct
{
  const FFT_T *f;
  const KConvImage *src, *dst;
} NAME (FftFrame);

/* source samples, border applied, into the planes */
static void NAME (load_planes) (int t, int n, void *ctx)
{
  const NAME (FftFrame) * fr = ctx;
  const FFT_T *f = fr->f;
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
      REAL *o = f->real + c * plane + (size_t) y * fw;
      for (int x = 0; x < fw; x++) {
        int sx = srow && x < win_w ? kconv_border_index (plan->border,
            x - plan->ax, src->width) : -1;
        o[x] = sx < 0 ? 0.0 : srow[(size_t) sx * ps + src->channel_offset[c]];
      }
    }
  }
}

/* each channel's spectrum times the kernel's */
static void NAME (multiply_spectra) (int t, int n, void *ctx)
{
  const FFT_T * f = ((const NAME (FftFrame) *) ctx)->f;
  const size_t cplane = (size_t) (f->fw / 2 + 1) * f->fh;
  const size_t i0 = cplane * t / n, i1 = cplane * (t + 1) / n;
  for (size_t i = i0; i < i1; i++) {
    const REAL kr = f->kspec[i][0], ki = f->kspec[i][1];
    for (int c = 0; c < f->nch; c++) {
      F (complex) * s = &f->spec[c * cplane + i];
      const REAL sr = (*s)[0], si = (*s)[1];
      (*s)[0] = sr * kr - si * ki;
      (*s)[1] = sr * ki + si * kr;
    }
  }
}

/* back to 8 bits by the rule in kconv.h; untouched bytes copied */
static void NAME (store_rows) (int t, int n, void *ctx)
{
  const NAME (FftFrame) * fr = ctx;
  const FFT_T *f = fr->f;
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
      const REAL *v = f->real + c * plane + (size_t) y * f->fw;
      uint8_t *d = drow + src->channel_offset[c];
      if (plan->exact) {
        for (int x = 0; x < src->width; x++)
          d[(size_t) x * ps] = kconv_finish_exact (plan,
              (int64_t) llrint (v[x]));
        continue;
      }
      /* floor (v + offset + 1/2), clamped: clamped first, truncation is
       * the floor (no call to floor () a sample) */
      const double add = plan->offset_f + 0.5;
      for (int x = 0; x < src->width; x++) {
        double t = (plan->absolute ? fabs (v[x]) : v[x]) + add;
        t = t < 0.0 ? 0.0 : t > 255.0 ? 255.0 : t;
        d[(size_t) x * ps] = (uint8_t) (int) t;
      }
    }
  }
}

static KConvStatus
NAME (kconv_cpu_fft_run) (FFT_T * f, int n_threads, const KConvImage * src,
    const KConvImage * dst)
{
  const int nch = src->n_channels;
  if (src->width != f->width || src->height != f->height || nch != f->nch
      || n_threads != f->threads) {
    KConvStatus st =
        NAME (fft_prepare) (f, src->width, src->height, nch, n_threads);
    if (st != KCONV_OK)
      return st;
  }
  NAME (FftFrame) fr = { f, src, dst };
  kconv_parallel (n_threads, NAME (load_planes), &fr);
  F (execute) (f->fwd);
  kconv_parallel (n_threads, NAME (multiply_spectra), &fr);
  F (execute) (f->inv);
  kconv_parallel (n_threads, NAME (store_rows), &fr);
  return KCONV_OK;
}

static void NAME (kconv_cpu_fft_free) (FFT_T * f)
{
  if (!f)
    return;
  NAME (fft_release) (f);
  free (f);
}

#undef REAL
#undef F
#undef NAME
#undef FFT_T
#undef FFT_THREADS
