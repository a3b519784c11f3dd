/* GStreamer kconv plugin: an allocator of page-locked host memory
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_PINNED_ALLOCATOR_H
#define KCONV_PINNED_ALLOCATOR_H

#include <gst/gst.h>

G_BEGIN_DECLS
#define KCONV_PINNED_MEMORY_TYPE "KConvPinnedMemory"
/* The plugin's allocator of pinned memory (ordinary memory where no CUDA
 * device is usable), registered once; unref when done. */
    GstAllocator * gst_kconv_pinned_allocator_get (void);

/* TRUE when mem came from it and is really page-locked. */
gboolean gst_kconv_memory_is_pinned (GstMemory * mem);

/* Answers an ALLOCATION query from upstream: a video pool of pinned memory
 * for the query's caps (when it asks for a pool), the allocator, and video
 * meta support.  held: buffers the element keeps at once. */
gboolean gst_kconv_pinned_propose (GstQuery * query, guint held);

/* Adds a pinned video pool of at least min buffers to a query downstream
 * answered without a pool, with the allocator first. */
gboolean gst_kconv_pinned_offer (GstQuery * query, guint min);

G_END_DECLS
#endif /* KCONV_PINNED_ALLOCATOR_H */
