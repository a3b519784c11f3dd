/* kconv: the scalar references every backend is checked against
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Apart from the optimised CPU code on purpose: they share none of its
 * code, so a fault in one cannot hide in the other.
 */
#ifndef KCONV_REFERENCE_H
#define KCONV_REFERENCE_H

#include "kconv-plan.h"

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* One pixel at a time in 64-bit integers (exact kernels) or doubles: slow,
 * obviously right, the gold the other backends are checked against. */
KConvStatus kconv_reference_run (const KConvPlan * plan, const KConvImage * src,
    const KConvImage * dst);

/* Fills map[(y * mw) + x] = SAD at position (x, y) of a frame whose
 * samples are packed (ch per pixel, rows `stride` bytes apart, starting at
 * the region's corner), for x < mw, y < mh.  The template is packed too. */
void kmatch_reference_map (const uint8_t * frame, ptrdiff_t stride,
    const uint8_t * tmpl, int tw, int th, int ch, int mw, int mh,
    uint64_t * map, const uint8_t * byte_mask);

/* The same for 16-bit values, one channel, rows `stride` values apart;
 * mask: NULL, or a byte a template pixel, non-zero where it counts. */
void kmatch_reference_map_deep (const uint16_t * frame, ptrdiff_t stride,
    const uint16_t * tmpl, int tw, int th, int mw, int mh, uint64_t * map,
    const uint8_t * mask);

/* As kmatch_cpu_correlate (kmatch-cpu.h), one product at a time: planes
 * of bytes, or (planes NULL) of 16-bit values. */
void kmatch_reference_correlate (const uint8_t * planes,
    const uint16_t * planes16, int rw, int rh, const uint8_t * kernel, int tw,
    int th, int ch, int mw, int mh, int squares, uint64_t * out);

/* The score and correlation of every position (as for
 * kmatch_reference_map) by method (KMatchMethod, not sad), straight from
 * the formulas of kmatch.h in double precision: means first, then the
 * sums of deviations.  byte_mask as for the map. */
void kmatch_reference_scores (const uint8_t * frame, ptrdiff_t stride,
    const uint8_t * tmpl, int tw, int th, int ch, int mw, int mh, int method,
    const uint8_t * byte_mask, double *score, double *corr);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KCONV_REFERENCE_H */
