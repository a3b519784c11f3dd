/* kconv: the pixel work around a search (cutting templates, packing planes)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include "kmatch.h"
#include "kconv-sample.h"
#include "kmatch-private.h"

uint8_t *
kmatch_cut_template (const KConvImage * im, const KMatchRegion * r,
    int channels)
{
  if (!im || !im->data || !r || r->x < 0 || r->y < 0 || r->width < 1
      || r->height < 1 || r->width > im->width - r->x
      || r->height > im->height - r->y)
    return NULL;
  const int luma = channels == 1 && im->n_channels == 3;
  if (!luma && channels != im->n_channels)
    return NULL;
  uint8_t *t = malloc ((size_t) r->width * r->height * channels);
  if (!t)
    return NULL;
  const int *off = im->channel_offset;
  for (int y = 0; y < r->height; y++) {
    const uint8_t *row = im->data + (ptrdiff_t) (r->y + y) * im->stride +
        (ptrdiff_t) r->x * im->pixel_stride;
    uint8_t *d = t + (size_t) y * r->width * channels;
    for (int x = 0; x < r->width; x++, d += channels) {
      const uint8_t *px = row + (ptrdiff_t) x * im->pixel_stride;
      if (luma)
        d[0] = kmatch_rgb_luma (px[off[0]], px[off[1]], px[off[2]]);
      else
        for (int c = 0; c < channels; c++)
          d[c] = px[off[c]];
    }
  }
  return t;
}

uint16_t *
kmatch_cut_template_deep (const KConvImage * im, const KMatchRegion * r)
{
  if (!im || !im->data || !r || !kconv_image_deep (im) || r->x < 0
      || r->y < 0 || r->width < 1 || r->height < 1
      || r->width > im->width - r->x || r->height > im->height - r->y)
    return NULL;
  uint16_t *t = malloc (sizeof *t * (size_t) r->width * r->height);
  if (!t)
    return NULL;
  for (int y = 0; y < r->height; y++) {
    const uint8_t *row = im->data + (ptrdiff_t) (r->y + y) * im->stride +
        (ptrdiff_t) r->x * im->pixel_stride + im->channel_offset[0];
    for (int x = 0; x < r->width; x++)
      t[(size_t) y * r->width + x] = (uint16_t) kconv_sample_get (im,
          row + (ptrdiff_t) x * im->pixel_stride);
  }
  return t;
}

void
kmatch_interleave (const KConvImage * planes, int n, uint8_t * dst,
    ptrdiff_t dst_stride)
{
  for (int y = 0; y < planes[0].height; y++) {
    uint8_t *d = dst + (ptrdiff_t) y * dst_stride;
    for (int c = 0; c < n; c++) {
      const KConvImage *p = &planes[c];
      const uint8_t *s = p->data + (ptrdiff_t) y * p->stride +
          p->channel_offset[0];
      for (int x = 0; x < p->width; x++)
        d[n * x + c] = s[(ptrdiff_t) x * p->pixel_stride];
    }
  }
}

size_t
kmatch_row_bytes (const KConvImage * frame, int n_channels, int width)
{
  const int sample = frame->depth > 8 ? 2 : 1;
  int end = 0;
  for (int c = 0; c < n_channels; c++)
    if (frame->channel_offset[c] + sample > end)
      end = frame->channel_offset[c] + sample;
  return (size_t) (width - 1) * frame->pixel_stride + end;
}
