/* kconv: scalar reference convolution
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Deliberately naive: every output sample is the formula in kconv.h, with
 * the border rule applied to every tap and the full 2D kernel even when it
 * is separable.
 */
#include "kconv-reference.h"
#include "kconv-sample.h"

static void
copy_passthrough_bytes (const KConvImage * src, const KConvImage * dst)
{
  for (int y = 0; y < src->height; y++) {
    const uint8_t *s = src->data + y * src->stride;
    uint8_t *d = dst->data + y * dst->stride;
    for (int i = 0; i < src->width * src->pixel_stride; i++)
      d[i] = s[i];
  }
}

static int32_t
reference_sample (const KConvPlan * plan, const KConvImage * src, int x, int y,
    int channel_offset)
{
  int64_t isum = 0;
  double fsum = 0.0;

  for (int ky = 0; ky < plan->rows; ky++) {
    int sy = kconv_border_index (plan->border, y - plan->ay + ky, src->height);
    for (int kx = 0; kx < plan->cols; kx++) {
      int sx = kconv_border_index (plan->border, x - plan->ax + kx, src->width);
      int p = 0;
      if (sy >= 0 && sx >= 0)
        p = kconv_sample_get (src, src->data + sy * src->stride +
            sx * src->pixel_stride + channel_offset);
      float w = plan->weights[ky * plan->cols + kx];
      if (plan->exact)
        isum += p * (int64_t) w;
      else
        fsum += p * (double) w;
    }
  }

  if (plan->exact)
    return kconv_finish_exact (plan, isum);

  double v = fsum / plan->divisor_f;
  if (plan->absolute)
    v = fabs (v);
  v = floor (v + plan->offset_f + 0.5);
  return v < 0.0 ? 0 : v > plan->maxval ? plan->maxval : (int32_t) v;
}

KConvStatus
kconv_reference_run (const KConvPlan * plan, const KConvImage * src,
    const KConvImage * dst)
{
  if (!dst->keep_other_bytes)
    copy_passthrough_bytes (src, dst);
  for (int y = 0; y < src->height; y++) {
    uint8_t *drow = dst->data + y * dst->stride;
    for (int x = 0; x < src->width; x++)
      for (int c = 0; c < src->n_channels; c++)
        kconv_sample_put (dst, drow + x * src->pixel_stride +
            src->channel_offset[c], reference_sample (plan, src, x, y,
                src->channel_offset[c]));
  }
  return KCONV_OK;
}
