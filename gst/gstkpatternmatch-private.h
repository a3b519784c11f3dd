/* GStreamer kconv plugin: what kpatternmatch's files share
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gstkpatternmatch.c: the element, its properties, start and stop;
 * gstkpatternmatch-sources.c: where the templates come from (files,
 * decoded at the caps within a budget; the action signals);
 * gstkpatternmatch-search.c: each frame's search, from its start to its
 * report; gstkpatternmatch-matcher.c: the frame's samples for the core and
 * the first template's matcher brought up to date before a search;
 * gstkpatternmatch-templates.c: the templates after the first;
 * kmatch-template-state.c: a template as a matcher has it.
 */
#ifndef GST_KPATTERN_MATCH_PRIVATE_H
#define GST_KPATTERN_MATCH_PRIVATE_H

#include "gstkpatternmatch.h"
#include "kmatch-template-state.h"
#include "kmatch.h"
#include "kmatch-report.h"

G_BEGIN_DECLS
/* The base class's GstBaseTransform methods, which the element's chain
 * up to */
#define GST_KPATTERN_MATCH_PARENT \
  GST_BASE_TRANSFORM_CLASS (g_type_class_peek (GST_TYPE_KCONV_BASE))
GST_DEBUG_CATEGORY_EXTERN (gst_kpattern_match_debug);
#define GST_CAT_DEFAULT gst_kpattern_match_debug

/* kpatternmatch's properties */
enum
{
  PROP_0,
  PROP_TEMPLATE_LOCATION,
  PROP_TEMPLATE_REGION,
  PROP_SEARCH_REGION,
  PROP_SEARCH_RADIUS,
  PROP_THRESHOLD,
  PROP_MAX_MATCHES,
  PROP_DRAW,
  PROP_MATCH_ON,
  PROP_USE_ALPHA,
  PROP_METHOD,
  PROP_TEMPLATE_BUDGET,
  PROP_SCALES,
  N_PROPERTIES
};

/* the most matches a frame reports (max-matches) */
#define MAX_MATCHES 64

typedef enum
{
  GST_KMATCH_ON_LUMA,
  GST_KMATCH_ON_COLOR,
} GstKMatchOn;

/* the most templates an element searches for */
#define MAX_TEMPLATES 64

/* A template after the first (template-location's list, add-template):
 * never changed once made, so that a frame's settings can hold it. */
typedef struct
{
  gchar *name;
  GstSample *rgba;
} GstKMatchExtraTemplate;

/* Set by properties and the action signals; under the object lock. */
typedef struct
{
  gchar *template_location;
  /* its files, probed, to be decoded when the frames' size is known */
  GPtrArray *pending_files;
  guint64 template_budget;      /* pixels, all templates; 0 = auto */
  GstSample *template_rgb;      /* RGBA, from the file or the signal */
  gchar *template_name;         /* the first template's */
  /* of GstKMatchExtraTemplate, or NULL: replaced, never changed */
  GPtrArray *extra_templates;
  gboolean use_alpha;
  gboolean cut_pending;         /* template-region: cut from the next frame */
  KMatchRegion template_region;
  gboolean has_search_region;
  KMatchRegion search_region;
  gint search_radius;
  gdouble threshold;
  gint max_matches;
  gboolean draw;
  GstKMatchOn match_on;
  KMatchMethod method;
  gchar *scales_text;           /* as set; NULL: "1" */
  gdouble scales[KMATCH_MAX_SCALES];    /* the sizes tried, sorted */
  gint n_scales;
} Settings;

/* Whether the settings try sizes other than the template's own */
#define SETTINGS_SCALED(s) ((s)->n_scales > 1 || (s)->scales[0] != 1.0)

/* One size a template is tried at (scales): a matcher holding the template
 * resized, and where it is searched in this frame */
typedef struct
{
  KMatch *matcher;              /* owned; NULL at scale 1 (the target's own)
                                 * and where the size was not made */
  gboolean made;                /* FALSE: larger than the frames, or past
                                 * template-budget */
  gint width, height;
  gdouble scale;
  KMatchRegion region;          /* this frame's area */
  gboolean fits;                /* the size fits region */
} GstKMatchSize;

/* A template's sizes, and what they were made from */
typedef struct
{
  GstKMatchSize size[KMATCH_MAX_SCALES];
  gint n;
  guint64 pixels;               /* of the resized copies */
  guint generation, matcher_built;      /* the template's, the matcher's */
  KMatchMethod method;
  gint frame_width, frame_height;
  guint64 budget;
  gdouble scales[KMATCH_MAX_SCALES];
  gint n_scales;
} GstKMatchSizes;

/* One template's search, the streaming thread's: its matcher, the template
 * as the matcher has it, and where it was last found (search-radius
 * tracks each template on its own). */
typedef struct
{
  KMatch *matcher;
  guint matcher_built;          /* the options' cookie it was made for */
  GstKMatchTemplateState template;
  gboolean have_last;
  KMatchPosition last;
  gint last_width, last_height; /* the size it was found at */
  gboolean warned_size;
  GstKMatchSizes *sizes;        /* with scales: the sizes tried, or NULL */
} GstKMatchTarget;

struct _GstKPatternMatch
{
  GstKConvBase parent;

  Settings settings;
  guint template_cookie;        /* bumped when the template source changes */
  gint frame_width, frame_height;       /* of the last frame; 0: none yet */

  /* streaming thread only */
  GstKMatchTarget first;
  /* the templates after the first, made from extras_built's */
  GstKMatchTarget extras[MAX_TEMPLATES - 1];
  GPtrArray *extras_built;
  gboolean warned_color;
  gboolean warned_region;       /* template-region outside the frames */
};

/* gstkpatternmatch-search.c: the base class's methods */
GstFlowReturn gst_kpattern_match_start_frame (GstKConvBase * base,
    GstBuffer * inbuf);
guint gst_kpattern_match_frames_held (GstKConvBase * base);
GstFlowReturn gst_kpattern_match_finish_frame (GstKConvBase * base,
    GstKConvInflightFrame * f);
KConvStatus gst_kpattern_match_submit_frame (GstKConvBase * base,
    GstKConvInflightFrame * f);
gboolean gst_kpattern_match_rebuild_core (GstKConvBase * base,
    GstKConvInflightFrame * f);

/* gstkpatternmatch-templates.c */
GstKMatchExtraTemplate *gst_kmatch_extra_template_new (const gchar * name,
    GstSample * rgba);
void gst_kmatch_extra_template_free (gpointer extra);
/* A file of template-location's list, with its size as its header says
 * (nothing is decoded before the frames' size is known) */
typedef struct
{
  gchar *path;
  gchar *name;                  /* the file's, without the folder */
  gint width, height;
} GstKMatchTemplateFile;
void gst_kmatch_template_file_free (gpointer file);

/* What a list of files decoded to: the first template and the others */
typedef struct
{
  GstSample *first;
  gchar *first_name;
  GPtrArray *extras;            /* of GstKMatchExtraTemplate, or NULL */
} GstKMatchLoaded;
void gst_kmatch_loaded_clear (GstKMatchLoaded * loaded);

/* template-location's names: separated by commas, "\," a comma within a
 * name and "\\" a backslash; whitespace round each is dropped.
 * g_strfreev. */
gchar **gst_kmatch_location_split (const gchar * location);

/* The files of template-location, each checked and its size read from its
 * header (gst_kmatch_template_probe_file), none decoded; NULL and error
 * set when one cannot be read (naming it), a name is empty or there are
 * more than MAX_TEMPLATES. */
GPtrArray *gst_kmatch_template_files_probe (const gchar * location,
    GError ** error);

/* template-budget 0 (auto): this many times the frames' pixels, and at
 * least DEFAULT_BUDGET_LEAST pixels */
#define DEFAULT_BUDGET_FRAMES 4
#define DEFAULT_BUDGET_LEAST (4u << 20)
/* The pixels all templates together may take: budget, or for 0 the
 * default for frames of this size. */
guint64 gst_kmatch_template_budget (guint64 budget, gint frame_width,
    gint frame_height);

/* Decodes the probed files for frames of frame_width x frame_height, in
 * order, into loaded: a file larger than the frames, or whose pixels would
 * take the templates past budget (checked from the header, before
 * decoding), or that does not decode is refused, its sentence added to
 * refused (of strings).  FALSE when none is left. */
gboolean gst_kmatch_template_files_decode (GPtrArray * files,
    gint frame_width, gint frame_height, guint64 budget,
    GstKMatchLoaded * loaded, GPtrArray * refused);

/* The targets of the extras as the settings have them now: remade when
 * the list changed; FALSE (an element error posted) when a matcher cannot
 * be made. */
gboolean gst_kpattern_match_ensure_extras (GstKPatternMatch * self,
    GPtrArray * extras, GstVideoFrame * frame, gint channels,
    KMatchMethod method, gboolean use_alpha);
/* Lets the extras' targets go (matchers and templates). */
void gst_kpattern_match_free_extras (GstKPatternMatch * self);
/* A new matcher for a target on the options now, the template it had
 * given again; FALSE (an element error posted) when it cannot be made. */
gboolean gst_kpattern_match_target_renew (GstKPatternMatch * self,
    GstKMatchTarget * t);

/* gstkpatternmatch-matcher.c */
/* The frame's samples to match, as an image for the core: the luma the
 * frame has (grey, any YUV layout), or R, G, B (packed in place, planar
 * gathered into *gathered, which the caller frees), whose luma the core
 * makes when matching on luma (*rgb_luma). */
void gst_kpattern_match_image (GstVideoFrame * frame, gint channels,
    KConvImage * im, gboolean * rgb_luma, guint8 ** gathered);
/* The samples matched a pixel: R, G, B for match-on=color on RGB video,
 * else its luma. */
gint gst_kpattern_match_channels (GstKMatchOn match_on,
    const GstVideoInfo * info);
/* The bits of a sample matched in frames of info (8 for bytes). */
gint gst_kpattern_match_depth (gint channels, const GstVideoInfo * info);
/* Whether the template is to be cut from a frame matched as channels
 * samples of depth bits: template-region is set, and the template is not
 * yet cut from it for such frames (just set, a new stream, a frame the
 * region did not lie in, or match-on, caps or depth changed since). */
gboolean gst_kpattern_match_cut_due (GstKPatternMatch * self,
    const Settings * snap, gint channels, gint depth);
/* Whether region r lies inside width x height frames (a frame in CUDA
 * memory is read on the host for a cut only then) */
static inline gboolean
gst_kpattern_match_region_in (const KMatchRegion * r, gint width, gint height)
{
  return r->width > 0 && r->height > 0 && r->x >= 0 && r->y >= 0
      && r->width <= width - r->x && r->height <= height - r->y;
}

/* Builds the first template's matcher and template when something they
 * depend on changed; FALSE (and an element error) when the backend cannot
 * run. */
gboolean gst_kpattern_match_ensure_matcher (GstKPatternMatch * self,
    GstVideoFrame * frame, const Settings * snap, guint template_cookie,
    gint channels, const KConvImage * im);

/* gstkpatternmatch-sizes.c */
/* The target's sizes brought up to the settings' scales, its template and
 * matcher (made again when one of them changed: resized copies that fit
 * the frames, within what template-budget leaves); FALSE (an element error
 * posted) when a matcher cannot be made. */
gboolean gst_kpattern_match_ensure_sizes (GstKPatternMatch * self,
    GstKMatchTarget * t, const Settings * snap, gint frame_width,
    gint frame_height);
/* Where each size is searched in this frame (region and fits: the search
 * area, narrowed round the last match, centres aligned); TRUE when one
 * fits at least. */
gboolean gst_kpattern_match_sizes_area (GstKMatchTarget * t,
    const Settings * snap, gint frame_width, gint frame_height);
/* Lets the target's sizes go. */
void gst_kpattern_match_free_sizes (GstKMatchTarget * t);

/* gstkpatternmatch-sources.c */
/* What setting template-location loaded: once the frames' size is known
 * the decoded templates, before it the files, probed */
typedef struct
{
  GstKMatchLoaded decoded;
  GPtrArray *files;
} GstKMatchLocation;
/* template-location set while the element is READY or streaming: its files
 * probed, and decoded when the frames' size is known (those that cannot
 * be kept refused, each with a warning); FALSE (refused, a message
 * posted) when a file cannot be read or none can be kept. */
gboolean gst_kpattern_match_load_location (GstKPatternMatch * self,
    const gchar * location, GstKMatchLocation * loaded);
/* Makes first (taken) the first template and extras (taken, or NULL) the
 * others, and no files wait; under the object lock. */
void gst_kpattern_match_set_templates (GstKPatternMatch * self,
    GstSample * first, gchar * first_name, GPtrArray * extras);
/* The frames are fw x fh: template-location's files waiting for it are
 * decoded (each that cannot be kept refused with a warning). */
void gst_kpattern_match_decode_pending (GstKPatternMatch * self, gint fw,
    gint fh);
/* The action signals set-template and add-template */
gboolean gst_kpattern_match_set_template (GstKPatternMatch * self,
    GstSample * sample);
gboolean gst_kpattern_match_add_template (GstKPatternMatch * self,
    GstSample * sample, const gchar * name);

/* gstkpatternmatch-targets.c */
/* One template's search of a frame: its target, where it looked, what it
 * found (n matches, best first) and which template it is. */
typedef struct
{
  GstKMatchTarget *t;
  KMatchRegion region;
  gboolean searched;            /* FALSE: the template did not fit */
  gboolean pending;             /* to be searched (gst_kmatch_targets_search) */
  guint index;
  const gchar *name;
  KMatchPosition *matches;
  GstKMatchBox *boxes;          /* each match's size */
  gint *size_of;                /* each match's index in t->sizes, or -1 */
  gint n;
  KMatchPosition best;          /* found or not (searched) */
  GstKMatchBox best_box;
} GstKMatchTargetSearch;

/* Room for max matches of template i of ts in boxes and sizes (each
 * match's box the template's own size until a search says) */
void gst_kmatch_target_search_room (GstKMatchTargetSearch * x,
    GstKMatchBox * boxes, gint * sizes, guint i, gint max);
/* Searches im (where it lies: in CUDA memory on_device) for every
 * template of ts still to be searched, at each of its sizes that fits, in
 * one pass over it; a template's sizes merged, best first */
KConvStatus gst_kmatch_targets_search (GstKMatchTargetSearch * ts,
    guint count, const KConvImage * im, gboolean rgb_luma, gint max,
    gboolean on_device);
/* Refines a template's matches to a fraction of a pixel (in CUDA memory
 * from a window round each, copied back; each by the matcher of its size)
 * and keeps those at or under threshold (the best is kept aside: the
 * message says where it was and how it scored, found or not); they become
 * its last match. */
KConvStatus gst_kmatch_target_settle (GstKMatchTargetSearch * ts,
    const KConvImage * im, gboolean rgb_luma, gdouble threshold,
    gboolean on_device);

/* gstkpatternmatch-values.c */
/* A value a property refuses, with a message (the settings stay as they
 * were): regions and scales are parsed (into region, scales), template
 * files loaded (into loaded), outside the lock. */
gboolean gst_kpattern_match_refuses (GstKPatternMatch * self, guint prop_id,
    const GValue * value, KMatchRegion * region, gdouble * scales,
    gint * n_scales, GstKMatchLocation * loaded);

G_END_DECLS
#endif /* GST_KPATTERN_MATCH_PRIVATE_H */
