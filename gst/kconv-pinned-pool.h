/* GStreamer kconv plugin: a video pool that hands out the buffer freed last
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_PINNED_POOL_H
#define KCONV_PINNED_POOL_H

#include <gst/video/video.h>

G_BEGIN_DECLS
/* A GstVideoBufferPool whose free buffers are reused newest first
 * (GstBufferPool's are oldest first): a source filling frames cycles
 * through as few buffers as it needs at once, which stay in the CPU's
 * caches, however many the pool was made with.  A pool configured with a
 * maximum number of buffers keeps GstBufferPool's order. */
    GstBufferPool * gst_kconv_pinned_pool_new (void);

G_END_DECLS
#endif /* KCONV_PINNED_POOL_H */
