#ifndef WB_SSIM2_LEVELS_H
#define WB_SSIM2_LEVELS_H

#include <stddef.h>
#include <stdint.h>

/* What the two halves of our SSIMULACRA2 share: levels.c makes an image's scales in XYB and
 * keeps their memory; ssimulacra2.c blurs, compares and pools them. */

/* Loops over planes compiled twice, for AVX2 and for any x86-64, picked when the library loads;
 * both do the same float operations in the same order. */
#if defined(__x86_64__)
#define WIDE __attribute__((target_clones("avx2", "default")))
#else
#define WIDE
#endif

enum { scales = 6, radius = 5, taps = 2 * radius + 1 };

/* One image at one scale: linear RGB (to make the next scale from) and XYB, plane by plane. */
typedef struct {
    int width, height;
    float *linear[3];
    float *xyb[3];
} level;

/* The blur's Gaussian (sigma 1.5), filled by ssim2_make_tables. */
extern float ssim2_kernel[taps];

/* Fills the sRGB-to-linear table and the Gaussian, once. */
void ssim2_make_tables(void);

/* A plane of floats, from those given back when one fits; NULL when out of memory. */
float *ssim2_plane(int width, int height);

/* Gives a plane back, to be kept for the next request or freed. NULL is ignored. */
void ssim2_give_back(float *plane);

/* Gives back a level's planes. */
void ssim2_free_level(level *l);

/* Makes the image's levels from its pixels: `count` of them (those at least 8 × 8). Levels kept
 * from an earlier call are reused as they are. Returns 0 when out of memory. */
int ssim2_build_levels(level *levels, int count, int width, int height, const uint8_t *pixels, size_t stride, int bands);

/* How many scales an image of this size has (each at least 8 × 8), up to `scales`. */
int ssim2_count_scales(int width, int height);

#endif
