/* The fence both slot kinds wait on (kconv-cuda-fence.cuh). */
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>

#include "kconv-cuda-fence.cuh"
#include "kconv-cuda.h"
#include "kconv-error.h"

KConvStatus
kconv_cuda_fence_init (KConvCudaFence *f, int device, KConvGpuWait wait)
{
  memset (f, 0, sizeof *f);
  f->device = device;
  f->wait = wait;
  KCONV_TRY (kconv_cuda_use_device (device));
  /* a blocking event lets the waiting thread sleep in the driver */
  KCONV_CUDA_CHECK (cudaEventCreateWithFlags (&f->done,
      cudaEventDisableTiming |
          (wait == KCONV_GPU_WAIT_BLOCK ? cudaEventBlockingSync : 0)));
  f->ready = 1;
  return KCONV_OK;
}

int
kconv_cuda_fence_fits (const KConvCudaFence *f, int device, KConvGpuWait wait)
{
  return f->ready && f->device == device && f->wait == wait;
}

KConvStatus
kconv_cuda_fence_record (KConvCudaFence *f, cudaStream_t stream)
{
  KCONV_CUDA_CHECK (cudaEventRecord (f->done, stream));
  f->pending = 1;
  return KCONV_OK;
}

void
kconv_cuda_fence_break (KConvCudaFence *f)
{
  f->pending = f->broken = 1;
}

static cudaError_t
event_wait (cudaEvent_t e, KConvGpuWait wait)
{
  if (wait != KCONV_GPU_WAIT_SLEEP)
    return cudaEventSynchronize (e); /* spins, or blocks on a blocking event */
  /* naps leave the core to the threads that make the frames */
  const struct timespec nap = { 0, 20000 };
  cudaError_t err;
  while ((err = cudaEventQuery (e)) == cudaErrorNotReady)
    nanosleep (&nap, NULL);
  return err;
}

KConvStatus
kconv_cuda_fence_wait (KConvCudaFence *f, const char *what)
{
  if (!f->pending)
    return KCONV_OK;
  (void) kconv_cuda_use_device (f->device);
  /* a submission that broke off may have left any of its steps queued */
  cudaError_t err =
      f->broken ? cudaDeviceSynchronize () : event_wait (f->done, f->wait);
  /* the wait is a sync like any other for KCONV_FAULT */
  if (err == cudaSuccess && kconv_fault_due ("cudaEventSynchronize"))
    err = cudaErrorLaunchFailure;
  f->pending = f->broken = 0;
  if (err != cudaSuccess)
    return kconv_fail (KCONV_ERROR_DEVICE, "while %s was in flight: %s (%s)",
        what, cudaGetErrorName (err), cudaGetErrorString (err));
  return KCONV_OK;
}

int
kconv_cuda_fence_done (const KConvCudaFence *f)
{
  if (!f->pending || f->broken)
    return 1;
  (void) kconv_cuda_use_device (f->device);
  return cudaEventQuery (f->done) != cudaErrorNotReady;
}

void
kconv_cuda_fence_release (KConvCudaFence *f)
{
  if (f->done) {
    (void) kconv_cuda_use_device (f->device);
    cudaEventDestroy (f->done);
  }
  memset (f, 0, sizeof *f);
}
