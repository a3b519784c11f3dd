/* GStreamer kconv plugin: the base class of both elements
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * In the manner of GstCudaBaseTransform: the base owns the backend and its
 * settings, GStreamer's CUDA context and pools, and the order of frames in
 * flight (gstkconvbase-flight.c); a subclass starts each frame's work
 * (start_frame) and frees its core objects (free_core).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/base/gstbasetransform.h>

#include "gstkconvbase-private.h"
#include "kconv-testing.h"
#include "kconv-formats.h"
#include "kconv-refusal.h"

GST_DEBUG_CATEGORY (gst_kconv_base_debug);

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
#define MAX_FRAMES_IN_FLIGHT 16

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (KCONV_VIDEO_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (KCONV_VIDEO_CAPS));

#define gst_kconv_base_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE (GstKConvBase, gst_kconv_base, GST_TYPE_VIDEO_FILTER);

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
  /* backend=auto on a device without a path for deeper samples: the CPU */
  if (options->backend == KCONV_BACKEND_AUTO && self->depth > 8
      && !kconv_backend_takes_depth (KCONV_BACKEND_AUTO, self->depth))
    options->backend = KCONV_BACKEND_CPU;
  if (self->on_cuda_memory) {
    /* the GPU the frames are on */
    options->backend = KCONV_BACKEND_CUDA;
    options->device_id = self->cuda_device;
  }
  return cookie;
}

KConvBackend
gst_kconv_base_backend (GstKConvBase * self, gint * device_id)
{
  GST_OBJECT_LOCK (self);
  KConvBackend backend = self->backend;
  if (device_id)
    *device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  return backend;
}

static void
gst_kconv_base_free_core (GstKConvBase * self)
{
  GstKConvBaseClass *klass = GST_KCONV_BASE_GET_CLASS (self);

  gst_kconv_base_wait_all (self);
  if (!klass->free_core)
    return;
  gboolean pushed = self->on_cuda_memory
      && gst_kconv_cuda_memory_push (&self->cuda);
  klass->free_core (self);
  if (pushed)
    gst_kconv_cuda_memory_pop (&self->cuda);
}

gboolean
gst_kconv_base_push_context (GstKConvBase * self)
{
  if (gst_kconv_cuda_memory_push (&self->cuda))
    return TRUE;
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Could not make the CUDA "
          "context current"), (NULL));
  return FALSE;
}

void
gst_kconv_base_pop_context (GstKConvBase * self)
{
  gst_kconv_cuda_memory_pop (&self->cuda);
}

/* GstBaseTransform */

static gboolean
gst_kconv_base_start (GstBaseTransform * trans)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (!gst_kconv_refusal_check_at_start (GST_ELEMENT (self)))
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

  gst_kconv_inflight_clear (&self->inflight);
  self->drain_all = FALSE;
  self->drain_flow = GST_FLOW_OK;
  gst_kconv_base_free_core (self);
  self->on_cuda_memory = FALSE;
  gst_kconv_cuda_memory_close (&self->cuda);
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
void
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
  gint depth = GST_VIDEO_INFO_COMP_DEPTH (&GST_VIDEO_FILTER (self)->in_info, 0);
  KConvBackend asked = gst_kconv_base_backend (self, NULL);
  if (!kconv_backend_takes_depth (asked, depth)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("backend=%s takes 8-bit "
            "video only: %s needs backend=auto or backend=cpu",
            kconv_backend_name (asked), gst_video_format_to_string
            (GST_VIDEO_INFO_FORMAT (&GST_VIDEO_FILTER (self)->in_info))),
        (NULL));
    return FALSE;
  }
  if (depth != self->depth) {
    /* the core filters hold the backend the depth picks */
    GST_OBJECT_LOCK (self);
    self->depth = depth;
    self->options_cookie++;
    GST_OBJECT_UNLOCK (self);
  }
  gboolean cuda = gst_kconv_cuda_memory_caps (incaps);
  if (cuda != self->on_cuda_memory) {
    gst_kconv_base_free_core (self);
    self->on_cuda_memory = cuda;
  }
  if (!cuda)
    return TRUE;

  gint device_id;
  KConvBackend backend = gst_kconv_base_backend (self, &device_id);
  if (!gst_kconv_cuda_memory_open (&self->cuda, GST_ELEMENT (self), backend,
          device_id))
    return FALSE;
  /* a property read: once here, not per frame */
  self->cuda_device = gst_kconv_cuda_memory_device (&self->cuda);
  GST_DEBUG_OBJECT (self, "frames in CUDA memory on device %d",
      self->cuda_device);
  return TRUE;
}

static gboolean
gst_kconv_base_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstKConvBase *self = GST_KCONV_BASE (trans);

  if (gst_kconv_cuda_memory_query (&self->cuda, GST_ELEMENT (self), query))
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

/* GstElement */

static void
gst_kconv_base_set_context (GstElement * element, GstContext * context)
{
  GstKConvBase *self = GST_KCONV_BASE (element);
  gint device_id;

  gst_kconv_base_backend (self, &device_id);
  gst_kconv_cuda_memory_set_context (&self->cuda, element, context, device_id);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static void
gst_kconv_base_finalize (GObject * object)
{
  GstKConvBase *self = GST_KCONV_BASE (object);

  gst_kconv_inflight_clear (&self->inflight);
  gst_kconv_base_free_core (self);
  gst_kconv_cuda_memory_close (&self->cuda);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static GQuark
placement_quark (void)
{
  return g_quark_from_static_string ("kconv-param-placement");
}

GParamSpec *
gst_kconv_param_placement (GParamSpec * pspec)
{
  g_param_spec_set_qdata (pspec, placement_quark (), GINT_TO_POINTER (1));
  return pspec;
}

gboolean
gst_kconv_param_is_placement (GParamSpec * pspec)
{
  return g_param_spec_get_qdata (pspec, placement_quark ()) != NULL;
}

static void
gst_kconv_base_class_init (GstKConvBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  /* every one says where the element computes (presets leave them out) */
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_kconv_base_debug, "kconvbase", 0,
      "kconv elements' shared base");

  gobject_class->set_property = gst_kconv_base_set_property;
  gobject_class->get_property = gst_kconv_base_get_property;
  gobject_class->finalize = gst_kconv_base_finalize;

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      gst_kconv_param_placement (g_param_spec_enum ("backend", "Backend",
              "Where the element computes", GST_TYPE_KCONV_BACKEND,
              DEFAULT_BACKEND, flags)));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      gst_kconv_param_placement (g_param_spec_int ("device-id", "Device ID",
              "CUDA device to run on (-1 = the default device)", -1, 1023,
              DEFAULT_DEVICE_ID, flags)));
  g_object_class_install_property (gobject_class, PROP_N_THREADS,
      gst_kconv_param_placement (g_param_spec_uint ("n-threads", "Threads",
              "OpenMP threads for the cpu backend (0 = OpenMP's default: "
              "OMP_NUM_THREADS, or one per core; never more than the cores)", 0,
              MAX_N_THREADS, DEFAULT_N_THREADS, flags)));
  g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
      gst_kconv_param_placement (g_param_spec_uint ("frames-in-flight",
              "Frames in flight",
              "Frames processed at once: on CUDA the upload and the work of "
              "different frames overlap.  A frame leaves once its work is done, "
              "at the latest (frames-in-flight - 1) frames later, the latency "
              "reported; 1 = one frame at a time; 0 = auto: 1 behind a live "
              "source, 3 otherwise", 0, MAX_FRAMES_IN_FLIGHT,
              DEFAULT_FRAMES_IN_FLIGHT, flags)));
  g_object_class_install_property (gobject_class, PROP_GPU_WAIT,
      gst_kconv_param_placement (g_param_spec_enum ("gpu-wait", "GPU wait",
              "How the streaming thread waits for a frame on the GPU: spin for "
              "the least delay, sleep or block to leave the core to others",
              GST_TYPE_KCONV_GPU_WAIT, DEFAULT_GPU_WAIT, flags)));

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
  self->depth = 8;
  self->device_id = DEFAULT_DEVICE_ID;
  self->n_threads = DEFAULT_N_THREADS;
  self->gpu_wait = DEFAULT_GPU_WAIT;
  self->copy_streams = DEFAULT_COPY_STREAMS;
  self->options_cookie = 1;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  self->upstream_live = -1;
  gst_kconv_inflight_init (&self->inflight);
  self->drain_flow = GST_FLOW_OK;
  self->last_duration = GST_CLOCK_TIME_NONE;
}
