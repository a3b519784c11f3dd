/* kconv: CUDA backend, as the core sees it
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only built where nvcc is found.  The CUDA runtime is linked statically and
 * reaches the driver at run time, so a machine without a GPU or driver loads
 * the code and simply finds no device.
 */
#ifndef KCONV_CUDA_H
#define KCONV_CUDA_H

#include "kconv-plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct KConvCuda KConvCuda;

/* Usable CUDA devices (0 without a driver or GPU). */
int kconv_cuda_device_count (void);

/* Uploads the kernel and picks the strategy; device_id -1 = device 0.
 * On failure *detail (static or owned by nobody) says why. */
KConvStatus kconv_cuda_new (const KConvPlan * plan, int use_separable,
    int device_id, KConvCuda ** out, const char **detail);

/* Host images in, host images out: upload, convolve, download. */
KConvStatus kconv_cuda_run (KConvCuda * cu, const KConvImage * src,
    const KConvImage * dst);

/* Device images in and out (data are device pointers), on `stream`
 * (a cudaStream_t, NULL for the default); does not synchronise. */
KConvStatus kconv_cuda_run_device (KConvCuda * cu, const KConvImage * src,
    const KConvImage * dst, void *stream);

/* What the last failed call said. */
const char *kconv_cuda_error (const KConvCuda * cu);

/* "direct", "separable" and the launch shape, for logs and benchmarks. */
const char *kconv_cuda_strategy (const KConvCuda * cu);

void kconv_cuda_free (KConvCuda * cu);

#ifdef __cplusplus
}
#endif
#endif /* KCONV_CUDA_H */
