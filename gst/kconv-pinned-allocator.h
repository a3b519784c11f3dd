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
GstAllocator *kconv_pinned_allocator_get (void);

/* TRUE when mem came from it and is really page-locked. */
gboolean kconv_memory_is_pinned (GstMemory * mem);

G_END_DECLS
#endif /* KCONV_PINNED_ALLOCATOR_H */
