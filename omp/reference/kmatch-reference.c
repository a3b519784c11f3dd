/* kconv: scalar reference template matching
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Deliberately naive: every sum is the formula in kmatch.h, one position,
 * one pixel at a time.
 */
#include <math.h>
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

void
kmatch_reference_correlate (const uint8_t * planes,
    const uint16_t * planes16, int rw, int rh, const uint8_t * kernel, int tw,
    int th, int ch, int mw, int mh, int squares, uint64_t * out)
{
  for (int y = 0; y < mh; y++)
    for (int x = 0; x < mw; x++) {
      uint64_t s = 0;
      for (int c = 0; c < ch; c++)
        for (int j = 0; j < th; j++)
          for (int i = 0; i < tw; i++) {
            const size_t at = ((size_t) c * rh + y + j) * rw + x + i;
            const uint64_t f = planes16 ? planes16[at] : planes[at];
            const uint64_t k = kernel[((size_t) c * th + j) * tw + i];
            s += squares ? f * f * k : f * k;
          }
      out[(size_t) y * mw + x] = s;
    }
}

/* One position's score and correlation by the formulas of kmatch.h, in
 * double precision, the means taken first */
static void
score_at (const uint8_t * f, ptrdiff_t stride, const uint8_t * t, int tw,
    int th, int ch, int method, const uint8_t * mask, double *score,
    double *corr)
{
  double n = 0, mf[3] = { 0 }, mt[3] = { 0 };
  for (int j = 0; j < th; j++)
    for (int i = 0; i < tw; i++) {
      if (mask && !mask[((size_t) j * tw + i) * ch])
        continue;
      n++;
      for (int c = 0; c < ch; c++) {
        mf[c] += f[j * stride + i * ch + c];
        mt[c] += t[((size_t) j * tw + i) * ch + c];
      }
    }
  for (int c = 0; c < ch; c++) {
    mf[c] /= n;
    mt[c] /= n;
  }
  double sd = 0, fg = 0, ff = 0, tt = 0;
  for (int j = 0; j < th; j++)
    for (int i = 0; i < tw; i++) {
      if (mask && !mask[((size_t) j * tw + i) * ch])
        continue;
      for (int c = 0; c < ch; c++) {
        double a = f[j * stride + i * ch + c];
        double b = t[((size_t) j * tw + i) * ch + c];
        sd += (a - b) * (a - b);
        if (method == 3) {
          a -= mf[c];
          b -= mt[c];
        }
        fg += a * b;
        ff += a * a;
        tt += b * b;
      }
    }
  *corr = 0;
  if (method == 1) {
    *score = sd / (255.0 * 255.0 * n * ch);
    return;
  }
  /* (of integer samples a sum of squares that is not 0 is at least
   * (n - 1) / n >= 1/2; below 1/4 it is 0 and rounding) */
  if (ff > 0.25 && tt > 0.25)
    *corr = fg / sqrt (ff * tt);
  *corr = *corr > 1 ? 1 : *corr < -1 ? -1 : *corr;
  *score = method == 2 ? 1 - *corr : (1 - *corr) / 2;
}

void
kmatch_reference_scores (const uint8_t * frame, ptrdiff_t stride,
    const uint8_t * tmpl, int tw, int th, int ch, int mw, int mh, int method,
    const uint8_t * byte_mask, double *score, double *corr)
{
  for (int y = 0; y < mh; y++)
    for (int x = 0; x < mw; x++)
      score_at (frame + (ptrdiff_t) y * stride + x * ch, stride, tmpl, tw, th,
          ch, method, byte_mask, score + (size_t) y * mw + x,
          corr + (size_t) y * mw + x);
}
