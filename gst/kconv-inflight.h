/* GStreamer kconv plugin: the frames an element has in flight
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_INFLIGHT_H
#define KCONV_INFLIGHT_H

#include <gst/video/video.h>
#include "kconv.h"

G_BEGIN_DECLS
/* One frame between submission and output.  The input stays referenced and
 * mapped until the frame is finished: the GPU may still be reading it. */
    typedef struct
{
  GstBuffer *inbuf;             /* NULL for a passthrough or in-place frame */
  GstBuffer *outbuf;
  GstVideoFrame in, out;        /* in place: only in, a map of outbuf */
  gboolean mapped, in_place;
  KConvSlot *slot;              /* NULL when there is nothing to wait for */
  KConvStatus status;           /* of an earlier wait */
  gpointer job;                 /* what the element keeps of the frame */
  GDestroyNotify job_free;
} GstKConvInflightFrame;

/* Given a frame whose work failed (failed: how): computes it again (on the
 * CPU, after the GPU failed it) where it can, GST_FLOW_OK when its output
 * is right now; else posts the error and returns its flow. */
typedef GstFlowReturn (*GstKConvInflightRedo) (GstKConvInflightFrame * f,
    KConvStatus failed, gpointer user_data);

/* Completes a frame whose work is done, its buffers still mapped (reads
 * its results, adds metas to its output): GST_FLOW_OK when it may go out,
 * else a flow whose error the callback has posted itself. */
typedef GstFlowReturn (*GstKConvInflightFinish) (GstKConvInflightFrame * f,
    gpointer user_data);

/* Frames oldest first, and slots ready for reuse.  Streaming thread only
 * (and state changes, once streaming has stopped).
 *
 * A frame leaves as soon as its work is done, and at the latest (waited
 * for) once frames-in-flight are queued: its buffers go back upstream
 * early, so that upstream cycles through fewer of them (fewer stay in the
 * CPU's caches).  With KCONV_HOLD_FRAMES=1 in the environment frames leave
 * only once frames-in-flight are queued: a fixed depth, for tests and
 * measurements. */
typedef struct
{
  GQueue frames;
  GQueue idle_slots;
  gboolean hold;                /* frames leave only when due by count (a
                                 * test's hook: kconv-testing.h) */
} GstKConvInflight;

void gst_kconv_inflight_init (GstKConvInflight * q);

/* A frame to fill, with a slot when with_slot: maps inbuf for reading and
 * outbuf for writing with the infos given.  Takes both references, also on
 * failure (NULL: a buffer could not be mapped). */
GstKConvInflightFrame *gst_kconv_inflight_frame_new (GstKConvInflight * q,
    GstBuffer * inbuf, const GstVideoInfo * in_info, GstBuffer * outbuf,
    const GstVideoInfo * out_info);

/* A frame worked on in place: buf (writable, its reference taken) is
 * mapped once, with flags, and is the output; NULL when it could not be
 * mapped. */
GstKConvInflightFrame *gst_kconv_inflight_frame_new_in_place (GstKConvInflight *
    q, GstBuffer * buf, const GstVideoInfo * info, GstMapFlags flags);

/* A frame whose output is its input (passthrough): nothing to wait for, it
 * only keeps its place in the queue.  Takes the reference. */
GstKConvInflightFrame *gst_kconv_inflight_frame_new_passthrough (GstBuffer *
    buf);

/* Abandons a frame that was never queued (waits for its slot first). */
void gst_kconv_inflight_frame_discard (GstKConvInflight * q,
    GstKConvInflightFrame * f);

void gst_kconv_inflight_push (GstKConvInflight * q, GstKConvInflightFrame * f);
guint gst_kconv_inflight_length (const GstKConvInflight * q);

/* Whether the oldest frame is to leave now (gst_kconv_inflight_pop, which
 * waits for it where its work is not done), with at most `allowed` frames
 * in flight. */
gboolean gst_kconv_inflight_due (GstKConvInflight * q, guint allowed);

/* Finishes the oldest frame: waits for it, unmaps and releases the input,
 * and gives its output.  A frame that failed is given to redo; a mapped
 * frame whose work is done, to finish (when not NULL), before it is
 * released.  GST_FLOW_OK with *outbuf; otherwise the flow of redo or
 * finish (which posted the error) and *outbuf NULL: the frame is released
 * all the same. */
GstFlowReturn gst_kconv_inflight_pop (GstKConvInflight * q, GstBuffer ** outbuf,
    GstKConvInflightRedo redo, GstKConvInflightFinish finish,
    gpointer user_data);

/* Waits for every frame without releasing any (before the filter they were
 * submitted to goes away).  Returns the first failure. */
KConvStatus gst_kconv_inflight_wait_all (GstKConvInflight * q);

/* Waits for and drops every frame (flush). */
void gst_kconv_inflight_drop_all (GstKConvInflight * q);

/* Drops every frame and frees the slots. */
void gst_kconv_inflight_clear (GstKConvInflight * q);

G_END_DECLS
#endif /* KCONV_INFLIGHT_H */
