#ifndef CJPEG_CODEC_H
#define CJPEG_CODEC_H

#include <stddef.h>
#include <stdint.h>

// libjpeg (libjpeg-turbo's libjpeg API) for the direct path: one JPEG decoded at a DCT scale into
// interleaved 8-bit pixels or into its YCbCr planes, and pixels or planes encoded, without libvips. libjpeg reports errors by
// longjmp, which must never cross Swift frames, so every call that may fail is here in C.

/// What a JPEG's header says, read without decoding.
typedef struct {
    int width, height, components;
    /// libjpeg's J_COLOR_SPACE of the file (1 grey, 3 YCbCr, 4 CMYK, 5 YCCK, 2 RGB).
    int colour_space;
    int progressive;
    int arithmetic;
    /// The JFIF density, when the file has a JFIF segment (`saw_jfif`).
    int saw_jfif, density_unit, x_density, y_density;
    /// APP2 ICC_PROFILE, APP1 Exif, APP1 XMP, APP13 (IPTC) segments present.
    int has_icc, has_exif, has_xmp, has_iptc;
    /// The EXIF orientation (1 when there is none), and the EXIF resolution (0 when absent).
    int orientation;
    double exif_x_resolution, exif_y_resolution;
    int exif_resolution_unit;
} wb_jpeg_header;

/// Reads the header. Returns 0, or -1 with `error` set.
int wb_jpeg_read_header(const uint8_t *data, size_t size, wb_jpeg_header *header, char *error, size_t error_size);

/// Decodes at 1/`scale_denom` (1, 2, 4, 8) into RGB (3 components) or grey (1), in `pixels`
/// (`capacity` bytes), when the scaled image is `width` × `height` × `components` as the caller
/// expects (ceil(size / scale_denom), libjpeg's rule). Returns 0; 1 when libjpeg warned (damaged
/// data: the pixels are its guess); -1 with `error` set when it failed or the size differs.
int wb_jpeg_decode(const uint8_t *data, size_t size, int scale_denom, uint8_t *pixels, size_t capacity,
                   int width, int height, int components, char *error, size_t error_size);

/// The file's ICC profile, its APP2 segments joined (libjpeg's jpeg_read_icc_profile): `*icc`
/// malloc'd (free it), or NULL when the file has none or its segments do not make one.
/// Returns 0, or -1 with `error` set.
int wb_jpeg_read_icc(const uint8_t *data, size_t size, uint8_t **icc, size_t *icc_size, char *error, size_t error_size);

/// Encodes 8-bit RGB or grey at `quality` (libjpeg's scale), colour with 4:2:0 chroma when
/// `subsample` is nonzero (else 4:4:4: the caller applies libvips' rule), with no JFIF segment,
/// the given APP1 (EXIF) segment body if any, then the ICC profile if any (in APP2 segments, as
/// libvips writes it).
/// `*out` is malloc'd (free it). Returns 0, or -1 with `error` set.
int wb_jpeg_encode(const uint8_t *pixels, int width, int height, int components, int quality, int subsample,
                   const uint8_t *app1, size_t app1_size, const uint8_t *icc, size_t icc_size,
                   uint8_t **out, size_t *out_size, char *error, size_t error_size);

/// A YCbCr JPEG's three planes as stored (Y, Cb, Cr): each `width` × `height` bytes, rows
/// packed, malloc'd (free with `wb_jpeg_free_planes`). `h_factor`/`v_factor`: the component's
/// sampling times its DCT size — plane c holds h_factor[c] / h_factor[0] samples per luma sample.
typedef struct {
    uint8_t *data[3];
    int width[3], height[3];
    int h_factor[3], v_factor[3];
} wb_jpeg_planes;

/// Decodes a 3-component YCbCr JPEG's planes at 1/`scale_denom` without upsampling or colour
/// conversion. Returns 0; 1 when libjpeg warned (damaged data); -1 with `error` set (nothing
/// allocated).
int wb_jpeg_decode_planes(const uint8_t *data, size_t size, int scale_denom, wb_jpeg_planes *planes,
                          char *error, size_t error_size);

void wb_jpeg_free_planes(wb_jpeg_planes *planes);

/// Encodes Y, Cb and Cr planes as a 4:2:0 JPEG at `quality` (the caller makes sure libvips would
/// write 4:2:0 at it): the Y plane `width` × `height`, chroma ceil(width / 2) × ceil(height / 2).
/// Otherwise as `wb_jpeg_encode`.
int wb_jpeg_encode_planes(const uint8_t *const planes[3], const int widths[3], const int heights[3], int width, int height,
                          int quality, const uint8_t *app1, size_t app1_size, const uint8_t *icc, size_t icc_size,
                          uint8_t **out, size_t *out_size, char *error, size_t error_size);

#endif
