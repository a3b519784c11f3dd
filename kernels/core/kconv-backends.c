/* kconv: the table of backends this build has, and the rule for falling back
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stddef.h>
#include "kconv-backend.h"
#include "kconv-error.h"
#include "kconv.h"

/* The backends built in: the one place the core names them */
static const KConvBackendOps *const backends[] = {
  &kconv_backend_cpu,
  &kconv_backend_reference,
#ifdef KCONV_HAVE_CUDA
  &kconv_backend_cuda,
#endif
};

#define N_BACKENDS (sizeof backends / sizeof backends[0])

/* Every backend kconv knows, built here or not, in KConvBackend's order */
static const KConvBackendInfo known[KCONV_BACKEND_COUNT] = {
  {KCONV_BACKEND_AUTO, "auto", "auto",
      "CUDA when a usable GPU exists, else the CPU", 1},
  {KCONV_BACKEND_CPU, "cpu", "CPU", "CPU (threads, vectorised)", 1},
  {KCONV_BACKEND_CUDA, "cuda", "CUDA", "CUDA (fails when unavailable)", 1},
  {KCONV_BACKEND_REFERENCE, "reference", "reference",
      "The scalar reference, one pixel at a time (for tests)", 0},
};

const KConvBackendInfo *
kconv_backend_info (KConvBackend backend)
{
  return (int) backend >= 0 && backend < KCONV_BACKEND_COUNT ?
      &known[backend] : NULL;
}

const char *
kconv_backend_name (KConvBackend backend)
{
  const KConvBackendInfo *info = kconv_backend_info (backend);
  return info ? info->name : "unknown";
}

int
kconv_options_valid (const KConvOptions * o)
{
  return o->n_threads >= 0 && kconv_backend_info (o->backend)
      && o->gpu_wait >= KCONV_GPU_WAIT_SPIN
      && o->gpu_wait <= KCONV_GPU_WAIT_BLOCK
      && o->copy_streams >= KCONV_COPY_STREAMS_OWN
      && o->copy_streams <= KCONV_COPY_STREAMS_SHARED_UP;
}

const KConvBackendOps *
kconv_backend_ops (KConvBackend backend)
{
  for (size_t i = 0; i < N_BACKENDS; i++)
    if (backends[i]->id == backend)
      return backends[i];
  return NULL;
}

const KConvBackendOps *
kconv_backend_device (void)
{
  for (size_t i = 0; i < N_BACKENDS; i++)
    if (backends[i]->device_copy)
      return backends[i];
  return NULL;
}

KConvStatus
kconv_backend_check (KConvBackend backend)
{
  if (backend == KCONV_BACKEND_AUTO)
    return KCONV_OK;
  const KConvBackendOps *ops = kconv_backend_ops (backend);
  if (ops && ops->usable ())
    return KCONV_OK;
  if (ops)
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "%s", ops->unusable);
  if (kconv_backend_info (backend))
    return kconv_fail (KCONV_ERROR_BACKEND_UNAVAILABLE, "this build of kconv "
        "has no %s support", kconv_backend_info (backend)->label);
  return kconv_fail (KCONV_ERROR_INVALID_ARGUMENT, "unknown backend %d",
      backend);
}

int
kconv_backend_available (KConvBackend backend)
{
  kconv_clear_error ();
  return kconv_backend_check (backend) == KCONV_OK;
}

KConvBackend
kconv_backend_resolve (KConvBackend backend)
{
  if (backend != KCONV_BACKEND_AUTO)
    return backend;
  /* a device where one is usable, else the CPU */
  const KConvBackendOps *device = kconv_backend_device ();
  if (device && device->usable ())
    return device->id;
  return KCONV_BACKEND_CPU;
}

KConvStatus
kconv_backend_start (KConvBackend asked,
    KConvStatus (*start) (const KConvBackendOps * ops, void *obj), void *obj,
    const KConvBackendOps ** chosen)
{
  const KConvBackend backend = kconv_backend_resolve (asked);
  KConvStatus st = kconv_backend_check (backend);
  if (st != KCONV_OK)
    return st;
  const KConvBackendOps *ops = kconv_backend_ops (backend);
  st = start (ops, obj);
  /* auto: a device that fails to start leaves the CPU */
  if (st != KCONV_OK && asked == KCONV_BACKEND_AUTO
      && backend != KCONV_BACKEND_CPU) {
    ops = &kconv_backend_cpu;
    st = start (ops, obj);
  }
  *chosen = st == KCONV_OK ? ops : NULL;
  return st;
}

int
kconv_backend_takes_depth (KConvBackend backend, int depth)
{
  const KConvBackendOps *ops = kconv_backend_ops (kconv_backend_resolve
      (backend));
  return ops && depth >= 1 && depth <= 16 && (depth <= 8
      || ops->filter_run_deep);
}
