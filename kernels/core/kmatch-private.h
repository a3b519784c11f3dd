/* kconv: a matcher's state, for the core's files that work on it
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef KMATCH_PRIVATE_H
#define KMATCH_PRIVATE_H

#include "kmatch.h"
#include "kconv-backend.h"
#include "kmatch-methods.h"

struct KMatch
{
  const KConvBackendOps *ops;   /* the backend it runs on */
  void *impl;                   /* a device backend's matcher (else NULL:
                                 * the host searches, below) */
  int n_threads;
  uint8_t *tmpl;                /* packed tw * th * ch */
  int tw, th, ch;
  uint8_t *mask;                /* NULL, or per template byte 0xff (counts)
                                 * or 0 (transparent) */
  uint8_t *tmpl_masked;         /* tmpl & mask, as the threaded map wants */
  int pixels;                   /* template pixels that count */
  /* a template of 16-bit values instead (tmpl NULL): its depth (else 0),
   * its values and, with a mask, those that count (0 elsewhere) */
  int depth;
  uint16_t *tmpl16, *tmpl16_masked;
  uint16_t *packed16;           /* the frame's values, packed */
  size_t packed16_size;
  uint8_t *packed;              /* the frame's matched samples, packed */
  size_t packed_size;
  uint64_t *map;
  size_t map_size;
  void *best_state;             /* what ops->match_best keeps */
  void *best_state_deep;        /* and ops->match_best_deep */
  KMatchMethod method;
  KMatchScorer *scorer;         /* the template for a method other than
                                 * sad, made at its first search */
  struct KMatchRefiner *refiner;        /* what kmatch_refine keeps of the
                                         * template, made at its first use */
};

/* Lets the refiner go (kmatch-subpixel.c); NULL is let be. */
void kmatch_refiner_free (struct KMatchRefiner *r);

/* The bytes a row of width pixels of frame spans, from its first pixel to
 * the last of the n_channels samples read in its last (kmatch-image.c) */
size_t kmatch_row_bytes (const KConvImage * frame, int n_channels, int width);

#endif /* KMATCH_PRIVATE_H */
