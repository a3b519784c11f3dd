/* kconv: a backend against the scalar reference on 16-bit samples
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_CONV_DEEP_TABLE_H
#define KCONV_CONV_DEEP_TABLE_H

#include "kconv.h"

/* Every layout of 10-, 12- and 16-bit video kconv takes (grey, planar and
 * semi-planar YUV, MSB-aligned P01x, RGBA64, big-endian GRAY16) against
 * the reference: random words (stray bits too), odd sizes, padded strides,
 * poisoned outputs; exact kernels to the bit, others within 1, and the
 * bits below an MSB-aligned value 0.  Counts through CHECK. */
void conv_deep_table_run (KConvBackend backend, unsigned seed);

#endif
