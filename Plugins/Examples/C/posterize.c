// A plugin in plain C: `posterize.levels` keeps `levels` evenly spaced values per colour band
// (alpha is copied through). It links nothing of Swift's, so its table declares no toolchain.
//
// Build: make (needs a C compiler and the kernel contract header, workbench_kernel.h).
#include "workbench_kernel.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int levels;
} posterize;

// One sample of `max` white, snapped to the nearest of `levels` steps.
static float snap(float value, float max, int levels) {
    float steps = (float)(levels - 1);
    return roundf(value / max * steps) / steps * max;
}

static int32_t process(void *instance, void *state, const wb_image_info *image, const wb_region *region,
                       char *message, size_t capacity) {
    (void)state; (void)message; (void)capacity;
    const posterize *p = instance;
    int colour = image->has_alpha ? image->bands - 1 : image->bands;
    for (int32_t y = 0; y < region->height; y++) {
        const char *in = (const char *)region->in + y * region->in_stride;
        char *out = (char *)region->out + y * region->out_stride;
        for (int32_t x = 0; x < region->width; x++) {
            for (int b = 0; b < image->bands; b++) {
                size_t i = (size_t)x * (size_t)image->bands + (size_t)b;
                switch (image->format) {
                case WB_SAMPLE_U8: {
                    uint8_t v = ((const uint8_t *)in)[i];
                    ((uint8_t *)out)[i] = b < colour ? (uint8_t)snap(v, 255, p->levels) : v;
                    break;
                }
                case WB_SAMPLE_U16: {
                    uint16_t v = ((const uint16_t *)in)[i];
                    ((uint16_t *)out)[i] = b < colour ? (uint16_t)snap(v, 65535, p->levels) : v;
                    break;
                }
                default: {
                    float v = ((const float *)in)[i];
                    ((float *)out)[i] = b < colour ? snap(v, image->max, p->levels) : v;
                }
                }
            }
        }
    }
    return 0;
}

static void release(void *instance) { free(instance); }

static int32_t make(void *context, const wb_param *params, int32_t count, wb_kernel *kernel, char *message, size_t capacity) {
    (void)context;
    posterize *p = malloc(sizeof *p);
    if (!p) {
        snprintf(message, capacity, "out of memory");
        return 1;
    }
    p->levels = 4;
    for (int32_t i = 0; i < count; i++) {
        if (strcmp(params[i].name, "levels") == 0) p->levels = (int)params[i].number;
    }
    memset(kernel, 0, sizeof *kernel);
    kernel->api_version = WB_KERNEL_API_VERSION;
    kernel->name = "posterize.levels";
    kernel->instance = p;
    kernel->process = process;
    kernel->release = release;
    return 0;
}

static const wb_filter filters[] = {{"levels", NULL, make}};

// toolchain NULL: no Swift runtime here, so none to match.
static const wb_plugin plugin = {WB_PLUGIN_API_VERSION, WB_KERNEL_API_VERSION, NULL, "posterize", 1, filters};

const wb_plugin *workbench_plugin(void) { return &plugin; }
