/* kconv: image convolution core
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A plain C API with no GStreamer or GLib in it: describe an image and a
 * kernel, create a filter once, run it on as many frames as you like.
 *
 * Arithmetic (the same on every backend):
 *   v   = sum (weight[ky][kx] * pixel[y - ay + ky][x - ax + kx]) / divisor
 *   v   = absolute ? |v| : v
 *   out = clamp (floor (v + offset + 0.5), 0, max)
 * max is 255 for 8-bit samples, 2^depth - 1 for deeper ones (whose offset
 * is scaled: see KConvImage).
 * The matrix is laid over the image as written (correlation, no flip), its
 * anchor (ax, ay) = (cols / 2, rows / 2) rounded down.  Halves round up,
 * towards +infinity.
 *
 * Exact kernels: integer weights, an integer divisor and an integer offset,
 * with max * sum |weight| < 2^24 (8-bit: sum |weight| <= 65793; 10-bit:
 * 16400; 12-bit: 4097; 16-bit: 256).  These are computed exactly (the true
 * rational value, rounded as above) and every backend and every path
 * (direct, separable, FFT) gives bit-identical output.  Any other kernel is
 * computed in single precision (blurs on the CPU: 16-bit fixed point): each
 * output is within 1 of the exact result (almost always equal).  An
 * integer kernel past its depth's bound (a 31x31 box on 16-bit samples) is
 * one of those.  On deeper samples the single-precision error grows with
 * max * sum |weight / divisor|: within 1 is checked for kernels that do not
 * amplify (|divisor| >= sum |weight|: every blur and average).
 */
#ifndef KCONV_H
#define KCONV_H

#include <stddef.h>
#include <stdint.h>

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

#define KCONV_MAX_KERNEL_SIZE 121
#define KCONV_MAX_CHANNELS 4
#define KCONV_MAX_PIXEL_BYTES 8

typedef enum
{
  KCONV_OK = 0,
  KCONV_ERROR_INVALID_ARGUMENT,
  KCONV_ERROR_INVALID_KERNEL,
  KCONV_ERROR_OUT_OF_MEMORY,
  KCONV_ERROR_BACKEND_UNAVAILABLE,
  KCONV_ERROR_DEVICE,
} KConvStatus;

typedef enum
{
  KCONV_BORDER_ZERO,            /* outside pixels are 0 */
  KCONV_BORDER_REPLICATE,       /* aaa|abcd|ddd */
  /* cb|abcd|cb: mirror, edge pixel not repeated */
  KCONV_BORDER_REFLECT,
  KCONV_BORDER_WRAP,            /* cd|abcd|ab */
} KConvBorder;

typedef enum
{
  KCONV_BACKEND_AUTO,           /* CUDA when usable, else the CPU */
  KCONV_BACKEND_CPU,            /* threads, vectorised */
  KCONV_BACKEND_CUDA,
  KCONV_BACKEND_REFERENCE,      /* scalar, one pixel at a time: the gold */
  KCONV_BACKEND_COUNT
} KConvBackend;

typedef struct
{
  KConvBackend id;
  const char *name;             /* "cuda": its name in logs and on elements */
  const char *label;            /* its name in sentences: "CUDA" */
  const char *description;      /* a line for gst-inspect */
  int for_elements;             /* offered by the elements' backend property */
} KConvBackendInfo;

/* Every backend kconv knows, whether this build has it or not (NULL for a
 * value that is none).  kconv_backend_available says which run here. */
const KConvBackendInfo *kconv_backend_info (KConvBackend backend);

typedef enum
{
  KCONV_PATH_DIRECT,            /* one 2D pass */
  /* rank-1 kernel: horizontal then vertical pass */
  KCONV_PATH_SEPARABLE,
  /* large kernel: through the Fourier transform */
  KCONV_PATH_FFT,
} KConvPath;

/* One plane of samples.  A pixel is pixel_stride bytes; the samples at
 * channel_offset[0 .. n_channels-1] (bytes) within it are convolved and
 * every other byte of the pixel is copied from source to destination
 * unchanged (alpha, padding), unless the destination says
 * keep_other_bytes: then they are left as the destination holds them.
 * That is how two images over one plane are filtered, such as packed
 * 4:2:2 video (YUY2), whose luma is every second byte and whose chroma is
 * bytes 1 and 3 of every four: the first image copies the bytes it does not
 * filter, the second keeps them.  Submitted to one slot one after the
 * other, the second reuses the plane the first uploaded.
 *
 * Samples are bytes (depth 0 or 8) or, for depth 9 to 16, 16-bit words,
 * little-endian unless big_endian, whose value sits `shift` bits up (P010
 * keeps 10 bits at the top of each word: depth 10, shift 6); the bits
 * below it are read as nothing and written as 0.  Outputs clamp to 0 ..
 * 2^depth - 1, and a kernel's offset is in 8-bit steps, scaled by
 * 2^(depth - 8) (128, mid-grey, is 512 at 10 bits). */
typedef struct
{
  uint8_t *data;
  int width;
  int height;
  ptrdiff_t stride;             /* bytes from one row to the next */
  int pixel_stride;             /* bytes: 1 .. KCONV_MAX_PIXEL_BYTES */
  int n_channels;               /* 1 .. KCONV_MAX_CHANNELS */
  int channel_offset[KCONV_MAX_CHANNELS];
  int keep_other_bytes;         /* destinations only; 0 = copy them */
  int depth;                    /* bits a sample: 0 (= 8) .. 16 */
  int shift;                    /* 16-bit words: the value's lowest bit */
  int big_endian;               /* 16-bit words: most significant first */
} KConvImage;

typedef struct
{
  int cols;                     /* 1 .. KCONV_MAX_KERNEL_SIZE */
  int rows;                     /* 1 .. KCONV_MAX_KERNEL_SIZE */
  const float *weights;         /* rows * cols, row-major, finite */
  double divisor;               /* 0 = sum of weights, or 1 if that is 0 */
  double offset;                /* added after dividing */
  int absolute;                 /* use |sum / divisor| */
} KConvKernel;

/* How a thread waits for a frame in flight on the GPU */
typedef enum
{
  KCONV_GPU_WAIT_SPIN,          /* polls without rest (the CUDA runtime's
                                 * default): the least delay, a core busy */
  KCONV_GPU_WAIT_SLEEP,         /* polls with 20 us naps between */
  KCONV_GPU_WAIT_BLOCK,         /* the runtime's blocking wait */
} KConvGpuWait;

/* Whose streams a filter's uploads and downloads run on */
typedef enum
{
  KCONV_COPY_STREAMS_OWN,       /* its own */
  KCONV_COPY_STREAMS_SHARED,    /* shared with the other filters of its CUDA
                                 * context, both ways */
  KCONV_COPY_STREAMS_SHARED_UP, /* shared for uploads only */
} KConvCopyStreams;

typedef struct
{
  KConvBackend backend;
  /* CPU threads, 0 = OpenMP's default; at most one a core */
  int n_threads;
  int device_id;                /* CUDA device, -1 = default */
  KConvGpuWait gpu_wait;        /* 0 = spin */
  KConvCopyStreams copy_streams;        /* 0 = own */
} KConvOptions;

typedef struct KConvFilter KConvFilter;

const char *kconv_status_string (KConvStatus status);
const char *kconv_backend_name (KConvBackend backend);
const char *kconv_path_name (KConvPath path);

/* 1 when this build can run the backend here (for CUDA: a device exists);
 * 0, with kconv_last_error () saying why, when it cannot. */
int kconv_backend_available (KConvBackend backend);

/* Whether the backend (AUTO: the one it stands for here) filters samples
 * of `depth` bits (1 .. 16); 0 for one this build lacks. */
int kconv_backend_takes_depth (KConvBackend backend, int depth);

/* The backend AUTO stands for here (CUDA when a device is usable, else the
 * CPU); any other backend unchanged. */
KConvBackend kconv_backend_resolve (KConvBackend backend);

/* Checks the kernel and options and prepares everything that does not
 * depend on the image.  AUTO resolves to a concrete backend here. */
KConvStatus kconv_filter_new (const KConvKernel * kernel, KConvBorder border,
    const KConvOptions * options, KConvFilter ** filter);

/* dst gets the convolution of src.  Both images must have the same size and
 * layout and must not overlap.  A filter runs one frame at a time. */
KConvStatus kconv_filter_run (KConvFilter * filter, const KConvImage * src,
    const KConvImage * dst);

/* As kconv_filter_run, for a CUDA filter whose images are already in device
 * memory (data are device pointers): queued on `stream` (a cudaStream_t,
 * NULL for the default stream) and not waited for. */
KConvStatus kconv_filter_run_device (KConvFilter * filter,
    const KConvImage * src, const KConvImage * dst, void *stream);

void kconv_filter_free (KConvFilter * filter);

/* A rectangle of an image, in its pixels */
typedef struct
{
  int x, y, width, height;
} KConvRect;

/* Parses "x,y,width,height;x,y,width,height..." (whitespace around the
 * numbers allowed; empty: none) into up to max rectangles: x, y >= 0,
 * width, height >= 1, each at most KCONV_MAX_COORD.  Returns their number,
 * or -1 and a sentence in err. */
#define KCONV_MAX_COORD (1 << 24)
int kconv_rects_parse (const char *text, KConvRect * rects, int max,
    char *err, size_t err_size);

/* The area the n rects cover, each grown by margin pixels on every side
 * and clipped to a width x height image (outside: the rest of the image
 * instead), as disjoint rectangles, top to bottom: a pixel inside two
 * rects lies in one of them.  *out is malloc'd (NULL when there are
 * none); returns their number, -1 when memory is short. */
int kconv_rects_cover (const KConvRect * rects, int n, int margin, int width,
    int height, int outside, KConvRect ** out);

/* dst gets the convolution of src inside the n rects only (disjoint, as
 * kconv_rects_cover gives them, inside the image): there the samples
 * kconv_filter_run gives for the whole image (the kernel reads the
 * neighbours beyond a rectangle's edge; borders apply at the image's
 * edges alone), every other byte of dst left as it is.  dst may be src
 * (in place).  Each rectangle's window (itself and the kernel's reach
 * round it) is filtered into a buffer the filter keeps, then its samples
 * copied: the cost follows the area, not the image.  For exact kernels
 * the samples are kconv_filter_run's to the bit; others within 1, as
 * between paths. */
KConvStatus kconv_filter_run_rects (KConvFilter * filter,
    const KConvImage * src, const KConvImage * dst, const KConvRect * rects,
    int n);
/* The same for images in device memory (a CUDA filter, as
 * kconv_filter_run_device takes them), queued on stream and not waited
 * for. */
KConvStatus kconv_filter_run_rects_device (KConvFilter * filter,
    const KConvImage * src, const KConvImage * dst, const KConvRect * rects,
    int n, void *stream);


/* Device memory that is not ours (GStreamer's CUDA memory): the caller
 * makes the CUDA context it belongs to current around every call on the
 * filter, from kconv_filter_new to kconv_filter_free.  The stream the
 * filter's convolutions run on, one after another (a cudaStream_t; NULL for
 * a CPU filter): queue device work on it with kconv_filter_run_device and
 * kconv_device_copy, then kconv_device_sync before the output is read. */
void *kconv_filter_stream (const KConvFilter * filter);

/* Copies rows of row_bytes from device memory to device memory on stream. */
KConvStatus kconv_device_copy (void *dst, ptrdiff_t dst_stride,
    const void *src, ptrdiff_t src_stride, size_t row_bytes, int rows,
    void *stream);

/* Draws the thickness-pixel outline of the w x h box at (x, y), clipped to
 * the image: in each pixel on it, the byte at channel_offset[c] becomes
 * value[c].  kconv_image_draw_box for host images, kconv_device_draw_box
 * for device images (queued on stream). */
void kconv_image_draw_box (const KConvImage * image, int x, int y, int w,
    int h, int thickness, const uint8_t value[KCONV_MAX_CHANNELS]);
KConvStatus kconv_device_draw_box (const KConvImage * image, int x, int y,
    int w, int h, int thickness, const uint8_t value[KCONV_MAX_CHANNELS],
    void *stream);

/* Waits until everything queued on stream is done. */
KConvStatus kconv_device_sync (void *stream);

/* Frame bytes the core has copied to and from a GPU in this process, for
 * tests and logs (whether a pipeline stays on the GPU). */
void kconv_transfer_bytes (uint64_t * to_device, uint64_t * to_host);

/* Of those, the bytes that went through the core's pinned staging buffers
 * because the frame was in pageable memory (each costs a CPU copy more). */
void kconv_staged_bytes (uint64_t * to_device, uint64_t * to_host);

/* Frames in flight.  A slot carries one frame through a filter (or a
 * matcher: kmatch_submit) without waiting for it.  On CUDA each slot has its own streams, device buffers
 * and pinned staging, so with a few slots the upload of one frame, the
 * convolution of the next and the download of another run at once.
 * Submit each plane of a frame to a slot, then wait on the slot: the
 * destinations are written only when the wait returns, and the sources must
 * stay as they are until then.  A slot may serve any filter, one frame at a
 * time; the filter must outlive the wait.  On the CPU, submitting does the
 * work and waiting returns at once. */
typedef struct KConvSlot KConvSlot;

KConvSlot *kconv_slot_new (void);
KConvStatus kconv_filter_submit (KConvFilter * filter, KConvSlot * slot,
    const KConvImage * src, const KConvImage * dst);
KConvStatus kconv_slot_wait (KConvSlot * slot);
/* Whether the slot's frame is finished on the device, so that a wait would
 * not block: 1 on the CPU, and where the device failed (the wait says
 * how). */
int kconv_slot_done (KConvSlot * slot);
/* Waits for the slot's frame, then frees it. */
void kconv_slot_free (KConvSlot * slot);

/* Host memory for frames: page-locked where a CUDA device is usable, so
 * that the GPU copies it by DMA with no staging, else ordinary memory
 * (*pinned says which).  Pinning is slow: allocate once (a buffer pool),
 * not per frame.  Aligned to 64 bytes. */
void *kconv_host_alloc (size_t size, int *pinned);
void kconv_host_free (void *data, int pinned);

KConvBackend kconv_filter_backend (const KConvFilter * filter);
KConvPath kconv_filter_path (const KConvFilter * filter);
int kconv_filter_is_exact (const KConvFilter * filter);

/* How the filter runs (for logs): the path, and on CUDA the kernel used. */
const char *kconv_filter_strategy (const KConvFilter * filter);

/* More about the last failure in the calling thread (e.g. a CUDA message),
 * or "": a sentence that says why.  Each call that returns a KConvStatus
 * clears it first, so it is never an earlier call's. */
const char *kconv_last_error (void);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KCONV_H */
