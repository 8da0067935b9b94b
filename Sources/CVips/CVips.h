// The C surface of libvips that Swift can call.
//
// Swift cannot call C variadic functions or function-like macros. Operations are called through
// libvips' generic interface (VipsOperationCall: vips_operation_new, properties, build), so the
// `cvips_` functions below are GLib's macros as functions and the few helpers that must be C.
// Everything else in libvips is imported from <vips/vips.h> as it is.
#ifndef CVIPS_H
#define CVIPS_H

#include <vips/vips.h>
#include <malloc.h>

// mallopt is missing from Swift's Glibc module (malloc.h is not in its module map).
static inline int cvips_set_malloc_arena_max(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}

static inline int cvips_set_malloc_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

static inline int cvips_set_malloc_trim_threshold(int bytes) {
    return mallopt(M_TRIM_THRESHOLD, bytes);
}

// Gives the pages of free heap memory back to the system once more than `bytes` are free
// (glibc's malloc_trim, which also releases whole free pages inside the heap, not only at its
// top); 1 when it released some.
static inline int cvips_release_free_heap(size_t bytes) {
    struct mallinfo2 info = mallinfo2();
    return info.fordblks > bytes ? malloc_trim(0) : 0;
}

// The stack size of threads created from now on with default attributes (GLib's, libdispatch's,
// libcurl's, ours). A GNU extension, so not in Swift's view of pthread.h.
int pthread_setattr_default_np(const pthread_attr_t *attr);
static inline int cvips_set_default_thread_stack(size_t bytes) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return -1;
    int status = pthread_attr_setstacksize(&attributes, bytes);
    if (status == 0) status = pthread_setattr_default_np(&attributes);
    pthread_attr_destroy(&attributes);
    return status;
}

// --- libvips' own warnings ---
//
// libvips reports recoverable trouble ("error in tile", "unknown EXIF resolution unit") through
// GLib's log under the "VIPS" domain, which prints to standard error by default. They are sent
// to `handler` instead, so the CLI can log them where it logs everything else.
typedef void (*cvips_warning_handler)(const char *message, int is_warning);

static void cvips_forward_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer handler) {
    (void) domain;
    ((cvips_warning_handler) handler)(message, (level & G_LOG_LEVEL_WARNING) != 0);
}

static inline void cvips_route_warnings(cvips_warning_handler handler) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG,
                      cvips_forward_log, (gpointer) handler);
}

// g_object_unref takes a gpointer; a typed forward keeps call sites free of casts.
static inline void cvips_image_unref(VipsImage *image) { g_object_unref(image); }

// Loads from a private copy of the bytes: buffer loaders read lazily, so libvips must own the
// memory it reads (the blob lives as long as the source, which lives as long as the image).
// `pages` > 0 asks the loader for that many pages (-1: all); 0 leaves the loader's default.
static inline VipsImage *cvips_image_new_from_copied_bytes(const void *data, size_t length,
                                                          VipsAccess access, VipsFailOn fail_on,
                                                          int pages) {
    VipsBlob *blob = vips_blob_copy(data, length);
    if (blob == NULL) return NULL;
    VipsSource *source = vips_source_new_from_blob(blob);
    vips_area_unref(VIPS_AREA(blob));
    if (source == NULL) return NULL;
    VipsImage *image = pages == 0
        ? vips_image_new_from_source(source, "", "access", access, "fail_on", fail_on, NULL)
        : vips_image_new_from_source(source, "", "access", access, "fail_on", fail_on, "n", pages, NULL);
    g_object_unref(source);
    return image;
}

// An 8-bit sRGB (or grey) image of a copy of `pixels`, carrying `icc` when given: the direct
// path's pixels handed to a libvips saver.
static inline VipsImage *cvips_image_from_copied_srgb(const void *pixels, size_t length, int width, int height, int bands,
                                                      const void *icc, size_t icc_length) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image == NULL) return NULL;
    image->Type = bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
    if (icc != NULL && icc_length > 0) vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, icc, icc_length);
    return image;
}

// avg for the damage check, which measures inside an exclusive section of the error log where
// the generic call (which takes that section itself) cannot run.
static inline int cvips_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}

// A new lazy image with the pixels and a private copy of the header of `in`: its metadata can
// be changed without touching images that other nodes (or libvips' operation cache) share.
// vips_copy would do, but its result may come from the cache, shared.
static inline VipsImage *cvips_private_copy(VipsImage *in) {
    VipsImage *out = vips_image_new();
    if (vips_image_write(in, out)) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}

// The resolution (pixels per millimetre) in an image's header: a plain struct field, set on a
// private copy (cvips_private_copy) before a saver reads it.
static inline void cvips_set_resolution(VipsImage *image, double xres, double yres) {
    image->Xres = xres;
    image->Yres = yres;
}
static inline double cvips_xres(VipsImage *image) { return image->Xres; }
static inline double cvips_yres(VipsImage *image) { return image->Yres; }

// Gives `out` the resolution and every metadata field of `header` except the layout libvips
// sets itself.
static inline void cvips_copy_header_fields(VipsImage *out, VipsImage *header) {
    out->Xres = header->Xres;
    out->Yres = header->Yres;
    static const char *const own[] = {"width", "height", "bands", "format", "coding", "interpretation", "xoffset",
                                      "yoffset", "xres", "yres", "filename", "mode", "kill", VIPS_META_SEQUENTIAL, NULL};
    gchar **names = vips_image_get_fields(header);
    for (gchar **name = names; *name != NULL; name++) {
        gboolean skip = FALSE;
        for (const char *const *o = own; *o != NULL; o++) skip = skip || strcmp(*name, *o) == 0;
        GValue value = G_VALUE_INIT;
        if (!skip && vips_image_get(header, *name, &value) == 0) {
            vips_image_set(out, *name, &value);
            g_value_unset(&value);
        }
    }
    g_strfreev(names);
}

static void cvips_free_pixels(VipsImage *image, gpointer pixels) {
    (void) image;
    free(pixels);
}

// An image of our own decoding (interleaved rows, in the header's sample format and
// interpretation: 8-bit sRGB or B_W, 16-bit RGB16 or GREY16) carrying the metadata a loader attached
// to `header` (EXIF, ICC profile, XMP, resolution, …), as if it had loaded it. The header's own
// fields (size, format, …) and libvips' access hints are not metadata. The image takes `pixels`
// (from malloc) over without a copy and frees them when it closes; freed at once on failure.
static inline VipsImage *cvips_image_from_owned_pixels(void *pixels, size_t length, int width, int height, int bands,
                                                       VipsImage *header) {
    VipsImage *out = vips_image_new_from_memory(pixels, length, width, height, bands, header->BandFmt);
    if (out == NULL) {
        free(pixels);
        return NULL;
    }
    g_signal_connect_data(out, "postclose", G_CALLBACK(cvips_free_pixels), pixels, NULL, (GConnectFlags) 0);
    out->Type = header->Type;
    cvips_copy_header_fields(out, header);
    return out;
}

// The names of every metadata field of an image (free with g_strfreev).
static inline gchar **cvips_image_fields(VipsImage *image) { return vips_image_get_fields(image); }

// --- Introspection and generic calls (GLib's type and cast macros as functions) ---

static inline GType cvips_type_boolean(void) { return G_TYPE_BOOLEAN; }
static inline GType cvips_type_int(void) { return G_TYPE_INT; }
static inline GType cvips_type_uint64(void) { return G_TYPE_UINT64; }
static inline GType cvips_type_double(void) { return G_TYPE_DOUBLE; }
static inline GType cvips_type_string(void) { return G_TYPE_STRING; }
static inline gboolean cvips_type_is_enum(GType type) { return G_TYPE_IS_ENUM(type); }
static inline gboolean cvips_type_is_flags(GType type) { return G_TYPE_IS_FLAGS(type); }
static inline gboolean cvips_type_is_abstract(GType type) { return G_TYPE_IS_ABSTRACT(type); }

static inline GType cvips_pspec_value_type(GParamSpec *pspec) { return G_PARAM_SPEC_VALUE_TYPE(pspec); }

static inline void cvips_pspec_int(GParamSpec *pspec, int *min, int *max, int *def) {
    GParamSpecInt *p = G_PARAM_SPEC_INT(pspec);
    *min = p->minimum; *max = p->maximum; *def = p->default_value;
}
static inline void cvips_pspec_uint64(GParamSpec *pspec, guint64 *min, guint64 *max, guint64 *def) {
    GParamSpecUInt64 *p = G_PARAM_SPEC_UINT64(pspec);
    *min = p->minimum; *max = p->maximum; *def = p->default_value;
}
static inline void cvips_pspec_double(GParamSpec *pspec, double *min, double *max, double *def) {
    GParamSpecDouble *p = G_PARAM_SPEC_DOUBLE(pspec);
    *min = p->minimum; *max = p->maximum; *def = p->default_value;
}
static inline gboolean cvips_pspec_boolean_default(GParamSpec *pspec) {
    return G_PARAM_SPEC_BOOLEAN(pspec)->default_value;
}
static inline int cvips_pspec_enum_default(GParamSpec *pspec) { return G_PARAM_SPEC_ENUM(pspec)->default_value; }
static inline guint cvips_pspec_flags_default(GParamSpec *pspec) { return G_PARAM_SPEC_FLAGS(pspec)->default_value; }
static inline const char *cvips_pspec_string_default(GParamSpec *pspec) {
    return G_PARAM_SPEC_STRING(pspec)->default_value;
}

static inline VipsObject *cvips_operation_object(VipsOperation *operation) { return VIPS_OBJECT(operation); }
static inline VipsObject *cvips_image_object(VipsImage *image) { return VIPS_OBJECT(image); }
static inline GObject *cvips_operation_gobject(VipsOperation *operation) { return G_OBJECT(operation); }
static inline void cvips_operation_unref(VipsOperation *operation) { g_object_unref(operation); }
static inline void cvips_object_unref(gpointer object) { g_object_unref(object); }

// The enum or flags values of a type: the class is kept referenced for the process's life, as
// libvips does for its own types.
static inline GEnumClass *cvips_enum_class(GType type) { return G_ENUM_CLASS(g_type_class_ref(type)); }
static inline GFlagsClass *cvips_flags_class(GType type) { return G_FLAGS_CLASS(g_type_class_ref(type)); }

static inline void cvips_value_set_image(GValue *value, VipsImage *image) { g_value_set_object(value, image); }
static inline VipsImage *cvips_value_dup_image(const GValue *value) { return VIPS_IMAGE(g_value_dup_object(value)); }
static inline void cvips_value_set_interpolate(GValue *value, VipsInterpolate *interpolate) {
    g_value_set_object(value, interpolate);
}
// A blob with its own copy of the bytes.
static inline void cvips_value_set_blob_copy(GValue *value, const void *data, size_t length) {
    VipsBlob *blob = vips_blob_copy(data, length);
    g_value_set_boxed(value, blob);
    vips_area_unref(VIPS_AREA(blob));
}
// Called when a borrowing blob is freed, with the owner given to cvips_value_set_blob_borrowing.
typedef void (*cvips_release_owner)(void *owner);

static int cvips_release_blob_owner(void *data, void *area) {
    (void) data;
    // The owner and its release function ride in the area's client field and after it.
    VipsArea *a = (VipsArea *) area;
    void **pair = (void **) a->client;
    ((cvips_release_owner) pair[1])(pair[0]);
    g_free(pair);
    return 0;
}

// A blob over bytes someone else owns: `release(owner)` is called when libvips lets go of it,
// which may be long after the call (a lazy loader reads as the pixels are asked for).
static inline void cvips_value_set_blob_borrowing(GValue *value, const void *data, size_t length, void *owner,
                                                  cvips_release_owner release) {
    VipsBlob *blob = vips_blob_new(cvips_release_blob_owner, data, length);
    void **pair = g_new(void *, 2);
    pair[0] = owner;
    pair[1] = (void *) release;
    VIPS_AREA(blob)->client = pair;
    g_value_set_boxed(value, blob);
    vips_area_unref(VIPS_AREA(blob));
}
static inline const void *cvips_value_blob_data(const GValue *value, size_t *length) {
    VipsBlob *blob = g_value_get_boxed(value);
    if (blob == NULL) { *length = 0; return NULL; }
    return vips_blob_get(blob, length);
}
static inline void cvips_value_set_images(GValue *value, VipsImage **images, int count) {
    vips_value_set_array_image(value, count);
    VipsImage **slots = vips_value_get_array_image(value, NULL);
    for (int i = 0; i < count; i++) { slots[i] = images[i]; g_object_ref(images[i]); }
}

// Blocks loaders and savers libvips marks as untrusted (fuzzed less, larger attack surface).
/* JPEG XL's saver writes pixels we made and reads nothing from outside: only its loader stays
 * blocked with the other untrusted operations. */
static inline void cvips_block_untrusted(gboolean block) {
    vips_block_untrusted_set(block);
    if (block && g_type_from_name("VipsForeignSaveJxl")) vips_operation_block_set("VipsForeignSaveJxl", FALSE);
}

// --- Cancelling a running evaluation ---
//
// vips_image_set_kill() stops an evaluation at its next tile, but a sink clears the flag when
// it starts. So an "eval" handler (called as the evaluation runs) sets it again while `flag` is
// raised; the flag belongs to the caller and outlives the handler.

static void cvips_kill_if_flagged(VipsImage *image, VipsProgress *progress, gpointer flag) {
    (void) progress;
    if (__atomic_load_n((int *) flag, __ATOMIC_ACQUIRE)) vips_image_set_kill(image, TRUE);
}

static inline gulong cvips_watch_kill_flag(VipsImage *image, int *flag) {
    vips_image_set_progress(image, TRUE);
    return g_signal_connect_data(image, "eval", G_CALLBACK(cvips_kill_if_flagged), flag, NULL, 0);
}

// Progress stays on: another evaluation of the same image may be watching it too.
static inline void cvips_unwatch(VipsImage *image, gulong handler) {
    g_signal_handler_disconnect(image, handler);
}

static inline void cvips_raise_flag(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELEASE); }

// --- Progress of a running evaluation ---
//
// libvips emits "eval" on an image as an evaluation of it advances; `handler` hears of it once
// per percent (pixels done, pixels in all). The watch belongs to the caller and outlives the
// handler's connection.

typedef void (*cvips_progress_handler)(const void *context, gint64 done, gint64 total);

typedef struct {
    cvips_progress_handler handler;
    const void *context;
    int last_percent;
} cvips_progress_watch;

static void cvips_report_progress(VipsImage *image, VipsProgress *progress, gpointer data) {
    (void) image;
    cvips_progress_watch *watch = (cvips_progress_watch *) data;
    if (__atomic_exchange_n(&watch->last_percent, progress->percent, __ATOMIC_ACQ_REL) == progress->percent) return;
    watch->handler(watch->context, progress->npels, progress->tpels);
}

static inline gulong cvips_watch_progress(VipsImage *image, cvips_progress_watch *watch) {
    vips_image_set_progress(image, TRUE);
    return g_signal_connect_data(image, "eval", G_CALLBACK(cvips_report_progress), watch, NULL, 0);
}

#endif
