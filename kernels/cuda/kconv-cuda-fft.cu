/* kconv: large kernels on CUDA through the FFT
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame is laid into a zero-filled plane with the border rule applied
 * to the kernel's halo (so every border mode works), transformed, multiplied
 * by the conjugate spectrum of the kernel (a correlation), and transformed
 * back.  Double precision: for exact kernels the error stays far below 0.5,
 * so rounding recovers the exact integer sum and the result has the same
 * bits as every other path.
 *
 * cuFFT is a shared library that machines without the CUDA toolkit lack, so
 * it is opened at run time; without it the direct kernel is used.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cufft.h>

#include "kconv-cuda-fft.h"
#include "kconv-error.h"

#define FFT_THREADS 256

/* ---- cuFFT, opened at run time ---- */

static KConvCufft cufft;

/* Once per process (pthread_once): filters made at the same time see the
 * same answer. */
static void
cufft_load_once (void)
{
  static const char *names[] = {
    "libcufft.so.12",
    "libcufft.so",
    "/usr/local/cuda/lib64/libcufft.so.12",
    "/usr/local/cuda/lib64/libcufft.so",
  };
  void *lib = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
    lib = dlopen (names[i], RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return;
  cufft.plan_many = (PlanManyFn) dlsym (lib, "cufftPlanMany");
  cufft.set_stream = (SetStreamFn) dlsym (lib, "cufftSetStream");
  cufft.exec_d2z = (ExecD2ZFn) dlsym (lib, "cufftExecD2Z");
  cufft.exec_z2d = (ExecZ2DFn) dlsym (lib, "cufftExecZ2D");
  cufft.destroy = (DestroyFn) dlsym (lib, "cufftDestroy");
  cufft.ok = cufft.plan_many && cufft.set_stream && cufft.exec_d2z &&
             cufft.exec_z2d && cufft.destroy;
}

static int
cufft_load (void)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, cufft_load_once);
  return cufft.ok;
}

const KConvCufft *
kconv_cuda_cufft (void)
{
  return cufft_load () ? &cufft : NULL;
}

cufftResult
kconv_cuda_fft_plans (int nx, int ny, int batch, cufftHandle *fwd,
    cufftHandle *inv)
{
  int n[2] = { ny, nx };
  const int plane = nx * ny, cplane = (nx / 2 + 1) * ny;
  cufftResult r = cufft.plan_many (fwd, 2, n, NULL, 1, plane, NULL, 1, cplane,
      CUFFT_D2Z, batch);
  if (r != CUFFT_SUCCESS)
    return r;
  r = cufft.plan_many (inv, 2, n, NULL, 1, cplane, NULL, 1, plane, CUFFT_Z2D,
      batch);
  if (r != CUFFT_SUCCESS)
    cufft.destroy (*fwd);
  return r;
}

/* ---- device kernels ---- */

/* plane[c][y][x] = source sample (x - ax, y - ay) under the border rule
 * inside the linear-convolution window, 0 beyond it */
__global__ void
fft_pad_kernel (const KConvCudaJob job, double *real, int fw, int fh,
    size_t plane)
{
  const int x = blockIdx.x * FFT_THREADS + threadIdx.x, y = blockIdx.y;
  if (x >= fw)
    return;
  int sx = -1, sy = -1;
  if (x < job.width + job.cols - 1 && y < job.height + job.rows - 1) {
    sx = kconv_border_index (job.border, x - job.ax, job.width);
    sy = kconv_border_index (job.border, y - job.ay, job.height);
  }
  const uint8_t *p = job.src + (size_t) (sy < 0 ? 0 : sy) * job.src_stride +
                     (size_t) (sx < 0 ? 0 : sx) * job.pixel_stride;
  for (int c = 0; c < job.n_channels; c++)
    real[c * plane + (size_t) y * fw + x] =
        sx >= 0 && sy >= 0 ? (double) p[job.channel_offset[c]] : 0.0;
}

/* spectrum of every channel times the kernel's (already conjugated and
 * divided by the transform size) */
__global__ void
fft_multiply_kernel (double2 *spec, const double2 *kspec, size_t n, int nch)
{
  const size_t i = (size_t) blockIdx.x * FFT_THREADS + threadIdx.x;
  if (i >= n)
    return;
  const double2 k = kspec[i];
  for (int c = 0; c < nch; c++) {
    double2 s = spec[c * n + i];
    spec[c * n + i] =
        make_double2 (s.x * k.x - s.y * k.y, s.x * k.y + s.y * k.x);
  }
}

/* out = conj (spec) * scale (out may be spec) */
__global__ void
fft_conjugate_scale_kernel (const double2 *spec, double2 *out, size_t n,
    double scale)
{
  const size_t i = (size_t) blockIdx.x * FFT_THREADS + threadIdx.x;
  if (i < n)
    out[i] = make_double2 (spec[i].x * scale, -spec[i].y * scale);
}

KConvStatus
kconv_cuda_fft_conjugate (const double2 *spec, double2 *out, size_t n,
    double scale, cudaStream_t stream)
{
  fft_conjugate_scale_kernel<<<(unsigned) ((n + FFT_THREADS - 1) / FFT_THREADS),
      FFT_THREADS, 0, stream>>> (spec, out, n, scale);
  return kconv_cuda_status (cudaGetLastError (), "the spectrum's conjugate");
}

template <int NCH>
__global__ void
fft_finish_kernel (const KConvCudaJob job, const double *real, int fw,
    size_t plane)
{
  const int x = blockIdx.x * FFT_THREADS + threadIdx.x, y = blockIdx.y;
  if (x >= job.width)
    return;
  uint8_t out[NCH];
#pragma unroll
  for (int c = 0; c < NCH; c++) {
    double v = real[c * plane + (size_t) y * fw + x];
    /* exact kernels: the sum is an integer; the transform's error is not */
    out[c] = (uint8_t) kconv_cuda_finish (job,
        job.exact ? (float) rint (v) : (float) v);
  }
  kconv_cuda_store_pixel<NCH> (job, x, y, out);
}

/* ---- host side ---- */

struct KConvCudaFft
{
  float *weights;
  int cols, rows;
  /* made for one frame size and channel count */
  int width, height, nch;
  int fw, fh;
  cufftHandle fwd, inv;
  int have_plans;
  double *real;
  double2 *spec, *kspec;
};

KConvCudaFft *
kconv_cuda_fft_new (const float *weights, int cols, int rows)
{
  if (!cufft_load ()) {
    kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "cuFFT (libcufft.so.12) "
                                                 "could not be loaded");
    return NULL;
  }
  KConvCudaFft *f = (KConvCudaFft *) calloc (1, sizeof *f);
  float *w = (float *) malloc (sizeof (float) * cols * rows);
  if (!f || !w) {
    free (f);
    free (w);
    kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  memcpy (w, weights, sizeof (float) * cols * rows);
  f->weights = w;
  f->cols = cols;
  f->rows = rows;
  return f;
}

static void
fft_release (KConvCudaFft *f)
{
  if (f->have_plans) {
    cufft.destroy (f->fwd);
    cufft.destroy (f->inv);
  }
  f->have_plans = 0;
  cudaFree (f->real);
  cudaFree (f->spec);
  cudaFree (f->kspec);
  f->real = NULL;
  f->spec = f->kspec = NULL;
  f->width = f->height = f->nch = 0;
}

#define FAIL(...)                                                              \
  do {                                                                         \
    fft_release (f);                                                           \
    return kconv_fail (KCONV_ERROR_DEVICE, __VA_ARGS__);                       \
  } while (0)

/* Buffers, plans and the kernel's spectrum for this frame size. */
static KConvStatus
fft_prepare (KConvCudaFft *f, const KConvCudaJob *job, cudaStream_t stream)
{
  fft_release (f);
  f->fw = kconv_fft_size (job->width + f->cols - 1);
  f->fh = kconv_fft_size (job->height + f->rows - 1);
  const int fwc = f->fw / 2 + 1;
  const size_t plane = (size_t) f->fw * f->fh, cplane = (size_t) fwc * f->fh;
  const int nch = job->n_channels;
  cudaError_t e;
  if ((e = cudaMalloc (&f->real, sizeof (double) * plane * nch)) !=
          cudaSuccess ||
      (e = cudaMalloc (&f->spec, sizeof (double2) * cplane * nch)) !=
          cudaSuccess ||
      (e = cudaMalloc (&f->kspec, sizeof (double2) * cplane)) != cudaSuccess)
    FAIL ("FFT buffers for %dx%d: %s", f->fw, f->fh, cudaGetErrorString (e));

  int n[2] = { f->fh, f->fw };
  cufftResult r = kconv_cuda_fft_plans (f->fw, f->fh, nch, &f->fwd, &f->inv);
  if (r != CUFFT_SUCCESS)
    FAIL ("cufftPlanMany (%dx%d x%d): error %d", f->fw, f->fh, nch, r);
  f->have_plans = 1;

  /* the kernel's spectrum: weights at the origin of a zero plane */
  cufftHandle one;
  if ((r = cufft.plan_many (&one, 2, n, NULL, 1, (int) plane, NULL, 1,
           (int) cplane, CUFFT_D2Z, 1)) != CUFFT_SUCCESS)
    FAIL ("cufftPlanMany (kernel): error %d", r);
  double *kw = (double *) malloc (sizeof (double) * f->cols * f->rows);
  for (int i = 0; i < f->cols * f->rows; i++)
    kw[i] = f->weights[i];
  e = cudaMemsetAsync (f->real, 0, sizeof (double) * plane, stream);
  if (e == cudaSuccess)
    e = cudaMemcpy2DAsync (f->real, sizeof (double) * f->fw, kw,
        sizeof (double) * f->cols, sizeof (double) * f->cols, f->rows,
        cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize (stream); /* kw is pageable and freed */
  free (kw);
  if (e != cudaSuccess) {
    cufft.destroy (one);
    FAIL ("kernel upload: %s", cudaGetErrorString (e));
  }
  cufft.set_stream (one, stream);
  r = cufft.exec_d2z (one, f->real, f->kspec);
  cufft.destroy (one);
  if (r != CUFFT_SUCCESS)
    FAIL ("cufftExecD2Z (kernel): error %d", r);
  const KConvStatus conj = kconv_cuda_fft_conjugate (f->kspec, f->kspec, cplane,
      1.0 / (double) plane, stream);
  if (conj != KCONV_OK) {
    fft_release (f);
    return conj;
  }

  f->width = job->width;
  f->height = job->height;
  f->nch = nch;
  return KCONV_OK;
}

KConvStatus
kconv_cuda_fft_run (KConvCudaFft *f, const KConvCudaJob *job,
    cudaStream_t stream)
{
  if (job->width != f->width || job->height != f->height ||
      job->n_channels != f->nch) {
    KConvStatus st = fft_prepare (f, job, stream);
    if (st != KCONV_OK)
      return st;
  }

  const int fwc = f->fw / 2 + 1;
  const size_t plane = (size_t) f->fw * f->fh, cplane = (size_t) fwc * f->fh;
  cudaError_t e;
  cufftResult r;

  fft_pad_kernel<<<dim3 (kconv_div_up (f->fw, FFT_THREADS), f->fh), FFT_THREADS,
      0, stream>>> (*job, f->real, f->fw, f->fh, plane);
  if ((e = cudaGetLastError ()) != cudaSuccess)
    goto cuda_error;
  cufft.set_stream (f->fwd, stream);
  cufft.set_stream (f->inv, stream);
  if ((r = cufft.exec_d2z (f->fwd, f->real, f->spec)) != CUFFT_SUCCESS) {
    return kconv_fail (KCONV_ERROR_DEVICE, "cufftExecD2Z: error %d", r);
  }
  fft_multiply_kernel<<<kconv_div_up ((int) cplane, FFT_THREADS), FFT_THREADS,
      0, stream>>> (f->spec, f->kspec, cplane, job->n_channels);
  if ((e = cudaGetLastError ()) != cudaSuccess)
    goto cuda_error;
  if ((r = cufft.exec_z2d (f->inv, f->spec, f->real)) != CUFFT_SUCCESS) {
    return kconv_fail (KCONV_ERROR_DEVICE, "cufftExecZ2D: error %d", r);
  }
  {
    dim3 grid (kconv_div_up (job->width, FFT_THREADS), job->height);
    switch (job->n_channels) {
    case 1:
      fft_finish_kernel<1>
          <<<grid, FFT_THREADS, 0, stream>>> (*job, f->real, f->fw, plane);
      break;
    case 2:
      fft_finish_kernel<2>
          <<<grid, FFT_THREADS, 0, stream>>> (*job, f->real, f->fw, plane);
      break;
    case 3:
      fft_finish_kernel<3>
          <<<grid, FFT_THREADS, 0, stream>>> (*job, f->real, f->fw, plane);
      break;
    default:
      fft_finish_kernel<4>
          <<<grid, FFT_THREADS, 0, stream>>> (*job, f->real, f->fw, plane);
      break;
    }
  }
  if ((e = cudaGetLastError ()) != cudaSuccess)
    goto cuda_error;
  return KCONV_OK;

cuda_error:
  return kconv_fail (KCONV_ERROR_DEVICE, "FFT path: %s",
      cudaGetErrorString (e));
}

void
kconv_cuda_fft_free (KConvCudaFft *f)
{
  if (!f)
    return;
  if (cufft.ok)
    fft_release (f);
  free (f->weights);
  free (f);
}
