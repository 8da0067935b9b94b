// One photo's AVIF at each setting of a grid, by the direct path's encoder (CAVIFCodec), beside
// libvips' heifsave at its defaults (Q 50, effort 4): bytes and CPU seconds, for
// bench/avif-settings.sh to score.   usage: avif-settings PHOTO NAME DIR WIDTH
#include <vips/vips.h>
#include <stdio.h>
#include <time.h>
#include "CAVIFCodec.h"

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 5 || VIPS_INIT(argv[0])) return 1;
    const char *name = argv[2], *dir = argv[3];
    VipsImage *thumb, *image;
    if (vips_thumbnail(argv[1], &thumb, atoi(argv[4]), NULL) || !(image = vips_image_copy_memory(thumb))) return 1;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-ref.png", dir, name);
    vips_pngsave(image, path, NULL);
    size_t n;
    void *pixels = vips_image_write_to_memory(image, &n);
    double start = cpu();
    snprintf(path, sizeof path, "%s/%s-libvips.avif", dir, name);
    if (vips_heifsave(image, path, "Q", 50, "effort", 4, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1, NULL)) return 1;
    printf("%s,libvips Q50 effort4,%s,%.4f\n", name, path, cpu() - start);
    int qualities[] = { 50, 51, 52 }, speeds[] = { 5, 6, 7 };
    for (int q = 0; q < 3; q++) {
        for (int s = 0; s < 3; s++) {
            wb_avif_settings settings = { qualities[q], speeds[s], 1, WB_AVIF_AOM };
            uint8_t *out;
            size_t size;
            char error[300];
            start = cpu();
            if (wb_avif_encode_pixels(pixels, image->Xsize, image->Ysize, image->Bands, settings, NULL, 0, NULL, 0, &out, &size, error, sizeof error)) {
                fprintf(stderr, "%s\n", error);
                return 1;
            }
            double seconds = cpu() - start;
            snprintf(path, sizeof path, "%s/%s-q%d-s%d.avif", dir, name, qualities[q], speeds[s]);
            FILE *file = fopen(path, "wb");
            fwrite(out, 1, size, file);
            fclose(file);
            wb_avif_free(out, size);
            printf("%s,ours Q%d speed%d,%s,%.4f\n", name, qualities[q], speeds[s], path, seconds);
        }
    }
    return 0;
}
