/* GStreamer kconv plugin: where kpatternmatch's templates come from
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * template-location's files (their headers read when set or at the
 * start, decoded when the caps say how large the frames are, within the
 * budget of template-budget), and the action signals set-template and
 * add-template; each makes the settings' templates.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstkpatternmatch-private.h"
#include "kconv-refusal.h"
#include "kmatch-template.h"

/* The largest template worth keeping: the frames' size once there are
 * frames (a larger one can never be found), else the documented maximum. */
static void
template_size_limit (GstKPatternMatch * self, gint * max_w, gint * max_h)
{
  GST_OBJECT_LOCK (self);
  *max_w = self->frame_width ? self->frame_width : KMATCH_TEMPLATE_MAX_SIDE;
  *max_h = self->frame_height ? self->frame_height : KMATCH_TEMPLATE_MAX_SIDE;
  GST_OBJECT_UNLOCK (self);
}

/* The frames' size, 0 x 0 before the first caps */
static void
frame_size (GstKPatternMatch * self, gint * width, gint * height)
{
  GST_OBJECT_LOCK (self);
  *width = self->frame_width;
  *height = self->frame_height;
  GST_OBJECT_UNLOCK (self);
}

/* Posts a warning for each template file refused. */
static void
warn_refused (GstKPatternMatch * self, GPtrArray * refused)
{
  for (guint i = 0; i < refused->len; i++)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("%s",
            (const gchar *) g_ptr_array_index (refused, i)), (NULL));
}

/* template-location set while the element is READY or streaming: its files
 * probed, and decoded when the frames' size is known (those that cannot
 * be kept refused, each with a warning); FALSE (refused, a message
 * posted) when a file cannot be read or none can be kept. */
gboolean
gst_kpattern_match_load_location (GstKPatternMatch * self,
    const gchar * location, GstKMatchLocation * loaded)
{
  GError *err = NULL;
  gint fw, fh;
  GPtrArray *files = gst_kmatch_template_files_probe (location, &err);
  if (!files) {
    gst_kconv_refusal_post (GST_ELEMENT (self), "template-location",
        "template-location \"%s\" refused: %s", location, err->message);
    g_clear_error (&err);
    return FALSE;
  }
  frame_size (self, &fw, &fh);
  if (!fw) {
    loaded->files = files;
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  const guint64 budget = self->settings.template_budget;
  GST_OBJECT_UNLOCK (self);
  GPtrArray *refused = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = gst_kmatch_template_files_decode (files, fw, fh,
      gst_kmatch_template_budget (budget, fw, fh), &loaded->decoded, refused);
  if (ok)
    warn_refused (self, refused);
  else
    gst_kconv_refusal_post (GST_ELEMENT (self), "template-location",
        "template-location \"%s\" refused: %s", location,
        refused->len ? (const gchar *) g_ptr_array_index (refused, 0) : "");
  g_ptr_array_unref (refused);
  g_ptr_array_unref (files);
  return ok;
}

/* Makes first (taken) the first template and extras (taken, or NULL) the
 * others, and no files wait; under the object lock. */
void
gst_kpattern_match_set_templates (GstKPatternMatch * self, GstSample * first,
    gchar * first_name, GPtrArray * extras)
{
  Settings *s = &self->settings;
  g_clear_pointer (&s->pending_files, g_ptr_array_unref);
  g_clear_pointer (&s->template_rgb, gst_sample_unref);
  memset (&s->template_region, 0, sizeof s->template_region);   /* not cut */
  s->template_rgb = first;
  g_free (s->template_name);
  s->template_name = first_name;
  g_clear_pointer (&s->extra_templates, g_ptr_array_unref);
  s->extra_templates = extras;
  self->template_cookie++;
}

/* An action signal's sample as an RGBA template; NULL (with a warning
 * naming the signal) when it has no caps or cannot be converted. */
static GstSample *
template_from_sample (GstKPatternMatch * self, GstSample * sample,
    const gchar * signal)
{
  GError *err = NULL;
  GstSample *rgb;

  if (!sample || !gst_sample_get_buffer (sample) || !gst_sample_get_caps
      (sample)) {
    GST_WARNING_OBJECT (self, "%s needs a sample with caps", signal);
    return NULL;
  }
  gint max_w, max_h;
  template_size_limit (self, &max_w, &max_h);
  if (!(rgb = gst_kmatch_template_to_rgba (sample, max_w, max_h, &err))) {
    GST_WARNING_OBJECT (self, "%s: %s", signal, err->message);
    g_clear_error (&err);
  }
  return rgb;
}

/* The action signal: any raw video sample becomes the template. */
gboolean
gst_kpattern_match_set_template (GstKPatternMatch * self, GstSample * sample)
{
  GstSample *rgb = template_from_sample (self, sample, "set-template");
  if (!rgb)
    return FALSE;
  GST_OBJECT_LOCK (self);
  gst_kpattern_match_set_templates (self, rgb, g_strdup (""), NULL);
  self->settings.cut_pending = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static guint64
sample_pixels (GstSample * sample)
{
  GstVideoInfo info;
  return gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) ?
      (guint64) GST_VIDEO_INFO_WIDTH (&info) * GST_VIDEO_INFO_HEIGHT (&info) :
      0;
}

/* Whether one more template of `more` pixels stays within the budget of
 * all templates; under the object lock. */
static gboolean
within_budget (GstKPatternMatch * self, guint64 more, guint64 * budget)
{
  const Settings *s = &self->settings;
  guint64 used = s->template_rgb ? sample_pixels (s->template_rgb) : 0;
  for (guint i = 0; s->extra_templates && i < s->extra_templates->len; i++)
    used += sample_pixels (((GstKMatchExtraTemplate *)
            g_ptr_array_index (s->extra_templates, i))->rgba);
  *budget = gst_kmatch_template_budget (s->template_budget,
      self->frame_width, self->frame_height);
  return used + more <= *budget;
}

/* The action signal add-template: one more template, named; the first
 * when there is none yet. */
gboolean
gst_kpattern_match_add_template (GstKPatternMatch * self, GstSample * sample,
    const gchar * name)
{
  GstSample *rgb = template_from_sample (self, sample, "add-template");
  if (!rgb)
    return FALSE;
  Settings *s = &self->settings;
  gboolean added = TRUE, over_budget = FALSE;
  guint64 budget;
  GST_OBJECT_LOCK (self);
  if (!s->template_rgb && !s->template_region.width) {
    gst_kpattern_match_set_templates (self, rgb, g_strdup (name ? name : ""),
        NULL);
  } else if (s->extra_templates && s->extra_templates->len + 1 >= MAX_TEMPLATES) {
    added = FALSE;
  } else if (!within_budget (self, sample_pixels (rgb), &budget)) {
    added = FALSE;
    over_budget = TRUE;
  } else {
    /* a new list: the frames in flight keep theirs */
    GPtrArray *extras = g_ptr_array_new_with_free_func
        (gst_kmatch_extra_template_free);
    for (guint i = 0; s->extra_templates && i < s->extra_templates->len; i++) {
      const GstKMatchExtraTemplate *e =
          g_ptr_array_index (s->extra_templates, i);
      g_ptr_array_add (extras, gst_kmatch_extra_template_new (e->name,
              e->rgba));
    }
    g_ptr_array_add (extras, gst_kmatch_extra_template_new (name ? name : "",
            rgb));
    g_clear_pointer (&s->extra_templates, g_ptr_array_unref);
    s->extra_templates = extras;
    gst_sample_unref (rgb);
  }
  GST_OBJECT_UNLOCK (self);
  if (over_budget) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("add-template: the "
            "template would take all templates past the budget of %"
            G_GUINT64_FORMAT " pixels (template-budget)", budget), (NULL));
    gst_sample_unref (rgb);
  } else if (!added) {
    GST_WARNING_OBJECT (self, "add-template: %d templates at most",
        MAX_TEMPLATES);
    gst_sample_unref (rgb);
  }
  return added;
}

void
gst_kpattern_match_decode_pending (GstKPatternMatch * self, gint fw, gint fh)
{
  GST_OBJECT_LOCK (self);
  self->frame_width = fw;
  self->frame_height = fh;
  GPtrArray *files = g_steal_pointer (&self->settings.pending_files);
  const guint64 budget = self->settings.template_budget;
  const guint cookie = self->template_cookie;
  GST_OBJECT_UNLOCK (self);
  if (!files)
    return;
  GstKMatchLoaded loaded;
  GPtrArray *refused = g_ptr_array_new_with_free_func (g_free);
  if (!gst_kmatch_template_files_decode (files, fw, fh,
          gst_kmatch_template_budget (budget, fw, fh), &loaded, refused))
    g_ptr_array_add (refused, g_strdup ("no template of template-location "
            "can be matched: nothing is reported until one that fits is "
            "set"));
  warn_refused (self, refused);
  g_ptr_array_unref (refused);
  g_ptr_array_unref (files);
  GST_OBJECT_LOCK (self);
  /* (unless another template was set meanwhile) */
  if (self->template_cookie == cookie && !self->settings.pending_files)
    gst_kpattern_match_set_templates (self, g_steal_pointer (&loaded.first),
        g_steal_pointer (&loaded.first_name), g_steal_pointer (&loaded.extras));
  GST_OBJECT_UNLOCK (self);
  gst_kmatch_loaded_clear (&loaded);
}
