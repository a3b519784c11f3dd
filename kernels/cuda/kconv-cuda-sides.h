/* kconv: side streams, for several small images filtered at once
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_CUDA_SIDES_H
#define KCONV_CUDA_SIDES_H

#include "kconv.h"

#define KCONV_CUDA_SIDES 4 /* side streams a filter has at most */

typedef struct KConvCudaSides KConvCudaSides;

/* min (n, KCONV_CUDA_SIDES) side streams into side[], each waiting for
 * what stream holds now; *sides made (in the current context) the first
 * time. */
KConvStatus kconv_cuda_sides_fork (KConvCudaSides ** sides, void *stream,
    int n, void **side);
/* stream waits for what the first n side streams hold now. */
KConvStatus kconv_cuda_sides_join (KConvCudaSides * sides, void *stream,
    int n);
void kconv_cuda_sides_free (KConvCudaSides * sides);

#endif
