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

void
gst_kmatch_template_file_free (gpointer file)
{
  GstKMatchTemplateFile *f = file;
  g_free (f->path);
  g_free (f->name);
  g_free (f);
}

void
gst_kmatch_loaded_clear (GstKMatchLoaded * loaded)
{
  g_clear_pointer (&loaded->first, gst_sample_unref);
  g_clear_pointer (&loaded->first_name, g_free);
  g_clear_pointer (&loaded->extras, g_ptr_array_unref);
}

gchar **
gst_kmatch_location_split (const gchar * location)
{
  GPtrArray *parts = g_ptr_array_new ();
  GString *part = g_string_new (NULL);
  for (const gchar * c = location;; c++) {
    if (*c == '\\' && (c[1] == ',' || c[1] == '\\')) {
      g_string_append_c (part, *++c);
    } else if (*c == ',' || *c == '\0') {
      /* whitespace round a name is the list's, not the name's */
      g_ptr_array_add (parts, g_strstrip (g_string_free (part, FALSE)));
      if (*c == '\0')
        break;
      part = g_string_new (NULL);
    } else {
      g_string_append_c (part, *c);
    }
  }
  g_ptr_array_add (parts, NULL);
  return (gchar **) g_ptr_array_free (parts, FALSE);
}

GPtrArray *
gst_kmatch_template_files_probe (const gchar * location, GError ** error)
{
  gchar **names = gst_kmatch_location_split (location);
  const guint n = g_strv_length (names);
  GPtrArray *files = g_ptr_array_new_with_free_func
      (gst_kmatch_template_file_free);

  if (n > MAX_TEMPLATES)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "%u files: 1 to %d templates are taken", n, MAX_TEMPLATES);
  for (guint i = 0; n <= MAX_TEMPLATES && i < n; i++) {
    GError *err = NULL;
    GstKMatchTemplateFile *f = g_new0 (GstKMatchTemplateFile, 1);
    f->path = g_strdup (names[i]);
    /* its name: the file's, without the folder */
    f->name = g_path_get_basename (f->path);
    g_ptr_array_add (files, f);
    if (!*f->path) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "file %u of the list is empty", i + 1);
      break;
    }
    if (!gst_kmatch_template_probe_file (f->path, &f->width, &f->height, &err)) {
      /* which file, when there are several */
      g_set_error (error, err->domain, err->code, "%s%s%s",
          n > 1 ? f->path : "", n > 1 ? ": " : "", err->message);
      g_clear_error (&err);
      break;
    }
  }
  g_strfreev (names);
  if (error && *error)
    g_clear_pointer (&files, g_ptr_array_unref);
  return files;
}

guint64
gst_kmatch_template_budget (guint64 budget, gint frame_width, gint frame_height)
{
  if (budget)
    return budget;
  return MAX (DEFAULT_BUDGET_FRAMES * (guint64) frame_width * frame_height,
      DEFAULT_BUDGET_LEAST);
}

gboolean
gst_kmatch_template_files_decode (GPtrArray * files, gint frame_width,
    gint frame_height, guint64 budget, GstKMatchLoaded * loaded,
    GPtrArray * refused)
{
  guint64 used = 0;
  memset (loaded, 0, sizeof *loaded);
  for (guint i = 0; i < files->len; i++) {
    const GstKMatchTemplateFile *f = g_ptr_array_index (files, i);
    const guint64 pixels = (guint64) f->width * f->height;
    GError *err = NULL;
    GstSample *rgba = NULL;
    /* from the header's size: nothing is decoded that cannot be kept */
    if (f->width > frame_width || f->height > frame_height)
      g_ptr_array_add (refused, g_strdup_printf ("template \"%s\" refused: "
              "it is %dx%d pixels, larger than the %dx%d frames, so it could "
              "never be found", f->path, f->width, f->height, frame_width,
              frame_height));
    else if (used + pixels > budget)
      g_ptr_array_add (refused, g_strdup_printf ("template \"%s\" refused: "
              "its %dx%d pixels and the templates' before it (%"
              G_GUINT64_FORMAT ") exceed the budget of %" G_GUINT64_FORMAT
              " pixels for all templates (template-budget)", f->path,
              f->width, f->height, used, budget));
    else if (!(rgba = gst_kmatch_template_load_file (f->path, frame_width,
                frame_height, &err))) {
      g_ptr_array_add (refused, g_strdup_printf ("template \"%s\" refused: "
              "%s", f->path, err->message));
      g_clear_error (&err);
    }
    if (!rgba)
      continue;
    used += pixels;
    if (!loaded->first) {
      loaded->first = rgba;
      loaded->first_name = g_strdup (f->name);
      continue;
    }
    if (!loaded->extras)
      loaded->extras = g_ptr_array_new_with_free_func
          (gst_kmatch_extra_template_free);
    g_ptr_array_add (loaded->extras, gst_kmatch_extra_template_new (f->name,
            rgba));
    gst_sample_unref (rgba);
  }
  return loaded->first != NULL;
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
  gst_kpattern_match_free_sizes (t);
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
  for (guint i = 0; i < extras->len; i++) {
    GstKMatchTarget *t = &self->extras[i];
    const GstKMatchExtraTemplate *e = g_ptr_array_index (extras, i);
    if (!gst_kpattern_match_target_renew (self, t))
      return FALSE;
    kmatch_set_method (t->matcher, method);
    /* packed for these frames: again when what is matched changed */
    if (!t->template.built || gst_kmatch_template_state_stale (&t->template,
            &frame->info, channels)) {
      if (gst_kmatch_template_state_pack (&t->template, t->matcher, e->rgba,
              &frame->info, channels)) {
        t->have_last = FALSE;
        t->warned_size = FALSE;
      }
      t->template.built = 1;
    }
    gst_kmatch_template_state_use_mask (&t->template, t->matcher, use_alpha);
  }
  return TRUE;
}
