/* GStreamer kconv plugin: kconvfilter's core filters and frames
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The core filters are made again from the settings when a property
 * changed since the last frame; each frame's planes are convolved on their
 * slot (frames in flight), or where they lie in CUDA memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/base/gstbasetransform.h>

#include "gstkconvfilter-private.h"
#include "kconv-frame-images.h"

/* Whether the weights sum to 0 (edge, laplacian, sobel): such a kernel
 * gives 0 on flat chroma, a green picture on YUV video. */
static gboolean
weights_sum_to_zero (const gfloat * w, gint n)
{
  gdouble sum = 0, scale = 0;
  for (gint i = 0; i < n; i++) {
    sum += w[i];
    scale += fabs (w[i]);
  }
  return fabs (sum) <= 1e-6 * scale;
}

/* The filter that runs image i of a plane: the kernel, or on chroma with
 * planes=auto and a zero-sum kernel the neutral grey. */
static KConvFilter *
image_filter (GstKConvFilter * self, const gboolean chroma[], guint i)
{
  return chroma[i] && self->neutral_chroma ? self->neutral_chroma : self->core;
}

/* Rebuilds the core filter when a property changed since the last frame.
 * The settings are copied under the lock and the work is done outside it. */
static gboolean
gst_kconv_filter_ensure_core (GstKConvFilter * self)
{
  GstKConvBase *base = GST_KCONV_BASE (self);
  KConvOptions options;
  Settings snap;

  guint options_cookie = gst_kconv_base_options (base, &options);
  GST_OBJECT_LOCK (self);
  if (self->core && self->core_cookie == self->settings_cookie
      && self->core_options_cookie == options_cookie) {
    GST_OBJECT_UNLOCK (self);
    return TRUE;
  }
  gst_kconv_filter_settings_copy (&snap, &self->settings);
  guint cookie = self->settings_cookie;
  GST_OBJECT_UNLOCK (self);

  /* kernel-size sizes some named kernels only: say so, once a size */
  const KConvNamedKernelInfo *named = kconv_named_kernel_info (snap.kernel);
  if (snap.kernel_size_set && !(named && named->sized)
      && snap.kernel_size != DEFAULT_KERNEL_SIZE
      && snap.kernel_size != self->size_warned) {
    GString *sized = g_string_new (NULL);
    for (gint i = 0; i < KCONV_NAMED_COUNT; i++)
      if (kconv_named_kernel_info (i)->sized)
        g_string_append_printf (sized, "%s%s", sized->len ? ", " : "",
            kconv_named_kernel_info (i)->nick);
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("kernel-size=%d has no effect with kernel=%s: it sizes only %s",
            snap.kernel_size, named ? named->nick : "custom", sized->str),
        (NULL));
    g_string_free (sized, TRUE);
    self->size_warned = snap.kernel_size;
  }

  KConvKernel kernel = { 0 };
  KConvFilter *core = NULL, *neutral = NULL;
  KConvStatus st = KCONV_ERROR_INVALID_KERNEL;
  gfloat *w =
      gst_kconv_filter_settings_weights (&snap, &kernel.rows, &kernel.cols);
  GstKConvFrameComponents components =
      snap.planes ==
      GST_KCONV_PLANES_LUMA ? GST_KCONV_FRAME_LUMA : GST_KCONV_FRAME_ALL;

  if (w) {
    kernel.weights = w;
    kernel.divisor = snap.divisor;
    kernel.offset = snap.offset;
    kernel.absolute = gst_kconv_filter_settings_absolute (&snap);
    st = kconv_filter_new (&kernel, snap.border, &options, &core);
    if (st == KCONV_OK && snap.planes == GST_KCONV_PLANES_AUTO
        && weights_sum_to_zero (w, kernel.rows * kernel.cols)) {
      /* on the backend the kernel runs on, so that both share its slots */
      static const float zero = 0.f;
      KConvKernel grey = {.cols = 1,.rows = 1,.weights = &zero,.divisor = 1,
        .offset = 128
      };
      KConvOptions same = options;
      same.backend = kconv_filter_backend (core);
      st = kconv_filter_new (&grey, KCONV_BORDER_REPLICATE, &same, &neutral);
      if (st != KCONV_OK) {
        kconv_filter_free (core);
        core = NULL;
      }
      components = GST_KCONV_FRAME_SPLIT;
    }
  }
  g_free (w);
  g_free (snap.custom);

  if (st == KCONV_ERROR_BACKEND_UNAVAILABLE) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, SETTINGS,
        ("backend=%s requested but it is not available",
            kconv_backend_name (options.backend)), st);
    return FALSE;
  }
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, SETTINGS,
        ("Could not set up the convolution"), st);
    return FALSE;
  }

  GST_DEBUG_OBJECT (self, "kernel %dx%d on %s: %s, %s arithmetic",
      kernel.cols, kernel.rows,
      kconv_backend_name (kconv_filter_backend (core)),
      kconv_filter_strategy (core),
      kconv_filter_is_exact (core) ? "exact integer" : "single-precision");
  gst_kconv_base_check_auto_start (base, &options, kconv_filter_backend (core));
  if (options.backend == KCONV_BACKEND_AUTO)
    GST_INFO_OBJECT (self, "backend=auto: %s",
        kconv_filter_backend (core) == KCONV_BACKEND_CUDA ?
        "using CUDA" : "no usable CUDA device, using the CPU");

  /* frames in flight were submitted to the old filter */
  gst_kconv_base_wait_all (base);
  kconv_filter_free (self->core);
  kconv_filter_free (self->neutral_chroma);
  self->core = core;
  self->neutral_chroma = neutral;
  self->core_cookie = cookie;
  self->core_options_cookie = options_cookie;
  self->components = components;
  return TRUE;
}

void
gst_kconv_filter_free_core (GstKConvBase * base)
{
  GstKConvFilter *self = GST_KCONV_FILTER (base);

  kconv_filter_free (self->core);
  kconv_filter_free (self->neutral_chroma);
  self->core = NULL;
  self->neutral_chroma = NULL;
}

/* GstVideoFilter makes a filter without transform_frame work in place;
 * ours never does: every frame goes to a new output buffer. */
gboolean
gst_kconv_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  if (!GST_KCONV_FILTER_PARENT->set_caps (trans, incaps, outcaps))
    return FALSE;
  gst_base_transform_set_in_place (trans, FALSE);
  return TRUE;
}

/* Every plane of a frame in CUDA memory, convolved where it lies on the
 * filter's stream; the same planes, images and copies as in system memory.
 * Returns once the GPU is done: GStreamer 1.22's CUDA memory carries no
 * stream to order the next element's work after ours. */
static KConvStatus
convolve_on_device (GstKConvFilter * self, GstVideoFrame * in,
    GstVideoFrame * out)
{
  void *stream = kconv_filter_stream (self->core);
  KConvStatus st = KCONV_OK;

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in) && st == KCONV_OK; p++) {
    KConvImage src[GST_VIDEO_MAX_COMPONENTS], dst[GST_VIDEO_MAX_COMPONENTS];
    gboolean chroma[GST_VIDEO_MAX_COMPONENTS];
    guint n =
        gst_kconv_frame_plane_images (in, p, self->components, src, chroma);
    gsize row = gst_kconv_frame_plane_row_bytes (in, p);
    gsize covered = 0;
    if (n > 0) {
      gst_kconv_frame_plane_images (out, p, self->components, dst, NULL);
      covered = (gsize) src[0].width * src[0].pixel_stride;
    }
    /* what no image covers: a whole plane, or the tails of its rows */
    if (covered < row)
      st = kconv_device_copy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out,
              p) + covered, GST_VIDEO_FRAME_PLANE_STRIDE (out, p),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (in, p) + covered,
          GST_VIDEO_FRAME_PLANE_STRIDE (in, p), row - covered,
          gst_kconv_frame_plane_height (in, p), stream);
    for (guint i = 0; i < n && st == KCONV_OK; i++)
      st = kconv_filter_run_device (image_filter (self, chroma, i), &src[i],
          &dst[i], stream);
  }
  KConvStatus synced = kconv_device_sync (stream);
  return st != KCONV_OK ? st : synced;
}

/* The frame of inbuf in CUDA memory into a new buffer of CUDA memory; it
 * is done when this returns, and queued to keep its place.  Takes inbuf
 * and outbuf. */
static GstFlowReturn
gst_kconv_filter_start_frame_on_device (GstKConvFilter * self,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstKConvBase *base = GST_KCONV_BASE (self);
  GstVideoFilter *vfilter = GST_VIDEO_FILTER (self);
  GstVideoFrame in, out;
  GstFlowReturn ret = GST_FLOW_ERROR;

  if (gst_kconv_base_map_cuda (base, &in, &vfilter->in_info, inbuf,
          GST_MAP_READ)) {
    if (gst_kconv_base_map_cuda (base, &out, &vfilter->out_info, outbuf,
            GST_MAP_WRITE)) {
      KConvStatus st = convolve_on_device (self, &in, &out);
      gst_video_frame_unmap (&out);
      if (st == KCONV_OK)
        ret = GST_FLOW_OK;
      else
        GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED,
            ("Convolution failed on " "the GPU"), st);
    }
    gst_video_frame_unmap (&in);
  }
  gst_buffer_unref (inbuf);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (outbuf);
    return ret;
  }
  gst_kconv_base_queue_done (base, outbuf);
  return GST_FLOW_OK;
}

/* Every plane of the frame through the core, on its slot (planes not
 * filtered copied). */
static KConvStatus
submit_planes (GstKConvFilter * self, GstKConvInflightFrame * f)
{
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f->in); p++) {
    KConvImage src[GST_VIDEO_MAX_COMPONENTS], dst[GST_VIDEO_MAX_COMPONENTS];
    gboolean chroma[GST_VIDEO_MAX_COMPONENTS];
    guint n = gst_kconv_frame_plane_images (&f->in, p, self->components, src,
        chroma);
    if (n == 0) {
      gst_video_frame_copy_plane (&f->out, &f->in, p);
      continue;
    }
    gst_kconv_frame_plane_images (&f->out, p, self->components, dst, NULL);
    gsize covered = (gsize) src[0].width * src[0].pixel_stride;
    gsize row = gst_kconv_frame_plane_row_bytes (&f->in, p);
    if (covered < row)
      gst_kconv_frame_copy_row_tails (&f->out, &f->in, p, covered, row,
          src[0].height);
    for (guint i = 0; i < n; i++) {
      KConvStatus st = kconv_filter_submit (image_filter (self, chroma, i),
          f->slot, &src[i], &dst[i]);
      if (st != KCONV_OK)
        return st;
    }
  }
  return KCONV_OK;
}

/* Starts the convolution of every plane of inbuf into a new output buffer
 * and queues the frame.  Takes inbuf. */
GstFlowReturn
gst_kconv_filter_start_frame (GstKConvBase * base, GstBuffer * inbuf)
{
  GstKConvFilter *self = GST_KCONV_FILTER (base);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstVideoFilter *vfilter = GST_VIDEO_FILTER (self);
  GstBuffer *outbuf = NULL;

  if (!gst_kconv_base_check_size (base, inbuf, &vfilter->in_info)
      || !gst_kconv_filter_ensure_core (self)) {
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  GST_OBJECT_LOCK (self);
  const gboolean in_regions = self->regions.mode != GST_KCONV_REGIONS_ALL;
  GST_OBJECT_UNLOCK (self);
  if (in_regions)
    return gst_kconv_filter_regions_frame (self, inbuf);
  GstFlowReturn ret = GST_KCONV_FILTER_PARENT->prepare_output_buffer (trans,
      inbuf, &outbuf);
  if (ret != GST_FLOW_OK || !outbuf) {
    gst_buffer_unref (inbuf);
    return ret != GST_FLOW_OK ? ret : GST_FLOW_ERROR;
  }

  if (outbuf == inbuf) {
    /* became passthrough since the caller looked: outbuf is inbuf's ref */
    gst_kconv_base_queue_done (base, outbuf);
    return GST_FLOW_OK;
  }
  if (base->on_cuda_memory)
    return gst_kconv_filter_start_frame_on_device (self, inbuf, outbuf);
  GstKConvInflightFrame *f =
      gst_kconv_inflight_frame_new (&base->inflight, inbuf,
      &vfilter->in_info, outbuf, &vfilter->out_info);
  if (!f) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a video frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_kconv_base_submit (base, f)) {
    gst_kconv_inflight_frame_discard (&base->inflight, f);
    return GST_FLOW_ERROR;
  }
  gst_kconv_base_queue (base, f);
  return GST_FLOW_OK;
}

KConvStatus
gst_kconv_filter_submit_frame (GstKConvBase * base, GstKConvInflightFrame * f)
{
  return submit_planes (GST_KCONV_FILTER (base), f);
}

gboolean
gst_kconv_filter_rebuild_core (GstKConvBase * base, GstKConvInflightFrame * f)
{
  return gst_kconv_filter_ensure_core (GST_KCONV_FILTER (base));
}
