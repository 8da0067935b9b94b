#include "CJXLCodec.h"

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(JxlDecoder *decoder, uint8_t *buffer, char *error, size_t error_size, const char *what) {
    snprintf(error, error_size, "%s", what);
    JxlDecoderDestroy(decoder);
    free(buffer);
    return -1;
}

int wb_jxl_decode_srgb(const uint8_t *data, size_t size, uint8_t **pixels, int *width, int *height, int *bands,
                       char *error, size_t error_size) {
    *pixels = NULL;
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    if (!decoder) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    uint8_t *buffer = NULL;
    if (JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(decoder, data, size) != JXL_DEC_SUCCESS)
        return fail(decoder, buffer, error, error_size, "libjxl refused the decoder's settings");
    JxlDecoderCloseInput(decoder);
    JxlBasicInfo info;
    JxlPixelFormat format = {0, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
        switch (status) {
        case JXL_DEC_BASIC_INFO:
            if (JxlDecoderGetBasicInfo(decoder, &info) != JXL_DEC_SUCCESS) return fail(decoder, buffer, error, error_size, "no basic info");
            format.num_channels = info.num_color_channels + (info.alpha_bits > 0 ? 1 : 0);
            break;
        case JXL_DEC_COLOR_ENCODING: {
            /* sRGB (or grey with sRGB's curve), which libjxl makes from XYB without a CMS. */
            JxlColorEncoding srgb;
            JxlColorEncodingSetToSRGB(&srgb, info.num_color_channels == 1);
            JxlDecoderSetPreferredColorProfile(decoder, &srgb);
            JxlColorEncoding made;
            if (JxlDecoderGetColorAsEncodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &made) != JXL_DEC_SUCCESS ||
                made.transfer_function != JXL_TRANSFER_FUNCTION_SRGB ||
                (made.color_space == JXL_COLOR_SPACE_RGB && made.primaries != JXL_PRIMARIES_SRGB) || made.white_point != JXL_WHITE_POINT_D65)
                return fail(decoder, buffer, error, error_size, "the file does not decode to sRGB (a lossless file with its own profile?)");
            break;
        }
        case JXL_DEC_NEED_IMAGE_OUT_BUFFER: {
            size_t needed;
            if (JxlDecoderImageOutBufferSize(decoder, &format, &needed) != JXL_DEC_SUCCESS) return fail(decoder, buffer, error, error_size, "no buffer size");
            buffer = malloc(needed);
            if (!buffer || JxlDecoderSetImageOutBuffer(decoder, &format, buffer, needed) != JXL_DEC_SUCCESS)
                return fail(decoder, buffer, error, error_size, "out of memory");
            break;
        }
        case JXL_DEC_FULL_IMAGE:
            /* One frame is what a still image is: stop here. */
            *pixels = buffer;
            *width = (int)info.xsize;
            *height = (int)info.ysize;
            *bands = (int)format.num_channels;
            JxlDecoderDestroy(decoder);
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
