/* kconv: template matching
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For a frame F and a template T of tw x th pixels with C channels, at
 * every position (x, y) where the template lies wholly inside the search
 * region, with sums over the n template pixels (i, j) that count (all, or
 * those a mask keeps) and the channels c, F meaning F(x+i, y+j, c) and T
 * meaning T(i, j, c) (OpenCV's matchTemplate formulas):
 *   sad   SAD  = sum |F - T|
 *   ssd   SSD  = sum (F - T)^2                           (TM_SQDIFF)
 *   ncc   NCC  = sum F T / sqrt (sum F^2 * sum T^2)      (TM_CCORR_NORMED)
 *   zncc  ZNCC = sum F' T' / sqrt (sum F'^2 * sum T'^2)  (TM_CCOEFF_NORMED)
 *         where F' = F - mean of channel c of F under the template, and
 *         T' likewise: blind to brightness and contrast.
 * A correlation whose denominator is 0 (ncc: a window or template all 0;
 * zncc: a flat window or template, of zero variance) is 0: nothing is
 * known, as OpenCV's CPU code answers.
 * Every method also gives a score, a distance from 0 (a perfect match) to 1
 * (the worst): SAD / (255 n C), SSD / (255^2 n C), 1 - NCC and
 * (1 - ZNCC) / 2 (255 being the largest sample: 2^depth - 1 for deeper
 * samples).  SAD and SSD are exact integers; NCC and ZNCC are made from
 * exact integer sums in double precision, the same on every backend.
 * The search is exhaustive: among equal scores the smallest y wins, then
 * the smallest x.
 *
 * Samples deeper than bytes (10-, 12- and 16-bit video: KConvImage's
 * depth) are matched as their values, 0 .. 2^depth - 1, against a
 * template of the same depth (kmatch_set_template_deep), one channel,
 * by every method; sums are 64-bit and exact at every depth.
 * Plain C, no GLib, like kconv.h.
 */
#ifndef KMATCH_H
#define KMATCH_H

#include "kconv.h"

/* *INDENT-OFF* */
#ifdef __cplusplus
extern "C" {
#endif
/* *INDENT-ON* */

typedef struct
{
  int x, y;                     /* top-left of the template in the frame */
  uint64_t sad;                 /* the SAD (sad) or SSD (ssd); else 0 */
  double score;                 /* 0 (perfect) .. 1, every method */
  double correlation;           /* NCC or ZNCC (ncc, zncc); else 0 */
  double sub_x, sub_y;          /* x, y to a fraction of a pixel, after
                                 * kmatch_refine (else x, y) */
} KMatchPosition;

typedef enum
{
  KMATCH_METHOD_SAD,
  KMATCH_METHOD_SSD,
  KMATCH_METHOD_NCC,
  KMATCH_METHOD_ZNCC
} KMatchMethod;

typedef struct
{
  int x, y, width, height;
} KMatchRegion;

/* Parses "x,y,width,height" (whitespace around the numbers allowed):
 * x, y >= 0 and width, height >= 1, each at most KMATCH_MAX_COORD.
 * Returns 0, or -1 and a sentence in err. */
#define KMATCH_MAX_COORD (1 << 24)
int kmatch_region_parse (const char *text, KMatchRegion * region, char *err,
    size_t err_size);

/* r clipped to a width x height frame (width or height 0 where they do
 * not meet). */
KMatchRegion kmatch_region_clip (KMatchRegion r, int width, int height);

/* Where a tw x th template is searched in a width x height frame: region
 * (NULL: the whole frame) clipped to the frame, narrowed to `radius`
 * pixels around the last match when radius > 0, last is not NULL and the
 * narrowed area still holds the template (tracking). */
KMatchRegion kmatch_search_area (const KMatchRegion * region,
    const KMatchPosition * last, int radius, int tw, int th, int width,
    int height);

/* A template cut from region r of im (which must lie inside it), as
 * `channels` packed samples a pixel, rows r.width * channels bytes: the
 * image's channels in order, or with channels 1 from a 3-channel image the
 * luma of R, G, B (kmatch_rgb_luma).  malloc'd; NULL when r does not lie
 * inside im, channels is neither 1 nor im's channel count, or memory is
 * short. */
uint8_t *kmatch_cut_template (const KConvImage * im, const KMatchRegion * r,
    int channels);

/* As kmatch_cut_template for one channel of an image of 16-bit words
 * (depth 9 .. 16, channel_offset[0]): the samples' values, 0 ..
 * 2^depth - 1, r.width a row.  malloc'd; NULL when r does not lie inside
 * im, im is not deep or memory is short. */
uint16_t *kmatch_cut_template_deep (const KConvImage * im,
    const KMatchRegion * r);

/* Packs n single-channel images of one size (planar video, say) into one
 * image of n samples a pixel at dst, rows dst_stride bytes apart. */
void kmatch_interleave (const KConvImage * planes, int n, uint8_t * dst,
    ptrdiff_t dst_stride);

/* The sizes a template is tried at, as factors of its own: "min:max:step"
 * is min, min * step, min * step^2 ... while at most max (0.5:2:1.1: 15
 * factors, 0.5 to 1.899), "a,b,c" the factors listed (whitespace around
 * numbers allowed, numbers in the C locale).  Factors lie in
 * [KMATCH_MIN_SCALE, KMATCH_MAX_SCALE], step > 1, at most KMATCH_MAX_SCALES
 * of them; they are written to scales sorted, repeats dropped.  Returns
 * their number, or -1 and a sentence in err. */
#define KMATCH_MAX_SCALES 64
#define KMATCH_MIN_SCALE 0.01
#define KMATCH_MAX_SCALE 100.0
int kmatch_scales_parse (const char *text, double *scales, char *err,
    size_t err_size);

/* The size of a w x h template at `scale`: each side rounded to the
 * nearest pixel, at least 1. */
void kmatch_scaled_size (int w, int h, double scale, int *out_w, int *out_h);

/* A template of w x h pixels, `channels` samples each (rows w * channels
 * samples), resized to kmatch_scaled_size: where it shrinks each output
 * sample is the average of the source area it covers, weighted by the
 * part of each pixel covered; where it grows, bilinear between the four
 * nearest pixels, centres aligned and edges clamped (OpenCV's
 * INTER_LINEAR); at 1 a copy.  Both exactly (integer weights), rounded
 * half up.  The same bytes on every machine: made once on the host, every
 * backend searches them.  A mask (alpha) is resized the same way and
 * thresholded by the caller.  malloc'd; NULL when memory is short. */
uint8_t *kmatch_scale_template (const uint8_t * samples, int w, int h,
    int channels, double scale, int *out_w, int *out_h);
/* The same for one channel of 16-bit values (deeper video). */
uint16_t *kmatch_scale_template_deep (const uint16_t * values, int w, int h,
    double scale, int *out_w, int *out_h);

/* One template searched at several sizes, merged: found[s * stride] holds
 * the n_found[s] matches (best first) of the template at widths[s] x
 * heights[s].  Writes up to max of them to out, best score first, each
 * overlapping none written before it (at their own sizes), out_size[i]
 * the size index of out[i]; equal scores keep the earlier size, then the
 * smallest y, then x.  Returns their number.  With max 1 it is the best
 * position at any size; with more, each size's own non-overlapping
 * matches are what is merged. */
int kmatch_merge_sizes (const KMatchPosition * found, const int *n_found,
    int stride, const int *widths, const int *heights, int n_sizes, int max,
    KMatchPosition * out, int *out_size);

typedef struct KMatch KMatch;

/* options->backend: AUTO, CPU, CUDA or REFERENCE, as for kconv filters. */
KConvStatus kmatch_new (const KConvOptions * options, KMatch ** out);

/* The template: width * height pixels of `channels` (1 or 3) packed samples,
 * rows `stride` bytes apart.  Copied. */
KConvStatus kmatch_set_template (KMatch * m, const uint8_t * samples,
    int width, int height, ptrdiff_t stride, int channels);

/* A template of one channel for frames of `depth` bits (9 .. 16):
 * width * height values 0 .. 2^depth - 1, rows `stride` values apart.
 * Copied.  Such a template matches frames of that depth alone; a value
 * over 2^depth - 1 is refused. */
KConvStatus kmatch_set_template_deep (KMatch * m, const uint16_t * values,
    int width, int height, ptrdiff_t stride, int depth);

/* Only the template's pixels whose byte in mask (width x height of the
 * template set last, rows mask_stride apart) is non-zero count: a template
 * with transparency (mask = alpha >= 128) matches over any background.
 * The SAD is then the sum over the pixels that count.  NULL: all count
 * again.  A new template starts with all counting. */
KConvStatus kmatch_set_template_mask (KMatch * m, const uint8_t * mask,
    ptrdiff_t mask_stride);

/* The method the matcher compares by (KMATCH_METHOD_SAD until set); it
 * stays through new templates.  Every method takes bytes and 16-bit
 * values (kmatch_set_template_deep), with the largest sample (255, or
 * 2^depth - 1) where the scores below say 255: a score means the same at
 * every depth. */
KConvStatus kmatch_set_method (KMatch * m, KMatchMethod method);
KMatchMethod kmatch_method (const KMatch * m);

/* The method's name ("sad", "ssd", "ncc", "zncc"), or NULL. */
const char *kmatch_method_name (KMatchMethod method);

/* How many of the template's pixels count (width x height without a
 * mask). */
int kmatch_template_pixels (const KMatch * m);

/* Searches frame (its n_channels samples at channel_offset must match the
 * template's channels) inside region (NULL: the whole frame).  Writes up to
 * max_matches non-overlapping positions, best first, and their count.
 * KCONV_ERROR_INVALID_ARGUMENT when the template does not fit the region.
 * sad_map, when not NULL, receives (rw - tw + 1) x (rh - th + 1) sums,
 * row-major, for the positions of the region: the SAD, or the SSD; it must
 * be NULL for ncc and zncc (kmatch_search_scores gives their maps). */
KConvStatus kmatch_search (KMatch * m, const KConvImage * frame,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sad_map);

/* As kmatch_search (luma 0) or kmatch_search_luma (luma 1), with
 * score_map (NULL: none) receiving the score of every position of the
 * region, row-major, for any method. */
KConvStatus kmatch_search_scores (KMatch * m, const KConvImage * frame,
    int luma, const KMatchRegion * region, int max_matches,
    KMatchPosition * matches, int *n_matches, double *score_map);

/* Refines each of n matches that a search of frame (host memory; luma as
 * for kmatch_search_scores) inside region (NULL: the whole frame) found to
 * a fraction of a pixel: sub_x, sub_y where the frame, interpolated between
 * its pixels, fits the template best near the match (Gauss-Newton; by
 * the method's model of light: as it is for sad and ssd, scaled for ncc,
 * scaled and offset for zncc), within a pixel of x, y and inside the
 * region.  A template without gradient (flat) keeps the whole position. */
KConvStatus kmatch_refine (KMatch * m, const KConvImage * frame, int luma,
    const KMatchRegion * region, KMatchPosition * matches, int n);

/* As kmatch_refine for a frame in device memory on a CUDA matcher (as
 * kmatch_search_device takes it): each match's window (the template's
 * area and 3 pixels round it) is copied to the host and refined there, so
 * the positions are kmatch_refine's to the bit.  Those windows cross the
 * bus (the transfer counters count them).
 * KCONV_ERROR_BACKEND_UNAVAILABLE on a matcher without a device. */
KConvStatus kmatch_refine_device (KMatch * m, const KConvImage * frame,
    int luma, const KMatchRegion * region, KMatchPosition * matches, int n);

/* As kmatch_search, for a grey template in the luma of an RGB frame: the
 * frame's three channels are R, G and B (any pixel stride and order), and
 * each pixel's luma is (77 R + 150 G + 29 B + 128) >> 8, computed where the
 * search runs (on CUDA: the frame crosses as it is and the GPU makes the
 * luma). */
KConvStatus kmatch_search_luma (KMatch * m, const KConvImage * rgb_frame,
    const KMatchRegion * region, int max_matches, KMatchPosition * matches,
    int *n_matches, uint64_t * sad_map);

/* As kmatch_search (luma 0) or kmatch_search_luma (luma 1) for a frame in
 * device memory (data is a device pointer) on a CUDA matcher: read where it
 * lies, only the result crosses the bus.  The caller makes the memory's
 * CUDA context current around every call on the matcher, from kmatch_new
 * on.  KCONV_ERROR_BACKEND_UNAVAILABLE when the search cannot run on the
 * GPU (a CPU matcher; a region wider than 65536 positions). */
KConvStatus kmatch_search_device (KMatch * m, const KConvImage * frame,
    int luma, const KMatchRegion * region, int max_matches,
    KMatchPosition * matches, int *n_matches);

/* Several templates in one pass over a frame: matchers[i] (made with the
 * same options) searched inside regions[i], as kmatch_search (luma 0),
 * kmatch_search_luma (luma 1) or, on_device, kmatch_search_device would,
 * with the same results; up to max_matches for each at
 * matches[i * max_matches], their count in n_matches[i].  The frame is
 * read once for all of them: a frame in host memory crosses to a CUDA
 * matchers' device once (the box that holds the regions), and where the
 * host must make the samples compared (a luma, samples gathered from
 * wider pixels) it makes them once. */
KConvStatus kmatch_search_many (KMatch * const *matchers, int n,
    const KConvImage * frame, int luma, int on_device,
    const KMatchRegion * regions, int max_matches, KMatchPosition * matches,
    int *n_matches);

/* Frames in flight (KConvSlot, kconv.h): starts the search of a frame in
 * host memory on a slot, as kmatch_search (luma 0) or kmatch_search_luma
 * (luma 1) would do it.  On a CUDA matcher looking for the best position
 * alone (max_matches 1) it returns while the frame crosses to the GPU and
 * is searched: the upload of one slot's frame overlaps the search of the
 * one before.  Other searches are done before it returns.  The frame must
 * stay as it is until kconv_slot_wait returns; kmatch_slot_matches then
 * gives what was found.  A new template, or freeing the matcher, first
 * waits for the searches in flight. */
KConvStatus kmatch_submit (KMatch * m, KConvSlot * slot,
    const KConvImage * frame, int luma, const KMatchRegion * region,
    int max_matches);

/* The matches of the search submitted to slot last, best first (up to its
 * max_matches), after kconv_slot_wait. */
KConvStatus kmatch_slot_matches (KConvSlot * slot, KMatchPosition * matches,
    int *n_matches);

/* The luma kmatch_search_luma compares. */
static inline uint8_t
kmatch_rgb_luma (uint8_t r, uint8_t g, uint8_t b)
{
  return (uint8_t) ((77 * r + 150 * g + 29 * b + 128) >> 8);
}

KConvBackend kmatch_backend (const KMatch * m);
void kmatch_free (KMatch * m);

/* *INDENT-OFF* */
#ifdef __cplusplus
}
#endif
/* *INDENT-ON* */
#endif /* KMATCH_H */
