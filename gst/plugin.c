/* GStreamer kconv plugin
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include "gstkconvfilter.h"
#include "gstkpatternmatch.h"
#include "kmatch-template.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  /* in a build tree the template decoder lies next to the plugin */
  const gchar *file = gst_plugin_get_filename (plugin);
  if (file) {
    gchar *dir = g_path_get_dirname (file);
    gst_kmatch_template_set_decoder_dir (dir);
    g_free (dir);
  }

  ret |= GST_ELEMENT_REGISTER (kconvfilter, plugin);
  ret |= GST_ELEMENT_REGISTER (kpatternmatch, plugin);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, kconv,
    "Image convolution and template matching, on CUDA or the CPU",
    plugin_init, PACKAGE_VERSION, KCONV_PLUGIN_LICENSE, GST_PACKAGE_NAME,
    GST_PACKAGE_ORIGIN)
