/* GStreamer kconv plugin: presets of kconvfilter
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer's default presets save every writable property: the element's
 * name and parent too (loading renamed the element), and where it runs
 * (backend, device-id, n-threads), which belongs to the machine rather than
 * to the look of the filter.  A preset here holds the filter's own
 * settings.  A named kernel is saved as its name, not as the matrix it
 * expands to.  A custom matrix is saved as the preset's "matrix" meta
 * value: GStreamer 1.22 escapes a string property with spaces twice when
 * saving it and unescapes it once when loading, so the matrix would not
 * come back.  A hand-written "matrix=" key (as in the shipped presets)
 * loads too.
 */
#include "kconv-preset.h"
#include "gstkconvbase.h"
#include "kconv-matrix.h"

static GstPresetInterface parent_iface;


static GQuark
saving_quark (void)
{
  return g_quark_from_static_string ("kconv-preset-saving");
}

/* Whether the kernel set uses a property that refines some kernels only
 * (kernel-size: box and gaussian; sigma: gaussian): a preset saved with
 * another kernel leaves it out, so that loading it warns of nothing. */
static gboolean
kernel_uses (GstPreset * preset, const gchar * property)
{
  gint kernel;
  g_object_get (preset, "kernel", &kernel, NULL);
  const KConvNamedKernelInfo *named = kconv_named_kernel_info (kernel);
  if (g_str_equal (property, "kernel-size"))
    return named && named->sized;
  if (g_str_equal (property, "sigma"))
    return named && named->id == KCONV_NAMED_GAUSSIAN;
  return TRUE;
}

static gchar **
get_property_names (GstPreset * preset)
{
  gboolean saving = g_object_get_qdata (G_OBJECT (preset),
      saving_quark ()) != NULL;
  /* the element's own settings, in the order it installed them (the kernel
   * before what refines it): not the base's, nor where it computes */
  guint n;
  GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS
      (preset), &n);
  GPtrArray *names = g_ptr_array_new ();
  for (guint i = 0; i < n; i++)
    if (specs[i]->owner_type == G_OBJECT_TYPE (preset)
        && (specs[i]->flags & G_PARAM_WRITABLE)
        && !gst_kconv_param_is_placement (specs[i])
        && !(saving && g_str_equal (specs[i]->name, "matrix"))
        && !(saving && !kernel_uses (preset, specs[i]->name)))
      g_ptr_array_add (names, g_strdup (specs[i]->name));
  g_ptr_array_add (names, NULL);
  g_free (specs);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

static gboolean
kernel_is_custom (GstPreset * preset)
{
  gint kernel;
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (preset), "kernel");
  g_object_get (preset, "kernel", &kernel, NULL);
  GEnumValue *v = g_enum_get_value (G_PARAM_SPEC_ENUM (pspec)->enum_class,
      kernel);
  return v && g_str_equal (v->value_nick, "custom");
}

static gboolean
save_preset (GstPreset * preset, const gchar * name)
{
  g_object_set_qdata (G_OBJECT (preset), saving_quark (), GINT_TO_POINTER (1));
  /* GstPreset writes the keys it is given over those the name had: a
   * kernel-size saved earlier under it would stay with a kernel that has
   * none (and warn at every load), so what the name held goes first (a
   * name only the shipped presets hold has nothing to delete) */
  parent_iface.delete_preset (preset, name);
  gboolean ok = parent_iface.save_preset (preset, name);
  g_object_set_qdata (G_OBJECT (preset), saving_quark (), NULL);
  if (!ok)
    return FALSE;

  gchar *matrix = NULL;
  if (kernel_is_custom (preset))
    g_object_get (preset, "matrix", &matrix, NULL);
  /* NULL removes what an earlier preset of this name kept */
  ok = gst_preset_set_meta (preset, name, "matrix", matrix);
  g_free (matrix);
  return ok;
}

static gboolean
load_preset (GstPreset * preset, const gchar * name)
{
  if (!parent_iface.load_preset (preset, name))
    return FALSE;
  gchar *matrix = NULL;
  if (gst_preset_get_meta (preset, name, "matrix", &matrix) && matrix)
    g_object_set (preset, "matrix", matrix, NULL);
  g_free (matrix);
  return TRUE;
}

void
gst_kconv_filter_preset_init (GstPresetInterface * iface)
{
  parent_iface = *iface;
  iface->get_property_names = get_property_names;
  iface->save_preset = save_preset;
  iface->load_preset = load_preset;
}
