// Kernels as libvips pipeline nodes: the host side of the kernel contract (workbench_kernel.h).
#include "CVipsBridge.h"
#include <stdio.h>

typedef struct {
    wb_kernel kernel;
    wb_image_info info;
    // What regions are read from: the input, grown by the kernel's margin (edges repeated).
    VipsImage *source;
    const int *cancelled;
    cvips_kernel_closed closed;
    cvips_kernel_failed failed;
    void *closed_context;
} node;

// One per libvips thread: its input region and the kernel's state for that thread.
typedef struct {
    VipsRegion *region;
    void *state;
} sequence;

static void report(const node *n, const char *message, const char *fallback) {
    const char *name = n->kernel.name ? n->kernel.name : "kernel";
    const char *text = message[0] != '\0' ? message : fallback;
    vips_error(name, "%s", text);
    if (n->failed != NULL) {
        char line[400];
        snprintf(line, sizeof line, "%s: %s", name, text);
        n->failed(n->closed_context, line);
    }
}

static void *node_start(VipsImage *out, void *a, void *b) {
    (void) out; (void) a;
    node *n = (node *) b;
    sequence *seq = g_new0(sequence, 1);
    seq->region = vips_region_new(n->source);
    if (seq->region == NULL) {
        report(n, "", "libvips could not make a region to read the input from");
        g_free(seq);
        return NULL;
    }
    if (n->kernel.start != NULL) {
        char message[256] = "";
        if (n->kernel.start(n->kernel.instance, &n->info, &seq->state, message, sizeof message) != 0) {
            report(n, message, "the kernel could not start");
            g_object_unref(seq->region);
            g_free(seq);
            return NULL;
        }
    }
    return seq;
}

static int node_stop(void *vseq, void *a, void *b) {
    (void) a;
    sequence *seq = (sequence *) vseq;
    node *n = (node *) b;
    if (n->kernel.stop != NULL) n->kernel.stop(n->kernel.instance, seq->state);
    g_object_unref(seq->region);
    g_free(seq);
    return 0;
}

static int node_generate(VipsRegion *out, void *vseq, void *a, void *b, gboolean *stop) {
    (void) a; (void) stop;
    sequence *seq = (sequence *) vseq;
    node *n = (node *) b;
    // Between regions: the node's own cancellation, then an evaluation being stopped.
    if (n->cancelled != NULL && __atomic_load_n(n->cancelled, __ATOMIC_ACQUIRE)) {
        vips_error(n->kernel.name, "cancelled");
        return -1;
    }
    if (vips_image_iskilled(out->im)) return -1;
    const VipsRect *r = &out->valid;
    int margin = n->kernel.margin;
    // Pixel (x, y) of the image is pixel (x + margin, y + margin) of the grown source.
    VipsRect need = { r->left, r->top, r->width + 2 * margin, r->height + 2 * margin };
    if (vips_region_prepare(seq->region, &need)) return -1;
    wb_region region = {
        .in = VIPS_REGION_ADDR(seq->region, need.left, need.top),
        .in_stride = VIPS_REGION_LSKIP(seq->region),
        .out = VIPS_REGION_ADDR(out, r->left, r->top),
        .out_stride = VIPS_REGION_LSKIP(out),
        .left = r->left, .top = r->top, .width = r->width, .height = r->height,
    };
    char message[256] = "";
    if (n->kernel.process(n->kernel.instance, seq->state, &n->info, &region, message, sizeof message) != 0) {
        report(n, message, "the kernel failed");
        return -1;
    }
    return 0;
}

static void node_close(VipsImage *image, gpointer data) {
    (void) image;
    node *n = (node *) data;
    if (n->kernel.release != NULL) n->kernel.release(n->kernel.instance);
    if (n->closed != NULL) n->closed(n->closed_context);
    g_object_unref(n->source);
    g_free(n);
}

static int sample_format(VipsBandFormat format) {
    switch (format) {
    case VIPS_FORMAT_UCHAR: return WB_SAMPLE_U8;
    case VIPS_FORMAT_USHORT: return WB_SAMPLE_U16;
    case VIPS_FORMAT_FLOAT: return WB_SAMPLE_F32;
    default: return -1;
    }
}

VipsImage *cvips_kernel_node(VipsImage *in, const wb_kernel *kernel, const int *cancelled,
                             cvips_kernel_closed closed, cvips_kernel_failed failed, void *closed_context) {
    node *n = g_new0(node, 1);
    n->kernel = *kernel;
    n->cancelled = cancelled;
    n->closed = closed;
    n->failed = failed;
    n->closed_context = closed_context;
    n->info.width = in->Xsize;
    n->info.height = in->Ysize;
    n->info.bands = in->Bands;
    n->info.has_alpha = vips_image_hasalpha(in) ? 1 : 0;
    n->info.format = sample_format(in->BandFmt);
    n->info.max = in->BandFmt == VIPS_FORMAT_UCHAR ? 255.0f
        : in->BandFmt == VIPS_FORMAT_USHORT ? 65535.0f
        : (in->Type == VIPS_INTERPRETATION_scRGB || in->Type == VIPS_INTERPRETATION_XYZ) ? 1.0f : 255.0f;

    const char *name = kernel->name != NULL ? kernel->name : "kernel";
    int colour = in->Bands - n->info.has_alpha;
    int out_colour = kernel->output_colour_bands > 0 ? kernel->output_colour_bands : colour;
    const char *problem = kernel->api_version != WB_KERNEL_API_VERSION ? "was built for another kernel API version"
        : kernel->process == NULL ? "has no process function"
        : n->info.format < 0 ? "needs 8-bit, 16-bit or float samples"
        : in->Bands < 1 || in->Bands > 4 ? "takes 1 to 4 bands"
        : kernel->margin < 0 || kernel->margin > 1024 ? "declares a margin outside 0 … 1024"
        : kernel->input_colour_bands > 0 && colour != kernel->input_colour_bands ? "needs another number of colour bands"
        : out_colour + n->info.has_alpha > 4 ? "would make more than 4 bands"
        : NULL;
    n->source = in;
    g_object_ref(in);
    if (problem != NULL) {
        vips_error(name, "the kernel %s", problem);
        node_close(NULL, n);
        return NULL;
    }
    if (kernel->margin > 0) {
        VipsImage *grown = NULL;
        int m = kernel->margin;
        if (vips_embed(in, &grown, m, m, in->Xsize + 2 * m, in->Ysize + 2 * m, "extend", VIPS_EXTEND_COPY, NULL)) {
            node_close(NULL, n);
            return NULL;
        }
        g_object_unref(in);
        n->source = grown;
    }
    VipsImage *source = n->source;

    VipsImage *out = vips_image_new();
    VipsImage *inputs[2] = { source, NULL };
    if (vips_image_pipeline_array(out, kernel->margin > 0 ? VIPS_DEMAND_STYLE_SMALLTILE : VIPS_DEMAND_STYLE_THINSTRIP,
                                  inputs)) {
        g_object_unref(out);
        node_close(NULL, n);
        return NULL;
    }
    out->Xsize = in->Xsize;
    out->Ysize = in->Ysize;
    out->Bands = out_colour + n->info.has_alpha;
    if (out_colour == 1 && colour != 1) {
        out->Type = in->BandFmt == VIPS_FORMAT_USHORT ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_B_W;
    } else if (out_colour >= 3 && colour < 3) {
        out->Type = in->BandFmt == VIPS_FORMAT_USHORT ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB;
    }
    g_signal_connect_data(out, "close", G_CALLBACK(node_close), n, NULL, 0);
    if (vips_image_generate(out, node_start, node_generate, node_stop, source, n)) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}
