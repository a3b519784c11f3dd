/* kconv: the streams that carry frames across the bus
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each filter used to upload and download on streams of its own, so that
 * sixteen filters queued 32 streams of copies on the copy engines at once.
 * A stream's copies run one after the other; copies of different streams
 * may be cut up and interleaved.  Shared streams (one upload and one
 * download stream per CUDA context, counted, destroyed with the last
 * filter) make many filters' copies follow each other as one filter's do.
 * KCONV_CUDA_COPIES picks: own, shared, or shared-up (one upload stream,
 * downloads on each filter's own: a download waits for its kernel, and on
 * a shared stream the next filter's download would wait behind it).
 */
#include <pthread.h>
#include <string.h>
#include <cuda_runtime.h>

#include "kconv-cuda.h"
#include "kconv-error.h"
#include "kconv-tuning.h"

/* Contexts whose filters share streams; past this many, filters make
 * their own. */
#define MAX_SHARED 64

typedef struct
{
  void *context;
  cudaStream_t stream[2]; /* upload, download */
  int refs[2];
} Shared;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Shared shared[MAX_SHARED];

static Shared *
find (void *context, int make)
{
  Shared *room = NULL;
  for (int i = 0; i < MAX_SHARED; i++) {
    if (shared[i].context == context)
      return &shared[i];
    if (!room && !shared[i].context)
      room = &shared[i];
  }
  if (!make || !room)
    return NULL;
  room->context = context;
  return room;
}

/* One stream, direction d (0 up, 1 down): the context's shared one when
 * wanted, else a new one.  *is_shared says which, for the release. */
static cudaError_t
take_one (int want_shared, int d, cudaStream_t *out, int *is_shared)
{
  *is_shared = 0;
  void *context = want_shared ? kconv_cuda_current_context () : NULL;
  if (context) {
    pthread_mutex_lock (&lock);
    Shared *s = find (context, 1);
    cudaError_t err = cudaSuccess;
    if (s && !s->stream[d])
      err = cudaStreamCreateWithFlags (&s->stream[d], cudaStreamNonBlocking);
    if (s && err == cudaSuccess) {
      s->refs[d]++;
      *out = s->stream[d];
      *is_shared = 1;
    }
    if (s && !s->refs[0] && !s->refs[1])
      s->context = NULL; /* made for nothing: the create failed */
    pthread_mutex_unlock (&lock);
    if (*is_shared || err != cudaSuccess)
      return err;
  }
  return cudaStreamCreateWithFlags (out, cudaStreamNonBlocking);
}

static void
release_one (int d, cudaStream_t stream, int is_shared)
{
  if (!stream)
    return;
  if (!is_shared) {
    cudaStreamDestroy (stream);
    return;
  }
  pthread_mutex_lock (&lock);
  for (int i = 0; i < MAX_SHARED; i++) {
    Shared *s = &shared[i];
    if (!s->context || s->stream[d] != stream)
      continue;
    if (--s->refs[d] == 0) {
      cudaStreamDestroy (s->stream[d]);
      s->stream[d] = NULL;
      if (!s->refs[0] && !s->refs[1])
        s->context = NULL;
    }
    break;
  }
  pthread_mutex_unlock (&lock);
}

extern "C" KConvStatus
kconv_cuda_copies_take (KConvCudaCopies *c, KConvCopyStreams mode)
{
  memset (c, 0, sizeof *c);
  cudaStream_t up = NULL, down = NULL;
  cudaError_t err =
      take_one (mode != KCONV_COPY_STREAMS_OWN, 0, &up, &c->up_shared);
  c->up = (void *) up;
  if (err == cudaSuccess)
    err =
        take_one (mode == KCONV_COPY_STREAMS_SHARED, 1, &down, &c->down_shared);
  c->down = (void *) down;
  if (err != cudaSuccess) {
    kconv_cuda_copies_release (c);
    return kconv_fail (KCONV_ERROR_DEVICE, "CUDA copy streams: %s",
        cudaGetErrorString (err));
  }
  return KCONV_OK;
}

extern "C" void
kconv_cuda_copies_release (KConvCudaCopies *c)
{
  release_one (0, (cudaStream_t) c->up, c->up_shared);
  release_one (1, (cudaStream_t) c->down, c->down_shared);
  memset (c, 0, sizeof *c);
}
