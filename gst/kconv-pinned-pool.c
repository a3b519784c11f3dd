/* GStreamer kconv plugin: a video pool that hands out the buffer freed last
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstBufferPool keeps its free buffers in a queue: a pool of five buffers
 * that a source needs two of at a time still cycles through all five, so
 * each frame is written into the buffer that has been cold the longest.
 * Here released buffers go on a stack and the next acquire takes the top;
 * GstBufferPool still allocates, counts and frees every buffer: buffers it
 * would discard (memory changed, shared or resized) go to it, and at stop
 * the stack is handed back to it.  A pool with a maximum number of buffers
 * keeps GstBufferPool's order: an acquire waits inside it for a release.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "kconv-pinned-pool.h"

typedef struct
{
  GstVideoBufferPool parent;
  GMutex lock;
  GQueue free;                  /* newest first */
  gsize size;                   /* of a buffer, from the config */
  gboolean newest_first;        /* no maximum */
} GstKConvPinnedPool;

typedef struct
{
  GstVideoBufferPoolClass parent_class;
} GstKConvPinnedPoolClass;

GType gst_kconv_pinned_pool_get_type (void);
G_DEFINE_TYPE (GstKConvPinnedPool, gst_kconv_pinned_pool,
    GST_TYPE_VIDEO_BUFFER_POOL);
#define parent_pool_class GST_BUFFER_POOL_CLASS (gst_kconv_pinned_pool_parent_class)

static gboolean
gst_kconv_pinned_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstKConvPinnedPool *self = (GstKConvPinnedPool *) pool;
  guint size = 0, max = 0;
  if (!parent_pool_class->set_config (pool, config))
    return FALSE;
  /* as the video pool left it (it may raise the size to the video
   * info's): the pool takes this config once we return */
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, &max);
  self->size = size;
  /* with a maximum, an acquire may wait inside GstBufferPool for a buffer
   * released to it: the stack would leave it waiting */
  self->newest_first = max == 0;
  return TRUE;
}

static GstFlowReturn
gst_kconv_pinned_pool_acquire_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstKConvPinnedPool *self = (GstKConvPinnedPool *) pool;
  g_mutex_lock (&self->lock);
  *buffer = g_queue_pop_head (&self->free);
  g_mutex_unlock (&self->lock);
  if (*buffer)
    return GST_FLOW_OK;
  return parent_pool_class->acquire_buffer (pool, buffer, params);
}

/* What GstBufferPool itself checks before it keeps a buffer. */
static gboolean
reusable (GstKConvPinnedPool * self, GstBuffer * buffer)
{
  return !GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY)
      && gst_buffer_get_size (buffer) == self->size
      && gst_buffer_is_all_memory_writable (buffer);
}

static void
gst_kconv_pinned_pool_release_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  GstKConvPinnedPool *self = (GstKConvPinnedPool *) pool;
  if (!self->newest_first || !reusable (self, buffer)) {
    parent_pool_class->release_buffer (pool, buffer);
    return;
  }
  g_mutex_lock (&self->lock);
  g_queue_push_head (&self->free, buffer);
  g_mutex_unlock (&self->lock);
}

/* Hands the stack back, so that GstBufferPool frees and counts them. */
static gboolean
gst_kconv_pinned_pool_stop (GstBufferPool * pool)
{
  GstKConvPinnedPool *self = (GstKConvPinnedPool *) pool;
  GstBuffer *buffer;
  g_mutex_lock (&self->lock);
  while ((buffer = g_queue_pop_head (&self->free)))
    parent_pool_class->release_buffer (pool, buffer);
  g_mutex_unlock (&self->lock);
  return parent_pool_class->stop (pool);
}

static void
gst_kconv_pinned_pool_finalize (GObject * object)
{
  GstKConvPinnedPool *self = (GstKConvPinnedPool *) object;
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_kconv_pinned_pool_parent_class)->finalize (object);
}

static void
gst_kconv_pinned_pool_class_init (GstKConvPinnedPoolClass * klass)
{
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);
  G_OBJECT_CLASS (klass)->finalize = gst_kconv_pinned_pool_finalize;
  pool_class->set_config = gst_kconv_pinned_pool_set_config;
  pool_class->acquire_buffer = gst_kconv_pinned_pool_acquire_buffer;
  pool_class->release_buffer = gst_kconv_pinned_pool_release_buffer;
  pool_class->stop = gst_kconv_pinned_pool_stop;
}

static void
gst_kconv_pinned_pool_init (GstKConvPinnedPool * self)
{
  g_mutex_init (&self->lock);
  g_queue_init (&self->free);
}

GstBufferPool *
gst_kconv_pinned_pool_new (void)
{
  GstBufferPool *pool = g_object_new (gst_kconv_pinned_pool_get_type (), NULL);
  gst_object_ref_sink (pool);
  return pool;
}
