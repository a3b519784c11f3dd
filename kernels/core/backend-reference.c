/* kconv: the scalar reference's table (the arithmetic every backend meets)
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kconv-backend.h"
#include "kconv-reference.h"

static int
reference_usable (void)
{
  return 1;
}

static KConvStatus
reference_filter_new (KConvFilter * f, const KConvOptions * options)
{
  (void) options;
  f->path = KCONV_PATH_DIRECT;
  return KCONV_OK;
}

static KConvStatus
reference_filter_run (KConvFilter * f, const KConvImage * src,
    const KConvImage * dst)
{
  return kconv_reference_run (&f->plan, src, dst);
}

static KConvStatus
reference_filter_run_deep (KConvFilter * f, const KConvPlan * plan,
    const KConvImage * src, const KConvImage * dst)
{
  (void) f;
  return kconv_reference_run (plan, src, dst);
}

static const char *
reference_filter_describe (const KConvFilter * f)
{
  (void) f;
  return "direct 2D pass";
}

static void
reference_filter_free (KConvFilter * f)
{
  (void) f;
}

static void
reference_match_map (const KMatchHostQuery * q, uint64_t * map)
{
  kmatch_reference_map (q->base, q->stride, q->tmpl, q->tw, q->th, q->ch,
      q->mw, q->mh, map, q->mask);
}

static int
reference_match_map_deep (const KMatchDeepHostQuery * q, uint64_t * map)
{
  kmatch_reference_map_deep (q->base, q->stride, q->tmpl, q->tw, q->th,
      q->mw, q->mh, map, q->mask);
  return 0;
}

static int
reference_match_correlate (const KMatchCorrelation * q, uint64_t * out)
{
  kmatch_reference_correlate (q->planes, q->planes16, q->rw, q->rh,
      q->kernel, q->tw, q->th, q->ch, q->mw, q->mh, q->squares, out);
  return 0;
}

const KConvBackendOps kconv_backend_reference = {
  .id = KCONV_BACKEND_REFERENCE,
  .usable = reference_usable,
  .filter_new = reference_filter_new,
  .filter_run = reference_filter_run,
  .filter_run_deep = reference_filter_run_deep,
  .filter_describe = reference_filter_describe,
  .filter_free = reference_filter_free,
  .match_map = reference_match_map,
  .match_map_deep = reference_match_map_deep,
  .match_correlate = reference_match_correlate,
};
