/* kconv: scalar reference template matching
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Deliberately naive: every sum is the formula in kmatch.h, one position,
 * one pixel at a time.
 */
#include "kconv-reference.h"

void
kmatch_reference_map (const uint8_t * frame, ptrdiff_t stride,
    const uint8_t * tmpl, int tw, int th, int ch, int mw, int mh,
    uint64_t * map, const uint8_t * byte_mask)
{
  for (int y = 0; y < mh; y++)
    for (int x = 0; x < mw; x++) {
      uint64_t s = 0;
      for (int j = 0; j < th; j++)
        for (int i = 0; i < tw * ch; i++) {
          if (byte_mask && !byte_mask[(size_t) j * tw * ch + i])
            continue;
          int d = frame[(ptrdiff_t) (y + j) * stride + x * ch + i] -
              tmpl[(size_t) j * tw * ch + i];
          s += (uint64_t) (d < 0 ? -d : d);
        }
      map[(size_t) y * mw + x] = s;
    }
}

void
kmatch_reference_map_deep (const uint16_t * frame, ptrdiff_t stride,
    const uint16_t * tmpl, int tw, int th, int mw, int mh, uint64_t * map,
    const uint8_t * mask)
{
  for (int y = 0; y < mh; y++)
    for (int x = 0; x < mw; x++) {
      uint64_t s = 0;
      for (int j = 0; j < th; j++)
        for (int i = 0; i < tw; i++) {
          if (mask && !mask[(size_t) j * tw + i])
            continue;
          int64_t d = (int64_t) frame[(ptrdiff_t) (y + j) * stride + x + i] -
              tmpl[(size_t) j * tw + i];
          s += (uint64_t) (d < 0 ? -d : d);
        }
      map[(size_t) y * mw + x] = s;
    }
}
