/* GStreamer kconv plugin: the buffers the base class accepts and offers
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A buffer or meta that lies about its size is refused with an element
 * error; CUDA memory of the element's context is mapped as device
 * pointers; upstream is offered, and output drawn from, CUDA pools on
 * CUDA memory and pinned pools where frames cross to a GPU.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/base/gstbasetransform.h>

#include "gstkconvbase-private.h"
#include "kconv-pinned-allocator.h"
#include "kconv-refusal.h"

/* A buffer with a GstVideoMeta: the meta must describe the caps' frame,
 * and every plane's rows as the meta lays them out must lie inside the
 * buffer (gst_video_frame_map checks only that each plane starts in it). */
static gboolean
gst_kconv_base_check_meta (GstKConvBase * self, const GstVideoMeta * meta,
    gsize have, const GstVideoInfo * info)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  if (meta->format != GST_VIDEO_INFO_FORMAT (info)
      || (gint) meta->width != GST_VIDEO_INFO_WIDTH (info)
      || (gint) meta->height != GST_VIDEO_INFO_HEIGHT (info)
      || meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("The buffer's video meta does "
            "not match its caps"), ("the meta says %ux%u %s in %u planes, the "
            "caps %dx%d %s in %u", meta->width, meta->height,
            gst_video_format_to_string (meta->format), meta->n_planes,
            GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
            GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_N_PLANES (info)));
    return FALSE;
  }
  for (guint p = 0; p < meta->n_planes; p++) {
    /* the plane's rows and the bytes a row spans, from its components */
    guint64 rows = 0, row_bytes = 0;
    for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
      if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) == p) {
        rows = MAX (rows, (guint64) GST_VIDEO_INFO_COMP_HEIGHT (info, c));
        row_bytes = MAX (row_bytes,
            (guint64) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
            GST_VIDEO_INFO_COMP_PSTRIDE (info, c));
      }
    gint stride = meta->stride[p];
    guint64 end = (guint64) meta->offset[p] + row_bytes +
        (rows > 0 ? (rows - 1) * (guint64) MAX (stride, 0) : 0);
    if (stride < 0 || (guint64) stride < row_bytes || end > have) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Buffer too small for its "
              "video meta"), ("plane %u: offset %" G_GSIZE_FORMAT ", stride "
              "%d, %" G_GUINT64_FORMAT " rows of %" G_GUINT64_FORMAT " bytes "
              "end at byte %" G_GUINT64_FORMAT ", but the buffer holds %"
              G_GSIZE_FORMAT, p, meta->offset[p], stride, rows, row_bytes,
              end, have));
      return FALSE;
    }
  }
  return TRUE;
}

/* Without a GstVideoMeta the buffer must hold a whole frame of info. */
gboolean
gst_kconv_base_check_size (GstKConvBase * self, GstBuffer * buf,
    const GstVideoInfo * info)
{
  gsize have = gst_buffer_get_size (buf);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  if (meta)
    return gst_kconv_base_check_meta (self, meta, have, info);
  if (have >= GST_VIDEO_INFO_SIZE (info))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Buffer too small for its caps"),
      ("the buffer holds %" G_GSIZE_FORMAT " bytes, but a %dx%d %s frame "
          "needs %" G_GSIZE_FORMAT, have, GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info),
          GST_VIDEO_INFO_SIZE (info)));
  return FALSE;
}

gboolean
gst_kconv_base_map_cuda (GstKConvBase * self, GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags)
{
  if (gst_kconv_cuda_memory_map (&self->cuda, frame, info, buf, flags))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a frame of CUDA "
          "memory"), ("the buffer holds %" G_GSIZE_FORMAT " bytes, not CUDA "
          "memory of the element's CUDA context, or less than the %"
          G_GSIZE_FORMAT " the caps need", gst_buffer_get_size (buf),
          GST_VIDEO_INFO_SIZE (info)));
  return FALSE;
}

/* Pinned pools pay off only where frames cross to a GPU. */
static gboolean
gst_kconv_base_wants_pinned (GstKConvBase * self)
{
  return !self->on_cuda_memory &&
      kconv_backend_resolve (gst_kconv_base_backend (self, NULL)) ==
      KCONV_BACKEND_CUDA;
}

/* Upstream's buffers: CUDA memory of our context for frames there; pinned
 * memory for frames crossing to a GPU, so the upload is a DMA transfer
 * with no staging.  We hold as many as there are frames in flight. */
gboolean
gst_kconv_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);
  guint held = gst_kconv_base_get_frames_in_flight (self);

  if (gst_base_transform_is_passthrough (trans))
    return GST_KCONV_BASE_PARENT->propose_allocation (trans,
        decide_query, query);
  if (self->on_cuda_memory && !gst_base_transform_is_in_place (trans))
    return gst_kconv_cuda_memory_propose_allocation (&self->cuda, query, held);
  if (!gst_kconv_base_wants_pinned (self))
    return GST_KCONV_BASE_PARENT->propose_allocation (trans,
        decide_query, query);
  if (!gst_kconv_pinned_propose (query, held))
    return FALSE;
  GST_DEBUG_OBJECT (self, "offered a pool of pinned memory");
  return TRUE;
}

/* Output buffers, for elements that write new ones: CUDA memory for CUDA
 * memory; downstream's own pool (a sink may need its memory), else one of
 * pinned memory where frames come back from a GPU. */
gboolean
gst_kconv_base_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (gst_base_transform_is_in_place (trans))
    return GST_KCONV_BASE_PARENT->decide_allocation (trans, query);
  if (self->on_cuda_memory) {
    if (!gst_kconv_cuda_memory_decide_allocation (&self->cuda, query, 2))
      return FALSE;
    GST_DEBUG_OBJECT (self, "output buffers from a pool of CUDA memory");
    return TRUE;
  }
  if (gst_kconv_base_wants_pinned (self)
      && gst_query_get_n_allocation_pools (query) == 0
      && gst_kconv_pinned_offer (query,
          gst_kconv_base_get_frames_in_flight (self) + 1))
    GST_DEBUG_OBJECT (self, "output buffers from a pool of pinned memory");
  return GST_KCONV_BASE_PARENT->decide_allocation (trans, query);
}
