#ifndef CAVIF_CODEC_H
#define CAVIF_CODEC_H

#include <stddef.h>
#include <stdint.h>

// libavif for the direct path: AVIF from the planes or pixels the direct path made, without a
// libvips image. A JPEG's planes are full-range BT.601 YCbCr, which AVIF can say of itself, so
// they go to the AV1 encoder as they are: no conversion through RGB.

/// The AV1 encoders libavif may run: 0 whichever it prefers, then libaom, rav1e, SVT-AV1.
enum { WB_AVIF_AUTO = 0, WB_AVIF_AOM = 1, WB_AVIF_RAV1E = 2, WB_AVIF_SVT = 3 };

/// What an AVIF encode is asked for: `quality` 1–100 (mapped to AV1's quantizer 0–63 as
/// libheif maps libvips' Q), `speed` 0 (slowest) – 10 (fastest), `threads` the encoder may use,
/// `codec` one of the WB_AVIF_* values.
typedef struct {
    int quality;
    int speed;
    int threads;
    int codec;
} wb_avif_settings;

/// Encodes a JPEG's 4:2:0 planes (JFIF's full-range BT.601 YCbCr: luma `width` × `height`,
/// chroma half each way rounded up, rows packed) as AVIF, signalled as full-range BT.601 with
/// sRGB primaries and transfer. With `icc` and `exif`, the file carries them. `*out` is
/// libavif's (free it with wb_avif_free). Returns 0, or -1 with `error` set.
int wb_avif_encode_planes(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int width, int height, wb_avif_settings settings,
                          const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                          uint8_t **out, size_t *size, char *error, size_t error_size);

/// Encodes interleaved 8-bit RGB (`bands` 3) or grey (`bands` 1) as AVIF: RGB converted to
/// 4:2:0 full-range BT.601 by libavif, grey as luma over neutral chroma. Same contract.
int wb_avif_encode_pixels(const uint8_t *pixels, int width, int height, int bands, wb_avif_settings settings,
                          const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                          uint8_t **out, size_t *size, char *error, size_t error_size);

/// The name of the encoder `codec` runs as here ("aom", "rav1e", "svt"), or NULL when libavif
/// was built without it.
const char *wb_avif_codec_name(int codec);

/// Frees what an encode returned.
void wb_avif_free(uint8_t *data, size_t size);

#endif
