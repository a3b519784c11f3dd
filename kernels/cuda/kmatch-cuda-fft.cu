/* kconv: the sum of F T of 8-bit samples on CUDA through the FFT
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The direct correlation (kmatch-cuda.cu) costs the template's bytes at
 * every position; this costs two transforms of the region whatever the
 * template.  The region's bytes, rows of (mw + tw - 1) * ch, lie in a
 * zero plane; its spectrum times the template's conjugate one, transformed
 * back, holds at (x * ch, y) the sum over the template at position (x, y):
 * the template's bytes of a row meet the region's from x * ch on, and
 * never wrap round the plane, which is as wide as the region.  Double
 * precision: where a bound on the transform's error (from the sizes and
 * the samples' largest value) stays under FFT_BOUND, rounding recovers
 * the exact integer sums, so every score has the same bits as the direct
 * path's and the host's.
 */
#include <math.h>
#include <stdlib.h>
#include <cufft.h>
#include "kmatch-cuda-fft.h"
#include "kconv-cuda-fft.h"
#include "kconv-error.h"
#include "kconv-tuning.h"

#define THREADS 256
/* the most the transform's error may be, by its bound, for the sums to
 * round to the exact integers */
#define FFT_BOUND 0.25
/* Where the FFT costs less: the direct path's multiply-adds (template
 * bytes times positions) per point of the plane, past which the two
 * transforms, the product and the laying out take less time (measured on
 * an H200, 1080p GRAY8: the paths meet at a 43 px template;
 * kernels/PERFORMANCE.md) */
#define DIRECT_MACS_PER_POINT 1600.0

struct KMatchCudaFft
{
  /* the template, in device memory the matcher keeps */
  const uint8_t *d_tmpl;
  int row, th, ch;
  int kspec_ok; /* its spectrum is made, for this plane */
  /* the plane, its plans and buffers */
  int nx, ny;
  cufftHandle fwd, inv;
  int have_plans;
  double *d_real;
  double2 *d_spec, *d_kspec;
};

/* plane[y][x] = the bytes of a w x h block (rows pitch apart), 0 beyond */
__global__ void
lay_kernel (const uint8_t *__restrict__ bytes, int pitch, int w, int h,
    double *plane, int nx)
{
  const int x = blockIdx.x * THREADS + threadIdx.x, y = blockIdx.y;
  if (x >= nx)
    return;
  plane[(size_t) y * nx + x] =
      x < w && y < h ? (double) bytes[(size_t) y * pitch + x] : 0.0;
}

__global__ void
product_kernel (double2 *spec, const double2 *__restrict__ kspec, size_t n)
{
  const size_t i = (size_t) blockIdx.x * THREADS + threadIdx.x;
  if (i >= n)
    return;
  const double2 s = spec[i], k = kspec[i];
  spec[i] = make_double2 (s.x * k.x - s.y * k.y, s.x * k.y + s.y * k.x);
}

/* ft at the mw x mh positions: the sums, rounded to the exact integers */
__global__ void
finish_kernel (const double *__restrict__ real, int nx, int ch, int mw, int mh,
    uint64_t *ft)
{
  const int x = blockIdx.x * THREADS + threadIdx.x, y = blockIdx.y;
  if (x >= mw || y >= mh)
    return;
  ft[(size_t) y * mw + x] =
      (uint64_t) llrint (real[(size_t) y * nx + (size_t) x * ch]);
}

static void
release_plane (KMatchCudaFft *f)
{
  const KConvCufft *cf = kconv_cuda_cufft ();
  if (f->have_plans && cf) {
    cf->destroy (f->fwd);
    cf->destroy (f->inv);
  }
  f->have_plans = 0;
  cudaFree (f->d_real);
  cudaFree (f->d_spec);
  cudaFree (f->d_kspec);
  f->d_real = NULL;
  f->d_spec = f->d_kspec = NULL;
  f->nx = f->ny = 0;
  f->kspec_ok = 0;
}

void
kmatch_cuda_fft_set_template (KMatchCudaFft **f, const uint8_t *d_tmpl, int row,
    int th, int ch)
{
  if (!*f && !(*f = (KMatchCudaFft *) calloc (1, sizeof **f)))
    return; /* no FFT then: the direct path */
  (*f)->d_tmpl = d_tmpl;
  (*f)->row = row;
  (*f)->th = th;
  (*f)->ch = ch;
  (*f)->kspec_ok = 0;
}

/* Plans and buffers for an nx x ny plane: 0 where the device has no room
 * for them (its error cleared: the search goes on directly) */
static int
make_plane (KMatchCudaFft *f, int nx, int ny)
{
  if (nx == f->nx && ny == f->ny)
    return 1;
  release_plane (f);
  const size_t plane = (size_t) nx * ny, cplane = (size_t) (nx / 2 + 1) * ny;
  f->have_plans =
      cudaMalloc (&f->d_real, plane * sizeof (double)) == cudaSuccess &&
      cudaMalloc (&f->d_spec, cplane * sizeof (double2)) == cudaSuccess &&
      cudaMalloc (&f->d_kspec, cplane * sizeof (double2)) == cudaSuccess &&
      kconv_cuda_fft_plans (nx, ny, 1, &f->fwd, &f->inv) == CUFFT_SUCCESS;
  if (!f->have_plans) {
    release_plane (f);
    (void) cudaGetLastError ();
    return 0;
  }
  f->nx = nx;
  f->ny = ny;
  return 1;
}

/* The plane's side for n samples: the least 2^a, 3 2^a or 9 2^a not
 * under it.  cuFFT's double transforms of other sizes cost more even where
 * they are smaller: a D2Z and a Z2D of 1920 x 1080 took 121 us on an
 * H200, of 2048 x 1152 70 us, of 2000 x 1125 83 us (kernels/PERFORMANCE.md) */
static int
transform_size (int n)
{
  int best = 0;
  for (int m = 1; m <= 9; m *= 3) {
    long long p = m;
    while (p < n)
      p *= 2;
    if (!best || p < best)
      best = (int) p;
  }
  return best;
}

/* Whether the sums round to the exact ones: 2^-53 times a generous
 * multiple of log2 of the size, times the norms of the region and of the
 * template (each at most 255 a sample), under FFT_BOUND */
static int
exact (int nx, int ny, int rw, int rh, int row, int th)
{
  const double bound = ldexp (1.0, -53) * 16 * log2 ((double) nx * ny) *
                       sqrt ((double) rw * rh) * 255 *
                       sqrt ((double) row * th) * 255;
  return bound < FFT_BOUND;
}

int
kmatch_cuda_fft_correlate (KMatchCudaFft *f, const uint8_t *region, int pitch,
    int mw, int mh, uint64_t *ft, cudaStream_t stream, KConvStatus *st)
{
  *st = KCONV_OK;
  const KConvCufft *cf = kconv_cuda_cufft ();
  const int force = kconv_tuning ().cuda_match_fft;
  if (!f || !f->d_tmpl || !cf || force == 0)
    return 0;
  const int rw = (mw - 1) * f->ch + f->row, rh = mh + f->th - 1;
  if (rw > (1 << 24) || rh > (1 << 24))
    return 0;
  const int nx = transform_size (rw), ny = transform_size (rh);
  const double macs = (double) mw * mh * f->row * f->th;
  if (ny > 65535 || !exact (nx, ny, rw, rh, f->row, f->th) ||
      (force < 0 && macs < DIRECT_MACS_PER_POINT * nx * ny) ||
      !make_plane (f, nx, ny))
    return 0;
  const size_t plane = (size_t) nx * ny, cplane = (size_t) (nx / 2 + 1) * ny;
  const dim3 lay ((nx + THREADS - 1) / THREADS, ny);
  const unsigned spec_blocks = (unsigned) ((cplane + THREADS - 1) / THREADS);
  cf->set_stream (f->fwd, stream);
  cf->set_stream (f->inv, stream);
  if (!f->kspec_ok) {
    lay_kernel<<<lay, THREADS, 0, stream>>> (f->d_tmpl, f->row, f->row, f->th,
        f->d_real, nx);
    if (cf->exec_d2z (f->fwd, f->d_real, (cufftDoubleComplex *) f->d_spec) !=
        CUFFT_SUCCESS) {
      *st = kconv_fail (KCONV_ERROR_DEVICE, "cufftExecD2Z (template)");
      return 1;
    }
    if ((*st = kconv_cuda_fft_conjugate (f->d_spec, f->d_kspec, cplane,
             1.0 / (double) plane, stream)) != KCONV_OK)
      return 1;
    f->kspec_ok = 1;
  }
  lay_kernel<<<lay, THREADS, 0, stream>>> (region, pitch, rw, rh, f->d_real,
      nx);
  if (cf->exec_d2z (f->fwd, f->d_real, (cufftDoubleComplex *) f->d_spec) !=
      CUFFT_SUCCESS) {
    *st = kconv_fail (KCONV_ERROR_DEVICE, "cufftExecD2Z (frame)");
    return 1;
  }
  product_kernel<<<spec_blocks, THREADS, 0, stream>>> (f->d_spec, f->d_kspec,
      cplane);
  if (cf->exec_z2d (f->inv, (cufftDoubleComplex *) f->d_spec, f->d_real) !=
      CUFFT_SUCCESS) {
    *st = kconv_fail (KCONV_ERROR_DEVICE, "cufftExecZ2D");
    return 1;
  }
  finish_kernel<<<dim3 ((mw + THREADS - 1) / THREADS, mh), THREADS, 0,
      stream>>> (f->d_real, nx, f->ch, mw, mh, ft);
  *st = kconv_cuda_status (cudaGetLastError (), "the FFT correlation");
  return 1;
}

void
kmatch_cuda_fft_free (KMatchCudaFft *f)
{
  if (!f)
    return;
  release_plane (f);
  free (f);
}
