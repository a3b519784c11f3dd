/* GStreamer kconv plugin: frames in GStreamer's CUDA memory
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "kconv-cuda-memory.h"

#ifdef KCONV_HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

GST_DEBUG_CATEGORY_STATIC (kconv_cuda_memory_debug);
#define GST_CAT_DEFAULT kconv_cuda_memory_debug

static void
init_debug (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (kconv_cuda_memory_debug, "kconvcudamemory", 0,
        "kconv elements on GStreamer's CUDA memory");
    g_once_init_leave (&done, 1);
  }
}

#define CONTEXT(cm) ((GstCudaContext **) &(cm)->context)

gboolean
gst_kconv_cuda_memory_caps (const GstCaps * caps)
{
  GstCapsFeatures *f = caps && gst_caps_get_size (caps) > 0 ?
      gst_caps_get_features (caps, 0) : NULL;
  return f && gst_caps_features_contains (f,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

void
gst_kconv_cuda_memory_set_context (GstKConvCudaMemory * cm,
    GstElement * element, GstContext * context, gint device_id)
{
  init_debug ();
  gst_cuda_handle_set_context (element, context, device_id, CONTEXT (cm));
}

gboolean
gst_kconv_cuda_memory_query (GstKConvCudaMemory * cm, GstElement * element,
    GstQuery * query)
{
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_cuda_handle_context_query (element, query,
      (GstCudaContext *) cm->context);
}

gboolean
gst_kconv_cuda_memory_open (GstKConvCudaMemory * cm, GstElement * element,
    KConvBackend backend, gint device_id)
{
  init_debug ();
  if (kconv_backend_resolve (backend) != KCONV_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (element, CORE, NEGOTIATION, ("backend=%s cannot work "
            "on frames in CUDA memory", kconv_backend_name (backend)),
        ("put cudadownload before the element, or use backend=auto or "
            "cuda"));
    return FALSE;
  }
  if (cm->context && device_id >= 0
      && gst_kconv_cuda_memory_device (cm) != device_id)
    gst_clear_object (&cm->context);    /* device-id changed since */
  if (!gst_cuda_ensure_element_context (element, device_id, CONTEXT (cm))) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND, ("No CUDA context for "
            "frames in CUDA memory"), ("device-id=%d; GStreamer's CUDA "
            "library found no usable device", device_id));
    return FALSE;
  }
  GST_DEBUG_OBJECT (element, "CUDA context %" GST_PTR_FORMAT " on device %d",
      cm->context, gst_kconv_cuda_memory_device (cm));
  return TRUE;
}

void
gst_kconv_cuda_memory_close (GstKConvCudaMemory * cm)
{
  gst_clear_object (&cm->context);
}

gint
gst_kconv_cuda_memory_device (const GstKConvCudaMemory * cm)
{
  guint device = 0;
  if (!cm->context)
    return -1;
  g_object_get (cm->context, "cuda-device-id", &device, NULL);
  return (gint) device;
}

gboolean
gst_kconv_cuda_memory_push (GstKConvCudaMemory * cm)
{
  return cm->context && gst_cuda_context_push ((GstCudaContext *)
      cm->context);
}

void
gst_kconv_cuda_memory_pop (GstKConvCudaMemory * cm)
{
  gst_cuda_context_pop (NULL);
}

/* A pool of CUDA memory of our context for caps, configured; its buffer
 * size (the memory's pitch makes it larger than the caps say) in *size. */
static GstBufferPool *
cuda_pool (GstKConvCudaMemory * cm, GstBufferPool * offered, GstCaps * caps,
    guint min, guint max, guint * size)
{
  GstVideoInfo info;
  GstBufferPool *pool = offered;

  if (!gst_video_info_from_caps (&info, caps))
    return NULL;
  if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool)
          || GST_CUDA_BUFFER_POOL (pool)->context !=
          (GstCudaContext *) cm->context))
    pool = NULL;                /* system memory, or another GPU's */
  pool = pool ? gst_object_ref (pool) :
      gst_cuda_buffer_pool_new ((GstCudaContext *) cm->context);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, info.size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

gboolean
gst_kconv_cuda_memory_propose_allocation (GstKConvCudaMemory * cm,
    GstQuery * query, guint min)
{
  GstCaps *caps;
  guint size;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !cm->context)
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) == 0) {
    GstBufferPool *pool = cuda_pool (cm, NULL, caps, min, 0, &size);
    if (!pool)
      return FALSE;
    gst_query_add_allocation_pool (query, pool, size, min, 0);
    gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

gboolean
gst_kconv_cuda_memory_decide_allocation (GstKConvCudaMemory * cm,
    GstQuery * query, guint min)
{
  GstCaps *caps;
  GstBufferPool *offered = NULL;
  guint size = 0, their_min = 0, max = 0;
  guint n = gst_query_get_n_allocation_pools (query);

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !cm->context)
    return FALSE;
  if (n > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &offered, &size,
        &their_min, &max);
  min = MAX (min, their_min);
  if (max != 0 && max < min)
    max = min;
  GstBufferPool *pool = cuda_pool (cm, offered, caps, min, max, &size);
  gst_clear_object (&offered);
  if (!pool)
    return FALSE;
  if (n > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

gboolean
gst_kconv_cuda_memory_map (GstKConvCudaMemory * cm, GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buffer, GstMapFlags flags)
{
  GstMemory *mem = gst_buffer_n_memory (buffer) > 0 ?
      gst_buffer_peek_memory (buffer, 0) : NULL;
  if (!mem || !gst_is_cuda_memory (mem)
      || GST_CUDA_MEMORY_CAST (mem)->context != (GstCudaContext *) cm->context) {
    GST_WARNING ("%s", mem && gst_is_cuda_memory (mem) ?
        "CUDA memory of another context" : "not CUDA memory");
    return FALSE;
  }
  return gst_video_frame_map (frame, (GstVideoInfo *) info, buffer,
      flags | GST_MAP_CUDA);
}

#else /* no GStreamer CUDA library */

gboolean
gst_kconv_cuda_memory_caps (const GstCaps * caps)
{
  return FALSE;
}

void
gst_kconv_cuda_memory_set_context (GstKConvCudaMemory * cm,
    GstElement * element, GstContext * context, gint device_id)
{
}

gboolean
gst_kconv_cuda_memory_query (GstKConvCudaMemory * cm, GstElement * element,
    GstQuery * query)
{
  return FALSE;
}

gboolean
gst_kconv_cuda_memory_open (GstKConvCudaMemory * cm, GstElement * element,
    KConvBackend backend, gint device_id)
{
  return FALSE;                 /* caps never carry CUDA memory here */
}

void
gst_kconv_cuda_memory_close (GstKConvCudaMemory * cm)
{
}

gint
gst_kconv_cuda_memory_device (const GstKConvCudaMemory * cm)
{
  return -1;
}

gboolean
gst_kconv_cuda_memory_push (GstKConvCudaMemory * cm)
{
  return FALSE;
}

void
gst_kconv_cuda_memory_pop (GstKConvCudaMemory * cm)
{
}

gboolean
gst_kconv_cuda_memory_propose_allocation (GstKConvCudaMemory * cm,
    GstQuery * query, guint min)
{
  return FALSE;
}

gboolean
gst_kconv_cuda_memory_decide_allocation (GstKConvCudaMemory * cm,
    GstQuery * query, guint min)
{
  return FALSE;
}

gboolean
gst_kconv_cuda_memory_map (GstKConvCudaMemory * cm, GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buffer, GstMapFlags flags)
{
  return FALSE;
}

#endif
