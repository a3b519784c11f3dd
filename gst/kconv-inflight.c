/* GStreamer kconv plugin: the frames an element has in flight
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "kconv-inflight.h"

void
gst_kconv_inflight_init (GstKConvInflight * q)
{
  g_queue_init (&q->frames);
  g_queue_init (&q->idle_slots);
}

/* An idle slot, or a new one. */
static KConvSlot *
take_slot (GstKConvInflight * q)
{
  KConvSlot *slot = g_queue_pop_head (&q->idle_slots);
  return slot ? slot : kconv_slot_new ();
}

GstKConvInflightFrame *
gst_kconv_inflight_frame_new (GstKConvInflight * q, GstBuffer * inbuf,
    const GstVideoInfo * in_info, GstBuffer * outbuf,
    const GstVideoInfo * out_info)
{
  GstKConvInflightFrame *f = g_new0 (GstKConvInflightFrame, 1);
  f->inbuf = inbuf;
  f->outbuf = outbuf;
  if (!gst_video_frame_map (&f->in, (GstVideoInfo *) in_info, inbuf,
          GST_MAP_READ)) {
    gst_kconv_inflight_frame_discard (q, f);
    return NULL;
  }
  if (!gst_video_frame_map (&f->out, (GstVideoInfo *) out_info, outbuf,
          GST_MAP_WRITE)) {
    gst_video_frame_unmap (&f->in);
    gst_kconv_inflight_frame_discard (q, f);
    return NULL;
  }
  f->mapped = TRUE;
  f->slot = take_slot (q);
  return f;
}

GstKConvInflightFrame *
gst_kconv_inflight_frame_new_in_place (GstKConvInflight * q, GstBuffer * buf,
    const GstVideoInfo * info, GstMapFlags flags)
{
  GstKConvInflightFrame *f = g_new0 (GstKConvInflightFrame, 1);
  f->outbuf = buf;
  /* no reference of the map's own: buf stays writable, for metas */
  if (!gst_video_frame_map (&f->in, (GstVideoInfo *) info, buf,
          flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF)) {
    gst_kconv_inflight_frame_discard (q, f);
    return NULL;
  }
  f->mapped = f->in_place = TRUE;
  f->slot = take_slot (q);
  return f;
}

GstKConvInflightFrame *
gst_kconv_inflight_frame_new_passthrough (GstBuffer * buf)
{
  GstKConvInflightFrame *f = g_new0 (GstKConvInflightFrame, 1);
  f->outbuf = buf;
  return f;
}

/* Waits for the frame's work; its status. */
static KConvStatus
frame_wait (GstKConvInflightFrame * f)
{
  if (f->slot && f->status == KCONV_OK)
    f->status = kconv_slot_wait (f->slot);
  return f->status;
}

/* Unmaps and releases everything but the output buffer. */
static void
frame_release (GstKConvInflight * q, GstKConvInflightFrame * f)
{
  if (f->slot) {
    g_queue_push_tail (&q->idle_slots, f->slot);
    f->slot = NULL;
  }
  if (f->mapped) {
    if (!f->in_place)
      gst_video_frame_unmap (&f->out);
    gst_video_frame_unmap (&f->in);
    f->mapped = FALSE;
  }
  gst_clear_buffer (&f->inbuf);
  if (f->job_free)
    f->job_free (f->job);
  f->job = NULL;
  f->job_free = NULL;
}

static KConvStatus
frame_finish (GstKConvInflight * q, GstKConvInflightFrame * f)
{
  KConvStatus st = frame_wait (f);
  frame_release (q, f);
  return st;
}

void
gst_kconv_inflight_frame_discard (GstKConvInflight * q,
    GstKConvInflightFrame * f)
{
  frame_finish (q, f);
  gst_clear_buffer (&f->outbuf);
  g_free (f);
}

void
gst_kconv_inflight_push (GstKConvInflight * q, GstKConvInflightFrame * f)
{
  g_queue_push_tail (&q->frames, f);
}

guint
gst_kconv_inflight_length (const GstKConvInflight * q)
{
  return q->frames.length;
}

gboolean
gst_kconv_inflight_due (GstKConvInflight * q, guint allowed)
{
  GstKConvInflightFrame *f = g_queue_peek_head (&q->frames);
  if (!f || q->frames.length >= allowed)
    return f != NULL;
  /* a failed frame is due too: the wait reports it */
  return !q->hold && (!f->slot || f->status != KCONV_OK
      || kconv_slot_done (f->slot));
}

GstFlowReturn
gst_kconv_inflight_pop (GstKConvInflight * q, GstBuffer ** outbuf,
    GstKConvInflightRedo redo, GstKConvInflightFinish finish,
    gpointer user_data)
{
  *outbuf = NULL;
  GstKConvInflightFrame *f = g_queue_pop_head (&q->frames);
  g_return_val_if_fail (f != NULL && redo != NULL, GST_FLOW_ERROR);
  KConvStatus st = frame_wait (f);
  GstFlowReturn ret = st == KCONV_OK ? GST_FLOW_OK : redo (f, st, user_data);
  if (ret == GST_FLOW_OK && finish && f->mapped)
    ret = finish (f, user_data);
  frame_release (q, f);
  if (ret == GST_FLOW_OK)
    *outbuf = f->outbuf;
  else
    gst_buffer_unref (f->outbuf);
  g_free (f);
  return ret;
}

KConvStatus
gst_kconv_inflight_wait_all (GstKConvInflight * q)
{
  KConvStatus first = KCONV_OK;
  for (GList * l = q->frames.head; l; l = l->next) {
    KConvStatus st = frame_wait (l->data);
    if (first == KCONV_OK)
      first = st;
  }
  return first;
}

void
gst_kconv_inflight_drop_all (GstKConvInflight * q)
{
  GstKConvInflightFrame *f;
  while ((f = g_queue_pop_head (&q->frames)))
    gst_kconv_inflight_frame_discard (q, f);
}

void
gst_kconv_inflight_clear (GstKConvInflight * q)
{
  KConvSlot *slot;
  gst_kconv_inflight_drop_all (q);
  while ((slot = g_queue_pop_head (&q->idle_slots)))
    kconv_slot_free (slot);
}
