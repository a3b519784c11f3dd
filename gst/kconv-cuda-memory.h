/* GStreamer kconv plugin: frames in GStreamer's CUDA memory
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What an element needs to take and give video/x-raw(memory:CUDAMemory):
 * the GstCudaContext shared with its neighbours (the memory belongs to it,
 * so the core runs with it current), buffer pools of CUDA memory, and
 * frames mapped as device pointers.  Where the build has no GStreamer CUDA
 * library, every call is a no-op that says "no", and the pad templates
 * carry no CUDA feature (kconv-formats.h).
 */
#ifndef KCONV_CUDA_MEMORY_H
#define KCONV_CUDA_MEMORY_H

#include <gst/video/video.h>
#include "kconv.h"

G_BEGIN_DECLS typedef struct
{
  GstObject *context;           /* a GstCudaContext, or NULL */
} GstKConvCudaMemory;

/* The caps are in CUDA memory. */
gboolean gst_kconv_cuda_memory_caps (const GstCaps * caps);

/* GstElement.set_context, and the context query a neighbour sends. */
void gst_kconv_cuda_memory_set_context (GstKConvCudaMemory * cm,
    GstElement * element, GstContext * context, gint device_id);
gboolean gst_kconv_cuda_memory_query (GstKConvCudaMemory * cm,
    GstElement * element, GstQuery * query);

/* For caps in CUDA memory (set_caps): checks that backend can work on it,
 * then finds a neighbour's context for device_id (-1: any), or makes and
 * shares one.  FALSE, with an element error that says why, when the
 * backend is the CPU or no device is usable. */
gboolean gst_kconv_cuda_memory_open (GstKConvCudaMemory * cm,
    GstElement * element, KConvBackend backend, gint device_id);
void gst_kconv_cuda_memory_close (GstKConvCudaMemory * cm);

/* The CUDA device of the context, -1 without one. */
gint gst_kconv_cuda_memory_device (const GstKConvCudaMemory * cm);

/* Makes the context current on the calling thread, and undoes it. */
gboolean gst_kconv_cuda_memory_push (GstKConvCudaMemory * cm);
void gst_kconv_cuda_memory_pop (GstKConvCudaMemory * cm);

/* Allocation queries for caps in CUDA memory: a pool of CUDA memory of our
 * context, holding at least min buffers. */
gboolean gst_kconv_cuda_memory_propose_allocation (GstKConvCudaMemory * cm,
    GstQuery * query, guint min);
gboolean gst_kconv_cuda_memory_decide_allocation (GstKConvCudaMemory * cm,
    GstQuery * query, guint min);

/* Maps a frame of CUDA memory of our context as device pointers (strides
 * are the memory's pitch); flags are GST_MAP_READ and/or GST_MAP_WRITE.
 * FALSE for system memory or another context's memory. */
gboolean gst_kconv_cuda_memory_map (GstKConvCudaMemory * cm,
    GstVideoFrame * frame, const GstVideoInfo * info, GstBuffer * buffer,
    GstMapFlags flags);

G_END_DECLS
#endif /* KCONV_CUDA_MEMORY_H */
