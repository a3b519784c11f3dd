/* kconv: the README's property tables say what the elements do
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For kconvfilter and kpatternmatch, every property of their own (not
 * GstObject's name and parent, nor GstBaseTransform's qos) must have one
 * row "| `name` | values | default | meaning |" in the README's section of
 * that element (from "## NAME" to the next "## "), and the row must say
 * what the element reports:
 *   default  enums: the nick; booleans: true or false; numbers: %g;
 *            strings: — for none, else `"value"`
 *   values   enums: every nick, ", " between them (any order); booleans:
 *            "true, false"; integers: MIN–MAX, or MIN– when the maximum
 *            is the type's; doubles: MIN–MAX (%g), or "any" over the
 *            whole range of floats; strings: anything.
 * And gst-inspect names every flag of the property: no bit that GLib
 * and GStreamer do not define (it prints those as a raw 0x10000).
 *   test-readme-properties README.md
 */
#include <float.h>
#include <string.h>
#include <gst/gst.h>

static int failures;

static void
fail (const gchar * element, const gchar * prop, const gchar * what)
{
  g_printerr ("README, %s: %s: %s\n", element, prop, what);
  failures++;
}

/* the section "## name" of the README: from its heading to the next */
static gchar *
section (const gchar * readme, const gchar * name)
{
  gchar *heading = g_strdup_printf ("\n## %s\n", name);
  const gchar *start = strstr (readme, heading);
  g_free (heading);
  if (!start)
    return NULL;
  const gchar *end = strstr (start + 4, "\n## ");
  return end ? g_strndup (start, end - start) : g_strdup (start);
}

/* the cells of the row whose first cell is `prop` (NULL: none); more
 * than one row counts as a failure */
static gchar **
row (const gchar * text, const gchar * element, const gchar * prop)
{
  gchar *key = g_strdup_printf ("| `%s` |", prop);
  gchar **lines = g_strsplit (text, "\n", -1), **cells = NULL;
  for (gchar ** l = lines; *l; l++) {
    if (!g_str_has_prefix (*l, key))
      continue;
    if (cells) {
      fail (element, prop, "more than one row");
      break;
    }
    cells = g_strsplit (*l + 1, " | ", -1);
    for (gchar ** c = cells; *c; c++)
      g_strstrip (*c);
  }
  g_strfreev (lines);
  g_free (key);
  return cells;
}

static gchar *
format_number (gdouble v)
{
  return g_strdup_printf ("%g", v);
}

static void
check_element (const gchar * readme, const gchar * name)
{
  gchar *text = section (readme, name);
  if (!text) {
    fail (name, "", "no section \"## NAME\"");
    return;
  }
  GstElement *e = gst_element_factory_make (name, NULL);
  if (!e) {
    fail (name, "", "the element is not found (GST_PLUGIN_PATH?)");
    g_free (text);
    return;
  }
  guint n;
  GParamSpec **props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e),
      &n);
  for (guint i = 0; i < n; i++) {
    GParamSpec *p = props[i];
    const gchar *owner = g_type_name (p->owner_type);
    if (!g_str_has_prefix (owner, "GstKConv")
        && !g_str_has_prefix (owner, "GstKPattern"))
      continue;
    const GParamFlags known = G_PARAM_READWRITE | G_PARAM_CONSTRUCT |
        G_PARAM_CONSTRUCT_ONLY | G_PARAM_LAX_VALIDATION |
        G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_DEPRECATED
        | GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_READY |
        GST_PARAM_MUTABLE_PAUSED | GST_PARAM_MUTABLE_PLAYING |
        GST_PARAM_DOC_SHOW_DEFAULT | GST_PARAM_CONDITIONALLY_AVAILABLE;
    if (p->flags & ~known) {
      gchar *why = g_strdup_printf ("flags 0x%x that gst-inspect cannot "
          "name", p->flags & ~known);
      fail (name, p->name, why);
      g_free (why);
    }
    gchar **cells = row (text, name, p->name);
    if (!cells || g_strv_length (cells) < 4) {
      fail (name, p->name, "no row in the property table");
      g_strfreev (cells);
      continue;
    }
    const gchar *values = cells[1], *def = cells[2];
    gchar *want_def = NULL, *want_values = NULL;
    GType t = G_PARAM_SPEC_VALUE_TYPE (p);
    if (G_IS_PARAM_SPEC_ENUM (p)) {
      GParamSpecEnum *pe = G_PARAM_SPEC_ENUM (p);
      GEnumValue *v = g_enum_get_value (pe->enum_class, pe->default_value);
      want_def = g_strdup (v ? v->value_nick : "?");
      /* every nick, in any order */
      gchar **listed = g_strsplit (values, ", ", -1);
      gboolean same = g_strv_length (listed) == pe->enum_class->n_values;
      for (guint k = 0; same && k < pe->enum_class->n_values; k++)
        same = g_strv_contains ((const gchar * const *) listed,
            pe->enum_class->values[k].value_nick);
      if (!same)
        fail (name, p->name, "the values column does not list every value");
      g_strfreev (listed);
    } else if (t == G_TYPE_BOOLEAN) {
      want_def = g_strdup (G_PARAM_SPEC_BOOLEAN (p)->default_value ?
          "true" : "false");
      want_values = g_strdup ("true, false");
    } else if (G_IS_PARAM_SPEC_INT (p)) {
      GParamSpecInt *pi = G_PARAM_SPEC_INT (p);
      want_def = g_strdup_printf ("%d", pi->default_value);
      want_values = pi->maximum == G_MAXINT ?
          g_strdup_printf ("%d–", pi->minimum) :
          g_strdup_printf ("%d–%d", pi->minimum, pi->maximum);
    } else if (G_IS_PARAM_SPEC_UINT (p)) {
      GParamSpecUInt *pu = G_PARAM_SPEC_UINT (p);
      want_def = g_strdup_printf ("%u", pu->default_value);
      want_values = pu->maximum == G_MAXUINT ?
          g_strdup_printf ("%u–", pu->minimum) :
          g_strdup_printf ("%u–%u", pu->minimum, pu->maximum);
    } else if (G_IS_PARAM_SPEC_UINT64 (p)) {
      GParamSpecUInt64 *pu = G_PARAM_SPEC_UINT64 (p);
      want_def = g_strdup_printf ("%" G_GUINT64_FORMAT, pu->default_value);
      want_values = pu->maximum == G_MAXUINT64 ?
          g_strdup_printf ("%" G_GUINT64_FORMAT "–", pu->minimum) :
          g_strdup_printf ("%" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT,
          pu->minimum, pu->maximum);
    } else if (G_IS_PARAM_SPEC_DOUBLE (p)) {
      GParamSpecDouble *pd = G_PARAM_SPEC_DOUBLE (p);
      want_def = format_number (pd->default_value);
      if (pd->minimum <= -FLT_MAX && pd->maximum >= FLT_MAX) {
        want_values = g_strdup ("any");
      } else {
        gchar *lo = format_number (pd->minimum);
        gchar *hi = format_number (pd->maximum);
        want_values = g_strdup_printf ("%s–%s", lo, hi);
        g_free (lo);
        g_free (hi);
      }
    } else if (G_IS_PARAM_SPEC_STRING (p)) {
      const gchar *d = G_PARAM_SPEC_STRING (p)->default_value;
      want_def = d ? g_strdup_printf ("`\"%s\"`", d) : g_strdup ("—");
    } else {
      fail (name, p->name, "a property type this test does not know");
    }
    if (want_def && strcmp (def, want_def) != 0) {
      gchar *why = g_strdup_printf ("default \"%s\" in the README, the "
          "element's is \"%s\"", def, want_def);
      fail (name, p->name, why);
      g_free (why);
    }
    if (want_values && strcmp (values, want_values) != 0) {
      gchar *why = g_strdup_printf ("values \"%s\" in the README, the "
          "element takes \"%s\"", values, want_values);
      fail (name, p->name, why);
      g_free (why);
    }
    g_free (want_def);
    g_free (want_values);
    g_strfreev (cells);
  }
  g_free (props);
  gst_object_unref (e);
  g_free (text);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (argc < 2) {
    g_printerr ("usage: %s README.md\n", argv[0]);
    return 2;
  }
  gchar *readme = NULL;
  if (!g_file_get_contents (argv[1], &readme, NULL, NULL)) {
    g_printerr ("cannot read %s\n", argv[1]);
    return 1;
  }
  check_element (readme, "kconvfilter");
  check_element (readme, "kpatternmatch");
  g_free (readme);
  if (failures == 0)
    g_print ("every property of both elements is in the README, with its "
        "default and range\n");
  return failures ? 1 : 0;
}
