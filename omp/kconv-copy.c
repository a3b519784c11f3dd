/* kconv: copying rows of bytes with several threads
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Staging a pageable frame into pinned memory is a plain copy, but one
 * core's copy runs at a fraction of what the memory can do: a 4K RGBA frame
 * takes several milliseconds on one thread.
 */
#include <string.h>
#include "kconv-cpu.h"

/* Below this, starting threads costs more than it saves. */
#define PARALLEL_MIN_BYTES (256 * 1024)

void
kconv_cpu_copy_rows (uint8_t * dst, ptrdiff_t dst_stride, const uint8_t * src,
    ptrdiff_t src_stride, size_t row_bytes, int rows, int n_threads)
{
  if (dst_stride == src_stride && (size_t) dst_stride == row_bytes) {
    /* contiguous: split the block in equal parts */
    const size_t total = row_bytes * rows;
    int parts = total < PARALLEL_MIN_BYTES ? 1 : n_threads;
    parts = parts < 1 ? 1 : parts;
    const size_t chunk = (total / parts + 63) / 64 * 64;
#pragma omp parallel for num_threads (parts) schedule (static) if (parts > 1)
    for (int i = 0; i < parts; i++) {
      const size_t begin = (size_t) i * chunk;
      if (begin < total)
        memcpy (dst + begin, src + begin,
            begin + chunk <= total ? chunk : total - begin);
    }
    return;
  }
  const int threads = row_bytes * rows < PARALLEL_MIN_BYTES ? 1 : n_threads;
#pragma omp parallel for num_threads (threads) schedule (static) if (threads > 1)
  for (int y = 0; y < rows; y++)
    memcpy (dst + y * dst_stride, src + y * src_stride, row_bytes);
}
