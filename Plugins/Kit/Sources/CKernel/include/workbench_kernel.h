// The kernel contract: how the host runs a pixel kernel, as plain C.
//
// This header is the one contract shared by the host and every kernel, built-in or plugin: a
// kernel is a table of C functions and a pointer to its own data, so nothing of Swift (or any
// other language's runtime) crosses between a kernel and the host that runs it.
//
// The host runs a kernel as a node of libvips' pipeline. For every region libvips asks for, on
// libvips' own threads, the host hands the kernel the input pixels that region needs (for an
// area kernel, the output rectangle grown by `margin` on every side; beyond the image's edges
// the edge pixels are repeated) and the memory to write the output into. Each thread that runs
// the kernel gets its own state from `start` (scratch buffers), given back to `stop`.
#ifndef WORKBENCH_KERNEL_H
#define WORKBENCH_KERNEL_H

#include <stddef.h>
#include <stdint.h>

// Bumped when this header changes incompatibly; a table with another version is refused.
#define WB_KERNEL_API_VERSION 1

// How one sample is stored. Any other libvips format is cast to float for the kernel and back.
typedef enum {
    WB_SAMPLE_U8 = 0,   // uint8_t, 0 … 255
    WB_SAMPLE_U16 = 1,  // uint16_t, 0 … 65535
    WB_SAMPLE_F32 = 2,  // float, 0 … `max` (255 for sRGB and grey, 1 for scRGB)
} wb_sample_format;

// The image a kernel runs on.
typedef struct {
    int32_t width, height;   // the whole image, in pixels
    int32_t bands;           // samples per pixel, 1 … 4, interleaved
    int32_t has_alpha;       // 1: the last band is alpha (a kernel should copy it through)
    int32_t format;          // a wb_sample_format
    float max;               // the value of white (full intensity) in this format
} wb_image_info;

// One rectangle of work. `in` points at the input pixel (left - margin, top - margin) and has
// width + 2·margin by height + 2·margin pixels; `out` points at the output pixel (left, top).
// Strides are in bytes from one row to the next. Output has `out_bands` bands (see below).
typedef struct {
    const void *in;
    ptrdiff_t in_stride;
    void *out;
    ptrdiff_t out_stride;
    int32_t left, top, width, height;   // the output rectangle, in image coordinates
} wb_region;

typedef struct wb_kernel {
    uint32_t api_version;         // WB_KERNEL_API_VERSION
    const char *name;             // for messages, e.g. "boxBlur" or "myplugin.halftone"
    int32_t margin;               // 0: a point kernel; n: reads n pixels around each output pixel
    int32_t input_colour_bands;   // 0: any; 3: the host makes grey images sRGB first
    int32_t output_colour_bands;  // 0: as the input; 1: grey out (alpha, if any, follows)
    void *instance;               // the kernel's own data (its parameters), given to every call

    // Per-thread state, once per libvips thread before its first region; may return NULL if the
    // kernel needs none. Returns 0, or nonzero with a message in `message` on failure.
    int32_t (*start)(void *instance, const wb_image_info *image, void **state, char *message, size_t capacity);
    // Fills one region of output. Returns 0, or nonzero with a message (the item fails with it).
    int32_t (*process)(void *instance, void *state, const wb_image_info *image, const wb_region *region,
                       char *message, size_t capacity);
    // Frees what `start` made.
    void (*stop)(void *instance, void *state);
    // The host lets go of `instance`: after the last image using it is closed.
    void (*release)(void *instance);
} wb_kernel;

// Bytes in one sample of `format` (0 for an unknown format). Inline: a plugin written in C
// links against nothing of the host's.
static inline size_t wb_sample_size(int32_t format) {
    switch (format) {
    case WB_SAMPLE_U8: return 1;
    case WB_SAMPLE_U16: return 2;
    case WB_SAMPLE_F32: return 4;
    default: return 0;
    }
}

// ---- Plugins ----------------------------------------------------------------------------------
//
// A plugin is a folder with `plugin.json` (its filters and their parameters, as data) and one
// shared library exporting `workbench_plugin`, a function returning the plugin's table. The host
// reads the manifest without loading code; it loads the library only when a run uses one of its
// filters, checks the table against the manifest, and never unloads it.

// Bumped when the plugin table changes incompatibly; a plugin with another version is refused.
#define WB_PLUGIN_API_VERSION 1
// The name of the one symbol a plugin library exports: `const wb_plugin *workbench_plugin(void)`.
#define WB_PLUGIN_ENTRY "workbench_plugin"

// How a parameter's value is given to a filter.
typedef enum {
    WB_PARAM_NUMBER = 0,    // `number` (integers and booleans too: false 0, true 1)
    WB_PARAM_TEXT = 1,      // `text`, UTF-8
    WB_PARAM_NUMBERS = 2,   // `numbers`: `count` values; a matrix row after row, `rows` rows
} wb_param_kind;

// One parameter's value, as the host validated it against the manifest (defaults filled in).
typedef struct {
    const char *name;
    int32_t kind;           // a wb_param_kind
    double number;
    const char *text;
    const double *numbers;
    int32_t count;
    int32_t rows;
} wb_param;

// One filter of a plugin. The pointers given to `make` are valid during the call only.
typedef struct {
    const char *name;       // within the plugin, as in plugin.json: the op is `<plugin>.<name>`
    void *context;          // the plugin's own, given back to `make`
    // Makes the filter's kernel for these parameter values into `kernel`. Returns 0, or nonzero
    // with a message (the node's item fails with it).
    int32_t (*make)(void *context, const wb_param *params, int32_t count, wb_kernel *kernel,
                    char *message, size_t capacity);
} wb_filter;

// What `workbench_plugin` returns; lives as long as the process.
typedef struct {
    uint32_t api_version;       // WB_PLUGIN_API_VERSION
    uint32_t kernel_api_version; // WB_KERNEL_API_VERSION
    const char *toolchain;      // the Swift that built it, e.g. "swift-6.3" (its runtime is loaded with it);
                                // NULL for a library that links no Swift runtime (C, Rust, …)
    const char *name;           // as in plugin.json
    int32_t filter_count;
    const wb_filter *filters;
} wb_plugin;

typedef const wb_plugin *(*wb_plugin_entry)(void);

#endif
