/* kconv: OpenCV as the peer in kconv-bench
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_BENCH_PEER_OPENCV_H
#define KCONV_BENCH_PEER_OPENCV_H

#include <stdint.h>

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

void peer_opencv_set_threads (int n);
const char *peer_opencv_version (void);

/* cv::filter2D, 16-bit in and out, BORDER_REFLECT_101. */
void peer_opencv_filter2d_16u (const uint16_t * src, uint16_t * dst, int width,
    int height, int channels, const float *kernel, int rows, int cols);

/* cv::filter2D, 8-bit in and out, BORDER_REFLECT_101 (kconv's reflect). */
void peer_opencv_filter2d (const uint8_t * src, uint8_t * dst, int width,
    int height, int channels, const float *kernel, int rows, int cols);

/* cv::sepFilter2D with the same 1D kernel across and down. */
void peer_opencv_sep_filter2d (const uint8_t * src, uint8_t * dst, int width,
    int height, int channels, const float *kernel1d, int size);

/* cv::blur: the size x size mean (running sums), BORDER_REFLECT_101. */
void peer_opencv_box (const uint8_t * src, uint8_t * dst, int width,
    int height, int channels, int size);

/* cv::matchTemplate TM_SQDIFF on grey frames; where its minimum is. */
void peer_opencv_match_sqdiff (const uint8_t * frame, int width, int height,
    const uint8_t * tmpl, int tw, int th, int *x, int *y);

/* cv::matchTemplate by method 1 (TM_SQDIFF), 2 (TM_CCORR_NORMED) or 3
 * (TM_CCOEFF_NORMED) on frames of `channels` (1 or 3) packed samples; where
 * its best is and that score. */
void peer_opencv_match (int method, const uint8_t * frame, int width,
    int height, const uint8_t * tmpl, int tw, int th, int channels, int *x,
    int *y, double *value);

/* OpenCV's recipe for a template at several sizes: for each of the n
 * scales cv::resize (INTER_AREA shrinking, INTER_LINEAR growing, each side
 * rounded) and cv::matchTemplate TM_CCOEFF_NORMED on grey frames,
 * minMaxLoc; the best over all sizes: where, which scale and its value. */
void peer_opencv_match_scales (const uint8_t * frame, int width, int height,
    const uint8_t * tmpl, int tw, int th, const double *scales, int n,
    int *x, int *y, int *scale_index, double *value);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif
