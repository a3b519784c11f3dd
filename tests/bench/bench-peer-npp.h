/* kconv: NVIDIA NPP as the peer in kconv-cuda-bench
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built only where NPP's headers and libraries are (tests/gpu/run.sh builds
 * it on the GPU machine); elsewhere the benchmark runs without a peer.
 */
#ifndef KCONV_BENCH_PEER_NPP_H
#define KCONV_BENCH_PEER_NPP_H

#include <stdint.h>

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

/* A device copy of an integer kernel, which is where NPP reads it from;
 * cudaFree it.  NULL on failure. */
int32_t *peer_npp_upload_kernel (const int32_t * kernel, int size);

/* nppiFilterBorder_8u_C{3,4}R_Ctx with an integer kernel (a device pointer,
 * from peer_npp_upload_kernel), replicate border, device pointers, on
 * `stream`.  Returns 0 on success. */
int peer_npp_filter (const uint8_t * src, int src_stride, uint8_t * dst,
    int dst_stride, int width, int height, int channels, const int32_t * kernel,
    int size, int divisor, void *stream);

/* nppiSqrDistanceValid_Norm_8u32f_C1R_Ctx then nppiMinIndx_32f_C1R_Ctx on
 * device-resident grey images: where the normalised squared distance is
 * smallest.  Returns 0 on success.  peer_npp_match_free releases the
 * buffers it keeps between calls. */
int peer_npp_match (const uint8_t * d_frame, int width, int height,
    const uint8_t * d_tmpl, int tw, int th, int *x, int *y, void *stream);
void peer_npp_match_free (void);

/* The methods' peers on device-resident grey images: method 1
 * nppiSqrDistanceValid_Norm (ssd; MinIndx), 2 nppiCrossCorrValid_Norm
 * (ncc; MaxIndx), 3 nppiCrossCorrValid_NormLevel (zncc; MaxIndx); *value
 * is the map's value there.  Returns 0 on success;
 * peer_npp_match_method_free releases the buffers kept between calls. */
int peer_npp_match_method (int method, const uint8_t * d_frame, int width,
    int height, const uint8_t * d_tmpl, int tw, int th, int *x, int *y,
    double *value, void *stream);
void peer_npp_match_method_free (void);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif
