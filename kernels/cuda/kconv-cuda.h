/* kconv: CUDA backend, as the core sees it
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only built where nvcc is found.  The CUDA runtime is linked statically and
 * reaches the driver at run time, so a machine without a GPU or driver loads
 * the code and simply finds no device.
 */
#ifndef KCONV_CUDA_H
#define KCONV_CUDA_H

#include "kconv-plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct KConvCuda KConvCuda;

/* Usable CUDA devices (0 without a driver or GPU). */
int kconv_cuda_device_count (void);

/* Uploads the kernel and picks the strategy; device_id -1 = device 0.
 * Every function here records why it fails with kconv_fail ()
 * (kconv-error.h). */
KConvStatus kconv_cuda_new (const KConvPlan * plan, int use_separable,
    int device_id, KConvGpuWait wait, KConvCopyStreams copies,
    KConvCuda ** out);

/* Host images in, host images out: upload, convolve, download, wait.
 * Pageable memory is staged through pinned buffers by n_threads threads. */
KConvStatus kconv_cuda_run (KConvCuda * cu, const KConvImage * src,
    const KConvImage * dst, int n_threads);

/* Host images of 16-bit samples (depth 9 to 16), with the plan for their
 * depth: as kconv_cuda_run, on a twin of cu made for that plan the first
 * time (the float tiles, direct or separable). */
KConvStatus kconv_cuda_run_deep (KConvCuda * cu, const KConvPlan * plan,
    const KConvImage * src, const KConvImage * dst, int n_threads);
/* The same for device images, on stream (kconv_cuda_run_device). */
KConvStatus kconv_cuda_run_deep_device (KConvCuda * cu, const KConvPlan * plan,
    const KConvImage * src, const KConvImage * dst, void *stream);

/* Device images in and out (data are device pointers), on `stream`
 * (a cudaStream_t, NULL for the default); does not synchronise. */
KConvStatus kconv_cuda_run_device (KConvCuda * cu, const KConvImage * src,
    const KConvImage * dst, void *stream);

/* src[i] into dst[i] for i < n, device images of bytes, side by side on
 * side streams (kconv-cuda-sides.cu): after what stream holds, and before
 * what is queued on it next; does not synchronise. */
KConvStatus kconv_cuda_run_device_many (KConvCuda * cu,
    const KConvImage * src, const KConvImage * dst, int n, void *stream);

/* As kconv_cuda_run_device, writing output rows [row_begin, row_end) only;
 * the source is read wherever the kernel reaches. */
KConvStatus kconv_cuda_run_rows (KConvCuda * cu, const KConvImage * src,
    const KConvImage * dst, int row_begin, int row_end, void *stream);

/* The source rows above and below an output row that the kernel reads.
 * Returns 0 when a band of output rows may need any source row (wrap
 * border, FFT): such frames are convolved whole. */
int kconv_cuda_row_reach (const KConvCuda * cu, int *above, int *below);

int kconv_cuda_device_of (const KConvCuda * cu);
/* How its frames in flight are waited for (KConvOptions.gpu_wait) */
KConvGpuWait kconv_cuda_wait_of (const KConvCuda * cu);

/* The stream all of this filter's convolutions run on, one after another
 * (they share work buffers), as a cudaStream_t. */
void *kconv_cuda_compute_stream (const KConvCuda * cu);

/* The streams frames are uploaded and downloaded on, one after another
 * (frames go through a filter in order), as cudaStream_t. */
void kconv_cuda_copy_streams (const KConvCuda * cu, void **up, void **down);

/* A filter's copy streams (kconv-cuda-copies.cu): its own, or shared with
 * the other filters of the current CUDA context (KCONV_CUDA_COPIES). */
typedef struct
{
  void *up, *down;              /* cudaStream_t */
  int up_shared, down_shared;
} KConvCudaCopies;
KConvStatus kconv_cuda_copies_take (KConvCudaCopies * copies,
    KConvCopyStreams mode);
void kconv_cuda_copies_release (KConvCudaCopies * copies);

/* Frames in flight (kconv-cuda-slot.cu): a slot owns a frame's device
 * buffers, pinned staging and the events that tie its steps together.
 * Submitting queues the upload, the convolution and the download on the
 * filter's three streams, band by band so that they overlap within a frame
 * too, and returns; waiting finishes it.  *slot is created on first use. */
typedef struct KConvCudaSlot KConvCudaSlot;
KConvStatus kconv_cuda_submit (KConvCuda * cu, KConvCudaSlot ** slot,
    const KConvImage * src, const KConvImage * dst, int n_threads);
KConvStatus kconv_cuda_slot_wait (KConvCudaSlot * slot);
/* Whether a wait would return at once (also when the device failed). */
int kconv_cuda_slot_done (const KConvCudaSlot * slot);
void kconv_cuda_slot_free (KConvCudaSlot * slot);

/* Device memory in the current context (NULL when it cannot be had). */
void *kconv_cuda_device_alloc (size_t size);
void kconv_cuda_device_free (void *data);
/* *buf grown to at least need bytes of device memory (*size its bytes),
 * zeroed when new so that padding read past the data is defined; the
 * zeros have landed when it returns (cudaMemset runs on the legacy
 * stream, which non-blocking streams do not wait for, and may return
 * before it ends). */
KConvStatus kconv_cuda_grow_zeroed (void **buf, size_t *size, size_t need);

/* Page-locked host memory (NULL when it cannot be had). */
void *kconv_cuda_host_alloc (size_t size);
/* Whether p lies in page-locked host memory (DMA reaches it directly). */
int kconv_cuda_is_pinned (const void *p);
void kconv_cuda_host_free (void *data);

/* Makes device current unless it already is (cudaSetDevice would replace
 * a context the caller pushed, GStreamer's whose memory we work on, by the
 * device's primary one); a failure is recorded. */
KConvStatus kconv_cuda_use_device (int device);

/* The calling thread's current CUDA context (a CUcontext), NULL if none. */
void *kconv_cuda_current_context (void);

/* Counts frame bytes crossing the bus, for kconv_transfer_bytes, and
 * those staged through pinned buffers, for kconv_staged_bytes. */
/* The bytes counted so far (kconv_transfer_bytes, kconv_staged_bytes). */
void kconv_cuda_transfer_bytes (uint64_t * to_device, uint64_t * to_host);
void kconv_cuda_staged_bytes (uint64_t * to_device, uint64_t * to_host);
void kconv_cuda_count_transfer (int to_device, size_t bytes);
void kconv_cuda_count_staged (int to_device, size_t bytes);

/* Device-to-device copy of rows, and waiting for a stream (cudaStream_t). */
KConvStatus kconv_cuda_copy_device (void *dst, ptrdiff_t dst_stride,
    const void *src, ptrdiff_t src_stride, size_t row_bytes, int rows,
    void *stream);
KConvStatus kconv_cuda_sync (void *stream);
KConvStatus kconv_cuda_draw_box (const KConvImage * image, int x, int y,
    int w, int h, int thickness, const uint8_t value[KCONV_MAX_CHANNELS],
    void *stream);

/* The name of path i of the strategy table (NULL past the last). */
const char *kconv_cuda_strategy_name (int i);

/* "direct", "separable" and the launch shape, for logs and benchmarks. */
const char *kconv_cuda_strategy (const KConvCuda * cu);

void kconv_cuda_free (KConvCuda * cu);

#ifdef __cplusplus
}
#endif
#endif /* KCONV_CUDA_H */
