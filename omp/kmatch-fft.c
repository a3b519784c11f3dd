/* kconv: a matcher's correlations through the FFT (FFTW), for large templates
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Overlap-save: the region is cut into tiles whose transforms cover their
 * outputs and the template's reach beyond them; each channel's tile is
 * transformed, multiplied by the conjugate spectrum of that channel's
 * kernel, the products summed over the channels and transformed back
 * once.  In double precision the error stays far below 0.5 (about 1e-4
 * for a 512 x 512 tile of bytes and a 250 x 250 template of bytes, or of
 * squares under a mask), so rounding gives the exact integer sums the
 * direct loops give.  Plans and the kernels' spectra are made at the
 * first search of a size and kept in the matcher's state.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <fftw3.h>
#include "kmatch-cpu.h"
#include "kconv-plan.h"
#include "kconv-team.h"

/* most time FFTW may spend choosing each plan, at the first search of a
 * size */
#define PLAN_SECONDS 1.0
/* kernels whose spectra a state keeps (the template, and under a mask the
 * mask for the sums of squares and for each channel's sums) */
#define MAX_SPECTRA 5

typedef struct
{
  const uint8_t *kernel;        /* what it is the spectrum of */
  int ch;
  fftw_complex *spec;           /* ch planes, conjugated and scaled */
} Spectrum;

struct KMatchFft
{
  int nx, ny, parts;
  fftw_plan fwd, inv;
  double **real;                /* a part's tile */
  fftw_complex **spec, **sum;   /* its spectrum, and the channels' sum */
  Spectrum spectra[MAX_SPECTRA];
  int n_spectra;
};

static void
release (KMatchFft * f)
{
  if (f->fwd)
    fftw_destroy_plan (f->fwd);
  if (f->inv)
    fftw_destroy_plan (f->inv);
  for (int t = 0; t < f->parts; t++) {
    fftw_free (f->real[t]);
    fftw_free (f->spec[t]);
    fftw_free (f->sum[t]);
  }
  free (f->real);
  free (f->spec);
  free (f->sum);
  for (int i = 0; i < f->n_spectra; i++)
    fftw_free (f->spectra[i].spec);
  memset (f, 0, sizeof *f);
}

void
kmatch_fft_free (KMatchFft * f)
{
  if (f) {
    release (f);
    free (f);
  }
}

#ifdef KCONV_FFTW_THREADS
static void
threads_setup (void)
{
  fftw_make_planner_thread_safe ();
}
#endif

/* (FFTW's planner is shared by the process: one plan at a time here, and
 * thread-safe against the filters' plans where the threads part is in) */
static pthread_mutex_t planning = PTHREAD_MUTEX_INITIALIZER;

/* A tile's transform along one axis: the region, where it is shorter than
 * a tile, else a tile of about four template sides (at least 128) */
static int
tile_side (int region, int t)
{
  const int want = kconv_fft_size (4 * t < 128 ? 128 : 4 * t);
  const int whole = kconv_fft_size (region);
  return whole < want ? whole : want;
}

/* Plans and buffers for tiles of nx x ny on `parts` parts; 0 or -1 */
static int
prepare (KMatchFft * f, int nx, int ny, int parts)
{
  if (f->nx == nx && f->ny == ny && f->parts >= parts)
    return 0;
  release (f);
  f->nx = nx;
  f->ny = ny;
  f->parts = parts;
  const size_t plane = (size_t) nx * ny, cplane = (size_t) (nx / 2 + 1) * ny;
  f->real = calloc (parts, sizeof *f->real);
  f->spec = calloc (parts, sizeof *f->spec);
  f->sum = calloc (parts, sizeof *f->sum);
  int ok = f->real && f->spec && f->sum;
  for (int t = 0; ok && t < parts; t++)
    ok = (f->real[t] = fftw_alloc_real (plane))
        && (f->spec[t] = fftw_alloc_complex (cplane))
        && (f->sum[t] = fftw_alloc_complex (cplane));
  if (ok) {
#ifdef KCONV_FFTW_THREADS
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once (&once, threads_setup);
#endif
    pthread_mutex_lock (&planning);
    fftw_set_timelimit (PLAN_SECONDS);
    f->fwd = fftw_plan_dft_r2c_2d (ny, nx, f->real[0], f->spec[0],
        FFTW_MEASURE);
    f->inv = fftw_plan_dft_c2r_2d (ny, nx, f->sum[0], f->real[0], FFTW_MEASURE);
    pthread_mutex_unlock (&planning);
    ok = f->fwd && f->inv;
  }
  if (!ok)
    release (f);
  return ok ? 0 : -1;
}

/* The conjugate spectra of the correlation's kernel planes, divided by the
 * transform's size (made once a kernel) */
static const fftw_complex *
spectrum (KMatchFft * f, const KMatchCorrelation * q)
{
  for (int i = 0; i < f->n_spectra; i++)
    if (f->spectra[i].kernel == q->kernel && f->spectra[i].ch == q->ch)
      return f->spectra[i].spec;
  if (f->n_spectra == MAX_SPECTRA) {
    fftw_free (f->spectra[0].spec);
    memmove (f->spectra, f->spectra + 1, sizeof f->spectra[0] *
        (MAX_SPECTRA - 1));
    f->n_spectra--;
  }
  const size_t plane = (size_t) f->nx * f->ny;
  const size_t cplane = (size_t) (f->nx / 2 + 1) * f->ny;
  fftw_complex *spec = fftw_alloc_complex (cplane * q->ch);
  if (!spec)
    return NULL;
  double *real = f->real[0];
  const double norm = 1.0 / (double) plane;
  for (int c = 0; c < q->ch; c++) {
    memset (real, 0, sizeof *real * plane);
    for (int j = 0; j < q->th; j++)
      for (int i = 0; i < q->tw; i++)
        real[(size_t) j * f->nx + i] =
            q->kernel[((size_t) c * q->th + j) * q->tw + i];
    fftw_complex *s = spec + c * cplane;
    fftw_execute_dft_r2c (f->fwd, real, s);
    for (size_t k = 0; k < cplane; k++) {
      s[k][0] *= norm;
      s[k][1] *= -norm;
    }
  }
  Spectrum *keep = &f->spectra[f->n_spectra++];
  keep->kernel = q->kernel;
  keep->ch = q->ch;
  keep->spec = spec;
  return spec;
}

typedef struct
{
  const KMatchCorrelation *q;
  const KMatchFft *f;
  const fftw_complex *kspec;
  int ox, oy, tiles_x, n_tiles;
  uint64_t *out;
} TileJob;

static void
tiles_part (int t, int n, void *ctx)
{
  const TileJob *job = ctx;
  const KMatchCorrelation *q = job->q;
  const KMatchFft *f = job->f;
  const int nx = f->nx, ny = f->ny;
  const size_t cplane = (size_t) (nx / 2 + 1) * ny;
  double *real = f->real[t];
  fftw_complex *spec = f->spec[t], *sum = f->sum[t];
  for (int tile = t; tile < job->n_tiles; tile += n) {
    const int x0 = tile % job->tiles_x * job->ox;
    const int y0 = tile / job->tiles_x * job->oy;
    /* what the tile reads of the region; 0 past it */
    const int w = q->rw - x0 < nx ? q->rw - x0 : nx;
    const int h = q->rh - y0 < ny ? q->rh - y0 : ny;
    for (int c = 0; c < q->ch; c++) {
      const size_t at = (size_t) c * q->rw * q->rh + (size_t) y0 * q->rw + x0;
      const uint8_t *src = q->planes ? q->planes + at : NULL;
      for (int y = 0; y < ny; y++) {
        double *d = real + (size_t) y * nx;
        int x = 0;
        if (y < h && q->planes16) {
          const uint16_t *s = q->planes16 + at + (size_t) y * q->rw;
          for (; x < w; x++)
            d[x] = s[x];
        } else if (y < h) {
          const uint8_t *s = src + (size_t) y * q->rw;
          if (q->squares)
            for (; x < w; x++)
              d[x] = (double) s[x] * s[x];
          else
            for (; x < w; x++)
              d[x] = s[x];
        }
        for (; x < nx; x++)
          d[x] = 0;
      }
      fftw_execute_dft_r2c (f->fwd, real, spec);
      /* sum over the channels of the tile's spectrum times the kernel's */
      const fftw_complex *k = job->kspec + c * cplane;
      for (size_t i = 0; i < cplane; i++) {
        const double re = spec[i][0] * k[i][0] - spec[i][1] * k[i][1];
        const double im = spec[i][0] * k[i][1] + spec[i][1] * k[i][0];
        sum[i][0] = c ? sum[i][0] + re : re;
        sum[i][1] = c ? sum[i][1] + im : im;
      }
    }
    fftw_execute_dft_c2r (f->inv, sum, real);
    const int ow = q->mw - x0 < job->ox ? q->mw - x0 : job->ox;
    const int oh = q->mh - y0 < job->oy ? q->mh - y0 : job->oy;
    for (int y = 0; y < oh; y++) {
      uint64_t *o = job->out + (size_t) (y0 + y) * q->mw + x0;
      const double *r = real + (size_t) y * nx;
      for (int x = 0; x < ow; x++)
        o[x] = (uint64_t) (r[x] + 0.5); /* (>= -0.5: sums of products
                                         * of samples are not negative) */
    }
  }
}

int
kmatch_fft_correlate (KMatchFft * f, const KMatchCorrelation * q,
    uint64_t * out)
{
  const int nx = tile_side (q->rw, q->tw), ny = tile_side (q->rh, q->th);
  const int ox = nx - q->tw + 1, oy = ny - q->th + 1;
  const int tiles_x = (q->mw + ox - 1) / ox, tiles_y = (q->mh + oy - 1) / oy;
  const int n_tiles = tiles_x * tiles_y;
  int parts = q->n_threads > 0 ? q->n_threads : 1;
  parts = parts < n_tiles ? parts : n_tiles;
  if (prepare (f, nx, ny, parts) != 0)
    return -1;
  const fftw_complex *kspec = spectrum (f, q);
  if (!kspec)
    return -1;
  TileJob job = { q, f, kspec, ox, oy, tiles_x, n_tiles, out };
  kconv_team_run (parts, tiles_part, &job);
  return 0;
}

KMatchFft *
kmatch_fft_new (void)
{
  return calloc (1, sizeof (KMatchFft));
}
