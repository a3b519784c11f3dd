/* GStreamer kconv plugin: an allocator of page-locked host memory
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GPU copies page-locked memory by DMA, asynchronously and at the full
 * speed of the bus; pageable memory it must first stage.  Pools built on
 * this allocator pin each buffer once, when the pool creates it, and reuse
 * it for frame after frame.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/video/video.h>
#include "kconv-pinned-allocator.h"
#include "kconv-pinned-pool.h"
#include "kconv.h"

#define ALLOCATOR_NAME "KConvPinned"
/* At least cache-line alignment, whatever the caller asks. */
#define MIN_ALIGN_MASK 63

typedef struct
{
  GstMemory mem;
  guint8 *base;                 /* start of the allocation (shared: parent's) */
  gboolean pinned;
} GstKConvPinnedMemory;

typedef struct
{
  GstAllocator parent;
} GstKConvPinnedAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} GstKConvPinnedAllocatorClass;

GType gst_kconv_pinned_allocator_get_type (void);
G_DEFINE_TYPE (GstKConvPinnedAllocator, gst_kconv_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  const gsize align = params->align | MIN_ALIGN_MASK;
  const gsize maxsize = size + params->prefix + params->padding + align;
  int pinned = 0;
  guint8 *base = kconv_host_alloc (maxsize, &pinned);
  if (!base)
    return NULL;

  /* the data (after the prefix) starts on the alignment asked for */
  const gsize misalign = ((guintptr) base + params->prefix) & align;
  const gsize offset = params->prefix + (misalign ? align + 1 - misalign : 0);
  GstKConvPinnedMemory *mem = g_new0 (GstKConvPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, align, offset, size);
  mem->base = base;
  mem->pinned = pinned;
  if (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED)
    memset (base, 0, offset);
  if (params->flags & GST_MEMORY_FLAG_ZERO_PADDED)
    memset (base + offset + size, 0, maxsize - offset - size);
  return GST_MEMORY_CAST (mem);
}

static void
pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  GstKConvPinnedMemory *mem = (GstKConvPinnedMemory *) memory;
  if (!memory->parent)
    kconv_host_free (mem->base, mem->pinned);
  g_free (mem);
}

static gpointer
pinned_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((GstKConvPinnedMemory *) memory)->base;
}

static void
pinned_unmap (GstMemory * memory)
{
}

static GstMemory *
pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  GstKConvPinnedMemory *mem = (GstKConvPinnedMemory *) memory;
  GstMemory *parent = memory->parent ? memory->parent : memory;
  if (size == -1)
    size = memory->size - offset;
  GstKConvPinnedMemory *sub = g_new0 (GstKConvPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  sub->base = mem->base;
  sub->pinned = mem->pinned;
  return GST_MEMORY_CAST (sub);
}

static void
gst_kconv_pinned_allocator_class_init (GstKConvPinnedAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);
  allocator_class->alloc = pinned_alloc;
  allocator_class->free = pinned_free;
}

static void
gst_kconv_pinned_allocator_init (GstKConvPinnedAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);
  alloc->mem_type = KCONV_PINNED_MEMORY_TYPE;
  alloc->mem_map = pinned_map;
  alloc->mem_unmap = pinned_unmap;
  alloc->mem_share = pinned_share;
  /* copies (a write map of shared memory, say) go to ordinary memory: the
   * default copy would pin a new block for every one */
  GST_OBJECT_FLAG_SET (alloc, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_kconv_pinned_allocator_get (void)
{
  static gsize registered = 0;
  if (g_once_init_enter (&registered)) {
    GstAllocator *alloc = g_object_new (gst_kconv_pinned_allocator_get_type (),
        NULL);
    gst_object_ref_sink (alloc);
    /* the registry keeps it, and frees it at gst_deinit */
    gst_allocator_register (ALLOCATOR_NAME, alloc);
    g_once_init_leave (&registered, 1);
  }
  return gst_allocator_find (ALLOCATOR_NAME);
}

gboolean
gst_kconv_memory_is_pinned (GstMemory * mem)
{
  return gst_memory_is_type (mem, KCONV_PINNED_MEMORY_TYPE)
      && ((GstKConvPinnedMemory *) mem)->pinned;
}

/* A video pool of pinned memory for caps. */
static GstBufferPool *
pinned_pool_new (GstCaps * caps, guint size, guint min_buffers,
    GstAllocator * allocator, GstAllocationParams * params)
{
  GstBufferPool *pool = gst_kconv_pinned_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, params);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

gboolean
gst_kconv_pinned_propose (GstQuery * query, guint held)
{
  GstCaps *caps;
  gboolean need_pool;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  GstAllocator *allocator = gst_kconv_pinned_allocator_get ();
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  if (need_pool) {
    GstBufferPool *pool = pinned_pool_new (caps, info.size, 0, allocator,
        &params);
    if (pool) {
      gst_query_add_allocation_pool (query, pool, info.size, held, 0);
      gst_object_unref (pool);
    }
  }
  gst_query_add_allocation_param (query, allocator, &params);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_object_unref (allocator);
  return TRUE;
}

gboolean
gst_kconv_pinned_offer (GstQuery * query, guint min)
{
  GstCaps *caps;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  GstAllocator *allocator = gst_kconv_pinned_allocator_get ();
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  GstBufferPool *pool = pinned_pool_new (caps, info.size, min, allocator,
      &params);
  if (pool) {
    gst_query_add_allocation_pool (query, pool, info.size, min, 0);
    gst_object_unref (pool);
    if (gst_query_get_n_allocation_params (query) > 0)
      gst_query_set_nth_allocation_param (query, 0, allocator, &params);
    else
      gst_query_add_allocation_param (query, allocator, &params);
  }
  gst_object_unref (allocator);
  return pool != NULL;
}
