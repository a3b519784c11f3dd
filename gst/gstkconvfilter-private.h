/* GStreamer kconv plugin: what kconvfilter's files share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gstkconvfilter.c: the element, its properties and their settings;
 * gstkconvfilter-frames.c: the core filters the settings make, and each
 * frame's convolution.
 */
#ifndef GST_KCONV_FILTER_PRIVATE_H
#define GST_KCONV_FILTER_PRIVATE_H

#include <gst/base/gstbasetransform.h>

#include "gstkconvfilter.h"
#include "kconv-frame-images.h"
#include "kconv.h"
#include "kconv-matrix.h"

G_BEGIN_DECLS
/* The base class's GstBaseTransform methods, which the element's chain
 * up to */
#define GST_KCONV_FILTER_PARENT \
  GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_KCONV_BASE))
GST_DEBUG_CATEGORY_EXTERN (gst_kconv_filter_debug);
#define GST_CAT_DEFAULT gst_kconv_filter_debug

/* The `kernel` property: the core's named kernels (KConvNamedKernel, their
 * values the same) and custom, at a value past any of them that stays
 * where it is when kernels are added. */
#define GST_KCONV_KERNEL_CUSTOM 1000

typedef enum
{
  GST_KCONV_ABSOLUTE_AUTO,
  GST_KCONV_ABSOLUTE_FALSE,
  GST_KCONV_ABSOLUTE_TRUE,
} GstKConvAbsolute;

typedef enum
{
  GST_KCONV_PLANES_ALL,
  GST_KCONV_PLANES_LUMA,
  GST_KCONV_PLANES_AUTO,
} GstKConvPlanes;

#define DEFAULT_KERNEL_SIZE 3

typedef enum
{
  GST_KCONV_REGIONS_ALL,
  GST_KCONV_REGIONS_ROI,
  GST_KCONV_REGIONS_OUTSIDE_ROI,
  GST_KCONV_REGIONS_FIXED,
} GstKConvRegionsMode;

/* regions, roi-types, region-margin, region-list; under the object lock
 * (they change no filter: a frame reads them as it comes) */
typedef struct
{
  GstKConvRegionsMode mode;
  gchar *types;
  GQuark *type_quarks;          /* types, split once: n_types of them */
  gint n_types;
  gint margin;
  gchar *list_text;
  KConvRect *list;
  gint n_list;
} GstKConvRegionSettings;

/* Everything a property sets; read and written under the object lock. */
typedef struct
{
  /* KConvNamedKernel, or GST_KCONV_KERNEL_CUSTOM */
  gint kernel;
  gint kernel_size;
  gdouble sigma;
  gfloat *custom;               /* custom_rows * custom_cols */
  gint custom_rows, custom_cols;
  gdouble divisor;
  gdouble offset;
  GstKConvAbsolute absolute;
  KConvBorder border;
  GstKConvPlanes planes;
  /* kernel-size was set: warn where it has no effect */
  gboolean kernel_size_set;
} Settings;

struct _GstKConvFilter
{
  GstKConvBase parent;

  Settings settings;
  guint settings_cookie;        /* bumped by every change */
  GstKConvRegionSettings regions;

  /* streaming thread only */
  KConvFilter *core;
  guint core_cookie, core_options_cookie;
  GstKConvFrameComponents components;
  gint size_warned;             /* the kernel-size last said to do nothing */
  /* planes=auto with a kernel whose weights sum to 0: sets the chroma of
   * YUV video to neutral (a 1x1 kernel of 0, offset 128) */
  KConvFilter *neutral_chroma;
};

/* gstkconvfilter.c: the weights the settings stand for (g_free them);
 * whether they take absolute values; a copy (to free with the settings) */
gfloat *gst_kconv_filter_settings_weights (const Settings * s, gint * rows,
    gint * cols);
gboolean gst_kconv_filter_settings_absolute (const Settings * s);
void gst_kconv_filter_settings_copy (Settings * dst, const Settings * src);

/* gstkconvfilter-frames.c: the base class's methods, and set_caps */
void gst_kconv_filter_free_core (GstKConvBase * base);
gboolean gst_kconv_filter_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
GstFlowReturn gst_kconv_filter_start_frame (GstKConvBase * base,
    GstBuffer * inbuf);
KConvStatus gst_kconv_filter_submit_frame (GstKConvBase * base,
    GstKConvInflightFrame * f);
gboolean gst_kconv_filter_rebuild_core (GstKConvBase * base,
    GstKConvInflightFrame * f);

/* gstkconvfilter-regions.c: the regions' four properties (ids first_id
 * .. first_id + 3: regions, roi-types, region-margin, region-list), set
 * (FALSE: refused, with a message) and got by their index; a frame
 * filtered inside its regions alone, in place (takes inbuf) */
void gst_kconv_filter_regions_install (GObjectClass * klass, guint first_id,
    GParamFlags flags);
gboolean gst_kconv_filter_regions_set (GstKConvFilter * self, guint which,
    const GValue * value, const gchar * name);
void gst_kconv_filter_regions_get (GstKConvFilter * self, guint which,
    GValue * value);
void gst_kconv_filter_regions_clear (GstKConvFilter * self);
GstFlowReturn gst_kconv_filter_regions_frame (GstKConvFilter * self,
    GstBuffer * inbuf);

G_END_DECLS
#endif /* GST_KCONV_FILTER_PRIVATE_H */
