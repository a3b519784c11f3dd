/* kconv: what the PCIe bus allows, and the naive synchronous path
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KCONV_BENCH_BUS_H
#define KCONV_BENCH_BUS_H

#include <stddef.h>
#include "kconv.h"

/* Median milliseconds to copy `bytes` of pinned memory to the device, back,
 * and both at once on two streams; and sustained: the time per frame of
 * `repeats` frames each way streamed back to back (what a stream of frames
 * gets over a second or so). */
typedef struct
{
  double up_ms, down_ms, both_ms, sustained_ms;
} BenchBus;

int bench_bus_measure (size_t bytes, int repeats, BenchBus * bus);

/* Median milliseconds per frame of the path that does one thing at a
 * time: pageable upload, the filter on the device, pageable download, each
 * waited for.  src and dst are pageable host images. */
double bench_naive_ms (KConvFilter * filter, const KConvImage * src,
    const KConvImage * dst, int repeats);

#endif
