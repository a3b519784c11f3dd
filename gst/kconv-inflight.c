/* GStreamer kconv plugin: the frames an element has in flight
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "kconv-inflight.h"

void
kconv_inflight_init (KConvInflight * q)
{
  g_queue_init (&q->frames);
  g_queue_init (&q->idle_slots);
}

/* An idle slot, or a new one. */
static KConvSlot *
take_slot (KConvInflight * q)
{
  KConvSlot *slot = g_queue_pop_head (&q->idle_slots);
  return slot ? slot : kconv_slot_new ();
}

KConvInflightFrame *
kconv_inflight_frame_new (KConvInflight * q, GstBuffer * inbuf,
    const GstVideoInfo * in_info, GstBuffer * outbuf,
    const GstVideoInfo * out_info)
{
  KConvInflightFrame *f = g_new0 (KConvInflightFrame, 1);
  f->inbuf = inbuf;
  f->outbuf = outbuf;
  if (!gst_video_frame_map (&f->in, (GstVideoInfo *) in_info, inbuf,
          GST_MAP_READ)) {
    kconv_inflight_frame_discard (q, f);
    return NULL;
  }
  if (!gst_video_frame_map (&f->out, (GstVideoInfo *) out_info, outbuf,
          GST_MAP_WRITE)) {
    gst_video_frame_unmap (&f->in);
    kconv_inflight_frame_discard (q, f);
    return NULL;
  }
  f->mapped = TRUE;
  f->slot = take_slot (q);
  return f;
}

KConvInflightFrame *
kconv_inflight_frame_new_in_place (KConvInflight * q, GstBuffer * buf,
    const GstVideoInfo * info, GstMapFlags flags)
{
  KConvInflightFrame *f = g_new0 (KConvInflightFrame, 1);
  f->outbuf = buf;
  /* no reference of the map's own: buf stays writable, for metas */
  if (!gst_video_frame_map (&f->in, (GstVideoInfo *) info, buf,
          flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF)) {
    kconv_inflight_frame_discard (q, f);
    return NULL;
  }
  f->mapped = f->in_place = TRUE;
  f->slot = take_slot (q);
  return f;
}

KConvInflightFrame *
kconv_inflight_frame_new_passthrough (GstBuffer * buf)
{
  KConvInflightFrame *f = g_new0 (KConvInflightFrame, 1);
  f->outbuf = buf;
  return f;
}

/* Waits for the frame's work; its status. */
static KConvStatus
frame_wait (KConvInflightFrame * f)
{
  if (f->slot && f->status == KCONV_OK)
    f->status = kconv_slot_wait (f->slot);
  return f->status;
}

/* Unmaps and releases everything but the output buffer. */
static void
frame_release (KConvInflight * q, KConvInflightFrame * f)
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
frame_finish (KConvInflight * q, KConvInflightFrame * f)
{
  KConvStatus st = frame_wait (f);
  frame_release (q, f);
  return st;
}

void
kconv_inflight_frame_discard (KConvInflight * q, KConvInflightFrame * f)
{
  frame_finish (q, f);
  gst_clear_buffer (&f->outbuf);
  g_free (f);
}

void
kconv_inflight_push (KConvInflight * q, KConvInflightFrame * f)
{
  g_queue_push_tail (&q->frames, f);
}

guint
kconv_inflight_length (const KConvInflight * q)
{
  return q->frames.length;
}

gboolean
kconv_inflight_due (KConvInflight * q, guint allowed)
{
  KConvInflightFrame *f = g_queue_peek_head (&q->frames);
  if (!f || q->frames.length >= allowed)
    return f != NULL;
  /* a failed frame is due too: the wait reports it */
  return !q->hold && (!f->slot || f->status != KCONV_OK
      || kconv_slot_done (f->slot));
}

GstFlowReturn
kconv_inflight_pop (KConvInflight * q, GstBuffer ** outbuf,
    KConvInflightRedo redo, KConvInflightFinish finish, gpointer user_data)
{
  *outbuf = NULL;
  KConvInflightFrame *f = g_queue_pop_head (&q->frames);
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
kconv_inflight_wait_all (KConvInflight * q)
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
kconv_inflight_drop_all (KConvInflight * q)
{
  KConvInflightFrame *f;
  while ((f = g_queue_pop_head (&q->frames)))
    kconv_inflight_frame_discard (q, f);
}

void
kconv_inflight_clear (KConvInflight * q)
{
  KConvSlot *slot;
  kconv_inflight_drop_all (q);
  while ((slot = g_queue_pop_head (&q->idle_slots)))
    kconv_slot_free (slot);
}
