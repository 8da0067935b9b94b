#ifndef CWEBP_CODEC_H
#define CWEBP_CODEC_H

#include <stddef.h>
#include <stdint.h>

// libwebp for the direct path: lossy WebP from the planes or pixels the direct path made, with
// the settings libvips' webpsave uses by default (the default preset at a quality, method 4,
// no sharp YUV), without a libvips image.

/// Encodes a JPEG's 4:2:0 planes (JFIF's full-range YCbCr: luma `width` × `height`, chroma
/// half each way rounded up) as lossy WebP at `quality`. WebP stores limited-range BT.601 (luma
/// 16–235, chroma 16–240) with the chroma sited as JPEG's, so the planes are rescaled, not
/// converted through RGB. With `icc` and `exif`, the file carries that ICC profile and that EXIF
/// block (ICCP and EXIF chunks, as libvips writes them). `*out` is libwebp's (free it with
/// wb_webp_free). Returns 0, or -1 with `error` set.
int wb_webp_encode_planes(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int width, int height,
                          int quality, int method, const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                          uint8_t **out, size_t *size, char *error, size_t error_size);

/// Encodes interleaved 8-bit RGB (`bands` 3) or grey (`bands` 1) as lossy WebP at `quality`,
/// converted to YUV by libwebp as libvips' webpsave has it convert (grey as RGB with three
/// equal bands). Same contract as wb_webp_encode_planes.
int wb_webp_encode_pixels(const uint8_t *pixels, int width, int height, int bands,
                          int quality, int method, const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                          uint8_t **out, size_t *size, char *error, size_t error_size);

/// A WebP's size and whether it has alpha. Returns 0, or -1 when it is not a WebP libwebp reads.
int wb_webp_features(const uint8_t *data, size_t size, int *width, int *height, int *alpha);

/// Decodes a still WebP into `pixels` (`capacity` bytes, rows packed): RGBA when `alpha`, else
/// RGB, non-premultiplied, as libvips' webpload decodes it. Returns 0, or -1.
int wb_webp_decode(const uint8_t *data, size_t size, int alpha, uint8_t *pixels, size_t capacity, int width);

/// Frees what an encode returned.
void wb_webp_free(uint8_t *data);

#endif
