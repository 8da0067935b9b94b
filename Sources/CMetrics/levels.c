#include "levels.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* An image's levels for SSIMULACRA2: 8-bit sRGB to linear light, halved scale by scale, each
 * scale in XYB; and the memory they live in. */

static float linear_of[256];
float ssim2_kernel[taps];
static int tables_ready;

void ssim2_make_tables(void) {
    if (__atomic_load_n(&tables_ready, __ATOMIC_ACQUIRE)) return;
    for (int i = 0; i < 256; i++) {
        double v = i / 255.0;
        linear_of[i] = (float)(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4));
    }
    double sum = 0, w[taps];
    for (int k = -radius; k <= radius; k++) sum += w[k + radius] = exp(-0.5 * k * k / (1.5 * 1.5));
    for (int k = 0; k < taps; k++) ssim2_kernel[k] = (float)(w[k] / sum);
    /* Two threads may both fill the tables: they write the same values. */
    __atomic_store_n(&tables_ready, 1, __ATOMIC_RELEASE);
}

/* Planes given back are kept for the next reference or scratch, up to `kept_limit` bytes: a
 * search makes and drops some 50 MB of planes at 960 × 640, and fresh memory costs a page fault
 * every 4 KiB (a fifth of a search's time). A request takes the smallest kept plane that holds
 * it; over the limit, the longest kept go back to malloc (photos of a batch differ in height, so
 * old sizes give way to new ones). Each plane carries its size in front of it. */
enum { kept_slots = 512, header = 32 };
static const size_t kept_limit = (size_t)160 << 20;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static float *kept[kept_slots]; /* oldest first */
static int kept_count;
static size_t kept_bytes;

static size_t size_of(const float *p) { return *(const size_t *)((const char *)p - header); }
static void release(float *p) { free((char *)p - header); }

float *ssim2_plane(int width, int height) {
    size_t bytes = (size_t)width * height * sizeof(float);
    float *found = NULL;
    pthread_mutex_lock(&kept_lock);
    int best = -1;
    for (int i = 0; i < kept_count; i++) {
        size_t size = size_of(kept[i]);
        if (size >= bytes && (best < 0 || size < size_of(kept[best]))) best = i;
    }
    if (best >= 0) {
        found = kept[best];
        kept_bytes -= size_of(found);
        memmove(&kept[best], &kept[best + 1], (size_t)(kept_count - best - 1) * sizeof *kept);
        kept_count--;
    }
    pthread_mutex_unlock(&kept_lock);
    if (found) return found;
    char *block = malloc(header + bytes);
    if (!block) return NULL;
    *(size_t *)block = bytes;
    return (float *)(block + header);
}

void ssim2_give_back(float *p) {
    if (!p) return;
    size_t size = size_of(p);
    if (size > kept_limit) { release(p); return; }
    float *evicted[kept_slots];
    int evicting = 0;
    pthread_mutex_lock(&kept_lock);
    while (kept_count > 0 && (kept_count == kept_slots || kept_bytes + size > kept_limit)) {
        evicted[evicting++] = kept[0];
        kept_bytes -= size_of(kept[0]);
        memmove(&kept[0], &kept[1], (size_t)(kept_count - 1) * sizeof *kept);
        kept_count--;
    }
    kept[kept_count++] = p;
    kept_bytes += size;
    pthread_mutex_unlock(&kept_lock);
    for (int i = 0; i < evicting; i++) release(evicted[i]);
}

void ssim2_free_level(level *l) {
    for (int c = 0; c < 3; c++) {
        ssim2_give_back(l->linear[c]);
        ssim2_give_back(l->xyb[c]);
        l->linear[c] = l->xyb[c] = NULL;
    }
}

static int alloc_level(level *l, int width, int height) {
    l->width = width;
    l->height = height;
    for (int c = 0; c < 3; c++) {
        l->linear[c] = ssim2_plane(width, height);
        l->xyb[c] = ssim2_plane(width, height);
        if (!l->linear[c] || !l->xyb[c]) return 0;
    }
    return 1;
}

/* The cube root of x ≥ 0 to float precision: a first guess from the exponent's bits, then
 * Newton's steps (libm's cbrtf was half of the whole score's time). */
static inline float cube_root(float x) {
    if (x <= 0) return 0;
    union { float f; uint32_t i; } u = {x};
    u.i = u.i / 3 + 709921077u;
    float y = u.f;
    for (int k = 0; k < 2; k++) y = y - (y * y * y - x) / (3.0f * y * y);
    return y;
}

/* libjxl's opsin absorbance: a mix of linear RGB with a bias, cube-rooted, then XYB made
 * positive the way SSIMULACRA2 shifts it. */
WIDE static void to_xyb(level *l) {
    static const float m[9] = {0.30f, 0.622f, 0.078f, 0.23f, 0.692f, 0.078f,
                               0.24342268924547819f, 0.20476744424496821f, 0.55180986651f};
    const float bias = 0.0037930732552754493f;
    const float root = cube_root(bias);
    size_t n = (size_t)l->width * l->height;
    const float *r = l->linear[0], *g = l->linear[1], *b = l->linear[2];
    float *x = l->xyb[0], *y = l->xyb[1], *z = l->xyb[2];
    for (size_t i = 0; i < n; i++) {
        float m0 = m[0] * r[i] + m[1] * g[i] + m[2] * b[i] + bias;
        float m1 = m[3] * r[i] + m[4] * g[i] + m[5] * b[i] + bias;
        float m2 = m[6] * r[i] + m[7] * g[i] + m[8] * b[i] + bias;
        m0 = cube_root(m0) - root;
        m1 = cube_root(m1) - root;
        m2 = cube_root(m2) - root;
        float xx = 0.5f * (m0 - m1), yy = 0.5f * (m0 + m1);
        x[i] = xx * 14.0f + 0.42f;
        y[i] = yy + 0.01f;
        z[i] = (m2 - yy) + 0.55f;
    }
}

static void from_pixels(level *l, const uint8_t *pixels, size_t stride, int bands) {
    for (int y = 0; y < l->height; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        float *r = l->linear[0] + (size_t)y * l->width, *g = l->linear[1] + (size_t)y * l->width, *b = l->linear[2] + (size_t)y * l->width;
        if (bands == 1) {
            for (int x = 0; x < l->width; x++) r[x] = g[x] = b[x] = linear_of[row[x]];
        } else {
            for (int x = 0; x < l->width; x++) {
                r[x] = linear_of[row[x * bands]];
                g[x] = linear_of[row[x * bands + 1]];
                b[x] = linear_of[row[x * bands + 2]];
            }
        }
    }
}

/* Half the size, each pixel the mean of the 2 × 2 it covers (of fewer at the right and bottom
 * edges of an odd size). Whole 2 × 2 blocks take the loop that vectorises; the sums are in the
 * same order either way. */
WIDE static void halve(const level *from, level *to) {
    for (int c = 0; c < 3; c++) {
        const float *in = from->linear[c];
        float *out = to->linear[c];
        for (int y = 0; y < to->height; y++) {
            int y0 = 2 * y, y1 = 2 * y + 1 < from->height ? 2 * y + 1 : 2 * y;
            const float *a = in + (size_t)y0 * from->width, *b = in + (size_t)y1 * from->width;
            float *o = out + (size_t)y * to->width;
            int pairs = from->width / 2; /* whole columns pairs */
            if (y1 != y0) {
                for (int x = 0; x < pairs; x++) {
                    float sum = a[2 * x] + b[2 * x];
                    sum += a[2 * x + 1] + b[2 * x + 1];
                    o[x] = sum / 4.0f;
                }
            } else {
                for (int x = 0; x < pairs; x++) {
                    float sum = a[2 * x];
                    sum += a[2 * x + 1];
                    o[x] = sum / 2.0f;
                }
            }
            if (pairs < to->width) { /* the odd last column */
                float sum = a[2 * pairs] + (y1 != y0 ? b[2 * pairs] : 0);
                o[pairs] = sum / (y1 != y0 ? 2.0f : 1.0f);
            }
        }
    }
}

/* Makes the image's levels from its pixels: `count` of them (those at least 8 × 8). */
int ssim2_build_levels(level *levels, int count, int width, int height, const uint8_t *pixels, size_t stride, int bands) {
    for (int s = 0; s < count; s++) {
        /* Levels kept from an earlier score are reused as they are. */
        if (!levels[s].linear[0] && !alloc_level(&levels[s], width, height)) return 0;
        if (s == 0) from_pixels(&levels[0], pixels, stride, bands);
        else halve(&levels[s - 1], &levels[s]);
        to_xyb(&levels[s]);
        width = (width + 1) / 2;
        height = (height + 1) / 2;
    }
    return 1;
}

int ssim2_count_scales(int width, int height) {
    int count = 0;
    while (count < scales && width >= 8 && height >= 8) {
        count++;
        width = (width + 1) / 2;
        height = (height + 1) / 2;
    }
    return count;
}
