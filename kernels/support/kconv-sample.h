/* kconv: one sample of an image, whatever its depth
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Bytes, or 16-bit words of either byte order whose value may sit some
 * bits up (see KConvImage).  For the scalar paths; the vectorised ones
 * widen whole rows.
 */
#ifndef KCONV_SAMPLE_H
#define KCONV_SAMPLE_H

#include "kconv.h"

/* Whether the image's samples are 16-bit words */
static inline int
kconv_image_deep (const KConvImage * im)
{
  return im->depth > 8;
}

/* The image's sample depth in bits: 8 .. 16 */
static inline int
kconv_image_depth (const KConvImage * im)
{
  return im->depth > 8 ? im->depth : 8;
}

/* The sample at p, as a number 0 .. 2^depth - 1 */
static inline int32_t
kconv_sample_get (const KConvImage * im, const uint8_t * p)
{
  if (!kconv_image_deep (im))
    return *p;
  uint32_t w = im->big_endian ? (uint32_t) p[0] << 8 | p[1] :
      (uint32_t) p[1] << 8 | p[0];
  return (int32_t) ((w >> im->shift) & ((1u << im->depth) - 1));
}

/* Writes v (0 .. 2^depth - 1) as the sample at p */
static inline void
kconv_sample_put (const KConvImage * im, uint8_t * p, int32_t v)
{
  if (!kconv_image_deep (im)) {
    *p = (uint8_t) v;
    return;
  }
  uint32_t w = (uint32_t) v << im->shift;
  p[im->big_endian ? 0 : 1] = (uint8_t) (w >> 8);
  p[im->big_endian ? 1 : 0] = (uint8_t) w;
}

#endif /* KCONV_SAMPLE_H */
