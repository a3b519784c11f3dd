/* GStreamer kconv plugin: the base class of both elements
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * In the manner of GstCudaBaseTransform: the base owns the backend and its
 * settings, GStreamer's CUDA context and pools, and the order of frames in
 * flight; a subclass implements its own work (start_frame, or transform_ip)
 * and frees its core objects (free_core).
 *
 * Frames in flight: submit_input_buffer starts a frame (start_frame) and
 * queues it; generate_output lets the oldest out once its work is done, or
 * (waiting for it) once frames-in-flight are queued.  A frame that is
 * already done (passthrough, CUDA memory) lets every frame before it out.
 * Serialized events push the frames in flight first; a flush drops them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/base/gstbasetransform.h>

#include "gstkconvbase.h"
#include "kconv-testing.h"
#include "kconv-formats.h"
#include "kconv-pinned-allocator.h"
#include "kconv-refusal.h"

GST_DEBUG_CATEGORY_STATIC (gst_kconv_base_debug);

/* The base logs in the element's own category: every function here calls
 * its instance self. */
static inline GstDebugCategory *
gst_kconv_base_category (gpointer self)
{
  GstDebugCategory *cat = GST_KCONV_BASE_GET_CLASS (self)->debug;
  return cat ? cat : gst_kconv_base_debug;
}

#define GST_CAT_DEFAULT gst_kconv_base_category (self)

enum
{
  PROP_0,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_N_THREADS,
  PROP_FRAMES_IN_FLIGHT,
  PROP_GPU_WAIT,
};

#define DEFAULT_BACKEND KCONV_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_N_THREADS 0
#define MAX_N_THREADS 1024
#define DEFAULT_FRAMES_IN_FLIGHT 0      /* auto */
#define DEFAULT_GPU_WAIT KCONV_GPU_WAIT_SPIN
#define DEFAULT_COPY_STREAMS KCONV_COPY_STREAMS_OWN
/* auto, upstream not live: upload, work and download of three frames
 * overlap on CUDA */
#define AUTO_FRAMES_IN_FLIGHT 3
#define MAX_FRAMES_IN_FLIGHT 16

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (KCONV_VIDEO_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (KCONV_VIDEO_CAPS));

#define gst_kconv_base_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE (GstKConvBase, gst_kconv_base, GST_TYPE_VIDEO_FILTER);

GType
gst_kconv_backend_get_type (void)
{
  static GType type = 0;
  /* the core's list of backends, those offered to elements */
  static GEnumValue values[KCONV_BACKEND_COUNT + 1];
  if (g_once_init_enter (&type)) {
    gint n = 0;
    for (gint i = 0; i < KCONV_BACKEND_COUNT; i++) {
      const KConvBackendInfo *b = kconv_backend_info (i);
      if (!b->for_elements)
        continue;
      values[n].value = b->id;
      values[n].value_name = b->description;
      values[n++].value_nick = b->name;
    }
    g_once_init_leave (&type, g_enum_register_static ("GstKConvBackend",
            values));
  }
  return type;
}

#define GST_TYPE_KCONV_GPU_WAIT (gst_kconv_gpu_wait_get_type ())
GType
gst_kconv_gpu_wait_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {KCONV_GPU_WAIT_SPIN, "Poll without rest: the least delay, a core busy "
          "while a frame is on the GPU", "spin"},
    {KCONV_GPU_WAIT_SLEEP, "Poll with 20 us naps between, leaving the core "
          "to the threads that make the frames", "sleep"},
    {KCONV_GPU_WAIT_BLOCK, "Block in the CUDA runtime until the GPU is done",
        "block"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvGpuWait",
            values));
  return type;
}

GType
gst_kconv_copy_streams_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {KCONV_COPY_STREAMS_OWN, "The element's own upload and download streams",
        "own"},
    {KCONV_COPY_STREAMS_SHARED, "Streams shared both ways with the other "
          "elements on the same CUDA context", "shared"},
    {KCONV_COPY_STREAMS_SHARED_UP, "Uploads shared with the other elements "
          "on the same CUDA context, downloads its own", "shared-up"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstKConvCopyStreams",
            values));
  return type;
}

static void
gst_kconv_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstKConvBase *self = GST_KCONV_BASE (object);

  if (prop_id == PROP_FRAMES_IN_FLIGHT) {
    gst_kconv_base_set_frames_in_flight (self, g_value_get_uint (value));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      self->backend = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      self->device_id = g_value_get_int (value);
      break;
    case PROP_N_THREADS:
      self->n_threads = g_value_get_uint (value);
      break;
    case PROP_GPU_WAIT:
      self->gpu_wait = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  self->options_cookie++;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_kconv_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstKConvBase *self = GST_KCONV_BASE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, self->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, self->n_threads);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, self->frames_in_flight);
      break;
    case PROP_GPU_WAIT:
      g_value_set_enum (value, self->gpu_wait);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

guint
gst_kconv_base_options (GstKConvBase * self, KConvOptions * options)
{
  GST_OBJECT_LOCK (self);
  options->backend = self->gpu_failed ? KCONV_BACKEND_CPU : self->backend;
  options->n_threads = (int) self->n_threads;
  options->device_id = self->device_id;
  options->gpu_wait = self->gpu_wait;
  options->copy_streams = self->copy_streams;
  guint cookie = self->options_cookie;
  GST_OBJECT_UNLOCK (self);
  if (self->on_cuda_memory) {
    /* the GPU the frames are on */
    options->backend = KCONV_BACKEND_CUDA;
    options->device_id = self->cuda_device;
  }
  return cookie;
}

gboolean
gst_kconv_base_fall_back (GstKConvBase * self, KConvStatus st)
{
  GST_OBJECT_LOCK (self);
  gboolean fall_back = self->backend == KCONV_BACKEND_AUTO
      && !self->on_cuda_memory && !self->gpu_failed;
  if (fall_back) {
    self->gpu_failed = TRUE;
    self->options_cookie++;
  }
  GST_OBJECT_UNLOCK (self);
  if (fall_back)
    GST_ELEMENT_WARNING (self, LIBRARY, FAILED,
        ("The GPU failed; continuing on the CPU"), ("%s: %s",
            kconv_status_string (st), kconv_last_error ()));
  return fall_back;
}

void
gst_kconv_base_check_auto_start (GstKConvBase * self,
    const KConvOptions * asked, KConvBackend got)
{
  if (asked->backend == KCONV_BACKEND_AUTO && got == KCONV_BACKEND_CPU
      && kconv_backend_resolve (KCONV_BACKEND_AUTO) == KCONV_BACKEND_CUDA)
    gst_kconv_base_fall_back (self, KCONV_ERROR_DEVICE);
}

static KConvBackend
gst_kconv_base_backend (GstKConvBase * self, gint * device_id)
{
  GST_OBJECT_LOCK (self);
  KConvBackend backend = self->backend;
  if (device_id)
    *device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  return backend;
}

/* Frames in flight */

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
    n = gst_kconv_base_upstream_is_live (self) ? 1 : AUTO_FRAMES_IN_FLIGHT;
  return n;
}

void
gst_kconv_base_queue (GstKConvBase * self, KConvInflightFrame * frame)
{
  kconv_inflight_push (&self->inflight, frame);
}

void
gst_kconv_base_queue_done (GstKConvBase * self, GstBuffer * buf)
{
  kconv_inflight_push (&self->inflight,
      kconv_inflight_frame_new_passthrough (buf));
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
  if (kconv_inflight_wait_all (&self->inflight) != KCONV_OK)
    GST_WARNING_OBJECT (self, "a frame in flight failed: %s",
        kconv_last_error ());
}

void
gst_kconv_base_free_core (GstKConvBase * self)
{
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);

  gst_kconv_base_wait_all (self);
  if (!klass->free_core)
    return;
  gboolean pushed = self->on_cuda_memory
      && kconv_cuda_memory_push (&self->cuda);
  klass->free_core (self);
  if (pushed)
    kconv_cuda_memory_pop (&self->cuda);
}

/* Helpers for the subclasses' streaming work */

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
gst_kconv_base_push_context (GstKConvBase * self)
{
  if (kconv_cuda_memory_push (&self->cuda))
    return TRUE;
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Could not make the CUDA "
          "context current"), (NULL));
  return FALSE;
}

void
gst_kconv_base_pop_context (GstKConvBase * self)
{
  kconv_cuda_memory_pop (&self->cuda);
}

gboolean
gst_kconv_base_map_cuda (GstKConvBase * self, GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags)
{
  if (kconv_cuda_memory_map (&self->cuda, frame, info, buf, flags))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map a frame of CUDA "
          "memory"), ("the buffer holds %" G_GSIZE_FORMAT " bytes, not CUDA "
          "memory of the element's CUDA context, or less than the %"
          G_GSIZE_FORMAT " the caps need", gst_buffer_get_size (buf),
          GST_VIDEO_INFO_SIZE (info)));
  return FALSE;
}

/* GstBaseTransform */

static gboolean
gst_kconv_base_start (GstBaseTransform * trans)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (!kconv_refusal_check_at_start (GST_ELEMENT (self)))
    return FALSE;
  GST_OBJECT_LOCK (self);
  self->gpu_failed = FALSE;     /* a new stream tries the GPU again */
  /* (the element's own type: in instance_init it is still the base's) */
  self->inflight.hold = GPOINTER_TO_INT (g_type_get_qdata (G_OBJECT_TYPE
          (self), g_quark_from_static_string (KCONV_TESTING_HOLD_FRAMES)));
  self->upstream_live = -1;
  GST_OBJECT_UNLOCK (self);
  KConvBackend backend = gst_kconv_base_backend (self, NULL);
  if (!kconv_backend_available (backend)) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, SETTINGS,
        ("backend=%s requested but it is not available",
            kconv_backend_name (backend)), KCONV_ERROR_BACKEND_UNAVAILABLE);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_kconv_base_stop (GstBaseTransform * trans)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  kconv_inflight_clear (&self->inflight);
  self->drain_all = FALSE;
  self->drain_flow = GST_FLOW_OK;
  gst_kconv_base_free_core (self);
  self->on_cuda_memory = FALSE;
  kconv_cuda_memory_close (&self->cuda);
  guint64 up, down, staged_up, staged_down;
  kconv_transfer_bytes (&up, &down);
  kconv_staged_bytes (&staged_up, &staged_down);
  GST_INFO_OBJECT (self, "frame bytes the core moved over the bus in this "
      "process: %" G_GUINT64_FORMAT " to the GPU, %" G_GUINT64_FORMAT
      " back; of which staged through pinned buffers (frames in pageable "
      "memory): %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT, up, down,
      staged_up, staged_down);
  return TRUE;
}

/* A frame keeps its metas where they still hold: the elements change
 * neither size nor orientation (a region of interest found upstream still
 * marks the same pixels); metas about colour go with GstVideoFilter's
 * rule. */
static gboolean
gst_kconv_base_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf)
{
  const gchar *const *tags = gst_meta_api_type_get_tags (meta->info->api);
  gboolean geometric = tags != NULL;
  for (guint i = 0; tags && tags[i]; i++)
    geometric &= g_str_equal (tags[i], GST_META_TAG_VIDEO_STR)
        || g_str_equal (tags[i], GST_META_TAG_VIDEO_SIZE_STR)
        || g_str_equal (tags[i], GST_META_TAG_VIDEO_ORIENTATION_STR);
  return geometric || GST_BASE_TRANSFORM_CLASS (parent_class)->transform_meta
      (trans, outbuf, meta, inbuf);
}

/* Controlled properties follow the stream. */
static void
gst_kconv_base_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClockTime ts = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_TIMESTAMP (buf));
  if (GST_CLOCK_TIME_IS_VALID (ts)) {
    GstKConvBase *self = GST_KCONV_BASE (trans);
    g_atomic_pointer_set (&self->controller_thread, g_thread_self ());
    gst_object_sync_values (GST_OBJECT (trans), ts);
    g_atomic_pointer_set (&self->controller_thread, NULL);
  }
}

gboolean
gst_kconv_base_set_by_controller (GstKConvBase * self)
{
  return g_atomic_pointer_get (&self->controller_thread) == g_thread_self ();
}

/* The core belongs to the memory it was made for: a change between system
 * and CUDA memory frees it. */
static gboolean
gst_kconv_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps,
          outcaps))
    return FALSE;
  gboolean cuda = kconv_cuda_memory_caps (incaps);
  if (cuda != self->on_cuda_memory) {
    gst_kconv_base_free_core (self);
    self->on_cuda_memory = cuda;
  }
  if (!cuda)
    return TRUE;

  gint device_id;
  KConvBackend backend = gst_kconv_base_backend (self, &device_id);
  if (!kconv_cuda_memory_open (&self->cuda, GST_ELEMENT (self), backend,
          device_id))
    return FALSE;
  /* a property read: once here, not per frame */
  self->cuda_device = kconv_cuda_memory_device (&self->cuda);
  GST_DEBUG_OBJECT (self, "frames in CUDA memory on device %d",
      self->cuda_device);
  return TRUE;
}

static GstFlowReturn
gst_kconv_base_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);

  /* the default keeps renegotiation and QoS; it leaves the buffer to us in
   * queued_buf (or drops it, late) */
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans,
      is_discont, input);
  if (!klass->start_frame)
    return ret;
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
gst_kconv_base_submit (GstKConvBase * self, KConvInflightFrame * f)
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
gst_kconv_base_redo (KConvInflightFrame * f, KConvStatus failed,
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
gst_kconv_base_finish (KConvInflightFrame * f, gpointer user_data)
{
  GstKConvBase *self = user_data;
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);
  return klass->finish_frame ? klass->finish_frame (self, f) : GST_FLOW_OK;
}

/* Finishes the oldest frame in flight. */
static GstFlowReturn
gst_kconv_base_finish_oldest (GstKConvBase * self, GstBuffer ** outbuf)
{
  GstFlowReturn ret = kconv_inflight_pop (&self->inflight, outbuf,
      gst_kconv_base_redo, gst_kconv_base_finish, self);
  if (kconv_inflight_length (&self->inflight) == 0)
    self->drain_all = FALSE;
  return ret;
}

static GstFlowReturn
gst_kconv_base_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (!GST_KCONV_BASE_GET_CLASS (self)->start_frame)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
        outbuf);

  guint queued = kconv_inflight_length (&self->inflight);
  guint allowed = gst_kconv_base_get_frames_in_flight (self);
  *outbuf = NULL;
  GST_LOG_OBJECT (self, "%u queued, %u in flight allowed, drain %d", queued,
      allowed, self->drain_all);
  if (queued == 0 || (!self->drain_all
          && !kconv_inflight_due (&self->inflight, allowed)))
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
      kconv_inflight_length (&self->inflight));
  while (kconv_inflight_length (&self->inflight) > 0) {
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

static gboolean
gst_kconv_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    kconv_inflight_drop_all (&self->inflight);
    self->drain_all = FALSE;
    self->drain_flow = GST_FLOW_OK;
  } else if (GST_EVENT_IS_SERIALIZED (event)
      && kconv_inflight_length (&self->inflight) > 0) {
    /* EOS, caps, segments... keep their place after the frames before */
    GstFlowReturn ret = gst_kconv_base_drain (self);
    if (ret != GST_FLOW_OK) {
      GST_DEBUG_OBJECT (self, "pushing frames before %s: %s",
          GST_EVENT_TYPE_NAME (event), gst_flow_get_name (ret));
      self->drain_flow = ret;
    }
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
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
static GstClockTime
gst_kconv_base_held_latency (GstKConvBase * self)
{
  GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);
  GstClockTime frame = GST_CLOCK_TIME_NONE;
  guint n = klass->frames_held ? klass->frames_held (self) :
      gst_kconv_base_frames_held (self);

  if (self->on_cuda_memory || !klass->start_frame)
    return 0;                   /* frames leave as they are done */
  if (GST_VIDEO_INFO_FPS_N (info) > 0)
    frame = gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
  else
    frame = self->last_duration;        /* variable rate: the last we saw */
  return GST_CLOCK_TIME_IS_VALID (frame) ? (n - 1) * frame : 0;
}

static gboolean
gst_kconv_base_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (kconv_cuda_memory_query (&self->cuda, GST_ELEMENT (self), query))
    return TRUE;
  gboolean res = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans,
      direction, query);

  if (res && direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max;
    GstClockTime ours;
    gst_query_parse_latency (query, &live, &min, &max);
    GST_OBJECT_LOCK (self);
    self->upstream_live = live;
    GST_OBJECT_UNLOCK (self);
    ours = gst_kconv_base_held_latency (self);
    GST_DEBUG_OBJECT (self, "adding %" GST_TIME_FORMAT " of frames in flight",
        GST_TIME_ARGS (ours));
    min += ours;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += ours;
    gst_query_set_latency (query, live, min, max);
  }
  return res;
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
static gboolean
gst_kconv_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);
  guint held = gst_kconv_base_get_frames_in_flight (self);

  if (gst_base_transform_is_passthrough (trans))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
        decide_query, query);
  if (self->on_cuda_memory && !gst_base_transform_is_in_place (trans))
    return kconv_cuda_memory_propose_allocation (&self->cuda, query, held);
  if (!gst_kconv_base_wants_pinned (self))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
        decide_query, query);
  if (!kconv_pinned_propose (query, held))
    return FALSE;
  GST_DEBUG_OBJECT (self, "offered a pool of pinned memory");
  return TRUE;
}

/* Output buffers, for elements that write new ones: CUDA memory for CUDA
 * memory; downstream's own pool (a sink may need its memory), else one of
 * pinned memory where frames come back from a GPU. */
static gboolean
gst_kconv_base_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (gst_base_transform_is_in_place (trans))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
        query);
  if (self->on_cuda_memory) {
    if (!kconv_cuda_memory_decide_allocation (&self->cuda, query, 2))
      return FALSE;
    GST_DEBUG_OBJECT (self, "output buffers from a pool of CUDA memory");
    return TRUE;
  }
  if (gst_kconv_base_wants_pinned (self)
      && gst_query_get_n_allocation_pools (query) == 0
      && kconv_pinned_offer (query,
          gst_kconv_base_get_frames_in_flight (self) + 1))
    GST_DEBUG_OBJECT (self, "output buffers from a pool of pinned memory");
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* GstElement */

static void
gst_kconv_base_set_context (GstElement * element, GstContext * context)
{
  GstKConvBase *self = GST_KCONV_BASE (element);
  gint device_id;

  gst_kconv_base_backend (self, &device_id);
  kconv_cuda_memory_set_context (&self->cuda, element, context, device_id);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static void
gst_kconv_base_finalize (GObject * object)
{
  GstKConvBase *self = GST_KCONV_BASE (object);

  kconv_inflight_clear (&self->inflight);
  gst_kconv_base_free_core (self);
  kconv_cuda_memory_close (&self->cuda);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_kconv_base_class_init (GstKConvBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_kconv_base_debug, "kconvbase", 0,
      "kconv elements' shared base");

  gobject_class->set_property = gst_kconv_base_set_property;
  gobject_class->get_property = gst_kconv_base_get_property;
  gobject_class->finalize = gst_kconv_base_finalize;

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend", "Where the element computes",
          GST_TYPE_KCONV_BACKEND, DEFAULT_BACKEND, flags));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device to run on (-1 = the default device)", -1, 1023,
          DEFAULT_DEVICE_ID, flags));
  g_object_class_install_property (gobject_class, PROP_N_THREADS,
      g_param_spec_uint ("n-threads", "Threads",
          "OpenMP threads for the cpu backend (0 = OpenMP's default: "
          "OMP_NUM_THREADS, or one per core; never more than the cores)", 0,
          MAX_N_THREADS, DEFAULT_N_THREADS, flags));
  g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
      g_param_spec_uint ("frames-in-flight", "Frames in flight",
          "Frames processed at once: on CUDA the upload and the work of "
          "different frames overlap.  A frame leaves once its work is done, "
          "at the latest (frames-in-flight - 1) frames later, the latency "
          "reported; 1 = one frame at a time; 0 = auto: 1 behind a live "
          "source, 3 otherwise", 0, MAX_FRAMES_IN_FLIGHT,
          DEFAULT_FRAMES_IN_FLIGHT, flags));
  g_object_class_install_property (gobject_class, PROP_GPU_WAIT,
      g_param_spec_enum ("gpu-wait", "GPU wait",
          "How the streaming thread waits for a frame on the GPU: spin for "
          "the least delay, sleep or block to leave the core to others",
          GST_TYPE_KCONV_GPU_WAIT, DEFAULT_GPU_WAIT, flags));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_kconv_base_set_context);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_kconv_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_kconv_base_stop);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_kconv_base_before_transform);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_kconv_base_set_caps);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_kconv_base_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_kconv_base_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_kconv_base_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_kconv_base_query);
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_kconv_base_transform_meta);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_kconv_base_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_kconv_base_decide_allocation);

  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_GPU_WAIT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_COPY_STREAMS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_KCONV_BASE, 0);
}

static void
gst_kconv_base_init (GstKConvBase * self)
{
  self->backend = DEFAULT_BACKEND;
  self->device_id = DEFAULT_DEVICE_ID;
  self->n_threads = DEFAULT_N_THREADS;
  self->gpu_wait = DEFAULT_GPU_WAIT;
  self->copy_streams = DEFAULT_COPY_STREAMS;
  self->options_cookie = 1;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  self->upstream_live = -1;
  kconv_inflight_init (&self->inflight);
  self->drain_flow = GST_FLOW_OK;
  self->last_duration = GST_CLOCK_TIME_NONE;
}
