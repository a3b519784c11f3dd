/* kconv: what the two files of kconv_filter_run_rects share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_RECTS_PRIVATE_H
#define KCONV_RECTS_PRIVATE_H

#include "kconv-backend.h"

/* The window a rectangle's convolution reads (kconv-filter-rects.c) */
KConvRect rects_window (const KConvPlan * p, KConvRect r, int width,
    int height);
/* The part r of im, as an image of its own */
KConvImage rects_view (const KConvImage * im, KConvRect r);
/* Room for the windows: the filter's buffer, grown (device memory when
 * on_device, else host memory, page-locked where the backend has it) */
KConvStatus rects_scratch (KConvFilter * f, size_t size, int on_device,
    uint8_t ** out);
/* The windows of rects and their places in a buffer, *total bytes;
 * NULL when out of memory */
KConvRect *rects_windows (const KConvFilter * f, const KConvRect * rects,
    int n, const KConvImage * im, size_t **at, size_t *total);

/* The windows src[i] into out[i] (device images), queued on stream, side
 * by side where the backend can */
KConvStatus rects_filter_device (KConvFilter * f, const KConvImage * src,
    const KConvImage * out, int n, void *stream);

/* In place, in one go (kconv-filter-rects-batch.c): 1 and *st, or 0
 * where the ordinary path should run */
int rects_run_uploaded (KConvFilter * f, const KConvImage * im,
    const KConvRect * rects, int n, KConvStatus * st);
int rects_run_strips (KConvFilter * f, const KConvImage * im,
    const KConvRect * rects, int n, KConvStatus * st);

#endif /* KCONV_RECTS_PRIVATE_H */
