/* GStreamer kconv plugin: refusing a property value
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kconv-refusal.h"

GST_DEBUG_CATEGORY_STATIC (kconv_refusal_debug);
#define GST_CAT_DEFAULT kconv_refusal_debug

/* the element's refusals waiting for start: property name -> text */
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

gchar *
gst_kconv_refusal_excerpt (const gchar * text, glong max_chars)
{
  gchar *valid = g_utf8_make_valid (text ? text : "", -1);
  if (g_utf8_strlen (valid, -1) <= max_chars)
    return valid;
  gchar *cut = g_utf8_substring (valid, 0, max_chars);
  gchar *out = g_strconcat (cut, "...", NULL);
  g_free (cut);
  g_free (valid);
  return out;
}

void
gst_kconv_refusal_post (GstElement * element, const gchar * property,
    const gchar * format, ...)
{
  va_list args;
  va_start (args, format);
  gchar *raw = g_strdup_vprintf (format, args);
  va_end (args);
  /* a bus handler decodes the message as UTF-8 (Python raises on less) */
  gchar *text = g_utf8_make_valid (raw, -1);
  g_free (raw);

  GQuark quark = pending_quark ();
  GST_WARNING_OBJECT (element, "%s", text);
  GST_OBJECT_LOCK (element);
  gboolean streaming = GST_STATE (element) >= GST_STATE_PAUSED;
  if (!streaming) {
    GHashTable *pending = g_object_get_qdata (G_OBJECT (element), quark);
    if (!pending) {
      pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_object_set_qdata_full (G_OBJECT (element), quark, pending,
          (GDestroyNotify) g_hash_table_unref);
    }
    g_hash_table_replace (pending, g_strdup (property), text);
  }
  GST_OBJECT_UNLOCK (element);
  if (streaming) {
    GST_ELEMENT_WARNING (element, LIBRARY, SETTINGS, ("%s", text),
        ("the previous value of %s stays", property));
    g_free (text);
  }
}

void
gst_kconv_refusal_accepted (GstElement * element, const gchar * property)
{
  GST_OBJECT_LOCK (element);
  GHashTable *pending = g_object_get_qdata (G_OBJECT (element),
      pending_quark ());
  if (pending)
    g_hash_table_remove (pending, property);
  GST_OBJECT_UNLOCK (element);
}

gboolean
gst_kconv_refusal_check_at_start (GstElement * element)
{
  GST_OBJECT_LOCK (element);
  GHashTable *pending = g_object_steal_qdata (G_OBJECT (element),
      pending_quark ());
  GST_OBJECT_UNLOCK (element);
  if (!pending)
    return TRUE;
  guint n = g_hash_table_size (pending);
  if (n == 0) {
    g_hash_table_unref (pending);
    return TRUE;
  }
  /* in the order of the property names, so the message is stable */
  GList *names = g_list_sort (g_hash_table_get_keys (pending),
      (GCompareFunc) g_strcmp0);
  GString *all = g_string_new (NULL);
  for (GList * l = names; l; l = l->next)
    g_string_append_printf (all, "%s%s", all->len ? "; " : "",
        (const gchar *) g_hash_table_lookup (pending, l->data));
  g_list_free (names);
  GST_ELEMENT_ERROR (element, LIBRARY, SETTINGS, ("%s", all->str),
      ("%u refused value%s set before the stream started: nothing was "
          "processed", n, n == 1 ? "" : "s"));
  g_string_free (all, TRUE);
  g_hash_table_unref (pending);
  return FALSE;
}
