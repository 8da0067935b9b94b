// The C surface of libvips that Swift can call.
//
// Swift cannot call C variadic functions or function-like macros, and most of libvips' public
// operation API is variadic (`vips_resize(in, &out, scale, ..., NULL)`). Each `cvips_` function
// below is a fixed-signature forward to one such entry point, and exists for that reason only.
// Everything else in libvips is imported from <vips/vips.h> as it is.
#ifndef CVIPS_H
#define CVIPS_H

#include <vips/vips.h>
#include <malloc.h>

// mallopt is missing from Swift's Glibc module (malloc.h is not in its module map).
static inline int cvips_set_malloc_arena_max(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}

// g_object_unref takes a gpointer; a typed forward keeps call sites free of casts.
static inline void cvips_image_unref(VipsImage *image) { g_object_unref(image); }

// Loads from a private copy of the bytes: buffer loaders read lazily, so libvips must own the
// memory it reads (the blob lives as long as the source, which lives as long as the image).
static inline VipsImage *cvips_image_new_from_copied_bytes(const void *data, size_t length,
                                                          VipsAccess access, VipsFailOn fail_on) {
    VipsBlob *blob = vips_blob_copy(data, length);
    if (blob == NULL) return NULL;
    VipsSource *source = vips_source_new_from_blob(blob);
    vips_area_unref(VIPS_AREA(blob));
    if (source == NULL) return NULL;
    VipsImage *image = vips_image_new_from_source(source, "", "access", access,
                                                  "fail_on", fail_on, NULL);
    g_object_unref(source);
    return image;
}

static inline int cvips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_thumbnail_image(in, out, width, "height", height, NULL);
}

static inline int cvips_resize(VipsImage *in, VipsImage **out, double scale) {
    return vips_resize(in, out, scale, NULL);
}

static inline int cvips_recomb(VipsImage *in, VipsImage **out, VipsImage *matrix) {
    return vips_recomb(in, out, matrix, NULL);
}

static inline int cvips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

static inline int cvips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

static inline int cvips_extract_band(VipsImage *in, VipsImage **out, int band, int count) {
    return vips_extract_band(in, out, band, "n", count, NULL);
}

static inline int cvips_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) {
    return vips_bandjoin2(a, b, out, NULL);
}

static inline int cvips_avg(VipsImage *in, double *out) {
    return vips_avg(in, out, NULL);
}

static inline int cvips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                                        gboolean strip) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", strip, NULL);
}

static inline int cvips_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                                        gboolean lossless, gboolean strip) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "lossless", lossless,
                                "strip", strip, NULL);
}

static inline int cvips_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression,
                                       gboolean strip) {
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "strip", strip, NULL);
}

#endif
