#ifndef WB_RESAMPLE_H
#define WB_RESAMPLE_H

#include <stdint.h>

/* The direct path's Lanczos passes over 8-bit rows (Sources/WorkbenchDirect/Resampler.swift
 * makes the weights). Each output sample is (2048 + sum of weight * input) >> 12, clamped to
 * 0..255: weights are 1/4096ths and fit in 16 bits. With AVX2 where the processor has it, the
 * same integers otherwise: the bytes written do not depend on the processor. */

/* `inputs[o * count + k]` is the input (row or column) output o's tap k reads, already held at
 * the image's edges; `first[o]` is where its taps start before that (possibly negative). */

/* Rows: out row y = sum over k < count of weights[y * count + k] * in row inputs[y * count + k].
 * `stride` bytes a row. */
void wb_reduce_rows(const uint8_t *in, int stride, uint8_t *out, int out_height,
                    const int32_t *inputs, const int16_t *weights, int count);

/* Columns: out pixel x of each row = sum over k < count of weights[x * count + k] * in pixel
 * inputs[x * count + k], band by band. */
void wb_reduce_columns(const uint8_t *in, int in_width, int height, int bands, uint8_t *out, int out_width,
                       const int32_t *first, const int32_t *inputs, const int16_t *weights, int count);

/* An 8-bit image whose last band is alpha (`bands` 2 or 4), reduced as libvips' thumbnail
 * reduces one: colour premultiplied by alpha, box-averaged `box_x` × `box_y` pixels at a time
 * (a box past the edge repeats the edge pixels), then Lanczos in floats (`x_inputs`/`x_weights`
 * over the boxed columns, `y_…` over the boxed rows, `count` taps per output, held at the
 * edges), divided by the reduced alpha and truncated to 8 bits, as libvips casts. Writes out_width × out_height × bands bytes to `out`; 0 when out of memory. */
int wb_reduce_alpha(const uint8_t *in, int width, int height, int bands, int box_x, int box_y,
                    uint8_t *out, int out_width, int out_height,
                    const int32_t *x_inputs, const float *x_weights, int x_count,
                    const int32_t *y_inputs, const float *y_weights, int y_count);

/* Tests: nonzero runs the plain C loops even where AVX2 is present (they write the same bytes). */
void wb_resample_scalar_only(int on);

#endif
