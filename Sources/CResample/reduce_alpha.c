#include "CResample.h"

#include <stdlib.h>
#include <string.h>

/* An image with alpha is reduced as libvips' thumbnail reduces it: colour premultiplied by
 * alpha, so that transparent pixels lend none of their (meaningless) colour to their visible
 * neighbours, then divided by the reduced alpha again. libvips does this in floats over a
 * float copy of the image; here the floats live only in a row buffer and a ring of as many
 * reduced rows as a vertical tap reads, so memory is a few hundred KiB whatever the size. */

/* Boxed row `row`: input rows row × box_y … + box_y premultiplied and averaged `box_x` × `box_y`
 * pixels at a time into `boxed` (`boxed_width` pixels). A box past the image's right or bottom
 * edge repeats the edge pixels, as libvips' shrinkh and shrinkv (rounding up) do. */
static void premultiply_rows(const uint8_t *in, int width, int height, int bands, int row, int box_x, int box_y,
                             float *boxed, int boxed_width) {
    int colours = bands - 1;
    memset(boxed, 0, (size_t)boxed_width * bands * sizeof(float));
    for (int k = 0; k < box_y; k++) {
        int y = row * box_y + k < height ? row * box_y + k : height - 1;
        const uint8_t *line = in + (size_t)y * width * bands;
        if (box_x == 1) {
            const uint8_t *p = line;
            float *q = boxed;
            for (int x = 0; x < width; x++, p += bands, q += bands) {
                float alpha = p[colours];
                for (int b = 0; b < colours; b++) q[b] += p[b] * alpha * (1.0f / 255.0f);
                q[colours] += alpha;
            }
            continue;
        }
        for (int c = 0; c < boxed_width; c++) {
            float *q = boxed + (size_t)c * bands;
            for (int j = 0; j < box_x; j++) {
                int x = c * box_x + j < width ? c * box_x + j : width - 1;
                const uint8_t *p = line + (size_t)x * bands;
                float alpha = p[colours];
                for (int b = 0; b < colours; b++) q[b] += p[b] * alpha * (1.0f / 255.0f);
                q[colours] += alpha;
            }
        }
    }
    if (box_x * box_y == 1) return;
    float scale = 1.0f / (float)(box_x * box_y);
    for (size_t i = 0; i < (size_t)boxed_width * bands; i++) boxed[i] *= scale;
}

/* One row's horizontal taps: `count` weighted inputs per output pixel, band by band. */
static void reduce_row(const float *row, int bands, float *out, int out_width, const int32_t *inputs, const float *weights,
                       int count) {
    if (bands == 4) {
        for (int x = 0; x < out_width; x++) {
            const int32_t *at = inputs + (size_t)x * count;
            const float *w = weights + (size_t)x * count;
            float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (int k = 0; k < count; k++) {
                const float *p = row + (size_t)at[k] * 4;
                s0 += w[k] * p[0];
                s1 += w[k] * p[1];
                s2 += w[k] * p[2];
                s3 += w[k] * p[3];
            }
            out[x * 4] = s0;
            out[x * 4 + 1] = s1;
            out[x * 4 + 2] = s2;
            out[x * 4 + 3] = s3;
        }
        return;
    }
    for (int x = 0; x < out_width; x++) {
        const int32_t *at = inputs + (size_t)x * count;
        const float *w = weights + (size_t)x * count;
        for (int b = 0; b < bands; b++) {
            float sum = 0;
            for (int k = 0; k < count; k++) sum += w[k] * row[(size_t)at[k] * bands + b];
            out[x * bands + b] = sum;
        }
    }
}

/* libvips 8.14's unpremultiply and cast, as its thumbnail applies them: colour divided by the
 * reduced alpha before clipping (so that a Lanczos over- or undershoot in both cancels), none
 * where alpha is below 0.01 in size, then every band clipped to 0..255 and truncated. Our float
 * sums of exact values (255 under opaque pixels) can fall a few millionths short, which
 * truncating would make 254: values within `SLACK` below a whole number count as that number. */
#define SLACK 0.001f
static void unpremultiply(const float *in, int count, int bands, uint8_t *out) {
    int colours = bands - 1;
    for (int x = 0; x < count; x++, in += bands, out += bands) {
        float alpha = in[colours], clipped = alpha + SLACK;
        float factor = (alpha < 0 ? -alpha : alpha) < 0.01f ? 0 : 255.0f / alpha;
        for (int b = 0; b < colours; b++) {
            float v = in[b] * factor + SLACK;
            out[b] = v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)v;
        }
        out[colours] = clipped <= 0 ? 0 : clipped >= 255 ? 255 : (uint8_t)clipped;
    }
}

int wb_reduce_alpha(const uint8_t *in, int width, int height, int bands, int box_x, int box_y,
                    uint8_t *out, int out_width, int out_height,
                    const int32_t *x_inputs, const float *x_weights, int x_count,
                    const int32_t *y_inputs, const float *y_weights, int y_count) {
    int boxed_width = (width + box_x - 1) / box_x, boxed_height = (height + box_y - 1) / box_y;
    size_t line = (size_t)out_width * bands;
    float *boxed = malloc((size_t)boxed_width * bands * sizeof(float));
    float *ring = malloc(line * y_count * sizeof(float));
    float *sums = malloc(line * sizeof(float));
    if (!boxed || !ring || !sums) {
        free(boxed);
        free(ring);
        free(sums);
        return 0;
    }
    int made = 0; /* boxed rows reduced into the ring so far */
    for (int o = 0; o < out_height; o++) {
        const int32_t *rows = y_inputs + (size_t)o * y_count;
        const float *w = y_weights + (size_t)o * y_count;
        int last = 0;
        for (int k = 0; k < y_count; k++) if (rows[k] > last) last = rows[k];
        /* Taps move down with the output row and span at most y_count rows, so the ring
         * still holds every row this one reads. */
        for (; made <= last && made < boxed_height; made++) {
            premultiply_rows(in, width, height, bands, made, box_x, box_y, boxed, boxed_width);
            reduce_row(boxed, bands, ring + (size_t)(made % y_count) * line, out_width, x_inputs, x_weights, x_count);
        }
        memset(sums, 0, line * sizeof(float));
        for (int k = 0; k < y_count; k++) {
            const float *r = ring + (size_t)(rows[k] % y_count) * line;
            float weight = w[k];
            for (size_t i = 0; i < line; i++) sums[i] += weight * r[i];
        }
        unpremultiply(sums, out_width, bands, out + (size_t)o * line);
    }
    free(boxed);
    free(ring);
    free(sums);
    return 1;
}
