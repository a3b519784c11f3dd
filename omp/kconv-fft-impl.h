/* kconv: the FFT path's body, for one precision
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Included by kconv-fft.c once per precision, with REAL (double, float),
 * F (x) (fftw_x, fftwf_x: FFTW's names for it), NAME (x) (x_d, x_f),
 * FFT_T (the state's type) and FFT_THREADS (1 where that library's threads
 * part, which makes its planner thread-safe, is linked) defined; it
 * undefines them at its end.  Every plan is single-threaded: the tiles are
 * spread over kconv's workers.
 */
struct FFT_T
{
  const KConvPlan *plan;
  int width, height, nch, threads;      /* what the plans were made for */
  int tw, th;                   /* a tile's transform */
  int ow, oh;                   /* the outputs a tile gives */
  int tiles_x, tiles_y;
    F (plan) fwd, inv;
  REAL **real;                  /* a thread's tile: th x tw */
    F (complex) ** spec;        /* its spectrum: th x (tw / 2 + 1) */
  int **xmap;                   /* its tile's source columns */
    F (complex) * kspec;        /* conj (FFT (kernel)) / (tw * th) */
};


static void NAME (fft_release) (FFT_T * f)
{
  if (f->fwd)
    F (destroy_plan) (f->fwd);
  if (f->inv)
    F (destroy_plan) (f->inv);
  for (int t = 0; t < f->threads; t++) {
    if (f->real)
      F (free) (f->real[t]);
    if (f->spec)
      F (free) (f->spec[t]);
    if (f->xmap)
      free (f->xmap[t]);
  }
  free (f->real);
  free (f->spec);
  free (f->xmap);
  F (free) (f->kspec);
  f->fwd = f->inv = NULL;
  f->real = NULL;
  f->spec = NULL;
  f->xmap = NULL;
  f->kspec = NULL;
  f->width = f->height = f->nch = f->threads = 0;
}

#if FFT_THREADS
/* filters may plan at the same time, from their own streaming threads */
static void NAME (threads_setup) (void)
{
  F (make_planner_thread_safe) ();
}
#endif

static void NAME (setup_once) (void)
{
#if FFT_THREADS
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, NAME (threads_setup));
#endif
}

/* A tile's transform along one axis: the whole frame with its halo where
 * that is no longer than tile_size (k), else tile_size (k). */
static int NAME (tile_side) (int frame, int k)
{
  const int whole = kconv_fft_size (frame + k - 1);
  const int tile = kconv_fft_tile (k);
  return whole < tile ? whole : tile;
}

static KConvStatus
NAME (fft_prepare) (FFT_T * f, int width, int height, int nch, int threads)
{
  const KConvPlan * plan = f->plan;
  NAME (fft_release) (f);
  f->tw = NAME (tile_side) (width, plan->cols);
  f->th = NAME (tile_side) (height, plan->rows);
  f->ow = f->tw - plan->cols + 1;
  f->oh = f->th - plan->rows + 1;
  f->tiles_x = (width + f->ow - 1) / f->ow;
  f->tiles_y = (height + f->oh - 1) / f->oh;
  const size_t plane = (size_t) f->tw * f->th;
  const size_t cplane = (size_t) (f->tw / 2 + 1) * f->th;
  f->threads = threads;
  f->real = calloc (threads, sizeof *f->real);
  f->spec = calloc (threads, sizeof *f->spec);
  f->xmap = calloc (threads, sizeof *f->xmap);
  f->kspec = F (alloc_complex) (cplane);
  int ok = f->real && f->spec && f->xmap && f->kspec;
  for (int t = 0; ok && t < threads; t++) {
    f->real[t] = F (alloc_real) (plane);
    f->spec[t] = F (alloc_complex) (cplane);
    f->xmap[t] = malloc (sizeof (int) * f->tw);
    ok = f->real[t] && f->spec[t] && f->xmap[t];
  }
  if (!ok) {
    NAME (fft_release) (f);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory for the "
        "FFT's %dx%d tiles", f->tw, f->th);
  }

  NAME (setup_once) ();
  /* measured plans run about 1.5x faster than estimated ones; planning
   * happens once per tile size and process, and is capped */
  F (set_timelimit) (PLAN_SECONDS);
  REAL *real = f->real[0];
  F (complex) * spec = f->spec[0];
  f->fwd = F (plan_dft_r2c_2d) (f->th, f->tw, real, spec, FFTW_MEASURE);
  f->inv = F (plan_dft_c2r_2d) (f->th, f->tw, spec, real, FFTW_MEASURE);
  if (!f->fwd || !f->inv) {
    NAME (fft_release) (f);
    return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory for the "
        "FFT's %dx%d tiles", f->tw, f->th);
  }

  /* the kernel's spectrum: the weights at the origin of a zero plane */
  const REAL scale = plan->exact ? 1.0 : 1.0 / plan->divisor_f;
  memset (real, 0, sizeof (REAL) * plane);
  for (int r = 0; r < plan->rows; r++)
    for (int c = 0; c < plan->cols; c++)
      real[(size_t) r * f->tw + c] = plan->weights[r * plan->cols + c] * scale;
  F (execute_dft_r2c) (f->fwd, real, f->kspec);
  const REAL norm = 1.0 / (REAL) plane;
  for (size_t i = 0; i < cplane; i++) {
    f->kspec[i][0] *= norm;
    f->kspec[i][1] *= -norm;
  }

  f->width = width;
  f->height = height;
  f->nch = nch;
  return KCONV_OK;
}

static FFT_T *NAME (kconv_cpu_fft_new) (const KConvPlan * plan)
{
  FFT_T * f = calloc (1, sizeof *f);
  if (f)
    f->plan = plan;
  return f;
}

/* One frame, its tiles spread over the threads. */
typedef struct
{
  const FFT_T *f;
  const KConvImage *src, *dst;
} NAME (FftFrame);

/* Channel c of the source window of the tile whose first output is (x0,
 * y0), border applied, into real; what no valid output reads is 0. */
static void NAME (load_tile) (const FFT_T * f, REAL * real, const int *xmap,
    const KConvImage * src, int c, int x0, int y0, int need_w, int need_h)
{
  const KConvPlan * plan = f->plan;
  const int ps = src->pixel_stride, off = src->channel_offset[c];
  for (int r = 0; r < f->th; r++) {
    REAL *o = real + (size_t) r * f->tw;
    const int sy = r < need_h ? kconv_border_index (plan->border,
        y0 - plan->ay + r, src->height) : -1;
    if (sy < 0) {
      memset (o, 0, sizeof (REAL) * f->tw);
      continue;
    }
    const uint8_t *srow = src->data + (ptrdiff_t) sy * src->stride + off;
    for (int x = 0; x < need_w; x++)
      o[x] = xmap[x] < 0 ? 0 : srow[(size_t) xmap[x] * ps];
    for (int x = need_w; x < f->tw; x++)
      o[x] = 0;
  }
}

/* The spectrum times the kernel's */
static void NAME (multiply_spectrum) (const FFT_T * f, F (complex) * s)
{
  const size_t cplane = (size_t) (f->tw / 2 + 1) * f->th;
  for (size_t i = 0; i < cplane; i++) {
    const REAL kr = f->kspec[i][0], ki = f->kspec[i][1];
    const REAL sr = s[i][0], si = s[i][1];
    s[i][0] = sr * kr - si * ki;
    s[i][1] = sr * ki + si * kr;
  }
}

/* A tile's w x h outputs of channel c, by the rule in kconv.h */
static void NAME (store_tile) (const FFT_T * f, const REAL * real,
    const KConvImage * dst, int c, int x0, int y0, int w, int h)
{
  const KConvPlan * plan = f->plan;
  const int ps = dst->pixel_stride;
  const double add = plan->offset_f + 0.5;
  for (int r = 0; r < h; r++) {
    const REAL *v = real + (size_t) r * f->tw;
    uint8_t *d = dst->data + (ptrdiff_t) (y0 + r) * dst->stride +
        (size_t) x0 * ps + dst->channel_offset[c];
    if (plan->exact) {
      for (int x = 0; x < w; x++)
        d[(size_t) x * ps] = kconv_finish_exact (plan, (int64_t) llrint (v[x]));
      continue;
    }
    /* floor (v + offset + 1/2), clamped: clamped first, truncation is
     * the floor (no call to floor () a sample) */
    for (int x = 0; x < w; x++) {
      double t = (plan->absolute ? fabs (v[x]) : v[x]) + add;
      t = t < 0.0 ? 0.0 : t > 255.0 ? 255.0 : t;
      d[(size_t) x * ps] = (uint8_t) (int) t;
    }
  }
}

static void NAME (run_tiles) (int t, int n, void *ctx)
{
  const NAME (FftFrame) * fr = ctx;
  const FFT_T *f = fr->f;
  const KConvPlan *plan = f->plan;
  const KConvImage *src = fr->src, *dst = fr->dst;
  REAL *real = f->real[t];
  F (complex) * spec = f->spec[t];
  int *xmap = f->xmap[t];
  for (int i = t; i < f->tiles_x * f->tiles_y; i += n) {
    const int x0 = i % f->tiles_x * f->ow, y0 = i / f->tiles_x * f->oh;
    const int w = src->width - x0 < f->ow ? src->width - x0 : f->ow;
    const int h = src->height - y0 < f->oh ? src->height - y0 : f->oh;
    const int need_w = w + plan->cols - 1, need_h = h + plan->rows - 1;
    for (int x = 0; x < need_w; x++)
      xmap[x] = kconv_border_index (plan->border, x0 - plan->ax + x,
          src->width);
    if (f->nch < src->pixel_stride && !dst->keep_other_bytes)
      for (int r = 0; r < h; r++)       /* alpha, padding */
        memcpy (dst->data + (ptrdiff_t) (y0 + r) * dst->stride +
            (size_t) x0 * src->pixel_stride, src->data +
            (ptrdiff_t) (y0 + r) * src->stride +
            (size_t) x0 * src->pixel_stride, (size_t) w * src->pixel_stride);
    for (int c = 0; c < f->nch; c++) {
      NAME (load_tile) (f, real, xmap, src, c, x0, y0, need_w, need_h);
      F (execute_dft_r2c) (f->fwd, real, spec);
      NAME (multiply_spectrum) (f, spec);
      F (execute_dft_c2r) (f->inv, spec, real);
      NAME (store_tile) (f, real, dst, c, x0, y0, w, h);
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
  kconv_team_run (n_threads, NAME (run_tiles), &fr);
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
