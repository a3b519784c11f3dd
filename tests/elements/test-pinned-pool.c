/* The pinned pool's order: the buffer released last is handed out first
 * (with a maximum: GstBufferPool's order), buffers GstBufferPool
 * would discard are discarded, and every buffer is freed at stop.
 */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include "kconv-pinned-pool.h"

static void
count_freed (gpointer data, GstMiniObject * obj)
{
  (*(gint *) data)++;
}

/* An active pool of RGBA 64x48 frames, min buffers made at start, at most
 * max (0: no limit). */
static GstBufferPool *
pool_new_max (guint min, guint max)
{
  GstBufferPool *pool = gst_kconv_pinned_pool_new ();
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA,width=64,"
      "height=48,framerate=30/1");
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, 64 * 48 * 4, min, max);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_caps_unref (caps);
  return pool;
}

static GstBufferPool *
pool_new (guint min)
{
  return pool_new_max (min, 0);
}

static GstBuffer *
acquire (GstBufferPool * pool, gint * freed)
{
  GstBuffer *buf = NULL;
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  /* a weak ref per acquire: counts a buffer freed once per time taken */
  gst_mini_object_weak_ref (GST_MINI_OBJECT (buf), count_freed, freed);
  return buf;
}

/* Five buffers made, two used at a time: the two released last come back,
 * the last one first. */
GST_START_TEST (test_newest_first)
{
  gint freed = 0;
  GstBufferPool *pool = pool_new (5);
  GstBuffer *a = acquire (pool, &freed), *b = acquire (pool, &freed);
  for (gint i = 0; i < 10; i++) {
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    /* (the pool holds both: their addresses still name them) */
    GstBuffer *top = acquire (pool, &freed), *next = acquire (pool, &freed);
    fail_unless (top == b && next == a, "round %d: not the two released "
        "last, newest first", i);
    a = top;
    b = next;
  }
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  fail_unless_equals_int (freed, 0);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  /* each of the two was taken 11 times; both freed now */
  fail_unless_equals_int (freed, 2 * 11);
  gst_object_unref (pool);
}

GST_END_TEST;

/* A pool with a maximum keeps GstBufferPool's own order, oldest first (a
 * buffer on the stack could be waited for: the stack would not give it). */
GST_START_TEST (test_maximum_keeps_gstreamers_order)
{
  gint freed = 0;
  GstBufferPool *pool = pool_new_max (3, 3);
  GstBuffer *a = acquire (pool, &freed), *b = acquire (pool, &freed);
  GstBuffer *c = acquire (pool, &freed);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  GstBuffer *next = acquire (pool, &freed);
  fail_unless (next == a, "not the oldest released");
  gst_buffer_unref (next);
  gst_buffer_unref (c);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
}

GST_END_TEST;

/* A buffer whose memory was replaced is not handed out again; the pool
 * stops with it gone and frees the rest. */
GST_START_TEST (test_changed_buffer_discarded)
{
  gint freed = 0;
  GstBufferPool *pool = pool_new (2);
  GstBuffer *a = acquire (pool, &freed), *b = acquire (pool, &freed);
  gst_buffer_replace_all_memory (a, gst_allocator_alloc (NULL, 64 * 48 * 4,
          NULL));
  fail_unless (GST_BUFFER_FLAG_IS_SET (a, GST_BUFFER_FLAG_TAG_MEMORY));
  /* freed, not kept */
  gst_buffer_unref (a);
  fail_unless_equals_int (freed, 1);
  gst_buffer_unref (b);
  GstBuffer *c = acquire (pool, &freed);
  fail_unless (c == b);
  GstBuffer *d = acquire (pool, &freed);
  gst_buffer_unref (c);
  gst_buffer_unref (d);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  fail_unless_equals_int (freed, 4);
  gst_object_unref (pool);
}

GST_END_TEST;

/* Deactivated with a buffer out: the pool stops once it comes back, and
 * frees the buffers on its stack with the others. */
GST_START_TEST (test_stop_with_buffers_out)
{
  gint freed = 0;
  GstBufferPool *pool = pool_new (3);
  GstBuffer *a = acquire (pool, &freed), *b = acquire (pool, &freed);
  gst_buffer_unref (a);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  /* GstBufferPool frees its buffers once all are back */
  fail_unless_equals_int (freed, 0);
  gst_buffer_unref (b);
  fail_unless_equals_int (freed, 2);
  gst_object_unref (pool);
}

GST_END_TEST;

static gpointer
acquire_waiting (gpointer pool)
{
  GstBuffer *buf = NULL;
  gst_buffer_pool_acquire_buffer (pool, &buf, NULL);
  return buf;
}

/* With a maximum, an acquire that waits for a buffer gets the one
 * released next. */
GST_START_TEST (test_limited_pool_wakes_waiter)
{
  gint freed = 0;
  GstBufferPool *pool = pool_new_max (2, 2);
  GstBuffer *a = acquire (pool, &freed), *b = acquire (pool, &freed);
  GThread *waiter = g_thread_new ("waiter", acquire_waiting, pool);
  g_usleep (50 * 1000);
  gst_buffer_unref (a);
  GstBuffer *got = g_thread_join (waiter);
  fail_unless (got == a);
  gst_buffer_unref (got);
  gst_buffer_unref (b);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  fail_unless_equals_int (freed, 2);
  gst_object_unref (pool);
}

GST_END_TEST;

static Suite *
pinned_pool_suite (void)
{
  Suite *s = suite_create ("pinned-pool");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_newest_first);
  tcase_add_test (tc, test_maximum_keeps_gstreamers_order);
  tcase_add_test (tc, test_changed_buffer_discarded);
  tcase_add_test (tc, test_stop_with_buffers_out);
  tcase_add_test (tc, test_limited_pool_wakes_waiter);
  return s;
}

GST_CHECK_MAIN (pinned_pool);
