/* The end of one frame's queued GPU work, as a thread waits for it.
 *
 * Both slot kinds (a filter's frame, kconv-cuda-slot.cu; a search,
 * kmatch-cuda.cu) end their queued steps with one event and wait on it the
 * same way: spinning, napping or blocking as KConvOptions.gpu_wait says, and
 * on the whole device when a submission broke off half way (any of its
 * steps may still be queued, not only those before the event). */
#ifndef KCONV_CUDA_FENCE_CUH
#define KCONV_CUDA_FENCE_CUH

#include <cuda_runtime.h>
#include "kconv.h"

typedef struct
{
  int device;
  int ready;   /* the event made */
  int pending; /* work recorded, not yet waited for */
  int broken;  /* a submission failed half way */
  KConvGpuWait wait;
  cudaEvent_t done;
} KConvCudaFence;

/* Makes the event on device (current on return); a failure is reported. */
KConvStatus kconv_cuda_fence_init (KConvCudaFence *f, int device,
    KConvGpuWait wait);
/* Whether the fence was made for this device and wait mode. */
int kconv_cuda_fence_fits (const KConvCudaFence *f, int device,
    KConvGpuWait wait);
/* The queued work ends on stream, and a wait waits for it (a failure is
 * reported). */
KConvStatus kconv_cuda_fence_record (KConvCudaFence *f, cudaStream_t stream);
/* The submission failed half way: the next wait syncs the device. */
void kconv_cuda_fence_break (KConvCudaFence *f);
/* Waits for the queued work; what names it in the error ("a frame"). */
KConvStatus kconv_cuda_fence_wait (KConvCudaFence *f, const char *what);
/* Whether a wait would return at once. */
int kconv_cuda_fence_done (const KConvCudaFence *f);
/* Destroys the event (waits nothing: wait first). */
void kconv_cuda_fence_release (KConvCudaFence *f);

#endif /* KCONV_CUDA_FENCE_CUH */
