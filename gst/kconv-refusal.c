/* GStreamer kconv plugin: refusing a property value
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kconv-refusal.h"

GST_DEBUG_CATEGORY_STATIC (kconv_refusal_debug);
#define GST_CAT_DEFAULT kconv_refusal_debug

/* the element's waiting warnings: a GPtrArray of strings */
static GQuark
pending_quark (void)
{
  static gsize quark = 0;
  if (g_once_init_enter (&quark)) {
    GST_DEBUG_CATEGORY_INIT (kconv_refusal_debug, "kconvrefusal", 0,
        "kconv refused property values");
    g_once_init_leave (&quark,
        g_quark_from_static_string ("kconv-refusals-pending"));
  }
  return (GQuark) quark;
}

static void
post (GstElement * element, const gchar * text)
{
  GST_ELEMENT_WARNING (element, LIBRARY, SETTINGS, ("%s", text), (NULL));
}

void
kconv_refusal_post (GstElement * element, const gchar * format, ...)
{
  va_list args;
  va_start (args, format);
  gchar *text = g_strdup_vprintf (format, args);
  va_end (args);

  GQuark quark = pending_quark ();
  GST_WARNING_OBJECT (element, "%s", text);
  GstBus *bus = gst_element_get_bus (element);
  if (bus) {
    gst_object_unref (bus);
    post (element, text);
    g_free (text);
    return;
  }
  GST_OBJECT_LOCK (element);
  GPtrArray *pending = g_object_get_qdata (G_OBJECT (element), quark);
  if (!pending) {
    pending = g_ptr_array_new_with_free_func (g_free);
    g_object_set_qdata_full (G_OBJECT (element), quark, pending,
        (GDestroyNotify) g_ptr_array_unref);
  }
  g_ptr_array_add (pending, text);
  GST_OBJECT_UNLOCK (element);
}

void
kconv_refusal_flush (GstElement * element)
{
  GST_OBJECT_LOCK (element);
  GPtrArray *pending = g_object_steal_qdata (G_OBJECT (element),
      pending_quark ());
  GST_OBJECT_UNLOCK (element);
  if (!pending)
    return;
  for (guint i = 0; i < pending->len; i++)
    post (element, g_ptr_array_index (pending, i));
  g_ptr_array_unref (pending);
}
