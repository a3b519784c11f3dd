/* GStreamer kconv plugin: what the base class's files share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gstkconvbase.c: the class, its properties, start, stop and caps;
 * gstkconvbase-flight.c: frames in flight and the GPU-to-CPU fallback;
 * gstkconvbase-buffers.c: the buffers it accepts and the pools it offers;
 * gstkconvbase-enums.c: the enums of its properties.
 */
#ifndef GST_KCONV_BASE_PRIVATE_H
#define GST_KCONV_BASE_PRIVATE_H

#include "gstkconvbase.h"

G_BEGIN_DECLS extern GstDebugCategory *gst_kconv_base_debug;

/* The base logs in the element's own category: every function of the base
 * calls its instance self. */
static inline GstDebugCategory *
gst_kconv_base_category (gpointer self)
{
  GstDebugCategory *cat = GST_KCONV_BASE_GET_CLASS (self)->debug;
  return cat ? cat : gst_kconv_base_debug;
}

#define GST_CAT_DEFAULT gst_kconv_base_category (self)

/* GstBaseTransform's own, which the base's methods chain up to */
#define GST_KCONV_BASE_PARENT \
  GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_VIDEO_FILTER))

#define GST_TYPE_KCONV_GPU_WAIT (gst_kconv_gpu_wait_get_type ())

/* frames-in-flight=0 (auto), upstream not live: upload, work and download
 * of three frames overlap on CUDA */
#define GST_KCONV_AUTO_FRAMES_IN_FLIGHT 3

/* gstkconvbase.c */
/* the backend property, and device-id where device_id is not NULL */
KConvBackend gst_kconv_base_backend (GstKConvBase * base, gint * device_id);
void gst_kconv_base_before_transform (GstBaseTransform * trans,
    GstBuffer * buf);
gboolean gst_kconv_base_push_context (GstKConvBase * base);
void gst_kconv_base_pop_context (GstKConvBase * base);

/* gstkconvbase-flight.c */
void gst_kconv_base_set_frames_in_flight (GstKConvBase * base, guint n);
GstFlowReturn gst_kconv_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input);
GstFlowReturn gst_kconv_base_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);
gboolean gst_kconv_base_sink_event (GstBaseTransform * trans, GstEvent * event);
/* the latency the frames held back add */
GstClockTime gst_kconv_base_held_latency (GstKConvBase * base);

/* gstkconvbase-buffers.c */
gboolean gst_kconv_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
gboolean gst_kconv_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);

G_END_DECLS
#endif /* GST_KCONV_BASE_PRIVATE_H */
