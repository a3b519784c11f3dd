/* kconv: CUDA benchmark, device-resident, with NPP and the CPU in one run
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   kconv-cuda-bench [--threads N] [--csv FILE] [--only TEXT]
 *
 * Frames live on the device (no PCIe in the numbers); four input/output
 * pairs are rotated so that the 50 MB L2 cannot hold them.  Each case: warm
 * up, then the median of 50 back-to-back runs timed with CUDA events.
 * GB/s counts each input and output byte once; the %bw column compares it
 * with a device-to-device copy of 1 GiB measured at the start, the copy
 * columns with cudaMemcpyAsync of the case's own frames, rotated and timed
 * the same way: what a filter that only moved the frame would take, its
 * launch and the GPU's ramp at the start and end of a frame-sized job
 * included.  NPP (nppiFilterBorder_8u_C4R/C3R, an integer kernel) is
 * timed on the same frames when built in (KCONV_BENCH_NPP), and the CPU
 * backend on the same host for the plot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "kconv.h"
#include "kconv-matrix.h"
#include "bench-harness.h"
#include "tuning-env.h"
#ifdef KCONV_BENCH_NPP
#include "bench-peer-npp.h"
#endif

#define PAIRS 4
#define REPS 50

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (e_)); exit (1); } } while (0)

/* CUDA's event times, as the harness's median takes them */
static float
event_median (const float *t, int n)
{
  double d[64];
  for (int i = 0; i < n; i++)
    d[i] = t[i];
  return (float) bench_median (d, n);
}

typedef struct
{
  int width, height, ps;
  size_t stride, bytes;
  uint8_t *d_src[PAIRS], *d_dst[PAIRS];
  uint8_t *h_src;
  cudaStream_t stream;
} Frames;

static void
frames_init (Frames * f, int width, int height, int ps)
{
  memset (f, 0, sizeof *f);
  f->width = width;
  f->height = height;
  f->ps = ps;
  f->stride = ps * (size_t) width;
  f->bytes = f->stride * height;
  f->h_src = malloc (f->bytes);
  for (size_t i = 0; i < f->bytes; i++)
    f->h_src[i] = (uint8_t) (rand () >> 5);
  for (int p = 0; p < PAIRS; p++) {
    CK (cudaMalloc ((void **) &f->d_src[p], f->bytes));
    CK (cudaMalloc ((void **) &f->d_dst[p], f->bytes));
    CK (cudaMemcpy (f->d_src[p], f->h_src, f->bytes, cudaMemcpyHostToDevice));
  }
  CK (cudaStreamCreate (&f->stream));
}

/* The random draws a case makes (its frame's bytes, then its weights),
 * made and thrown away for a case --only leaves out: each case then has
 * the frame and the weights it has in a whole run. */
static void
skip_draws (size_t bytes, int weights)
{
  for (size_t i = 0; i < bytes + (size_t) weights; i++)
    (void) rand ();
}

static void
frames_clear (Frames * f)
{
  for (int p = 0; p < PAIRS; p++) {
    cudaFree (f->d_src[p]);
    cudaFree (f->d_dst[p]);
  }
  cudaStreamDestroy (f->stream);
  free (f->h_src);
}

typedef int (*GpuRun) (void *ctx, Frames * f, int pair);

/* Median ms of REPS runs after 5 warm-ups, -1 if a run failed.  All runs
 * are queued back to back with an event between each, so the GPU never
 * waits for the host and launch overhead stays out of the numbers. */
static float
time_gpu (GpuRun run, void *ctx, Frames * f)
{
  float t[REPS];
  cudaEvent_t ev[REPS + 1];
  for (int i = 0; i <= REPS; i++)
    CK (cudaEventCreate (&ev[i]));
  for (int i = 0; i < 5; i++)
    if (run (ctx, f, i % PAIRS) != 0)
      return -1.f;
  CK (cudaEventRecord (ev[0], f->stream));
  for (int i = 0; i < REPS; i++) {
    if (run (ctx, f, i % PAIRS) != 0)
      return -1.f;
    CK (cudaEventRecord (ev[i + 1], f->stream));
  }
  CK (cudaEventSynchronize (ev[REPS]));
  for (int i = 0; i < REPS; i++)
    CK (cudaEventElapsedTime (&t[i], ev[i], ev[i + 1]));
  for (int i = 0; i <= REPS; i++)
    cudaEventDestroy (ev[i]);
  return event_median (t, REPS);
}

/* the frame's own copy, for the copy columns */
static int
run_copy (void *ctx, Frames * f, int pair)
{
  (void) ctx;
  return cudaMemcpyAsync (f->d_dst[pair], f->d_src[pair], f->bytes,
      cudaMemcpyDeviceToDevice, f->stream) != cudaSuccess;
}

typedef struct
{
  KConvFilter *filter;
  KConvImage im;
} KconvCtx;

static int
run_kconv (void *p, Frames * f, int pair)
{
  KconvCtx *k = p;
  KConvImage src = k->im, dst = k->im;
  src.data = f->d_src[pair];
  dst.data = f->d_dst[pair];
  return kconv_filter_run_device (k->filter, &src, &dst, f->stream) != KCONV_OK;
}

#ifdef KCONV_BENCH_NPP
typedef struct
{
  int32_t *kernel;
  int size, divisor;
} NppCtx;

static int
run_npp (void *p, Frames * f, int pair)
{
  NppCtx *n = p;
  return peer_npp_filter (f->d_src[pair], (int) f->stride, f->d_dst[pair],
      (int) f->stride, f->width, f->height, f->ps, n->kernel, n->size,
      n->divisor, f->stream);
}
#endif

/* The same kernel forced onto one CUDA path (kconv_force_strategy), to show
 * where the automatic choice should switch; -1 when the path cannot take
 * the kernel (its description lacks `says`). */
static float
time_forced (const char *strategy, const char *says, const KConvKernel * k,
    Frames * f, const KConvImage * im)
{
  KConvOptions opt = { KCONV_BACKEND_CUDA, 0, 0 };
  KconvCtx kc = { 0 };
  kconv_force_strategy (KCONV_BACKEND_CUDA, strategy);
  KConvStatus st = kconv_filter_new (k, KCONV_BORDER_REPLICATE, &opt,
      &kc.filter);
  kconv_force_strategy (KCONV_BACKEND_CUDA, NULL);
  if (st != KCONV_OK)
    return -1.f;
  if (!strstr (kconv_filter_strategy (kc.filter), says)) {
    kconv_filter_free (kc.filter);
    return -1.f;
  }
  kc.im = *im;
  float ms = time_gpu (run_kconv, &kc, f);
  kconv_filter_free (kc.filter);
  return ms;
}

/* CPU backend on the host frame, median of 3 */
static float
time_cpu (const KConvKernel * k, Frames * f, const KConvImage * im, int threads)
{
  KConvOptions opt = { KCONV_BACKEND_CPU, threads, -1 };
  KConvFilter *cf;
  if (kconv_filter_new (k, KCONV_BORDER_REPLICATE, &opt, &cf) != KCONV_OK)
    return -1.f;
  uint8_t *out = malloc (f->bytes);
  KConvImage s = *im, d = *im;
  s.data = f->h_src;
  d.data = out;
  BenchFilterRun r = { cf, s, d };
  float ms = (float) bench_time_ms (bench_filter_run, &r, 0, 3);
  free (out);
  kconv_filter_free (cf);
  return ms;
}

static double
measure_copy_gbs (void)
{
  size_t bytes = (size_t) 1 << 30;
  void *a, *b;
  cudaEvent_t e0, e1;
  float t[10];
  CK (cudaMalloc (&a, bytes));
  CK (cudaMalloc (&b, bytes));
  CK (cudaMemset (a, 1, bytes));
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  for (int i = 0; i < 12; i++) {
    CK (cudaEventRecord (e0, 0));
    CK (cudaMemcpy (b, a, bytes, cudaMemcpyDeviceToDevice));
    CK (cudaEventRecord (e1, 0));
    CK (cudaEventSynchronize (e1));
    if (i >= 2)
      CK (cudaEventElapsedTime (&t[i - 2], e0, e1));
  }
  cudaFree (a);
  cudaFree (b);
  return 2.0 * bytes / (event_median (t, 10) * 1e6);
}

int
main (int argc, char **argv)
{
  tuning_from_environment ();
  BenchArgs args;
  if (bench_args_parse (argc, argv, BENCH_THREADS | BENCH_CSV | BENCH_ONLY,
          "case,size,kconv_cuda_ms,npp_ms,kconv_cpu_ms,direct_ms,fft_ms,"
          "small_ms,mma_ms,frame_copy_ms", &args))
    return 2;
  if (!kconv_backend_available (KCONV_BACKEND_CUDA)) {
    printf ("no usable CUDA device\n");
    return 77;
  }
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  double copy_gbs = measure_copy_gbs ();
  printf
      ("device: %s, %d SMs; device-to-device copy %.0f GB/s (read + write)\n",
      prop.name, prop.multiProcessorCount, copy_gbs);
#ifdef KCONV_BENCH_NPP
  printf ("peer: NPP nppiFilterBorder_8u_C4R_Ctx (C3R for RGB), integer "
      "kernel, same frames\n");
#else
  printf ("peer: none (built without NPP)\n");
#endif

  struct
  {
    const char *name;
    int width, height, ps, size, gaussian;
    int negated;                /* weights that sum below zero: a negative
                                 * divisor, the finish's sign rule */
  } cases[] = {
    {"4K RGBA", 3840, 2160, 4, 3, 0},
    {"4K RGBA", 3840, 2160, 4, 5, 0},
    {"4K RGBA", 3840, 2160, 4, 7, 0},
    {"4K RGBA", 3840, 2160, 4, 15, 0},
    {"4K RGBA", 3840, 2160, 4, 31, 0},
    {"4K RGBA", 3840, 2160, 4, 41, 0},
    {"4K RGBA", 3840, 2160, 4, 61, 0},
    {"4K RGBA gaussian", 3840, 2160, 4, 31, 1},
    {"4K RGB gaussian", 3840, 2160, 3, 31, 1},
    {"1000x1000 RGB", 1000, 1000, 3, 121, 0},
    /* last, so that the cases above draw what they drew without it */
    {"4K RGBA negated", 3840, 2160, 4, 15, 0, 1},
  };
  printf ("\n%-22s %5s %6s %9s %8s %8s %6s %9s %6s %9s %8s %9s %9s %9s %9s "
      "%9s   %s\n", "case", "size", "kind", "kconv ms", "Gpix/s", "GB/s", "%bw",
      "copy ms", "%copy", "NPP ms", "speedup", "CPU ms", "direct", "fft",
      "small", "mma", "chosen");
  srand (7);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char label[64];
    snprintf (label, sizeof label, "%s %dx%d", cases[c].name, cases[c].size,
        cases[c].size);
    if (!bench_selected (&args, label)) {
      skip_draws ((size_t) cases[c].width * cases[c].height * cases[c].ps,
          cases[c].gaussian ? 0 : cases[c].size * cases[c].size);
      continue;
    }
    Frames f;
    int n = cases[c].size;
    frames_init (&f, cases[c].width, cases[c].height, cases[c].ps);

    /* integer weights: the exact path, and what NPP takes */
    float *w;
    int32_t *iw = malloc (sizeof (int32_t) * n * n);
    int rows, cols;
    if (cases[c].gaussian) {
      w = kconv_named_kernel (KCONV_NAMED_GAUSSIAN, n, 0, &rows, &cols);
    } else {
      w = malloc (sizeof (float) * n * n);
      for (int i = 0; i < n * n; i++) {
        iw[i] = rand () % 17 - 8;
        w[i] = (float) iw[i];
      }
    }
    long sum = 0;
    for (int i = 0; i < n * n && !cases[c].gaussian; i++)
      sum += iw[i];
    if (cases[c].negated && sum > 0) {
      for (int i = 0; i < n * n; i++) {
        iw[i] = -iw[i];
        w[i] = (float) iw[i];
      }
      sum = -sum;
    }
    KConvKernel k = { n, n, w, cases[c].gaussian ? 0.0 : (double) (sum ? sum :
          1), 0.0, 0
    };
    KConvOptions opt = { KCONV_BACKEND_CUDA, 0, 0 };
    KconvCtx kc = { 0 };
    if (kconv_filter_new (&k, KCONV_BORDER_REPLICATE, &opt, &kc.filter) !=
        KCONV_OK) {
      printf ("%s %d: cannot create: %s\n", cases[c].name, n,
          kconv_last_error ());
      return 1;
    }
    KConvImage im = { NULL, f.width, f.height, (ptrdiff_t) f.stride, f.ps,
      3, {0, 1, 2}
    };
    kc.im = im;
    float ms = time_gpu (run_kconv, &kc, &f);
    const float copy_ms = time_gpu (run_copy, NULL, &f);
    double gpix = (double) f.width * f.height / (ms * 1e6);
    double gbs = 2.0 * f.bytes / (ms * 1e6);
    float npp_ms = -1.f;
#ifdef KCONV_BENCH_NPP
    if (!cases[c].gaussian) {
      NppCtx nc = { peer_npp_upload_kernel (iw, n), n, (int) (sum ? sum : 1) };
      if (nc.kernel)
        npp_ms = time_gpu (run_npp, &nc, &f);
      cudaFree (nc.kernel);
    }
#endif
    float cpu_ms = time_cpu (&k, &f, &im, args.threads);
    float direct_ms = -1.f, fft_ms = -1.f, small_ms = -1.f, mma_ms = -1.f;
    if (!cases[c].gaussian && n >= 15) {
      direct_ms = time_forced ("direct", "direct tiled", &k, &f, &im);
      fft_ms = time_forced ("fft", "FFT", &k, &f, &im);
    }
    if (cases[c].gaussian)      /* the fused float kernel, for comparison */
      direct_ms = time_forced ("separable", "fused two-pass", &k, &f, &im);
    if (!cases[c].gaussian) {
      small_ms = time_forced ("small", "fixed at compile time", &k, &f, &im);
      mma_ms = time_forced ("mma", "tensor cores", &k, &f, &im);
    }
    printf ("%-22s %5d %6s %9.4f %8.2f %8.0f %5.0f%% ", cases[c].name, n,
        kconv_filter_is_exact (kc.filter) ? "exact" : "float", ms, gpix, gbs,
        100.0 * gbs / copy_gbs);
    printf ("%9.4f %5.0f%% ", copy_ms, 100.0 * copy_ms / ms);
    if (npp_ms > 0)
      printf ("%9.4f %7.1fx", npp_ms, npp_ms / ms);
    else
      printf ("%9s %8s", "-", "-");
    printf (" %9.2f %9.4f %9.4f %9.4f %9.4f   %s\n", cpu_ms, direct_ms, fft_ms,
        small_ms, mma_ms, kconv_filter_strategy (kc.filter));
    bench_csv_row (&args, "%s,%d,%.5f,%.5f,%.3f,%.5f,%.5f,%.5f,%.5f,%.5f",
        cases[c].name, n, ms, npp_ms, cpu_ms, direct_ms, fft_ms, small_ms,
        mma_ms, copy_ms);
    fflush (stdout);
    kconv_filter_free (kc.filter);
    free (w);
    free (iw);
    frames_clear (&f);
  }
  bench_args_clear (&args);
  return 0;
}
