/* kconv: frames put in device memory for the tests and benchmarks that
 * search there (built with the CUDA runtime's headers)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_DEVICE_COPY_H
#define KCONV_DEVICE_COPY_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/* A new device buffer holding bytes of host memory; NULL when it cannot
 * be made.  cudaFree it. */
static inline void *
device_copy_of (const void *host, size_t bytes)
{
  void *d = NULL;
  if (cudaMalloc (&d, bytes) != cudaSuccess)
    return NULL;
  if (cudaMemcpy (d, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaFree (d);
    return NULL;
  }
  return d;
}

#endif
