// A plugin written in C against the kernel contract, for the plugin tests: compiled by them with
// clang into libTestKit.so. Its filters: `invert` (8-bit samples v made INVERT_FROM - v, 255
// unless -D says otherwise: a "rebuilt" kernel), `crash` (a segfault on images 41 pixels wide),
// `hang` (never returns on images 42 pixels wide), `fail` (an error message) and `chatter`
// (inverts, printing to its standard output and error as it goes). -D PLUGIN_NAME, TOOLCHAIN,
// API and NO_ENTRY make the refusal cases.
#include "workbench_kernel.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "testkit"
#endif
#ifndef TOOLCHAIN
#define TOOLCHAIN "unknown"
#endif
#ifndef API
#define API WB_PLUGIN_API_VERSION
#endif
#ifndef INVERT_FROM
#define INVERT_FROM 255
#endif

enum { INVERT, CRASH, HANG, FAIL, CHATTER };

static int32_t process(void *instance, void *state, const wb_image_info *image, const wb_region *region,
                       char *message, size_t capacity) {
    (void)state;
    int behaviour = (int)(intptr_t)instance;
    if (behaviour == CRASH && image->width == 41) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (behaviour == HANG && image->width == 42) {
        for (;;) pause();
    }
    if (behaviour == CHATTER) {
        printf("chatter on stdout: region %d,%d\n", region->left, region->top);
        fflush(stdout);
        fprintf(stderr, "chatter on stderr: no newline at the end");
        fflush(stderr);
        fprintf(stderr, "\n");
    }
    if (behaviour == FAIL) {
        snprintf(message, capacity, "the test kernel refuses %dx%d images", image->width, image->height);
        return 1;
    }
    size_t row = wb_sample_size(image->format) * (size_t)image->bands * (size_t)region->width;
    for (int32_t y = 0; y < region->height; y++) {
        const uint8_t *in = (const uint8_t *)region->in + y * region->in_stride;
        uint8_t *out = (uint8_t *)region->out + y * region->out_stride;
        for (size_t i = 0; i < row; i++) out[i] = image->format == WB_SAMPLE_U8 ? (uint8_t)(INVERT_FROM - in[i]) : in[i];
    }
    return 0;
}

static void release(void *instance) { (void)instance; }

static int32_t make(void *context, const wb_param *params, int32_t count, wb_kernel *kernel, char *message, size_t capacity) {
    (void)params; (void)count; (void)message; (void)capacity;
    memset(kernel, 0, sizeof *kernel);
    kernel->api_version = WB_KERNEL_API_VERSION;
    kernel->name = PLUGIN_NAME;
    kernel->instance = context;
    kernel->process = process;
    kernel->release = release;
    return 0;
}

static const wb_filter filters[] = {
    {"invert", (void *)(intptr_t)INVERT, make},
    {"crash", (void *)(intptr_t)CRASH, make},
    {"hang", (void *)(intptr_t)HANG, make},
    {"fail", (void *)(intptr_t)FAIL, make},
    {"chatter", (void *)(intptr_t)CHATTER, make},
};

static const wb_plugin plugin = {API, WB_KERNEL_API_VERSION, TOOLCHAIN, PLUGIN_NAME, 5, filters};

#ifndef NO_ENTRY
const wb_plugin *workbench_plugin(void) { return &plugin; }
#endif
