#include "CJPEGCodec.h"

#include <stdlib.h>
#include <string.h>

#include "jpeg_guard.h"

// A YCbCr JPEG's planes as stored: libjpeg's raw data, neither upsampled nor converted to RGB.
// Both directions work in whole iMCU rows (max_v_samp_factor × DCT size rows of the largest
// component), on planes whose widths are whole blocks: the decode writes into padded planes and
// compacts each row; the encode copies its planes into padded ones, repeating the last column
// and row as libjpeg does for interleaved input.

void wb_jpeg_free_planes(wb_jpeg_planes *planes) {
    for (int c = 0; c < 3; c++) {
        free(planes->data[c]);
        planes->data[c] = NULL;
    }
}

int wb_jpeg_decode_planes(const uint8_t *data, size_t size, int scale_denom, wb_jpeg_planes *planes,
                          char *error, size_t error_size) {
    struct jpeg_decompress_struct info;
    guard g;
    arm(&g, error, error_size);
    memset(planes, 0, sizeof *planes);
    info.err = &g.manager;
    if (setjmp(g.jump)) {
        jpeg_destroy_decompress(&info);
        wb_jpeg_free_planes(planes);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    if (info.num_components != 3 || info.jpeg_color_space != JCS_YCbCr) {
        snprintf(error, error_size, "not a 3-component YCbCr JPEG");
        jpeg_destroy_decompress(&info);
        return -1;
    }
    info.scale_num = 1;
    info.scale_denom = (unsigned)scale_denom;
    info.raw_data_out = TRUE;
    jpeg_start_decompress(&info);
    // libjpeg may decode a subsampled component at a larger DCT size than the luma (it scales
    // chroma up in the IDCT rather than upsampling): each component's own size counts.
    int padded_width[3], padded_rows[3], block_rows[3];
    for (int c = 0; c < 3; c++) {
        jpeg_component_info *component = &info.comp_info[c];
        int scaled = component->DCT_scaled_size;
        block_rows[c] = component->v_samp_factor * scaled;
        // Whole MCUs: a single-scan decode writes the blocks of its last MCU column that hold image.
        int blocks = ((int)component->width_in_blocks + component->h_samp_factor - 1) / component->h_samp_factor * component->h_samp_factor;
        padded_width[c] = blocks * scaled;
        padded_rows[c] = (int)info.total_iMCU_rows * block_rows[c];
        planes->width[c] = (int)component->downsampled_width;
        planes->height[c] = (int)component->downsampled_height;
        planes->h_factor[c] = component->h_samp_factor * scaled;
        planes->v_factor[c] = component->v_samp_factor * scaled;
        planes->data[c] = malloc((size_t)padded_width[c] * (size_t)padded_rows[c]);
        if (!planes->data[c]) {
            snprintf(error, error_size, "out of memory for a %dx%d plane", padded_width[c], padded_rows[c]);
            jpeg_destroy_decompress(&info);
            wb_jpeg_free_planes(planes);
            return -1;
        }
    }
    JSAMPROW rows[3][4 * DCTSIZE];
    JSAMPARRAY image[3] = { rows[0], rows[1], rows[2] };
    for (JDIMENSION row = 0; row < info.total_iMCU_rows; row++) {
        for (int c = 0; c < 3; c++) {
            for (int r = 0; r < block_rows[c]; r++) {
                rows[c][r] = planes->data[c] + ((size_t)row * (size_t)block_rows[c] + (size_t)r) * (size_t)padded_width[c];
            }
        }
        jpeg_read_raw_data(&info, image, (JDIMENSION)(info.max_v_samp_factor * info.min_DCT_scaled_size));
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    // Rows packed to the planes' own widths, in place: each moves down its buffer, never past itself.
    for (int c = 0; c < 3; c++) {
        for (int r = 1; r < planes->height[c]; r++) {
            memmove(planes->data[c] + (size_t)r * (size_t)planes->width[c],
                    planes->data[c] + (size_t)r * (size_t)padded_width[c], (size_t)planes->width[c]);
        }
    }
    return g.warnings > 0 ? 1 : 0;
}

int wb_jpeg_encode_planes(const uint8_t *const planes[3], const int widths[3], const int heights[3], int width, int height,
                          int quality, const uint8_t *app1, size_t app1_size, const uint8_t *icc, size_t icc_size,
                          uint8_t **out, size_t *out_size, char *error, size_t error_size) {
    struct jpeg_compress_struct info;
    guard g;
    unsigned char *volatile result = NULL;
    uint8_t *volatile padded[3] = { NULL, NULL, NULL };
    unsigned long result_size = 0;
    arm(&g, error, error_size);
    info.err = &g.manager;
    *out = NULL;
    *out_size = 0;
    if (setjmp(g.jump)) {
        jpeg_destroy_compress(&info);
        free(result);
        for (int c = 0; c < 3; c++) free(padded[c]);
        return -1;
    }
    jpeg_create_compress(&info);
    unsigned char *destination = NULL;
    jpeg_mem_dest(&info, &destination, &result_size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_YCbCr;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    info.write_JFIF_header = FALSE;
    info.raw_data_in = TRUE;
    jpeg_start_compress(&info, TRUE);
    for (int c = 0; c < 3; c++) {
        jpeg_component_info *component = &info.comp_info[c];
        int expected_width = (int)((width * component->h_samp_factor + info.max_h_samp_factor - 1) / info.max_h_samp_factor);
        int expected_height = (int)((height * component->v_samp_factor + info.max_v_samp_factor - 1) / info.max_v_samp_factor);
        if (widths[c] != expected_width || heights[c] != expected_height) {
            snprintf(error, error_size, "plane %d is %dx%d, not the %dx%d of %dx%d at 4:2:0", c, widths[c], heights[c],
                     expected_width, expected_height, width, height);
            jpeg_destroy_compress(&info);
            return -1;
        }
    }
    int block_rows[3], padded_width[3], padded_rows[3];
    for (int c = 0; c < 3; c++) {
        jpeg_component_info *component = &info.comp_info[c];
        block_rows[c] = component->v_samp_factor * DCTSIZE;
        padded_width[c] = (int)component->width_in_blocks * DCTSIZE;
        padded_rows[c] = (int)((height + info.max_v_samp_factor * DCTSIZE - 1) / (info.max_v_samp_factor * DCTSIZE)) * block_rows[c];
        uint8_t *plane = malloc((size_t)padded_width[c] * (size_t)padded_rows[c]);
        if (!plane) {
            snprintf(error, error_size, "out of memory for a %dx%d plane", padded_width[c], padded_rows[c]);
            jpeg_destroy_compress(&info);
            for (int k = 0; k < c; k++) free(padded[k]);
            return -1;
        }
        padded[c] = plane;
        for (int r = 0; r < padded_rows[c]; r++) {
            const uint8_t *source = planes[c] + (size_t)(r < heights[c] ? r : heights[c] - 1) * (size_t)widths[c];
            uint8_t *target = plane + (size_t)r * (size_t)padded_width[c];
            memcpy(target, source, (size_t)widths[c]);
            memset(target + widths[c], source[widths[c] - 1], (size_t)(padded_width[c] - widths[c]));
        }
    }
    if (app1 && app1_size > 0) jpeg_write_marker(&info, JPEG_APP0 + 1, app1, (unsigned)app1_size);
    if (icc && icc_size > 0) jpeg_write_icc_profile(&info, icc, (unsigned)icc_size);
    JSAMPROW rows[3][4 * DCTSIZE];
    JSAMPARRAY image[3] = { rows[0], rows[1], rows[2] };
    for (int row = 0; info.next_scanline < info.image_height; row++) {
        for (int c = 0; c < 3; c++) {
            for (int r = 0; r < block_rows[c]; r++) {
                rows[c][r] = padded[c] + ((size_t)row * (size_t)block_rows[c] + (size_t)r) * (size_t)padded_width[c];
            }
        }
        jpeg_write_raw_data(&info, image, (JDIMENSION)(info.max_v_samp_factor * DCTSIZE));
    }
    jpeg_finish_compress(&info);
    result = destination;
    jpeg_destroy_compress(&info);
    for (int c = 0; c < 3; c++) free(padded[c]);
    *out = result;
    *out_size = result_size;
    return 0;
}
