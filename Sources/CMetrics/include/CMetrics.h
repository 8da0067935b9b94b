#ifndef WB_METRICS_H
#define WB_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* SSIMULACRA2 (Jon Sneyers' perceptual metric, as libjxl's tool and the `ssimulacra2` PyPI
 * package define it): 100 for identical images, about 90 visually lossless, 70 high quality,
 * 50 medium, 30 low; below 0 for very distorted ones.
 *
 * Pixels are 8-bit sRGB, interleaved, `bands` 1 (grey) or 3 (RGB); a row is `stride` bytes.
 * The original's half of the work (its colour transform, blurred means and variances at six
 * scales) is kept in a reference, so that scoring several candidates against one original
 * costs only the candidates' half. */

typedef struct wb_ssim2_reference wb_ssim2_reference;

/* NULL when out of memory, or when the image is smaller than 8 × 8 (no scale to measure). */
wb_ssim2_reference *wb_ssim2_reference_new(const uint8_t *pixels, int width, int height, size_t stride, int bands);

/* The score of `pixels` (the reference's width and height) against the reference. NaN when out
 * of memory. Safe to call from several threads at once on one reference. */
double wb_ssim2_score(const wb_ssim2_reference *reference, const uint8_t *pixels, size_t stride, int bands);

void wb_ssim2_reference_free(wb_ssim2_reference *reference);

#endif
