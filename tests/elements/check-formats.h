/* kconv tests: the formats an element takes, from its pad template
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tests run every raw video format the element's sink pad template
 * names in system memory, so that a format added to the elements is
 * tested without a list here to update.
 */
#ifndef KCONV_CHECK_FORMATS_H
#define KCONV_CHECK_FORMATS_H

#include <gst/gst.h>
#include <gst/video/video.h>

/* The formats' names (g_ptr_array_unref it); empty when the element is
 * not found. */
static inline GPtrArray *
check_formats_of (const gchar * factory_name)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GstElementFactory *f = gst_element_factory_find (factory_name);
  if (!f)
    return out;
  const GList *l = gst_element_factory_get_static_pad_templates (f);
  for (; l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    if (t->direction != GST_PAD_SINK)
      continue;
    GstCaps *caps = gst_static_caps_get (&t->static_caps);
    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *features = gst_caps_get_features (caps, i);
      if (features && !gst_caps_features_is_equal (features,
              GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
        continue;
      const GValue *v = gst_structure_get_value (gst_caps_get_structure (caps,
              i), "format");
      if (v && GST_VALUE_HOLDS_LIST (v)) {
        for (guint k = 0; k < gst_value_list_get_size (v); k++)
          g_ptr_array_add (out,
              g_value_dup_string (gst_value_list_get_value (v, k)));
      } else if (v && G_VALUE_HOLDS_STRING (v)) {
        g_ptr_array_add (out, g_value_dup_string (v));
      }
    }
    gst_caps_unref (caps);
  }
  gst_object_unref (f);
  return out;
}

#endif /* KCONV_CHECK_FORMATS_H */
