/* kconv: what a frame in flight holds, for filters and matchers alike
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_SLOT_H
#define KCONV_SLOT_H

#include "kmatch.h"

struct KConvSlot
{
  /* the device backend's own (kconv-backend.h: slot_wait, slot_free) */
  void *frame;                  /* a filter's frame */
  void *match;                  /* a matcher's frame */
  /* the last search submitted: its matches, found at submission, or
   * (match_on_gpu) one to read from the device's answer at the region's
   * origin */
  KMatchPosition *matches;
  int n_matches, matches_size;
  int match_on_gpu;
  int origin_x, origin_y;
  double match_norm;            /* a SAD's score is sad / match_norm */
};

#endif /* KCONV_SLOT_H */
