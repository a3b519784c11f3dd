/* kconv: CUDA frames in flight: one slot carries one frame
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A filter uploads on one stream, convolves on a second and downloads on a
 * third (the two copy streams may be shared by the filters of a CUDA
 * context: kconv-cuda-copies.cu); a slot holds one frame's buffers and the
 * events that tie its steps across the three.  With several slots, the
 * upload of frame i+1, the kernel of frame i and the download of frame
 * i-1 overlap.  (Three streams however many frames are in flight: more
 * streams than the device's hardware queues would make unrelated copies
 * wait on each other.)  A large plane is also cut into bands of rows, so
 * that within one frame the kernel of a band starts as soon as the rows it
 * reads have arrived and its download starts as soon as it is done: a
 * single frame takes little more than one trip across the bus.
 *
 * Pinned host memory is copied by DMA straight from and into the frame.
 * Pageable memory is staged through the slot's pinned buffers by CPU
 * threads (band by band on the way in, so the bus starts early).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "kconv-cuda.h"
#include "kconv-cuda-fence.cuh"
#include "kconv-error.h"
#include "kconv-tuning.h"
#include "kconv-team.h"

#define MAX_BANDS 8
/* A band under this many bytes costs more in launches than it saves. */
#define BAND_MIN_BYTES (2u << 20)
/* Planes per frame whose download lands in staging (YUV: 3). */
#define MAX_UNSTAGE 4

typedef struct
{
  uint8_t *dst;
  ptrdiff_t dst_stride;
  const uint8_t *staged;
  size_t row_bytes;
  int rows;
} Unstage;

struct KConvCudaSlot
{
  KConvCudaFence fence; /* after the last download queued */
  cudaEvent_t uploaded[MAX_BANDS], convolved[MAX_BANDS];
  uint8_t *d_mem; /* source and result planes, pitched */
  size_t d_size, d_used;
  uint8_t *h_stage; /* pinned staging for pageable frames */
  size_t h_size, h_used;
  /* the last plane submitted, for a second image over it (packed 4:2:2's
   * chroma after its luma): its source is already on the device, and its
   * result buffer holds the first image's output */
  const uint8_t *last_src, *last_dst;
  ptrdiff_t last_src_stride, last_dst_stride;
  size_t last_row, last_pitch;
  int last_h;
  uint8_t *last_d_src, *last_d_dst;
  /* the filter that submitted it and its bands: a second image from
   * another filter (planes=auto: neutral chroma) runs on other streams
   * and must wait for the first's kernel and download */
  const KConvCuda *last_cu;
  int last_bands;
  Unstage unstage[MAX_UNSTAGE]; /* staged results still to hand over */
  int n_unstage;
  int n_threads;
  int max_bands; /* KCONV_CUDA_BANDS, for measuring */
};

extern "C" void *
kconv_cuda_device_alloc (size_t size)
{
  void *p = NULL;
  if (cudaMalloc (&p, size ? size : 1) != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return p;
}

extern "C" void
kconv_cuda_device_free (void *data)
{
  if (data)
    cudaFree (data);
}

extern "C" KConvStatus
kconv_cuda_grow_zeroed (void **buf, size_t *size, size_t need)
{
  if (need <= *size)
    return KCONV_OK;
  cudaFree (*buf);
  *buf = NULL;
  *size = 0;
  KCONV_CUDA_CHECK (cudaMalloc (buf, need));
  /* without the wait, zeros landed after a first search's writes where
   * the GPU was shared (tests/gpu/shared-gpu.sh) */
  KCONV_CUDA_CHECK (cudaMemset (*buf, 0, need));
  KCONV_CUDA_CHECK (cudaStreamSynchronize (0));
  *size = need;
  return KCONV_OK;
}

extern "C" void *
kconv_cuda_host_alloc (size_t size)
{
  void *p = NULL;
  /* portable: usable from every device's context */
  if (cudaHostAlloc (&p, size ? size : 1, cudaHostAllocPortable) !=
      cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return p;
}

extern "C" void
kconv_cuda_host_free (void *data)
{
  if (data)
    cudaFreeHost (data);
}

extern "C" int
kconv_cuda_is_pinned (const void *p)
{
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes (&attr, p) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return attr.type == cudaMemoryTypeHost;
}

static void
slot_release (KConvCudaSlot *slot)
{
  (void) kconv_cuda_use_device (slot->fence.device);
  for (int i = 0; i < MAX_BANDS; i++) {
    if (slot->uploaded[i])
      cudaEventDestroy (slot->uploaded[i]);
    if (slot->convolved[i])
      cudaEventDestroy (slot->convolved[i]);
  }
  kconv_cuda_fence_release (&slot->fence);
  cudaFree (slot->d_mem);
  if (slot->h_stage)
    cudaFreeHost (slot->h_stage);
  memset (slot, 0, sizeof *slot);
}

static KConvStatus
slot_init (KConvCudaSlot *slot, int device, KConvGpuWait wait)
{
  const int bands = kconv_tuning ().cuda_bands;
  slot->max_bands = bands ? bands : MAX_BANDS;
  slot->max_bands = slot->max_bands < 1           ? 1
                    : slot->max_bands > MAX_BANDS ? MAX_BANDS
                                                  : slot->max_bands;
  KConvStatus st = kconv_cuda_fence_init (&slot->fence, device, wait);
  if (st != KCONV_OK)
    return st;
  for (int i = 0; i < MAX_BANDS; i++) {
    KCONV_CUDA_CHECK (
        cudaEventCreateWithFlags (&slot->uploaded[i], cudaEventDisableTiming));
    KCONV_CUDA_CHECK (
        cudaEventCreateWithFlags (&slot->convolved[i], cudaEventDisableTiming));
  }
  return KCONV_OK;
}

/* Waits for everything submitted and hands staged results over. */
static KConvStatus
slot_finish (KConvCudaSlot *slot)
{
  /* the downloads wait for the kernels, which wait for the uploads */
  const KConvStatus st = kconv_cuda_fence_wait (&slot->fence, "a frame");
  if (st == KCONV_OK) {
    for (int i = 0; i < slot->n_unstage; i++) {
      const Unstage *u = &slot->unstage[i];
      kconv_copy_rows (u->dst, u->dst_stride, u->staged,
          (ptrdiff_t) u->row_bytes, u->row_bytes, u->rows, slot->n_threads);
    }
  }
  slot->n_unstage = 0;
  slot->d_used = slot->h_used = 0;
  slot->last_src = slot->last_dst = NULL;
  return st;
}

/* Room for one more plane: d_need device and h_need staging bytes.  When
 * it does not fit, the frame's earlier planes are finished first and the
 * buffers regrown to hold the whole frame, so later frames fit. */
static KConvStatus
slot_reserve (KConvCudaSlot *slot, size_t d_need, size_t h_need)
{
  if (slot->d_used + d_need <= slot->d_size &&
      slot->h_used + h_need <= slot->h_size && slot->n_unstage < MAX_UNSTAGE)
    return KCONV_OK;
  const size_t d_frame = slot->d_used + d_need;
  const size_t h_frame = slot->h_used + h_need;
  KConvStatus st = slot_finish (slot);
  if (st != KCONV_OK)
    return st;
  if (d_frame > slot->d_size) {
    cudaFree (slot->d_mem);
    slot->d_mem = NULL;
    slot->d_size = 0;
    KCONV_CUDA_CHECK (cudaMalloc (&slot->d_mem, d_frame));
    slot->d_size = d_frame;
  }
  if (h_frame > slot->h_size) {
    if (slot->h_stage)
      cudaFreeHost (slot->h_stage);
    slot->h_stage = NULL;
    slot->h_size = 0;
    KCONV_CUDA_CHECK (
        cudaHostAlloc (&slot->h_stage, h_frame, cudaHostAllocPortable));
    slot->h_size = h_frame;
  }
  return KCONV_OK;
}

/* A second image over the plane submitted last, keeping the bytes the
 * first one wrote: nothing to upload again. */
static int
same_plane_again (const KConvCudaSlot *slot, const KConvImage *src,
    const KConvImage *dst, size_t row)
{
  return dst->keep_other_bytes && slot->last_src == src->data &&
         slot->last_dst == dst->data && slot->last_src_stride == src->stride &&
         slot->last_dst_stride == dst->stride && slot->last_h == src->height &&
         row <= slot->last_row;
}

static KConvStatus
slot_submit (KConvCuda *cu, KConvCudaSlot *slot, const KConvImage *src,
    const KConvImage *dst)
{
  const size_t row = (size_t) src->width * src->pixel_stride;
  const int h = src->height;
  const int again = same_plane_again (slot, src, dst, row);
  const size_t pitch = again ? slot->last_pitch : (row + 255) / 256 * 256;
  const int src_pinned = again || kconv_cuda_is_pinned (src->data);
  const int dst_pinned = kconv_cuda_is_pinned (dst->data);
  const size_t plane = pitch * h;

  KCONV_TRY (kconv_cuda_use_device (slot->fence.device));
  void *up_ptr, *down_ptr;
  kconv_cuda_copy_streams (cu, &up_ptr, &down_ptr);
  cudaStream_t up = (cudaStream_t) up_ptr, down = (cudaStream_t) down_ptr;
  /* (a reserve that finishes the frame so far keeps the device buffers) */
  KConvStatus st = slot_reserve (slot, again ? 0 : 2 * plane,
      (src_pinned ? 0 : row * h) + (dst_pinned ? 0 : row * h));
  if (st != KCONV_OK)
    return st;
  uint8_t *d_src = again ? slot->last_d_src : slot->d_mem + slot->d_used;
  uint8_t *d_dst = again ? slot->last_d_dst : d_src + plane;
  /* past both buffers, also when the reserve finished the frame so far */
  const size_t end = (size_t) (d_dst + plane - slot->d_mem);
  slot->d_used = slot->d_used > end ? slot->d_used : end;
  uint8_t *stage_in = NULL, *stage_out = NULL;
  if (!src_pinned) {
    stage_in = slot->h_stage + slot->h_used;
    slot->h_used += row * h;
  }
  if (!dst_pinned) {
    stage_out = slot->h_stage + slot->h_used;
    slot->h_used += row * h;
  }
  slot->last_src = src->data;
  slot->last_dst = dst->data;
  slot->last_src_stride = src->stride;
  slot->last_dst_stride = dst->stride;
  slot->last_h = h;
  if (!again) {
    slot->last_row = row;
    slot->last_pitch = pitch;
    slot->last_d_src = d_src;
    slot->last_d_dst = d_dst;
  }

  /* bands of rows */
  int above, below;
  const int split = kconv_cuda_row_reach (cu, &above, &below);
  int bands = split ? (int) (row * h / BAND_MIN_BYTES) : 1;
  bands = bands < 1 ? 1 : bands > slot->max_bands ? slot->max_bands : bands;
  const int band_h = (h + bands - 1) / bands;
  bands = (h + band_h - 1) / band_h;

  cudaStream_t compute = (cudaStream_t) kconv_cuda_compute_stream (cu);
  /* the same plane from another filter: its kernel writes the result
   * buffer the first kernel writes, and its download the rows the first
   * download writes; one filter's streams keep that order by themselves */
  if (again && slot->last_cu != cu) {
    KCONV_CUDA_CHECK (cudaStreamWaitEvent (compute,
        slot->convolved[slot->last_bands - 1], 0));
    KCONV_CUDA_CHECK (cudaStreamWaitEvent (down, slot->fence.done, 0));
  }
  slot->last_cu = cu;
  slot->last_bands = bands;

  for (int b = 0; b < bands && !again; b++) {
    const int y0 = b * band_h, y1 = y0 + band_h < h ? y0 + band_h : h;
    const uint8_t *from = src->data + (ptrdiff_t) y0 * src->stride;
    size_t from_stride = src->stride;
    if (stage_in) {
      kconv_copy_rows (stage_in + y0 * row, row, from, src->stride, row,
          y1 - y0, slot->n_threads);
      kconv_cuda_count_staged (1, row * (y1 - y0));
      from = stage_in + y0 * row;
      from_stride = row;
    }
    KCONV_CUDA_CHECK (cudaMemcpy2DAsync (d_src + y0 * pitch, pitch, from,
        from_stride, row, y1 - y0, cudaMemcpyHostToDevice, up));
    kconv_cuda_count_transfer (1, row * (y1 - y0));
    /* bytes the destination keeps come back down with the result: they
     * must be on the device first (rare: the element's second image over
     * a plane is the case above, with nothing to upload) */
    if (dst->keep_other_bytes) {
      KCONV_CUDA_CHECK (cudaMemcpy2DAsync (d_dst + y0 * pitch, pitch,
          dst->data + (ptrdiff_t) y0 * dst->stride, dst->stride, row, y1 - y0,
          cudaMemcpyHostToDevice, up));
      kconv_cuda_count_transfer (1, row * (y1 - y0));
    }
    KCONV_CUDA_CHECK (cudaEventRecord (slot->uploaded[b], up));
  }

  KConvImage dev_src = *src, dev_dst = *dst;
  dev_src.data = d_src;
  dev_src.stride = pitch;
  dev_dst.data = d_dst;
  dev_dst.stride = pitch;
  int waited = -1;
  for (int b = 0; b < bands; b++) {
    const int y0 = b * band_h, y1 = y0 + band_h < h ? y0 + band_h : h;
    /* the last source row this band reads, and the band it arrives in */
    int last = y1 - 1 + below;
    last = last < above ? above : last; /* reflected top rows */
    last = bands == 1 || last >= h ? h - 1 : last;
    const int need = last / band_h;
    if (need > waited) {
      KCONV_CUDA_CHECK (cudaStreamWaitEvent (compute, slot->uploaded[need], 0));
      waited = need;
    }
    st = kconv_cuda_run_rows (cu, &dev_src, &dev_dst, y0, y1, compute);
    if (st != KCONV_OK)
      return st;
    KCONV_CUDA_CHECK (cudaEventRecord (slot->convolved[b], compute));
  }

  uint8_t *to = stage_out ? stage_out : dst->data;
  const size_t to_stride = stage_out ? row : (size_t) dst->stride;
  for (int b = 0; b < bands; b++) {
    const int y0 = b * band_h, y1 = y0 + band_h < h ? y0 + band_h : h;
    KCONV_CUDA_CHECK (cudaStreamWaitEvent (down, slot->convolved[b], 0));
    KCONV_CUDA_CHECK (cudaMemcpy2DAsync (to + y0 * to_stride, to_stride,
        d_dst + y0 * pitch, pitch, row, y1 - y0, cudaMemcpyDeviceToHost, down));
    kconv_cuda_count_transfer (0, row * (y1 - y0));
  }
  st = kconv_cuda_fence_record (&slot->fence, down);
  if (st != KCONV_OK)
    return st;
  if (stage_out) {
    slot->unstage[slot->n_unstage++] =
        (Unstage){ dst->data, dst->stride, stage_out, row, h };
    kconv_cuda_count_staged (0, row * h);
  }
  return KCONV_OK;
}

extern "C" KConvStatus
kconv_cuda_submit (KConvCuda *cu, KConvCudaSlot **slotp, const KConvImage *src,
    const KConvImage *dst, int n_threads)
{
  KConvCudaSlot *slot = *slotp;
  if (!slot) {
    slot = (KConvCudaSlot *) calloc (1, sizeof *slot);
    if (!slot)
      return kconv_fail (KCONV_ERROR_OUT_OF_MEMORY, "out of memory");
    *slotp = slot;
  }
  KConvStatus st = KCONV_OK;
  const int device = kconv_cuda_device_of (cu);
  const KConvGpuWait wait = kconv_cuda_wait_of (cu);
  if (slot->fence.ready &&
      !kconv_cuda_fence_fits (&slot->fence, device, wait)) {
    slot_finish (slot); /* moving to another device, or waited otherwise */
    slot_release (slot);
  }
  if (!slot->fence.ready) {
    st = slot_init (slot, device, wait);
    if (st != KCONV_OK) {
      slot_release (slot);
      return st;
    }
  }
  slot->n_threads = n_threads;
  st = slot_submit (cu, slot, src, dst);
  if (st != KCONV_OK)
    kconv_cuda_fence_break (&slot->fence);
  return st;
}

extern "C" KConvStatus
kconv_cuda_slot_wait (KConvCudaSlot *slot)
{
  if (!slot)
    return KCONV_OK;
  return slot_finish (slot);
}

extern "C" int
kconv_cuda_slot_done (const KConvCudaSlot *slot)
{
  return !slot || kconv_cuda_fence_done (&slot->fence);
}

extern "C" void
kconv_cuda_slot_free (KConvCudaSlot *slot)
{
  if (!slot)
    return;
  slot_finish (slot);
  slot_release (slot);
  free (slot);
}
