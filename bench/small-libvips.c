/* The small-image workloads written directly against libvips in C, for bench/small.sh: the
 * fixed price libvips asks per image, without any binding. usage: small-libvips WIDTH OUT_DIR FILE...
 * Two threads; per file: vips_thumbnail (libvips' own shrink-on-load) to WIDTH px wide, then
 * jpegsave at Q80. One libvips thread per evaluation and libvips' default operation cache
 * (without it every reduce compiles an orc program of its own, and liborc 0.4.33 runs out of
 * code memory and crashes after a few hundred). */
#include <vips/vips.h>
#include "two-threads.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **files;
static int count, width;
static const char *out_dir;

static int one(int index) {
    VipsImage *thumb;
    if (vips_thumbnail(files[index], &thumb, width, "height", 10000000, NULL)) return -1;
    const char *name = strrchr(files[index], '/');
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out_dir, name ? name + 1 : files[index]);
    int failed = vips_jpegsave(thumb, path, "Q", 80, NULL);
    g_object_unref(thumb);
    return failed;
}

static const char *name(int index) { return files[index]; }

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s WIDTH OUT_DIR FILE...\n", argv[0]); return 2; }
    if (VIPS_INIT(argv[0])) return 1;
    vips_concurrency_set(1);
    width = atoi(argv[1]);
    out_dir = argv[2];
    files = argv + 3;
    count = argc - 3;
    run_on_two_threads(count, one, name);
    return 0;
}
