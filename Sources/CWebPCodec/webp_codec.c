#include "CWebPCodec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>

static void say(char *error, size_t error_size, const char *what, int code) {
    if (error && error_size) snprintf(error, error_size, "%s (libwebp error %d)", what, code);
}

// The encoder's settings and an empty picture of `width` × `height`, or -1 with `error` set.
static int start(WebPConfig *config, WebPPicture *picture, int width, int height, int quality, int method,
                 char *error, size_t error_size) {
    if (!WebPConfigPreset(config, WEBP_PRESET_DEFAULT, (float)quality) || !WebPPictureInit(picture)) {
        say(error, error_size, "libwebp's version does not match its header", 0);
        return -1;
    }
    config->method = method;
    config->alpha_quality = 100;
    config->use_sharp_yuv = 0;
    if (!WebPValidateConfig(config)) {
        say(error, error_size, "quality or method out of range", 0);
        return -1;
    }
    picture->width = width;
    picture->height = height;
    return 0;
}

// The encoded image with ICCP and EXIF chunks (an extended file, assembled by libwebp's mux in
// the order the format sets, as libvips' webpsave writes it).
static int with_metadata(uint8_t **out, size_t *size, const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                         char *error, size_t error_size) {
    WebPData image = { *out, *size }, profile = { icc, icc_size }, block = { exif, exif_size }, assembled = { NULL, 0 };
    WebPMux *mux = WebPMuxCreate(&image, 1);
    int ok = mux != NULL;
    if (ok && icc_size > 0) ok = WebPMuxSetChunk(mux, "ICCP", &profile, 1) == WEBP_MUX_OK;
    if (ok && exif_size > 0) ok = WebPMuxSetChunk(mux, "EXIF", &block, 1) == WEBP_MUX_OK;
    if (ok) ok = WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
    WebPMuxDelete(mux);
    WebPFree(*out);
    *out = NULL;
    *size = 0;
    if (!ok) {
        WebPDataClear(&assembled);
        say(error, error_size, "libwebp's mux could not add the metadata", 0);
        return -1;
    }
    *out = (uint8_t *)assembled.bytes;
    *size = assembled.size;
    return 0;
}

static int finish(const WebPConfig *config, WebPPicture *picture, const uint8_t *icc, size_t icc_size,
                  const uint8_t *exif, size_t exif_size, uint8_t **out, size_t *size, char *error, size_t error_size) {
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture->writer = WebPMemoryWrite;
    picture->custom_ptr = &writer;
    int ok = WebPEncode(config, picture);
    int code = picture->error_code;
    WebPPictureFree(picture);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        say(error, error_size, code == VP8_ENC_ERROR_OUT_OF_MEMORY ? "out of memory" : "the encoder failed", code);
        return -1;
    }
    *out = writer.mem;
    *size = writer.size;
    if ((icc && icc_size > 0) || (exif && exif_size > 0)) return with_metadata(out, size, icc, icc ? icc_size : 0, exif, exif ? exif_size : 0, error, error_size);
    return 0;
}

int wb_webp_encode_planes(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int width, int height,
                          int quality, int method, const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                          uint8_t **out, size_t *size, char *error, size_t error_size) {
    WebPConfig config;
    WebPPicture picture;
    if (start(&config, &picture, width, height, quality, method, error, error_size)) return -1;
    picture.use_argb = 0;
    picture.colorspace = WEBP_YUV420;
    if (!WebPPictureAlloc(&picture)) { say(error, error_size, "out of memory", VP8_ENC_ERROR_OUT_OF_MEMORY); return -1; }
    // Full range to WebP's: luma 0–255 → 16–235, chroma about 128 scaled by 224/255, rounded.
    uint8_t luma[256], chroma[256];
    for (int v = 0; v < 256; v++) {
        luma[v] = (uint8_t)(16 + (v * 219 + 127) / 255);
        int c = 128 + (int)((v - 128) * 224.0 / 255.0 + (v >= 128 ? 0.5 : -0.5));
        chroma[v] = (uint8_t)(c < 16 ? 16 : c > 240 ? 240 : c);
    }
    for (int row = 0; row < height; row++) {
        const uint8_t *from = y + (size_t)row * width;
        uint8_t *to = picture.y + (size_t)row * picture.y_stride;
        for (int x = 0; x < width; x++) to[x] = luma[from[x]];
    }
    int cw = (width + 1) / 2, ch = (height + 1) / 2;
    for (int row = 0; row < ch; row++) {
        const uint8_t *b = cb + (size_t)row * cw, *r = cr + (size_t)row * cw;
        uint8_t *u = picture.u + (size_t)row * picture.uv_stride, *v = picture.v + (size_t)row * picture.uv_stride;
        for (int x = 0; x < cw; x++) { u[x] = chroma[b[x]]; v[x] = chroma[r[x]]; }
    }
    return finish(&config, &picture, icc, icc_size, exif, exif_size, out, size, error, error_size);
}

int wb_webp_encode_pixels(const uint8_t *pixels, int width, int height, int bands,
                          int quality, int method, const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                          uint8_t **out, size_t *size, char *error, size_t error_size) {
    WebPConfig config;
    WebPPicture picture;
    if (start(&config, &picture, width, height, quality, method, error, error_size)) return -1;
    int ok;
    if (bands == 3) {
        ok = WebPPictureImportRGB(&picture, pixels, width * 3);
    } else {
        uint8_t *rgb = malloc((size_t)width * height * 3);
        if (!rgb) { say(error, error_size, "out of memory", VP8_ENC_ERROR_OUT_OF_MEMORY); return -1; }
        for (size_t i = 0; i < (size_t)width * height; i++) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = pixels[i];
        ok = WebPPictureImportRGB(&picture, rgb, width * 3);
        free(rgb);
    }
    if (!ok) { WebPPictureFree(&picture); say(error, error_size, "out of memory", VP8_ENC_ERROR_OUT_OF_MEMORY); return -1; }
    return finish(&config, &picture, icc, icc_size, exif, exif_size, out, size, error, error_size);
}

void wb_webp_free(uint8_t *data) { WebPFree(data); }

int wb_webp_features(const uint8_t *data, size_t size, int *width, int *height, int *alpha) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK || features.has_animation) return -1;
    *width = features.width;
    *height = features.height;
    *alpha = features.has_alpha;
    return 0;
}

int wb_webp_decode(const uint8_t *data, size_t size, int alpha, uint8_t *pixels, size_t capacity, int width) {
    int stride = width * (alpha ? 4 : 3);
    uint8_t *done = alpha ? WebPDecodeRGBAInto(data, size, pixels, capacity, stride)
                          : WebPDecodeRGBInto(data, size, pixels, capacity, stride);
    return done ? 0 : -1;
}
