/* bench/quality-target.sh's timing of our SSIMULACRA2 alone: two images of one size (any format
 * libvips reads), the original prepared once and the other scored ten times; prints
 * "prepare_ms score_ms score" (medians of 10; decoding not counted).
 * Built by the script: cc -O2 -ffp-contract=off this Sources/CMetrics/{ssimulacra2,levels}.c $(pkg-config vips). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vips/vips.h>
#include "CMetrics.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint8_t *pixels(const char *path, int *width, int *height) {
    VipsImage *image = vips_image_new_from_file(path, NULL), *rgb = NULL;
    if (!image || vips_colourspace(image, &rgb, VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
    size_t size;
    uint8_t *memory = vips_image_write_to_memory(rgb, &size);
    *width = rgb->Xsize;
    *height = rgb->Ysize;
    g_object_unref(rgb);
    g_object_unref(image);
    return memory;
}

int main(int argc, char **argv) {
    if (argc != 3 || VIPS_INIT(argv[0])) { fprintf(stderr, "usage: %s ORIGINAL DISTORTED\n", argv[0]); return 2; }
    int w, h, w2, h2;
    uint8_t *a = pixels(argv[1], &w, &h), *b = pixels(argv[2], &w2, &h2);
    if (!a || !b || w != w2 || h != h2) { fprintf(stderr, "two images of one size, please\n"); return 1; }
    double prepare[10], score[10], value = 0;
    for (int k = 0; k < 10; k++) {
        double t0 = now();
        wb_ssim2_reference *ref = wb_ssim2_reference_new(a, w, h, (size_t)w * 3, 3);
        double t1 = now();
        value = wb_ssim2_score(ref, b, (size_t)w * 3, 3);
        double t2 = now();
        prepare[k] = (t1 - t0) * 1e3;
        score[k] = (t2 - t1) * 1e3;
        wb_ssim2_reference_free(ref);
    }
    qsort(prepare, 10, sizeof(double), compare);
    qsort(score, 10, sizeof(double), compare);
    /* A search scores several candidates against one reference: its later scores reuse memory. */
    wb_ssim2_reference *ref = wb_ssim2_reference_new(a, w, h, (size_t)w * 3, 3);
    double again[10];
    for (int k = 0; k < 10; k++) {
        double t = now();
        wb_ssim2_score(ref, b, (size_t)w * 3, 3);
        again[k] = (now() - t) * 1e3;
    }
    qsort(again, 10, sizeof(double), compare);
    printf("%.2f %.2f %.2f %.4f\n", (prepare[4] + prepare[5]) / 2, (score[4] + score[5]) / 2, (again[4] + again[5]) / 2, value);
    return 0;
}
