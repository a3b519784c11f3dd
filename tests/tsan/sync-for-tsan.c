/* kconv tests: GLib's and GStreamer's synchronisation made visible to
 * ThreadSanitizer
 * Copyright (C) 2026 kconv contributors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GLib's GMutex and GCond are futexes, and reference counts are atomics,
 * inside libraries not built with TSan: TSan sees neither side, and takes
 * every access they order (GST_OBJECT_LOCK, kconv's own locks, a buffer
 * written in one thread and freed in another) for a race.  Linked into a
 * test executable of a -Db_sanitize=thread build, these definitions come
 * first in symbol lookup, for the plugin and for GStreamer's libraries
 * alike; each calls the library's own and tells TSan where an order was
 * made: the lock taken (acquire) and given up (release), a reference
 * dropped (release) and the last one dropped (acquire, before the free).
 * Only happens-before is modelled: no lock-order checks.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib-object.h>
#include <gst/gst.h>
#include <sanitizer/tsan_interface.h>

/* GLib's own definition of `name`, looked up once. */
static void *
real (void **slot, const char *name)
{
  void *f = __atomic_load_n (slot, __ATOMIC_ACQUIRE);
  if (!f) {
    f = dlsym (RTLD_NEXT, name);
    if (!f) {
      fprintf (stderr, "glib-locks: no %s in GLib\n", name);
      abort ();
    }
    __atomic_store_n (slot, f, __ATOMIC_RELEASE);
  }
  return f;
}

/* void f (T *lock): acquire after, or release before */
#define TAKE(name, type) \
  void name (type * lock) \
  { \
    static void *slot; \
    ((void (*) (type *)) real (&slot, #name)) (lock); \
    __tsan_acquire (lock); \
  }
#define GIVE(name, type) \
  void name (type * lock) \
  { \
    static void *slot; \
    __tsan_release (lock); \
    ((void (*) (type *)) real (&slot, #name)) (lock); \
  }
#define TRY(name, type) \
  gboolean name (type * lock) \
  { \
    static void *slot; \
    gboolean got = ((gboolean (*) (type *)) real (&slot, #name)) (lock); \
    if (got) \
      __tsan_acquire (lock); \
    return got; \
  }

TAKE (g_mutex_lock, GMutex)
    GIVE (g_mutex_unlock, GMutex)
    TRY (g_mutex_trylock, GMutex)
    TAKE (g_rec_mutex_lock, GRecMutex)
    GIVE (g_rec_mutex_unlock, GRecMutex)
    TRY (g_rec_mutex_trylock, GRecMutex)
    TAKE (g_rw_lock_writer_lock, GRWLock)
    GIVE (g_rw_lock_writer_unlock, GRWLock)
    TRY (g_rw_lock_writer_trylock, GRWLock)
    TAKE (g_rw_lock_reader_lock, GRWLock)
    GIVE (g_rw_lock_reader_unlock, GRWLock)
    TRY (g_rw_lock_reader_trylock, GRWLock)
/* A wait gives the mutex up and takes it back inside GLib. */
     void g_cond_wait (GCond * cond, GMutex * mutex)
{
  static void *slot;
  __tsan_release (mutex);
  ((void (*)(GCond *, GMutex *)) real (&slot, "g_cond_wait")) (cond, mutex);
  __tsan_acquire (mutex);
}

gboolean
g_cond_wait_until (GCond * cond, GMutex * mutex, gint64 end_time)
{
  static void *slot;
  __tsan_release (mutex);
  gboolean woken = ((gboolean (*)(GCond *, GMutex *, gint64))
      real (&slot, "g_cond_wait_until")) (cond, mutex, end_time);
  __tsan_acquire (mutex);
  return woken;
}

/* The pattern of a reference count: every unref releases, the last one
 * acquires all of them before the object goes. */
void
g_object_unref (gpointer object)
{
  static void *slot;
  GObject *o = object;
  __tsan_release (o);
  if (g_atomic_int_get (&o->ref_count) == 1)
    __tsan_acquire (o);
  ((void (*)(gpointer)) real (&slot, "g_object_unref")) (object);
}

void
gst_mini_object_unref (GstMiniObject * mini_object)
{
  static void *slot;
  __tsan_release (mini_object);
  if (GST_MINI_OBJECT_REFCOUNT_VALUE (mini_object) == 1)
    __tsan_acquire (mini_object);
  ((void (*)(GstMiniObject *)) real (&slot, "gst_mini_object_unref"))
      (mini_object);
}
