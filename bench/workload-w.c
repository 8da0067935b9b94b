/* Workload W written directly against libvips in C, for bench/workload-w.sh: what the same
 * libvips settings give without any binding. usage: workload-w-c OUT_DIR PHOTO...
 * Two threads; per photo: read the file, decode at the smallest JPEG DCT scale that covers
 * 512 px (thumbnail_image does the rest), the classic sepia matrix through recomb, JPEG Q85.
 * Same process settings as workbench: 2 malloc arenas, 1 MiB mmap threshold, one libvips
 * thread per evaluation, an operation cache of 10. */
#include <vips/vips.h>
#include <malloc.h>
#include "two-threads.h"
#include <stdio.h>

static char **photos;
static int count;
static const char *out_dir;
static VipsImage *sepia;

static int one(int index) {
    gchar *bytes;
    gsize length;
    if (!g_file_get_contents(photos[index], &bytes, &length, NULL)) return -1;
    VipsImage *header = vips_image_new_from_buffer(bytes, length, "", NULL);
    if (!header) return -1;
    int width = header->Xsize, shrink = 1;
    g_object_unref(header);
    for (int s = 8; s >= 2; s /= 2) if (width / s >= 512) { shrink = s; break; }
    VipsImage *loaded, *thumb, *toned, *cast;
    void *jpeg;
    size_t jpeg_length;
    int failed = vips_jpegload_buffer(bytes, length, &loaded, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL, NULL)
        || vips_thumbnail_image(loaded, &thumb, 512, "height", 10000000, NULL)
        || vips_recomb(thumb, &toned, sepia, NULL)
        || vips_cast(toned, &cast, VIPS_FORMAT_UCHAR, NULL)
        || vips_jpegsave_buffer(cast, &jpeg, &jpeg_length, "Q", 85, NULL);
    if (!failed) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%d.jpg", out_dir, index);
        g_file_set_contents(path, jpeg, jpeg_length, NULL);
        g_free(jpeg);
        g_object_unref(cast); g_object_unref(toned); g_object_unref(thumb); g_object_unref(loaded);
    }
    g_free(bytes);
    return failed ? -1 : 0;
}

static const char *name(int index) { return photos[index]; }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s OUT_DIR PHOTO...\n", argv[0]); return 2; }
    mallopt(M_ARENA_MAX, 2);
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    if (VIPS_INIT(argv[0])) return 1;
    vips_concurrency_set(1);
    vips_cache_set_max(10);
    out_dir = argv[1];
    photos = argv + 2;
    count = argc - 2;
    double matrix[9] = {0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131};
    sepia = vips_image_new_matrix_from_array(3, 3, matrix, 9);
    run_on_two_threads(count, one, name);
    return 0;
}
