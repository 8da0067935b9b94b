#ifndef CJXL_CODEC_H
#define CJXL_CODEC_H

#include <stddef.h>
#include <stdint.h>

// libjxl's decoder for one purpose: reading back the JPEG XL candidates a quality search made,
// to score them. libvips' JPEG XL loader stays blocked as untrusted for files from outside;
// these bytes come from libjxl's own encoder in this process.

/// Decodes a still JPEG XL into 8-bit samples in sRGB (colour or grey, as stored, with alpha
/// when it has one: 1 to 4 bands, rows packed). libjxl converts a lossy file's XYB to sRGB
/// itself, whatever profile the file names. `*pixels` is malloc's (free it). Returns 0, or -1
/// with `error` set.
int wb_jxl_decode_srgb(const uint8_t *data, size_t size, uint8_t **pixels, int *width, int *height, int *bands,
                       char *error, size_t error_size);

#endif
