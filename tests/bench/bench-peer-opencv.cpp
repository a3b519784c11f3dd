/* kconv: OpenCV as the peer in kconv-bench
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include "bench-peer-opencv.h"

void
peer_opencv_set_threads (int n)
{
  cv::setNumThreads (n);
}

const char *
peer_opencv_version (void)
{
  return CV_VERSION;
}

void
peer_opencv_filter2d (const uint8_t * src, uint8_t * dst, int width,
    int height, int channels, const float *kernel, int rows, int cols)
{
  cv::Mat s (height, width, CV_8UC (channels), (void *) src);
  cv::Mat d (height, width, CV_8UC (channels), dst);
  cv::Mat k (rows, cols, CV_32F, (void *) kernel);
  cv::filter2D (s, d, -1, k, cv::Point (-1, -1), 0, cv::BORDER_REFLECT_101);
}

void
peer_opencv_filter2d_16u (const uint16_t * src, uint16_t * dst, int width,
    int height, int channels, const float *kernel, int rows, int cols)
{
  cv::Mat s (height, width, CV_16UC (channels), (void *) src);
  cv::Mat d (height, width, CV_16UC (channels), dst);
  cv::Mat k (rows, cols, CV_32F, (void *) kernel);
  cv::filter2D (s, d, -1, k, cv::Point (-1, -1), 0, cv::BORDER_REFLECT_101);
}

void
peer_opencv_sep_filter2d (const uint8_t * src, uint8_t * dst, int width,
    int height, int channels, const float *kernel1d, int size)
{
  cv::Mat s (height, width, CV_8UC (channels), (void *) src);
  cv::Mat d (height, width, CV_8UC (channels), dst);
  cv::Mat k (1, size, CV_32F, (void *) kernel1d);
  cv::sepFilter2D (s, d, -1, k, k, cv::Point (-1, -1), 0,
      cv::BORDER_REFLECT_101);
}

void
peer_opencv_box (const uint8_t * src, uint8_t * dst, int width, int height,
    int channels, int size)
{
  cv::Mat s (height, width, CV_8UC (channels), (void *) src);
  cv::Mat d (height, width, CV_8UC (channels), dst);
  cv::blur (s, d, cv::Size (size, size), cv::Point (-1, -1),
      cv::BORDER_REFLECT_101);
}

void
peer_opencv_match_sqdiff (const uint8_t * frame, int width, int height,
    const uint8_t * tmpl, int tw, int th, int *x, int *y)
{
  cv::Mat f (height, width, CV_8UC1, (void *) frame);
  cv::Mat t (th, tw, CV_8UC1, (void *) tmpl);
  cv::Mat result;
  cv::matchTemplate (f, t, result, cv::TM_SQDIFF);
  cv::Point at;
  cv::minMaxLoc (result, NULL, NULL, &at, NULL);
  *x = at.x;
  *y = at.y;
}

void
peer_opencv_match (int method, const uint8_t * frame, int width, int height,
    const uint8_t * tmpl, int tw, int th, int channels, int *x, int *y,
    double *value)
{
  static const int methods[] = { cv::TM_SQDIFF, cv::TM_SQDIFF,
    cv::TM_CCORR_NORMED, cv::TM_CCOEFF_NORMED
  };
  cv::Mat f (height, width, CV_8UC (channels), (void *) frame);
  cv::Mat t (th, tw, CV_8UC (channels), (void *) tmpl);
  cv::Mat result;
  cv::matchTemplate (f, t, result, methods[method]);
  cv::Point lo, hi;
  double vlo, vhi;
  cv::minMaxLoc (result, &vlo, &vhi, &lo, &hi);
  const int min = method == 1;
  *x = min ? lo.x : hi.x;
  *y = min ? lo.y : hi.y;
  *value = min ? vlo : vhi;
}

void
peer_opencv_match_scales (const uint8_t * frame, int width, int height,
    const uint8_t * tmpl, int tw, int th, const double *scales, int n,
    int *x, int *y, int *scale_index, double *value)
{
  cv::Mat f (height, width, CV_8UC1, (void *) frame);
  cv::Mat t (th, tw, CV_8UC1, (void *) tmpl);
  *value = -2;
  for (int i = 0; i < n; i++) {
    const cv::Size size (std::max (1, (int) std::floor (tw * scales[i] + 0.5)),
        std::max (1, (int) std::floor (th * scales[i] + 0.5)));
    if (size.width > width || size.height > height)
      continue;
    cv::Mat resized, result;
    cv::resize (t, resized, size, 0, 0, scales[i] < 1 ? cv::INTER_AREA :
        cv::INTER_LINEAR);
    cv::matchTemplate (f, resized, result, cv::TM_CCOEFF_NORMED);
    cv::Point lo, hi;
    double vlo, vhi;
    cv::minMaxLoc (result, &vlo, &vhi, &lo, &hi);
    if (vhi > *value) {
      *value = vhi;
      *x = hi.x;
      *y = hi.y;
      *scale_index = i;
    }
  }
}
