/* kconv: what the PCIe bus allows, and the naive synchronous path
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#include "bench-bus.h"
#include "bench-harness.h"

int
bench_bus_measure (size_t bytes, int repeats, BenchBus * bus)
{
  void *h_up = NULL, *h_down = NULL, *d_up = NULL, *d_down = NULL;
  cudaStream_t s_up = NULL, s_down = NULL;
  double *up = malloc (repeats * sizeof *up);
  double *down = malloc (repeats * sizeof *down);
  double *both = malloc (repeats * sizeof *both);
  int ok = cudaHostAlloc (&h_up, bytes, 0) == cudaSuccess
      && cudaHostAlloc (&h_down, bytes, 0) == cudaSuccess
      && cudaMalloc (&d_up, bytes) == cudaSuccess
      && cudaMalloc (&d_down, bytes) == cudaSuccess
      && cudaStreamCreateWithFlags (&s_up, cudaStreamNonBlocking) == cudaSuccess
      && cudaStreamCreateWithFlags (&s_down, cudaStreamNonBlocking) ==
      cudaSuccess;
  for (int r = 0; ok && r < repeats + 2; r++) {
    double t0 = bench_now_ms ();
    cudaMemcpyAsync (d_up, h_up, bytes, cudaMemcpyHostToDevice, s_up);
    cudaStreamSynchronize (s_up);
    double t1 = bench_now_ms ();
    cudaMemcpyAsync (h_down, d_down, bytes, cudaMemcpyDeviceToHost, s_down);
    cudaStreamSynchronize (s_down);
    double t2 = bench_now_ms ();
    cudaMemcpyAsync (d_up, h_up, bytes, cudaMemcpyHostToDevice, s_up);
    cudaMemcpyAsync (h_down, d_down, bytes, cudaMemcpyDeviceToHost, s_down);
    cudaStreamSynchronize (s_up);
    cudaStreamSynchronize (s_down);
    double t3 = bench_now_ms ();
    if (r >= 2) {               /* the first two warm up */
      up[r - 2] = t1 - t0;
      down[r - 2] = t2 - t1;
      both[r - 2] = t3 - t2;
    }
  }
  if (ok) {
    double t0 = bench_now_ms ();
    for (int r = 0; r < repeats * 10; r++) {
      cudaMemcpyAsync (d_up, h_up, bytes, cudaMemcpyHostToDevice, s_up);
      cudaMemcpyAsync (h_down, d_down, bytes, cudaMemcpyDeviceToHost, s_down);
    }
    cudaStreamSynchronize (s_up);
    cudaStreamSynchronize (s_down);
    bus->sustained_ms = (bench_now_ms () - t0) / (repeats * 10);
    bus->up_ms = bench_median (up, repeats);
    bus->down_ms = bench_median (down, repeats);
    bus->both_ms = bench_median (both, repeats);
  }
  cudaFreeHost (h_up);
  cudaFreeHost (h_down);
  cudaFree (d_up);
  cudaFree (d_down);
  if (s_up)
    cudaStreamDestroy (s_up);
  if (s_down)
    cudaStreamDestroy (s_down);
  free (up);
  free (down);
  free (both);
  return ok ? 0 : -1;
}

double
bench_naive_ms (KConvFilter * filter, const KConvImage * src,
    const KConvImage * dst, int repeats)
{
  const size_t bytes = (size_t) src->stride * src->height;
  uint8_t *d_src = NULL, *d_dst = NULL;
  if (cudaMalloc ((void **) &d_src, bytes) != cudaSuccess
      || cudaMalloc ((void **) &d_dst, bytes) != cudaSuccess)
    return -1;
  KConvImage ds = *src, dd = *dst;
  ds.data = d_src;
  dd.data = d_dst;
  double *t = malloc (repeats * sizeof *t);
  for (int r = 0; r < repeats + 2; r++) {
    double t0 = bench_now_ms ();
    cudaMemcpy (d_src, src->data, bytes, cudaMemcpyHostToDevice);
    kconv_filter_run_device (filter, &ds, &dd, NULL);
    cudaMemcpy (dst->data, d_dst, bytes, cudaMemcpyDeviceToHost);
    if (r >= 2)
      t[r - 2] = bench_now_ms () - t0;
  }
  double median = bench_median (t, repeats);
  free (t);
  cudaFree (d_src);
  cudaFree (d_dst);
  return median;
}
