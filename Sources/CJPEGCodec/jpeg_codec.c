#include "CJPEGCodec.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

#include "jpeg_guard.h"

static unsigned read16(const uint8_t *p, int little) { return little ? p[0] | p[1] << 8 : p[0] << 8 | p[1]; }
static unsigned long read32(const uint8_t *p, int little) {
    return little ? (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24
                  : (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | (unsigned long)p[3];
}

// IFD0's orientation and resolution from an Exif segment body ("Exif\0\0" then TIFF).
static void read_exif(const uint8_t *body, size_t size, wb_jpeg_header *header) {
    if (size < 14 || memcmp(body, "Exif\0\0", 6) != 0) return;
    const uint8_t *tiff = body + 6;
    size_t length = size - 6;
    int little = tiff[0] == 'I';
    unsigned long ifd = read32(tiff + 4, little);
    if (ifd + 2 > length) return;
    unsigned count = read16(tiff + ifd, little);
    for (unsigned i = 0; i < count; i++) {
        size_t entry = ifd + 2 + 12 * (size_t)i;
        if (entry + 12 > length) return;
        unsigned tag = read16(tiff + entry, little), type = read16(tiff + entry + 2, little);
        if (tag == 0x0112 && type == 3) header->orientation = (int)read16(tiff + entry + 8, little);
        if (tag == 0x0128 && type == 3) header->exif_resolution_unit = (int)read16(tiff + entry + 8, little);
        if ((tag == 0x011A || tag == 0x011B) && type == 5) {
            unsigned long at = read32(tiff + entry + 8, little);
            if (at + 8 > length) continue;
            unsigned long numerator = read32(tiff + at, little), denominator = read32(tiff + at + 4, little);
            double value = denominator ? (double)numerator / (double)denominator : 0;
            if (tag == 0x011A) header->exif_x_resolution = value; else header->exif_y_resolution = value;
        }
    }
}

int wb_jpeg_read_header(const uint8_t *data, size_t size, wb_jpeg_header *header, char *error, size_t error_size) {
    struct jpeg_decompress_struct info;
    guard g;
    arm(&g, error, error_size);
    memset(header, 0, sizeof *header);
    header->orientation = 1;
    info.err = &g.manager;
    if (setjmp(g.jump)) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&info, JPEG_APP0 + 2, 0xFFFF);
    jpeg_save_markers(&info, JPEG_APP0 + 13, 0xFFFF);
    jpeg_read_header(&info, TRUE);
    header->width = (int)info.image_width;
    header->height = (int)info.image_height;
    header->components = info.num_components;
    header->colour_space = info.jpeg_color_space;
    header->progressive = info.progressive_mode;
    header->arithmetic = info.arith_code;
    header->saw_jfif = info.saw_JFIF_marker;
    header->density_unit = info.density_unit;
    header->x_density = info.X_density;
    header->y_density = info.Y_density;
    for (jpeg_saved_marker_ptr m = info.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 2 && m->data_length >= 12 && memcmp(m->data, "ICC_PROFILE", 11) == 0) header->has_icc = 1;
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            header->has_exif = 1;
            read_exif(m->data, m->data_length, header);
        }
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 29 && memcmp(m->data, "http://ns.adobe.com/xap/1.0/", 28) == 0) header->has_xmp = 1;
        if (m->marker == JPEG_APP0 + 13) header->has_iptc = 1;
    }
    jpeg_destroy_decompress(&info);
    return 0;
}

int wb_jpeg_decode(const uint8_t *data, size_t size, int scale_denom, uint8_t *pixels, size_t capacity,
                   int width, int height, int components, char *error, size_t error_size) {
    struct jpeg_decompress_struct info;
    guard g;
    arm(&g, error, error_size);
    info.err = &g.manager;
    if (setjmp(g.jump)) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    info.scale_num = 1;
    info.scale_denom = (unsigned)scale_denom;
    info.out_color_space = info.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * (size_t)info.output_components;
    if ((int)info.output_width != width || (int)info.output_height != height || info.output_components != components ||
        stride * info.output_height > capacity) {
        snprintf(error, error_size, "libjpeg decodes %ux%ux%d, not the %dx%dx%d expected", info.output_width,
                 info.output_height, info.output_components, width, height, components);
        jpeg_destroy_decompress(&info);
        return -1;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return g.warnings > 0 ? 1 : 0;
}

int wb_jpeg_read_icc(const uint8_t *data, size_t size, uint8_t **icc, size_t *icc_size, char *error, size_t error_size) {
    struct jpeg_decompress_struct info;
    guard g;
    arm(&g, error, error_size);
    info.err = &g.manager;
    *icc = NULL;
    *icc_size = 0;
    if (setjmp(g.jump)) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_save_markers(&info, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&info, TRUE);
    JOCTET *profile = NULL;
    unsigned int length = 0;
    if (jpeg_read_icc_profile(&info, &profile, &length)) {
        *icc = profile;
        *icc_size = length;
    }
    jpeg_destroy_decompress(&info);
    return 0;
}

int wb_jpeg_encode(const uint8_t *pixels, int width, int height, int components, int quality, int subsample,
                   const uint8_t *app1, size_t app1_size, const uint8_t *icc, size_t icc_size,
                   uint8_t **out, size_t *out_size, char *error, size_t error_size) {
    struct jpeg_compress_struct info;
    guard g;
    unsigned char *volatile result = NULL;
    unsigned long result_size = 0;
    arm(&g, error, error_size);
    info.err = &g.manager;
    *out = NULL;
    *out_size = 0;
    if (setjmp(g.jump)) {
        jpeg_destroy_compress(&info);
        free(result);
        return -1;
    }
    jpeg_create_compress(&info);
    unsigned char *destination = NULL;
    jpeg_mem_dest(&info, &destination, &result_size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = components;
    info.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    // libjpeg's default is 4:2:0.
    if (components == 3 && !subsample) {
        for (int c = 0; c < 3; c++) info.comp_info[c].h_samp_factor = info.comp_info[c].v_samp_factor = 1;
    }
    info.write_JFIF_header = FALSE;
    jpeg_start_compress(&info, TRUE);
    if (app1 && app1_size > 0) jpeg_write_marker(&info, JPEG_APP0 + 1, app1, (unsigned)app1_size);
    if (icc && icc_size > 0) jpeg_write_icc_profile(&info, icc, (unsigned)icc_size);
    size_t stride = (size_t)width * (size_t)components;
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * info.next_scanline);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    result = destination;
    jpeg_destroy_compress(&info);
    *out = result;
    *out_size = result_size;
    return 0;
}
