/* kconv: what a device needs to score the ssd, ncc and zncc searches
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * kmatch-methods.c scores a position from exact integer sums (its header
 * comment has the formulas); a device that searches by these methods
 * gets the template's sums here and gives back, for each position it
 * picks, the frame's sums there, from which the host reports the score.
 */
#ifndef KMATCH_SCORING_H
#define KMATCH_SCORING_H

#include <stdint.h>

/* A template whose every pixel counts (no mask), and whose sums times n
 * fit 63 bits (kmatch-methods.c's sums_fit_64). */
typedef struct
{
  int method;                   /* KMatchMethod: ssd, ncc or zncc */
  int n, ch;                    /* pixels; channels */
  uint64_t t[3], t2;            /* sums of each channel, of squares */
  int64_t vt;                   /* n t2 - sum_c t_c^2 */
  double norm;                  /* ssd's divisor: 255^2 n ch */
} KMatchScoring;

/* A position picked, and the frame's sums there: F T (all channels), F^2
 * (all channels) and F per channel. */
typedef struct
{
  int x, y;
  uint64_t ft, f2, f[3];
} KMatchSums;

#endif /* KMATCH_SCORING_H */
