/* GStreamer kconv plugin: what kpatternmatch's files share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gstkpatternmatch.c: the element, its properties, start and stop;
 * gstkpatternmatch-search.c: each frame's search, from its start to its
 * report; kmatch-template-state.c: the template it searches for.
 */
#ifndef GST_KPATTERN_MATCH_PRIVATE_H
#define GST_KPATTERN_MATCH_PRIVATE_H

#include "gstkpatternmatch.h"
#include "kmatch-template-state.h"
#include "kmatch.h"

G_BEGIN_DECLS
/* The base class's GstBaseTransform methods, which the element's chain
 * up to */
#define GST_KPATTERN_MATCH_PARENT \
  GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_KCONV_BASE))
GST_DEBUG_CATEGORY_EXTERN (gst_kpattern_match_debug);
#define GST_CAT_DEFAULT gst_kpattern_match_debug

/* the most matches a frame reports (max-matches) */
#define MAX_MATCHES 64

typedef enum
{
  GST_KMATCH_ON_LUMA,
  GST_KMATCH_ON_COLOR,
} GstKMatchOn;

/* Set by properties and the action signal; under the object lock. */
typedef struct
{
  gchar *template_location;
  GstSample *template_rgb;      /* RGBA, from the file or the signal */
  gboolean use_alpha;
  gboolean cut_pending;         /* template-region: cut from the next frame */
  KMatchRegion template_region;
  gboolean has_search_region;
  KMatchRegion search_region;
  gint search_radius;
  gdouble threshold;
  gint max_matches;
  gboolean draw;
  GstKMatchOn match_on;
  KMatchMethod method;
} Settings;

struct _GstKPatternMatch
{
  GstKConvBase parent;

  Settings settings;
  guint template_cookie;        /* bumped when the template source changes */
  gint frame_width, frame_height;       /* of the last frame; 0: none yet */

  /* streaming thread only */
  KMatch *matcher;
  guint matcher_built;
  GstKMatchTemplateState template;
  gboolean have_last;
  KMatchPosition last;
  gboolean warned_size, warned_color;
};

/* gstkpatternmatch-search.c: the base class's methods */
GstFlowReturn gst_kpattern_match_start_frame (GstKConvBase * base,
    GstBuffer * inbuf);
guint gst_kpattern_match_frames_held (GstKConvBase * base);
GstFlowReturn gst_kpattern_match_finish_frame (GstKConvBase * base,
    GstKConvInflightFrame * f);
KConvStatus gst_kpattern_match_submit_frame (GstKConvBase * base,
    GstKConvInflightFrame * f);
gboolean gst_kpattern_match_rebuild_core (GstKConvBase * base,
    GstKConvInflightFrame * f);

G_END_DECLS
#endif /* GST_KPATTERN_MATCH_PRIVATE_H */
