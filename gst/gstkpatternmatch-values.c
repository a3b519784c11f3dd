/* GStreamer kconv plugin: the values kpatternmatch's properties take
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each value checked before it is taken: parsed (regions, scales) or
 * loaded (template files), and refused with a message that names the
 * property and says what it takes (kconv-refusal.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstkpatternmatch-private.h"
#include "kconv-refusal.h"

gboolean
gst_kpattern_match_refuses (GstKPatternMatch * self, guint prop_id,
    const GValue * value, KMatchRegion * region, gdouble * scales,
    gint * n_scales, GstKMatchLocation * loaded)
{
  GstElement *element = GST_ELEMENT (self);
  char why[160];

  switch (prop_id) {
    case PROP_TEMPLATE_LOCATION:{
      /* loaded (and checked) at start, or right away while running; a
       * file that does not load leaves the template as it was */
      const gchar *location = g_value_get_string (value);
      return location && GST_STATE (self) >= GST_STATE_READY
          && !gst_kpattern_match_load_location (self, location, loaded);
    }
    case PROP_TEMPLATE_REGION:{
      const gchar *text = g_value_get_string (value);
      if (kmatch_region_parse (text, region, why, sizeof why) == 0)
        return FALSE;
      gchar *excerpt = gst_kconv_refusal_excerpt (text, 40);
      gst_kconv_refusal_post (element, "template-region",
          "template-region \"%s\" refused: %s", excerpt, why);
      g_free (excerpt);
      return TRUE;
    }
    case PROP_SEARCH_REGION:{
      const gchar *text = g_value_get_string (value);
      if (!text || !*text
          || kmatch_region_parse (text, region, why, sizeof why) == 0)
        return FALSE;
      gchar *excerpt = gst_kconv_refusal_excerpt (text, 40);
      gst_kconv_refusal_post (element, "search-region",
          "search-region \"%s\" refused: %s (empty: the whole frame)",
          excerpt, why);
      g_free (excerpt);
      return TRUE;
    }
    case PROP_THRESHOLD:{
      gdouble t = g_value_get_double (value);
      if (t >= 0.0 && t <= 1.0)
        return FALSE;
      gst_kconv_refusal_post (element, "threshold",
          "threshold must be between 0 and 1; %g refused", t);
      return TRUE;
    }
    case PROP_SCALES:{
      const gchar *text = g_value_get_string (value);
      *n_scales = kmatch_scales_parse (text && *text ? text : "1", scales, why,
          sizeof why);
      if (*n_scales > 0)
        return FALSE;
      gchar *excerpt = gst_kconv_refusal_excerpt (text, 40);
      gst_kconv_refusal_post (element, "scales", "scales \"%s\" refused: %s "
          "(min:max:step, as 0.5:2:1.1, or a list, as 0.5,1,2)", excerpt, why);
      g_free (excerpt);
      return TRUE;
    }
    default:
      return FALSE;
  }
}
