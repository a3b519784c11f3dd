/* kconv: every property of an element reads back without a warning
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-inspect-1.0 reads every property; an id the getter does not handle
 * warns there ("invalid property id"), and GstCheck makes that warning fail
 * the test.  And a refused string value: it keeps the value before it, and
 * starting fails with an error that names the property.
 */
#ifndef KCONV_CHECK_PROPERTIES_H
#define KCONV_CHECK_PROPERTIES_H

#include <string.h>
#include <gst/check/gstcheck.h>

static inline void
gst_kconv_check_every_property_reads (GstElement * e)
{
  guint n;
  GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (e),
      &n);
  for (guint i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    if (!(specs[i]->flags & G_PARAM_READABLE))
      continue;
    g_value_init (&v, specs[i]->value_type);
    g_object_get_property (G_OBJECT (e), specs[i]->name, &v);
    g_value_unset (&v);
  }
  g_free (specs);
}

/* property of a new factory element set to good, then to bad: bad is
 * refused (good stays) and starting fails, naming property */
static inline void
gst_kconv_check_refused_at_start (const gchar * factory,
    const gchar * property, const gchar * good, const gchar * bad)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  g_object_set (e, property, good, NULL);
  g_object_set (e, property, bad, NULL);
  gchar *now = NULL;
  g_object_get (e, property, &now, NULL);
  fail_unless_equals_string (now, good);
  g_free (now);
  fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE, "%s \"%s\" was taken", property, bad);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  GError *err = NULL;
  gst_message_parse_error (m, &err, NULL);
  fail_unless (strstr (err->message, property) != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

#endif
