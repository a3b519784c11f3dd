/* GStreamer kconv plugin: the base class of both elements
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GST_KCONV_BASE_H
#define GST_KCONV_BASE_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

#include "kconv-cuda-memory.h"
#include "kconv-inflight.h"
#include "kconv.h"

G_BEGIN_DECLS
/* The one way the elements post a failed core call as an element error:
 * text, then the core's own sentence (kconv_last_error: what failed and
 * why reaches the bus, not only the debug text), as GST_ELEMENT_ERROR's
 * message; the core's status and sentence as the debug text. */
#define GST_KCONV_POST_CORE_ERROR(el, domain, code, text, status) \
  G_STMT_START { \
    gchar *_kconv_what = g_strdup_printf text; \
    GST_ELEMENT_ERROR (el, domain, code, ("%s: %s", _kconv_what, \
            kconv_last_error ()), ("%s: %s", kconv_status_string (status), \
            kconv_last_error ())); \
    g_free (_kconv_what); \
  } G_STMT_END
#define GST_TYPE_KCONV_BASE (gst_kconv_base_get_type ())
#define GST_KCONV_BASE(obj) \
    (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_KCONV_BASE, GstKConvBase))
#define GST_KCONV_BASE_CLASS(klass) \
    (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_KCONV_BASE, GstKConvBaseClass))
#define GST_KCONV_BASE_GET_CLASS(obj) \
    (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_KCONV_BASE, GstKConvBaseClass))
#define GST_IS_KCONV_BASE(obj) \
    (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_KCONV_BASE))
#define GST_TYPE_KCONV_BACKEND (gst_kconv_backend_get_type ())
/* Marks a property that says where and how the element computes
 * (backend, device, threads, waits, streams), not what it does to the
 * video: presets leave it out.  Kept on the GParamSpec, not in its flags,
 * which gst-inspect prints.  Returns pspec. */
    GParamSpec * gst_kconv_param_placement (GParamSpec * pspec);
gboolean gst_kconv_param_is_placement (GParamSpec * pspec);
typedef struct _GstKConvBase GstKConvBase;
typedef struct _GstKConvBaseClass GstKConvBaseClass;

/**
 * GstKConvBase:
 *
 * What every kconv element shares: the backend, device-id and n-threads
 * properties and the check that the backend can run; the video formats;
 * frames in GStreamer's CUDA memory (context, pools, mapping); pools of
 * pinned memory where frames cross to a GPU; controlled properties; and
 * frames in flight.
 */
struct _GstKConvBase
{
  GstVideoFilter parent;

  /*< protected > */
  /* streaming thread: GStreamer's CUDA context when the negotiated frames
   * are in CUDA memory; the core then runs in it */
  GstKConvCudaMemory cuda;
  gboolean on_cuda_memory;
  gint cuda_device;             /* the context's GPU, read once at set_caps */
  gint depth;                   /* the negotiated samples' bits (8 .. 16) */
  /* the frames in flight, for gst_kconv_inflight_frame_new () */
  GstKConvInflight inflight;

  /*< private > */
  KConvBackend backend;         /* these five under the object lock */
  gint device_id;
  guint n_threads;
  KConvGpuWait gpu_wait;
  KConvCopyStreams copy_streams;        /* kconvfilter's property */
  guint options_cookie;         /* bumped when one of them changes */
  gboolean gpu_failed;          /* backend=auto went on on the CPU; object
                                 * lock, until the element stops */
  guint frames_in_flight;       /* under the object lock too; 0 = auto */
  gint upstream_live;           /* -1 not known yet, else whether upstream
                                 * is live (object lock) */

  /* streaming thread */

  gboolean drain_all;           /* a finished frame waits: let all out */
  GstFlowReturn drain_flow;     /* what pushing frames out before an event
                                 * returned, for the next buffer */
  GstClockTime last_duration;
  gpointer controller_thread;   /* the streaming thread while a controller
                                 * sets properties (atomic) */
};

/**
 * GstKConvBaseClass:
 * @free_core: frees what the subclass made with the core (filters,
 *   matchers), which belongs to the memory it was made for; called with
 *   that memory's CUDA context current, frames in flight finished
 * @start_frame: starts the work on @inbuf (taking it) and queues the frame
 *   with gst_kconv_base_queue() or gst_kconv_base_queue_done(); called
 *   with the CUDA context current on CUDA memory.  Required.
 * @submit_frame: starts the work of a mapped frame on its slot with the
 *   core as it is (gst_kconv_base_submit() calls it, and again on the CPU
 *   after the GPU failed the frame); returns the core's status.
 * @rebuild_core: makes the core again for the options in force (the CPU,
 *   once gst_kconv_base_fall_back() has made them say so), for the frame
 *   about to be submitted; FALSE with its own error posted.
 * @finish_frame: completes a frame in flight whose work is done, just
 *   before it goes out, its buffers still mapped (an element that reports
 *   what it found does it here, in order).  Returns GST_FLOW_OK, or a
 *   flow whose error it has posted itself (the base posts no other).
 *   May be NULL.
 * @frames_held: how many frames the element may hold now, for the latency
 *   it reports (1: each leaves as soon as it is done).  NULL:
 *   frames-in-flight.
 * @debug: the subclass's debug category, where the base logs too (so
 *   GST_DEBUG=kconvfilter:4 shows all the element does)
 */
struct _GstKConvBaseClass
{
  GstVideoFilterClass parent_class;

  void (*free_core) (GstKConvBase * base);
    GstFlowReturn (*start_frame) (GstKConvBase * base, GstBuffer * inbuf);
    KConvStatus (*submit_frame) (GstKConvBase * base,
      GstKConvInflightFrame * f);
    gboolean (*rebuild_core) (GstKConvBase * base, GstKConvInflightFrame * f);
    GstFlowReturn (*finish_frame) (GstKConvBase * base,
      GstKConvInflightFrame * f);
    guint (*frames_held) (GstKConvBase * base);
  GstDebugCategory *debug;

  /*< private > */
  gpointer _gst_reserved[GST_PADDING];
};

GType gst_kconv_base_get_type (void);
GType gst_kconv_backend_get_type (void);
GType gst_kconv_gpu_wait_get_type (void);
GType gst_kconv_copy_streams_get_type (void);
#define GST_TYPE_KCONV_COPY_STREAMS (gst_kconv_copy_streams_get_type ())
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstKConvBase, gst_object_unref)
/* The options the core is made with: backend, threads and device, or on
 * CUDA memory the GPU the frames are on.  Returns a cookie that changes
 * whenever they do. */
     guint gst_kconv_base_options (GstKConvBase * base, KConvOptions * options);

/* Submits the work of a mapped frame (submit_frame); where the GPU fails
 * and backend=auto allows, goes on on the CPU (rebuild_core, then
 * submit_frame again).  FALSE with the element error posted, once. */
     gboolean gst_kconv_base_submit (GstKConvBase * base,
    GstKConvInflightFrame * f);
/* After a core was made for backend=auto: when it runs on the CPU although
 * a GPU is there, the GPU failed to start, which is said as any GPU failure */
     void gst_kconv_base_check_auto_start (GstKConvBase * base,
    const KConvOptions * asked, KConvBackend got);

/* FALSE, with an element error, for a buffer smaller than its caps. */
     gboolean gst_kconv_base_check_size (GstKConvBase * base, GstBuffer * buf,
    const GstVideoInfo * info);

/* Maps a frame of CUDA memory as device pointers; an element error when it
 * is not CUDA memory of the element's context or too small. */
     gboolean gst_kconv_base_map_cuda (GstKConvBase * base,
    GstVideoFrame * frame, const GstVideoInfo * info, GstBuffer * buf,
    GstMapFlags flags);

/* Whether the property being set is set by a GstController (from the
 * streaming thread, as a frame comes in), not by the application. */
     gboolean gst_kconv_base_set_by_controller (GstKConvBase * base);

/* Frames in flight: how many (the frames-in-flight property; at 0, auto,
 * one when upstream is live and three otherwise), the queue start_frame
 * fills, and waiting for it. */
     guint gst_kconv_base_get_frames_in_flight (GstKConvBase * base);
     void gst_kconv_base_queue (GstKConvBase * base,
    GstKConvInflightFrame * frame);
     void gst_kconv_base_queue_done (GstKConvBase * base, GstBuffer * buf);
/* The frames queued so far go out now, without waiting for more (the next
 * frame depends on them, or there was nothing to overlap). */
     void gst_kconv_base_let_out (GstKConvBase * base);
/* Finishes every frame in flight and pushes it downstream, in order, from
 * start_frame (a frame about to start depends on their results). */
     GstFlowReturn gst_kconv_base_push_queued (GstKConvBase * base);
     void gst_kconv_base_wait_all (GstKConvBase * base);

G_END_DECLS
#endif /* GST_KCONV_BASE_H */
