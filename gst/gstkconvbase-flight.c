/* GStreamer kconv plugin: the base class's frames in flight
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * submit_input_buffer starts a frame (the subclass's start_frame) and
 * queues it; generate_output lets the oldest out once its work is done, or
 * (waiting for it) once frames-in-flight are queued.  A frame that is
 * already done (passthrough, CUDA memory) lets every frame before it out.
 * Serialized events push the frames in flight first; a flush drops them.
 * Where the GPU fails a frame and backend=auto allows, the frame is
 * computed again on the CPU, and so are the frames after it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/base/gstbasetransform.h>

#include "gstkconvbase-private.h"

/* Whether a failure is the GPU's (the device, or its memory, where a GPU
 * is in use), not one the core raises on purpose (a refused argument),
 * which no other backend would get past */
static gboolean
gpu_failure (KConvStatus st)
{
  return (st == KCONV_ERROR_DEVICE || st == KCONV_ERROR_OUT_OF_MEMORY)
      && kconv_backend_resolve (KCONV_BACKEND_AUTO) == KCONV_BACKEND_CUDA;
}

static gboolean
gst_kconv_base_fall_back (GstKConvBase * self, KConvStatus st)
{
  GST_OBJECT_LOCK (self);
  gboolean fall_back = self->backend == KCONV_BACKEND_AUTO
      && !self->on_cuda_memory && !self->gpu_failed && gpu_failure (st);
  if (fall_back) {
    self->gpu_failed = TRUE;
    self->options_cookie++;
  }
  GST_OBJECT_UNLOCK (self);
  if (fall_back)
    GST_ELEMENT_WARNING (self, LIBRARY, FAILED,
        ("The GPU failed (%s); continuing on the CPU", kconv_last_error ()),
        ("%s: %s", kconv_status_string (st), kconv_last_error ()));
  return fall_back;
}

void
gst_kconv_base_set_frames_in_flight (GstKConvBase * self, guint n)
{
  GST_OBJECT_LOCK (self);
  gboolean changed = n != self->frames_in_flight;
  self->frames_in_flight = n;
  GST_OBJECT_UNLOCK (self);
  /* the latency we add changes with it */
  if (changed)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

/* Whether upstream is live, asked once a stream (a live source makes one
 * frame per frame time: frames in flight add latency, not throughput). */
static gboolean
gst_kconv_base_upstream_is_live (GstKConvBase * self)
{
  GST_OBJECT_LOCK (self);
  gint live = self->upstream_live;
  GST_OBJECT_UNLOCK (self);
  if (live >= 0)
    return live;
  GstQuery *q = gst_query_new_latency ();
  gboolean is_live = FALSE;
  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), q))
    gst_query_parse_latency (q, &is_live, NULL, NULL);
  gst_query_unref (q);
  GST_OBJECT_LOCK (self);
  self->upstream_live = is_live;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "upstream is %slive", is_live ? "" : "not ");
  return is_live;
}

guint
gst_kconv_base_get_frames_in_flight (GstKConvBase * self)
{
  GST_OBJECT_LOCK (self);
  guint n = self->frames_in_flight;
  GST_OBJECT_UNLOCK (self);
  if (n == 0)
    n = gst_kconv_base_upstream_is_live (self) ? 1 :
        GST_KCONV_AUTO_FRAMES_IN_FLIGHT;
  return n;
}

void
gst_kconv_base_queue (GstKConvBase * self, GstKConvInflightFrame * frame)
{
  gst_kconv_inflight_push (&self->inflight, frame);
}

void
gst_kconv_base_queue_done (GstKConvBase * self, GstBuffer * buf)
{
  gst_kconv_inflight_push (&self->inflight,
      gst_kconv_inflight_frame_new_passthrough (buf));
  self->drain_all = TRUE;       /* nothing to overlap: out at once */
}

void
gst_kconv_base_let_out (GstKConvBase * self)
{
  self->drain_all = TRUE;
}

void
gst_kconv_base_wait_all (GstKConvBase * self)
{
  if (gst_kconv_inflight_wait_all (&self->inflight) != KCONV_OK)
    GST_WARNING_OBJECT (self, "a frame in flight failed: %s",
        kconv_last_error ());
}

GstFlowReturn
gst_kconv_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);

  /* the default keeps renegotiation and QoS; it leaves the buffer to us in
   * queued_buf (or drops it, late) */
  GstFlowReturn ret = GST_KCONV_BASE_PARENT->submit_input_buffer (trans,
      is_discont, input);
  GstBuffer *inbuf = trans->queued_buf;
  trans->queued_buf = NULL;
  if (ret != GST_FLOW_OK || !inbuf) {
    gst_clear_buffer (&inbuf);
    return ret;
  }
  if (self->drain_flow != GST_FLOW_OK) {
    ret = self->drain_flow;
    self->drain_flow = GST_FLOW_OK;
    gst_buffer_unref (inbuf);
    return ret;
  }

  if (GST_BUFFER_DURATION_IS_VALID (inbuf))
    self->last_duration = GST_BUFFER_DURATION (inbuf);
  gst_kconv_base_before_transform (trans, inbuf);

  if (gst_base_transform_is_passthrough (trans)) {
    /* in order behind the frames in flight, which all go out with it */
    gst_kconv_base_queue_done (self, inbuf);
    return GST_FLOW_OK;
  }
  if (!self->on_cuda_memory)
    return klass->start_frame (self, inbuf);
  /* on CUDA memory the core runs in the memory's context */
  if (!gst_kconv_base_push_context (self)) {
    gst_buffer_unref (inbuf);
    return GST_FLOW_ERROR;
  }
  ret = klass->start_frame (self, inbuf);
  gst_kconv_base_pop_context (self);
  return ret;
}

gboolean
gst_kconv_base_submit (GstKConvBase * self, GstKConvInflightFrame * f)
{
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);
  KConvStatus st = klass->submit_frame (self, f);
  if (st != KCONV_OK && gst_kconv_base_fall_back (self, st)) {
    kconv_slot_wait (f->slot);  /* what the GPU did of it, if anything */
    if (!klass->rebuild_core (self, f))
      return FALSE;             /* its error posted */
    st = klass->submit_frame (self, f);
  }
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED, ("Processing failed"),
        st);
    return FALSE;
  }
  return TRUE;
}

/* A frame in flight that failed: again on the CPU where it was the GPU and
 * backend=auto allows, else its error. */
static GstFlowReturn
gst_kconv_base_redo (GstKConvInflightFrame * f, KConvStatus failed,
    gpointer user_data)
{
  GstKConvBase *self = user_data;
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);
  if (f->mapped && klass->submit_frame && (self->gpu_failed
          || gst_kconv_base_fall_back (self, failed))) {
    GST_DEBUG_OBJECT (self, "computing a frame in flight again on the CPU");
    if (!klass->rebuild_core (self, f))
      return GST_FLOW_ERROR;    /* its error posted */
    failed = klass->submit_frame (self, f);
    if (failed == KCONV_OK)
      failed = kconv_slot_wait (f->slot);
    if (failed == KCONV_OK)
      return GST_FLOW_OK;
  }
  GST_KCONV_POST_CORE_ERROR (self, LIBRARY, FAILED,
      ("Processing failed while the frame was in flight"), failed);
  return GST_FLOW_ERROR;
}

/* A frame in flight whose work is done: the subclass completes it. */
static GstFlowReturn
gst_kconv_base_finish (GstKConvInflightFrame * f, gpointer user_data)
{
  GstKConvBase *self = user_data;
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);
  return klass->finish_frame ? klass->finish_frame (self, f) : GST_FLOW_OK;
}

/* Finishes the oldest frame in flight. */
static GstFlowReturn
gst_kconv_base_finish_oldest (GstKConvBase * self, GstBuffer ** outbuf)
{
  GstFlowReturn ret = gst_kconv_inflight_pop (&self->inflight, outbuf,
      gst_kconv_base_redo, gst_kconv_base_finish, self);
  if (gst_kconv_inflight_length (&self->inflight) == 0)
    self->drain_all = FALSE;
  return ret;
}

GstFlowReturn
gst_kconv_base_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  guint queued = gst_kconv_inflight_length (&self->inflight);
  guint allowed = gst_kconv_base_get_frames_in_flight (self);
  *outbuf = NULL;
  GST_LOG_OBJECT (self, "%u queued, %u in flight allowed, drain %d", queued,
      allowed, self->drain_all);
  if (queued == 0 || (!self->drain_all
          && !gst_kconv_inflight_due (&self->inflight, allowed)))
    return GST_FLOW_OK;
  return gst_kconv_base_finish_oldest (self, outbuf);
}

/* Pushes every frame in flight downstream, in order.  After a failed push
 * the rest are dropped: downstream is flushing or gone. */
static GstFlowReturn
gst_kconv_base_drain (GstKConvBase * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  GST_DEBUG_OBJECT (self, "pushing %u frames in flight",
      gst_kconv_inflight_length (&self->inflight));
  while (gst_kconv_inflight_length (&self->inflight) > 0) {
    GstBuffer *outbuf = NULL;
    GstFlowReturn fr = gst_kconv_base_finish_oldest (self, &outbuf);
    if (ret == GST_FLOW_OK)
      ret = fr;
    if (outbuf && ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), outbuf);
    else
      gst_clear_buffer (&outbuf);
  }
  return ret;
}

GstFlowReturn
gst_kconv_base_push_queued (GstKConvBase * self)
{
  return gst_kconv_base_drain (self);
}

gboolean
gst_kconv_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    gst_kconv_inflight_drop_all (&self->inflight);
    self->drain_all = FALSE;
    self->drain_flow = GST_FLOW_OK;
  } else if (GST_EVENT_IS_SERIALIZED (event)
      && gst_kconv_inflight_length (&self->inflight) > 0) {
    /* EOS, caps, segments... keep their place after the frames before */
    GstFlowReturn ret = gst_kconv_base_drain (self);
    if (ret != GST_FLOW_OK) {
      GST_DEBUG_OBJECT (self, "pushing frames before %s: %s",
          GST_EVENT_TYPE_NAME (event), gst_flow_get_name (ret));
      self->drain_flow = ret;
    }
  }
  return GST_KCONV_BASE_PARENT->sink_event (trans, event);
}

/* How many frames may be held: frames-in-flight on CUDA; on the CPU a
 * frame is done when it comes in and leaves at once (unless
 * a test's hook holds it: kconv-testing.h). */
static guint
gst_kconv_base_frames_held (GstKConvBase * self)
{
  KConvOptions opt;
  gst_kconv_base_options (self, &opt);
  if (!self->inflight.hold
      && kconv_backend_resolve (opt.backend) != KCONV_BACKEND_CUDA)
    return 1;
  return gst_kconv_base_get_frames_in_flight (self);
}

/* The frames held back: (frames held - 1) frame durations. */
GstClockTime
gst_kconv_base_held_latency (GstKConvBase * self)
{
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);
  GstClockTime frame = GST_CLOCK_TIME_NONE;
  guint n = klass->frames_held ? klass->frames_held (self) :
      gst_kconv_base_frames_held (self);

  if (self->on_cuda_memory)
    return 0;                   /* frames leave as they are done */
  if (GST_VIDEO_INFO_FPS_N (info) > 0)
    frame = gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
  else
    frame = self->last_duration;        /* variable rate: the last we saw */
  return GST_CLOCK_TIME_IS_VALID (frame) ? (n - 1) * frame : 0;
}

void
gst_kconv_base_check_auto_start (GstKConvBase * self,
    const KConvOptions * asked, KConvBackend got)
{
  if (asked->backend == KCONV_BACKEND_AUTO && got == KCONV_BACKEND_CPU
      && kconv_backend_resolve (KCONV_BACKEND_AUTO) == KCONV_BACKEND_CUDA)
    gst_kconv_base_fall_back (self, KCONV_ERROR_DEVICE);
}
