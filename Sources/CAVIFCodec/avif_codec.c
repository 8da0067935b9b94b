#include "CAVIFCodec.h"

#include <avif/avif.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libavif is opened on the first AVIF, not at start: with it come libaom, rav1e, SVT-AV1, dav1d
// and libgav1, 21 MiB of address space that a run under `ulimit -v` writing no AVIF should not
// pay for (and could not start with, at a low limit). Its functions are found by name once.
static struct {
    const char *(*codecName)(avifCodecChoice, avifCodecFlags);
    avifImage *(*imageCreate)(uint32_t, uint32_t, uint32_t, avifPixelFormat);
    avifResult (*imageAllocatePlanes)(avifImage *, avifPlanesFlags);
    void (*imageDestroy)(avifImage *);
    void (*imageSetProfileICC)(avifImage *, const uint8_t *, size_t);
    void (*imageSetMetadataExif)(avifImage *, const uint8_t *, size_t);
    avifEncoder *(*encoderCreate)(void);
    void (*encoderSetCodecSpecificOption)(avifEncoder *, const char *, const char *);
    avifResult (*encoderWrite)(avifEncoder *, const avifImage *, avifRWData *);
    void (*encoderDestroy)(avifEncoder *);
    const char *(*resultToString)(avifResult);
    void (*rwDataFree)(avifRWData *);
    void (*rgbImageSetDefaults)(avifRGBImage *, const avifImage *);
    avifResult (*imageRGBToYUV)(avifImage *, const avifRGBImage *);
} lib;
static int opened = 0;
static char openError[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void openLibrary(void) {
    void *handle = dlopen("libavif.so.15", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(openError, sizeof openError, "libavif cannot be loaded (%s): install libavif15", dlerror());
        return;
    }
#define FIND(field, name) if (!(*(void **)&lib.field = dlsym(handle, name))) { snprintf(openError, sizeof openError, "libavif lacks %s", name); return; }
    FIND(codecName, "avifCodecName")
    FIND(imageCreate, "avifImageCreate")
    FIND(imageAllocatePlanes, "avifImageAllocatePlanes")
    FIND(imageDestroy, "avifImageDestroy")
    FIND(imageSetProfileICC, "avifImageSetProfileICC")
    FIND(imageSetMetadataExif, "avifImageSetMetadataExif")
    FIND(encoderCreate, "avifEncoderCreate")
    FIND(encoderSetCodecSpecificOption, "avifEncoderSetCodecSpecificOption")
    FIND(encoderWrite, "avifEncoderWrite")
    FIND(encoderDestroy, "avifEncoderDestroy")
    FIND(resultToString, "avifResultToString")
    FIND(rwDataFree, "avifRWDataFree")
    FIND(rgbImageSetDefaults, "avifRGBImageSetDefaults")
    FIND(imageRGBToYUV, "avifImageRGBToYUV")
#undef FIND
    opened = 1;
}

// 1 when libavif is there; else 0 with why in `error`.
static int ready(char *error, size_t error_size) {
    pthread_once(&once, openLibrary);
    if (!opened && error) snprintf(error, error_size, "%s", openError);
    return opened;
}

static avifCodecChoice choice(int codec) {
    switch (codec) {
    case WB_AVIF_AOM: return AVIF_CODEC_CHOICE_AOM;
    case WB_AVIF_RAV1E: return AVIF_CODEC_CHOICE_RAV1E;
    case WB_AVIF_SVT: return AVIF_CODEC_CHOICE_SVT;
    default: return AVIF_CODEC_CHOICE_AUTO;
    }
}

const char *wb_avif_codec_name(int codec) {
    return ready(NULL, 0) ? lib.codecName(choice(codec), AVIF_CODEC_FLAG_CAN_ENCODE) : NULL;
}

// A still image, as every AVIF file of ours: sRGB primaries and transfer, BT.601 full range.
static void describe(avifImage *image) {
    image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
    image->yuvRange = AVIF_RANGE_FULL;
}

static int finish(avifImage *image, wb_avif_settings settings, const uint8_t *icc, size_t icc_size, const uint8_t *exif,
                  size_t exif_size, uint8_t **out, size_t *size, char *error, size_t error_size) {
    if (icc && icc_size > 0) lib.imageSetProfileICC(image, icc, icc_size);
    if (exif && exif_size > 0) lib.imageSetMetadataExif(image, exif, exif_size);
    avifEncoder *encoder = lib.encoderCreate();
    if (!encoder) {
        snprintf(error, error_size, "libavif could not make an encoder");
        lib.imageDestroy(image);
        return -1;
    }
    // libheif's mapping of libvips' Q (1-100) onto AV1's quantizer (0 best, 63 worst).
    int q = settings.quality < 1 ? 1 : settings.quality > 100 ? 100 : settings.quality;
    int quantizer = ((100 - q) * 63 + 50) / 100;
    encoder->codecChoice = choice(settings.codec);
    encoder->speed = settings.speed;
    encoder->maxThreads = settings.threads < 1 ? 1 : settings.threads;
    encoder->minQuantizer = quantizer;
    encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = AVIF_QUANTIZER_LOSSLESS;
    encoder->maxQuantizerAlpha = AVIF_QUANTIZER_LOSSLESS;
    // libaom's quantization matrices: measured on 8 reference photos at 960 px, Q 51 at speed
    // 6 with them is 0.99x the bytes of libvips' Q 50 effort 4 at 0.43 SSIMULACRA2 points less,
    // in 0.27x its CPU (bench/avif-settings.sh). Only libaom has the option.
    if (encoder->codecChoice == AVIF_CODEC_CHOICE_AOM) lib.encoderSetCodecSpecificOption(encoder, "enable-qm", "1");
    avifRWData output = AVIF_DATA_EMPTY;
    avifResult result = lib.encoderWrite(encoder, image, &output);
    if (result != AVIF_RESULT_OK) {
        snprintf(error, error_size, "libavif: %s%s%s", lib.resultToString(result), encoder->diag.error[0] ? ": " : "", encoder->diag.error);
        lib.encoderDestroy(encoder);
        lib.imageDestroy(image);
        lib.rwDataFree(&output);
        return -1;
    }
    lib.encoderDestroy(encoder);
    lib.imageDestroy(image);
    *out = output.data;
    *size = output.size;
    return 0;
}

int wb_avif_encode_planes(const uint8_t *y, const uint8_t *cb, const uint8_t *cr, int width, int height, wb_avif_settings settings,
                          const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                          uint8_t **out, size_t *size, char *error, size_t error_size) {
    *out = NULL;
    *size = 0;
    if (!ready(error, error_size)) return -1;
    avifImage *image = lib.imageCreate((uint32_t)width, (uint32_t)height, 8, AVIF_PIXEL_FORMAT_YUV420);
    if (!image || lib.imageAllocatePlanes(image, AVIF_PLANES_YUV) != AVIF_RESULT_OK) {
        snprintf(error, error_size, "libavif could not hold a %dx%d image", width, height);
        if (image) lib.imageDestroy(image);
        return -1;
    }
    describe(image);
    int chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2;
    const uint8_t *planes[3] = { y, cb, cr };
    int widths[3] = { width, chromaWidth, chromaWidth }, heights[3] = { height, chromaHeight, chromaHeight };
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < heights[c]; row++) {
            memcpy(image->yuvPlanes[c] + (size_t)row * image->yuvRowBytes[c], planes[c] + (size_t)row * (size_t)widths[c], (size_t)widths[c]);
        }
    }
    return finish(image, settings, icc, icc_size, exif, exif_size, out, size, error, error_size);
}

int wb_avif_encode_pixels(const uint8_t *pixels, int width, int height, int bands, wb_avif_settings settings,
                          const uint8_t *icc, size_t icc_size, const uint8_t *exif, size_t exif_size,
                          uint8_t **out, size_t *size, char *error, size_t error_size) {
    *out = NULL;
    *size = 0;
    if (bands != 1 && bands != 3) {
        snprintf(error, error_size, "the direct path's AVIF takes grey or RGB, not %d bands", bands);
        return -1;
    }
    if (!ready(error, error_size)) return -1;
    avifImage *image = lib.imageCreate((uint32_t)width, (uint32_t)height, 8, AVIF_PIXEL_FORMAT_YUV420);
    if (!image) {
        snprintf(error, error_size, "libavif could not hold a %dx%d image", width, height);
        return -1;
    }
    describe(image);
    if (bands == 1) {
        if (lib.imageAllocatePlanes(image, AVIF_PLANES_YUV) != AVIF_RESULT_OK) {
            snprintf(error, error_size, "libavif could not hold a %dx%d image", width, height);
            lib.imageDestroy(image);
            return -1;
        }
        // Grey as luma over neutral chroma: libheif 1.15 reads a luma-only (4:0:0) file as
        // three wrong bands, and every decoder reads this one as the grey it is.
        for (int row = 0; row < height; row++) {
            memcpy(image->yuvPlanes[0] + (size_t)row * image->yuvRowBytes[0], pixels + (size_t)row * (size_t)width, (size_t)width);
        }
        for (int c = 1; c < 3; c++) {
            memset(image->yuvPlanes[c], 128, (size_t)image->yuvRowBytes[c] * (size_t)((height + 1) / 2));
        }
    } else {
        avifRGBImage rgb;
        lib.rgbImageSetDefaults(&rgb, image);
        rgb.format = AVIF_RGB_FORMAT_RGB;
        rgb.depth = 8;
        rgb.pixels = (uint8_t *)pixels;
        rgb.rowBytes = (uint32_t)width * 3;
        avifResult converted = lib.imageRGBToYUV(image, &rgb);
        if (converted != AVIF_RESULT_OK) {
            snprintf(error, error_size, "libavif could not convert the pixels: %s", lib.resultToString(converted));
            lib.imageDestroy(image);
            return -1;
        }
    }
    return finish(image, settings, icc, icc_size, exif, exif_size, out, size, error, error_size);
}

void wb_avif_free(uint8_t *data, size_t size) {
    avifRWData owned = { data, size };
    if (ready(NULL, 0)) lib.rwDataFree(&owned);
}
