#include "CJXLCodec.h"

#include <dlfcn.h>
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libjxl is opened on the first JPEG XL read back, not at start: with it come libhwy and
// brotli, and every run would pay for loading them (about 3.5 ms of a process's start,
// measured). Its functions are found by name once; the code below calls them as `lib.…`.
static struct {
    JxlDecoder *(*create)(const JxlMemoryManager *);
    void (*destroy)(JxlDecoder *);
    JxlDecoderStatus (*subscribe)(JxlDecoder *, int);
    JxlDecoderStatus (*setInput)(JxlDecoder *, const uint8_t *, size_t);
    void (*closeInput)(JxlDecoder *);
    JxlDecoderStatus (*process)(JxlDecoder *);
    JxlDecoderStatus (*basicInfo)(const JxlDecoder *, JxlBasicInfo *);
    void (*setToSRGB)(JxlColorEncoding *, JXL_BOOL);
    JxlDecoderStatus (*setPreferred)(JxlDecoder *, const JxlColorEncoding *);
    JxlDecoderStatus (*encodedProfile)(const JxlDecoder *, const JxlPixelFormat *, JxlColorProfileTarget, JxlColorEncoding *);
    JxlDecoderStatus (*bufferSize)(const JxlDecoder *, const JxlPixelFormat *, size_t *);
    JxlDecoderStatus (*setBuffer)(JxlDecoder *, const JxlPixelFormat *, void *, size_t);
} lib;
static int opened = 0;
static char openError[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void openLibrary(void) {
    void *handle = dlopen("libjxl.so.0.7", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(openError, sizeof openError, "libjxl cannot be loaded (%s): install libjxl0.7", dlerror());
        return;
    }
#define FIND(field, name) if (!(*(void **)&lib.field = dlsym(handle, name))) { snprintf(openError, sizeof openError, "libjxl lacks %s", name); return; }
    FIND(create, "JxlDecoderCreate")
    FIND(destroy, "JxlDecoderDestroy")
    FIND(subscribe, "JxlDecoderSubscribeEvents")
    FIND(setInput, "JxlDecoderSetInput")
    FIND(closeInput, "JxlDecoderCloseInput")
    FIND(process, "JxlDecoderProcessInput")
    FIND(basicInfo, "JxlDecoderGetBasicInfo")
    FIND(setToSRGB, "JxlColorEncodingSetToSRGB")
    FIND(setPreferred, "JxlDecoderSetPreferredColorProfile")
    FIND(encodedProfile, "JxlDecoderGetColorAsEncodedProfile")
    FIND(bufferSize, "JxlDecoderImageOutBufferSize")
    FIND(setBuffer, "JxlDecoderSetImageOutBuffer")
#undef FIND
    opened = 1;
}

static int fail(JxlDecoder *decoder, uint8_t *buffer, char *error, size_t error_size, const char *what) {
    snprintf(error, error_size, "%s", what);
    lib.destroy(decoder);
    free(buffer);
    return -1;
}

int wb_jxl_decode_srgb(const uint8_t *data, size_t size, uint8_t **pixels, int *width, int *height, int *bands,
                       char *error, size_t error_size) {
    *pixels = NULL;
    pthread_once(&once, openLibrary);
    if (!opened) {
        snprintf(error, error_size, "%s", openError);
        return -1;
    }
    JxlDecoder *decoder = lib.create(NULL);
    if (!decoder) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    uint8_t *buffer = NULL;
    if (lib.subscribe(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        lib.setInput(decoder, data, size) != JXL_DEC_SUCCESS)
        return fail(decoder, buffer, error, error_size, "libjxl refused the decoder's settings");
    lib.closeInput(decoder);
    JxlBasicInfo info;
    JxlPixelFormat format = {0, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    for (;;) {
        JxlDecoderStatus status = lib.process(decoder);
        switch (status) {
        case JXL_DEC_BASIC_INFO:
            if (lib.basicInfo(decoder, &info) != JXL_DEC_SUCCESS) return fail(decoder, buffer, error, error_size, "no basic info");
            format.num_channels = info.num_color_channels + (info.alpha_bits > 0 ? 1 : 0);
            break;
        case JXL_DEC_COLOR_ENCODING: {
            /* sRGB (or grey with sRGB's curve), which libjxl makes from XYB without a CMS. */
            JxlColorEncoding srgb;
            lib.setToSRGB(&srgb, info.num_color_channels == 1);
            lib.setPreferred(decoder, &srgb);
            JxlColorEncoding made;
            if (lib.encodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &made) != JXL_DEC_SUCCESS ||
                made.transfer_function != JXL_TRANSFER_FUNCTION_SRGB ||
                (made.color_space == JXL_COLOR_SPACE_RGB && made.primaries != JXL_PRIMARIES_SRGB) || made.white_point != JXL_WHITE_POINT_D65)
                return fail(decoder, buffer, error, error_size, "the file does not decode to sRGB (a lossless file with its own profile?)");
            break;
        }
        case JXL_DEC_NEED_IMAGE_OUT_BUFFER: {
            size_t needed;
            if (lib.bufferSize(decoder, &format, &needed) != JXL_DEC_SUCCESS) return fail(decoder, buffer, error, error_size, "no buffer size");
            buffer = malloc(needed);
            if (!buffer || lib.setBuffer(decoder, &format, buffer, needed) != JXL_DEC_SUCCESS)
                return fail(decoder, buffer, error, error_size, "out of memory");
            break;
        }
        case JXL_DEC_FULL_IMAGE:
            /* One frame is what a still image is: stop here. */
            *pixels = buffer;
            *width = (int)info.xsize;
            *height = (int)info.ysize;
            *bands = (int)format.num_channels;
            lib.destroy(decoder);
            return 0;
        case JXL_DEC_SUCCESS:
            return fail(decoder, buffer, error, error_size, "the file has no image");
        case JXL_DEC_NEED_MORE_INPUT:
            return fail(decoder, buffer, error, error_size, "the file is truncated");
        default:
            return fail(decoder, buffer, error, error_size, "libjxl could not decode it");
        }
    }
}
