/* kconv: every property of an element reads back without a warning
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-inspect-1.0 reads every property; an id the getter does not handle
 * warns there ("invalid property id"), and GstCheck makes that warning fail
 * the test.
 */
#ifndef KCONV_CHECK_PROPERTIES_H
#define KCONV_CHECK_PROPERTIES_H

#include <gst/gst.h>

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

#endif
