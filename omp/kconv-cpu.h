/* kconv: CPU backends (scalar reference and the threaded, vectorised one)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_CPU_H
#define KCONV_CPU_H

#include "kconv-plan.h"

#ifdef __cplusplus
extern "C" {
#endif


/* Working memory of the CPU backend, kept between frames. */
typedef struct {
  float *data;
  size_t n_floats;
} KConvCpuScratch;

KConvStatus kconv_cpu_run (const KConvPlan * plan, int use_separable,
    int n_threads, KConvCpuScratch * scratch, const KConvImage * src,
    const KConvImage * dst);
void kconv_cpu_scratch_clear (KConvCpuScratch * scratch);

/* Large kernels through FFTW (built where FFTW is found: KCONV_HAVE_FFTW).
 * The plan must outlive the object. */
typedef struct KConvCpuFft KConvCpuFft;
KConvCpuFft *kconv_cpu_fft_new (const KConvPlan * plan);
KConvStatus kconv_cpu_fft_run (KConvCpuFft * fft, int n_threads,
    const KConvImage * src, const KConvImage * dst);
void kconv_cpu_fft_free (KConvCpuFft * fft);



#ifdef __cplusplus
}
#endif
#endif /* KCONV_CPU_H */
