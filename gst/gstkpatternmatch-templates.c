/* GStreamer kconv plugin: kpatternmatch's templates after the first
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * template-location's list and add-template give an element several
 * templates.  The first is searched as a lone template is (on CUDA, frames
 * in flight); each other has a target of its own (a matcher, the template
 * packed for it, its last match) and is searched in turn on the same
 * mapped frame when the first's report is made.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstkpatternmatch-private.h"
#include "kmatch-template.h"

GstKMatchExtraTemplate *
gst_kmatch_extra_template_new (const gchar * name, GstSample * rgba)
{
  GstKMatchExtraTemplate *e = g_new0 (GstKMatchExtraTemplate, 1);
  e->name = g_strdup (name);
  e->rgba = gst_sample_ref (rgba);
  return e;
}

void
gst_kmatch_extra_template_free (gpointer extra)
{
  GstKMatchExtraTemplate *e = extra;
  g_free (e->name);
  gst_sample_unref (e->rgba);
  g_free (e);
}

gboolean
gst_kmatch_templates_load (const gchar * location, gint max_width,
    gint max_height, GstSample ** first, gchar ** first_name,
    GPtrArray ** extras, GError ** error)
{
  gchar **files = g_strsplit (location, ",", -1);
  const guint n = g_strv_length (files);
  GPtrArray *loaded = g_ptr_array_new_with_free_func
      (gst_kmatch_extra_template_free);
  gboolean ok = TRUE;

  if (n == 0 || n > MAX_TEMPLATES) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "%u files: 1 to %d templates are taken", n, MAX_TEMPLATES);
    ok = FALSE;
  }
  for (guint i = 0; ok && i < n; i++) {
    const gchar *file = g_strstrip (files[i]);
    GError *err = NULL;
    if (!*file) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "file %u of the list is empty", i + 1);
      ok = FALSE;
      break;
    }
    GstSample *rgba = gst_kmatch_template_load_file (file, max_width,
        max_height, &err);
    if (!rgba) {
      /* which file, when there are several */
      g_set_error (error, err->domain, err->code, "%s%s%s",
          n > 1 ? file : "", n > 1 ? ": " : "", err->message);
      g_clear_error (&err);
      ok = FALSE;
      break;
    }
    /* its name: the file's, without the folder */
    gchar *name = g_path_get_basename (file);
    g_ptr_array_add (loaded, gst_kmatch_extra_template_new (name, rgba));
    g_free (name);
    gst_sample_unref (rgba);
  }
  g_strfreev (files);
  if (!ok) {
    g_ptr_array_unref (loaded);
    return FALSE;
  }
  GstKMatchExtraTemplate *head = g_ptr_array_index (loaded, 0);
  *first = gst_sample_ref (head->rgba);
  *first_name = g_strdup (head->name);
  g_ptr_array_remove_index (loaded, 0);
  if (loaded->len == 0) {
    g_ptr_array_unref (loaded);
    loaded = NULL;
  }
  *extras = loaded;
  return TRUE;
}

gboolean
gst_kpattern_match_target_renew (GstKPatternMatch * self, GstKMatchTarget * t)
{
  KConvOptions opt;
  const guint cookie = gst_kconv_base_options (GST_KCONV_BASE (self), &opt);

  if (t->matcher && t->matcher_built == cookie)
    return TRUE;
  kmatch_free (t->matcher);
  t->matcher = NULL;
  KConvStatus st = kmatch_new (&opt, &t->matcher);
  if (st != KCONV_OK) {
    GST_KCONV_POST_CORE_ERROR (self, LIBRARY, SETTINGS,
        ("Could not set up template matching"), st);
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "matching on %s",
      kconv_backend_name (kmatch_backend (t->matcher)));
  gst_kconv_base_check_auto_start (GST_KCONV_BASE (self), &opt,
      kmatch_backend (t->matcher));
  t->matcher_built = cookie;
  gst_kmatch_template_state_give (&t->template, t->matcher);
  return TRUE;
}

static void
target_clear (GstKMatchTarget * t)
{
  kmatch_free (t->matcher);
  gst_kmatch_template_state_clear (&t->template);
  memset (t, 0, sizeof *t);
}

void
gst_kpattern_match_free_extras (GstKPatternMatch * self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->extras); i++)
    target_clear (&self->extras[i]);
  g_clear_pointer (&self->extras_built, g_ptr_array_unref);
}

gboolean
gst_kpattern_match_ensure_extras (GstKPatternMatch * self, GPtrArray * extras,
    GstVideoFrame * frame, gint channels,
    KMatchMethod method, gboolean use_alpha)
{
  if (extras != self->extras_built) {
    gst_kpattern_match_free_extras (self);
    self->extras_built = extras ? g_ptr_array_ref (extras) : NULL;
  }
  if (!extras)
    return TRUE;
  const GstVideoFormat fmt = GST_VIDEO_FRAME_FORMAT (frame);
  for (guint i = 0; i < extras->len; i++) {
    GstKMatchTarget *t = &self->extras[i];
    const GstKMatchExtraTemplate *e = g_ptr_array_index (extras, i);
    if (!gst_kpattern_match_target_renew (self, t))
      return FALSE;
    kmatch_set_method (t->matcher, method);
    /* packed for these frames: again when what is matched changed */
    if (!t->template.built || gst_kmatch_template_state_stale (&t->template,
            fmt, channels)) {
      if (gst_kmatch_template_state_pack (&t->template, t->matcher, e->rgba,
              frame->info.finfo, channels)) {
        t->have_last = FALSE;
        t->warned_size = FALSE;
      }
      t->template.built = 1;
    }
    gst_kmatch_template_state_use_mask (&t->template, t->matcher, use_alpha);
  }
  return TRUE;
}
