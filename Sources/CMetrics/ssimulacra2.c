#include "CMetrics.h"
#include "levels.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* SSIMULACRA2, in the steps of the reference implementations:
 *
 *   sRGB → linear → XYB (libjxl's opsin absorbance, cube root, shifted positive);
 *   at each of six scales (each half the last, averaged in linear light):
 *     means and variances blurred by a Gaussian (sigma 1.5, 11 taps: zeros past the left and
 *     right edges, rows mirrored at the top and bottom, as the PyPI package does: it pads
 *     with zeros across what is, in its transposed planes, the image's width);
 *     an SSIM map without the luminance term, and the edge maps (what the distorted image
 *     adds: ringing, blocking; what it loses: blur), each pooled as a mean and a 4-norm;
 *   108 pooled numbers weighted, and the sum mapped to the score.
 *
 * Planes are floats; sums are doubles. The loops over planes are compiled twice, for AVX2 and
 * for any x86-64, and picked when the library loads; both do the same operations in the same
 * order (no fused multiply-adds, sums kept in eight fixed lanes), so a score does not depend on
 * the processor. levels.c makes the scales in XYB; this file blurs, compares and pools them. */

static const double weight[108] = {
    0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0, 0.0, 0.0004371155730107379, 0.0,
    1.1041726426657346, 0.00066284834129271, 0.00015231632783718752, 0.0, 0.0016406437456599754, 0.0,
    1.8422455520539298, 11.441172603757666, 0.0, 0.0007989109436015163, 0.000176816438078653, 0.0,
    1.8787594979546387, 10.94906990605142, 0.0, 0.0007289346991508072, 0.9677937080626833, 0.0,
    0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053, 0.0004550992113792063, 0.0, 0.0,
    0.0013648766163243398, 0.0, 0.0, 0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
    0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
    225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
    176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408, 0.0, 0.0, 0.0,
    34.77906344483772, 44.835625328877896, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0008680556573291698,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0004179171803251336, 0.0017290828234722833, 0.0, 0.0020827005846636437, 0.0, 0.0,
    8.826982764996862, 23.19243343998926, 0.0, 95.1080498811086, 0.9863978034400682, 0.9834382792465353,
    0.0012286405048278493, 171.2667255897307, 0.9807858872435379, 0.0, 0.0, 0.0, 0.0005130064588990679, 0.0,
    0.00010854057858411537,
};
/* What scoring a candidate works in: its levels, the rings of its products' rows and a few
 * rows. Kept by the reference between scores (fresh memory costs a page fault every 4 KiB). */
typedef struct scratch {
    level levels[scales];
    float *ring;
    float *row;
    struct scratch *next;
} scratch;

struct wb_ssim2_reference {
    pthread_mutex_t lock;
    scratch *spare;
    int width, height, count;
    level levels[scales];
    /* The original's blurred XYB and blurred squares, per scale and plane. */
    float *mean[scales][3];
    float *square[scales][3];
};
/* Mirrors an index into 0..<n (…, 1, 0 | 0, 1, …, n-1 | n-1, n-2, …), repeatedly if need be. */
static int mirror(int i, int n) {
    for (;;) {
        if (i < 0) i = -i - 1;
        else if (i >= n) i = 2 * n - i - 1;
        else return i;
    }
}

static void free_scratch(scratch *w) {
    for (int s = 0; s < scales; s++) ssim2_free_level(&w->levels[s]);
    free(w->ring);
    free(w->row);
    free(w);
}

void wb_ssim2_reference_free(wb_ssim2_reference *ref) {
    if (!ref) return;
    while (ref->spare) {
        scratch *next = ref->spare->next;
        free_scratch(ref->spare);
        ref->spare = next;
    }
    pthread_mutex_destroy(&ref->lock);
    for (int s = 0; s < scales; s++) {
        ssim2_free_level(&ref->levels[s]);
        for (int c = 0; c < 3; c++) {
            ssim2_give_back(ref->mean[s][c]);
            ssim2_give_back(ref->square[s][c]);
        }
    }
    free(ref);
}
/* Adds one row's numbers to `sum`: the SSIM map's values and their 4th powers, then the
 * artifact map's, then the detail-loss map's. `d_row` and `e_row` are scratch of a row each. */
WIDE static void pool_row(const float *restrict i1, const float *restrict m1, const float *restrict s11, const float *restrict i2,
                          const float *restrict m2, const float *restrict s22, const float *restrict s12, int width,
                          float *restrict d_row, float *restrict e_row, double sum[6]) {
    enum { lanes = 8 };
    const float c2 = 0.0009f;
    /* The two maps of a row, pixel by pixel (the loop vectorises)… */
    for (int x = 0; x < width; x++) {
        float mu1 = m1[x], mu2 = m2[x];
        float num_m = 1.0f - (mu1 - mu2) * (mu1 - mu2);
        float num_s = 2.0f * (s12[x] - mu1 * mu2) + c2;
        float denom_s = (s11[x] - mu1 * mu1) + (s22[x] - mu2 * mu2) + c2;
        float d = 1.0f - num_m * num_s / denom_s;
        d_row[x] = d < 0 ? 0 : d;
        e_row[x] = (1.0f + fabsf(i2[x] - mu2)) / (1.0f + fabsf(i1[x] - mu1)) - 1.0f;
    }
    /* …then summed in eight lanes (x mod 8) in floats, and the lanes in doubles. */
    float lane[6][lanes] = {{0}};
    int whole = width - width % lanes;
    for (int x0 = 0; x0 < whole; x0 += lanes) {
        for (int j = 0; j < lanes; j++) {
            float d = d_row[x0 + j], e = e_row[x0 + j];
            float artifact = e > 0 ? e : 0, lost = e < 0 ? -e : 0;
            float d2 = d * d, a2 = artifact * artifact, l2 = lost * lost;
            lane[0][j] += d;
            lane[1][j] += d2 * d2;
            lane[2][j] += artifact;
            lane[3][j] += a2 * a2;
            lane[4][j] += lost;
            lane[5][j] += l2 * l2;
        }
    }
    for (int x = whole; x < width; x++) {
        int j = x - whole;
        float d = d_row[x], e = e_row[x];
        float artifact = e > 0 ? e : 0, lost = e < 0 ? -e : 0;
        float d2 = d * d, a2 = artifact * artifact, l2 = lost * lost;
        lane[0][j] += d;
        lane[1][j] += d2 * d2;
        lane[2][j] += artifact;
        lane[3][j] += a2 * a2;
        lane[4][j] += lost;
        lane[5][j] += l2 * l2;
    }
    for (int k = 0; k < 6; k++)
        for (int j = 0; j < lanes; j++) sum[k] += lane[k][j];
}

enum { ring_rows = 16 }; /* a power of two above the blur's 11 rows */

/* One row of a plane blurred down its column, rows mirrored (as `blur`, in the same order):
 * `at(k)` is the input row k. Then along the row, zeros past the ends, into `out`. `padded` is
 * scratch of width + 2 * radius floats. */
#define BLUR_ROW(at, y, height, width, padded, out)                                                                     \
    do {                                                                                                               \
        const float *c_ = at(y), *u1_ = at(mirror(y - 1, height)), *d1_ = at(mirror(y + 1, height));                  \
        const float *u2_ = at(mirror(y - 2, height)), *d2_ = at(mirror(y + 2, height));                                \
        const float *u3_ = at(mirror(y - 3, height)), *d3_ = at(mirror(y + 3, height));                                \
        const float *u4_ = at(mirror(y - 4, height)), *d4_ = at(mirror(y + 4, height));                                \
        const float *u5_ = at(mirror(y - 5, height)), *d5_ = at(mirror(y + 5, height));                                \
        float *v_ = (padded) + radius;                                                                                 \
        for (int x = 0; x < (width); x++) {                                                                            \
            float sum = w0 * c_[x];                                                                                    \
            sum += w1 * (u1_[x] + d1_[x]);                                                                             \
            sum += w2 * (u2_[x] + d2_[x]);                                                                             \
            sum += w3 * (u3_[x] + d3_[x]);                                                                             \
            sum += w4 * (u4_[x] + d4_[x]);                                                                             \
            sum += w5 * (u5_[x] + d5_[x]);                                                                             \
            v_[x] = sum;                                                                                               \
        }                                                                                                              \
        for (int x = 0; x < (width); x++) {                                                                            \
            float sum = w0 * v_[x];                                                                                    \
            sum += w1 * (v_[x - 1] + v_[x + 1]);                                                                       \
            sum += w2 * (v_[x - 2] + v_[x + 2]);                                                                       \
            sum += w3 * (v_[x - 3] + v_[x + 3]);                                                                       \
            sum += w4 * (v_[x - 4] + v_[x + 4]);                                                                       \
            sum += w5 * (v_[x - 5] + v_[x + 5]);                                                                       \
            (out)[x] = sum;                                                                                            \
        }                                                                                                              \
    } while (0)

/* The original's plane blurred, and its square blurred, a row at a time from a ring of the
 * squares' last rows (as `score_plane`). `ring` holds ring_rows rows; `rows` 2 padded rows. */
WIDE static void blur_plane_and_square(const float *restrict in, float *restrict mean, float *restrict square,
                                       int width, int height, float *restrict ring, float *restrict rows) {
    const float w0 = ssim2_kernel[radius], w1 = ssim2_kernel[radius + 1], w2 = ssim2_kernel[radius + 2], w3 = ssim2_kernel[radius + 3],
                w4 = ssim2_kernel[radius + 4], w5 = ssim2_kernel[radius + 5];
    size_t padded = (size_t)width + 2 * radius;
    memset(rows, 0, 2 * padded * sizeof(float));
    int made = 0;
    for (int y = 0; y < height; y++) {
        int needed = y + radius < height ? y + radius : height - 1;
        for (; made <= needed; made++) {
            const float *a = in + (size_t)made * width;
            float *sq = ring + (size_t)(made & (ring_rows - 1)) * width;
            for (int x = 0; x < width; x++) sq[x] = a[x] * a[x];
        }
#define PLANE(k) (in + (size_t)(k) * width)
#define SQUARE(k) (ring + (size_t)((k) & (ring_rows - 1)) * width)
        BLUR_ROW(PLANE, y, height, width, rows, mean + (size_t)y * width);
        BLUR_ROW(SQUARE, y, height, width, rows + padded, square + (size_t)y * width);
#undef PLANE
#undef SQUARE
    }
}

/* One plane of a candidate against the original's, pooled into `sum`, a row at a time: the
 * candidate's blurred plane, square and product with the original are made row by row from
 * rings of the last rows, so what is read stays in the cache (three blurred planes written
 * out and read back made a score wait on memory). The same operations in the same order as
 * blurring whole planes. `ring` holds 2 × ring_rows rows; `rows` 3 padded rows and 5 rows. */
WIDE static void score_plane(const float *restrict i1, const float *restrict m1, const float *restrict s11,
                             const float *restrict i2, int width, int height, float *restrict ring, float *restrict rows, double sum[6]) {
    const float w0 = ssim2_kernel[radius], w1 = ssim2_kernel[radius + 1], w2 = ssim2_kernel[radius + 2], w3 = ssim2_kernel[radius + 3],
                w4 = ssim2_kernel[radius + 4], w5 = ssim2_kernel[radius + 5];
    size_t padded = (size_t)width + 2 * radius;
    float *pad = rows, *mu2 = rows + 3 * padded, *s22 = mu2 + width, *s12 = s22 + width, *d_row = s12 + width, *e_row = d_row + width;
    memset(pad, 0, 3 * padded * sizeof(float));
    float *squares = ring, *products = ring + (size_t)ring_rows * width;
    int made = 0; /* rows whose square and product are in the rings */
    for (int y = 0; y < height; y++) {
        int needed = y + radius < height ? y + radius : height - 1;
        for (; made <= needed; made++) {
            const float *a = i1 + (size_t)made * width, *b = i2 + (size_t)made * width;
            float *sq = squares + (size_t)(made & (ring_rows - 1)) * width, *pr = products + (size_t)(made & (ring_rows - 1)) * width;
            for (int x = 0; x < width; x++) {
                sq[x] = b[x] * b[x];
                pr[x] = a[x] * b[x];
            }
        }
#define PLANE(k) (i2 + (size_t)(k) * width)
#define SQUARE(k) (squares + (size_t)((k) & (ring_rows - 1)) * width)
#define PRODUCT(k) (products + (size_t)((k) & (ring_rows - 1)) * width)
        BLUR_ROW(PLANE, y, height, width, pad, mu2);
        BLUR_ROW(SQUARE, y, height, width, pad + padded, s22);
        BLUR_ROW(PRODUCT, y, height, width, pad + 2 * padded, s12);
#undef PLANE
#undef SQUARE
#undef PRODUCT
        size_t at = (size_t)y * width;
        pool_row(i1 + at, m1 + at, s11 + at, i2 + at, mu2, s22, s12, width, d_row, e_row, sum);
    }
}

wb_ssim2_reference *wb_ssim2_reference_new(const uint8_t *pixels, int width, int height, size_t stride, int bands) {
    if (bands != 1 && bands != 3) return NULL;
    int count = ssim2_count_scales(width, height);
    if (count == 0) return NULL;
    ssim2_make_tables();
    wb_ssim2_reference *ref = calloc(1, sizeof *ref);
    if (!ref) return NULL;
    pthread_mutex_init(&ref->lock, NULL);
    ref->width = width;
    ref->height = height;
    ref->count = count;
    float *ring = malloc((size_t)ring_rows * width * sizeof(float));
    float *rows = malloc((size_t)2 * (width + 2 * radius) * sizeof(float));
    int ok = ring && rows && ssim2_build_levels(ref->levels, count, width, height, pixels, stride, bands);
    for (int s = 0; ok && s < count; s++) {
        level *l = &ref->levels[s];
        for (int c = 0; c < 3 && ok; c++) {
            ref->mean[s][c] = ssim2_plane(l->width, l->height);
            ref->square[s][c] = ssim2_plane(l->width, l->height);
            if (!ref->mean[s][c] || !ref->square[s][c]) { ok = 0; break; }
            blur_plane_and_square(l->xyb[c], ref->mean[s][c], ref->square[s][c], l->width, l->height, ring, rows);
        }
        /* Only XYB is read from here on. */
        for (int c = 0; c < 3; c++) { ssim2_give_back(l->linear[c]); l->linear[c] = NULL; }
    }
    free(ring);
    free(rows);
    if (!ok) { wb_ssim2_reference_free(ref); return NULL; }
    return ref;
}

double wb_ssim2_score(const wb_ssim2_reference *reference, const uint8_t *pixels, size_t stride, int bands) {
    if (bands != 1 && bands != 3) return NAN;
    /* The reference is shared; only its list of spare scratch changes, under its lock. */
    wb_ssim2_reference *ref = (wb_ssim2_reference *)reference;
    pthread_mutex_lock(&ref->lock);
    scratch *w = ref->spare;
    if (w) ref->spare = w->next;
    pthread_mutex_unlock(&ref->lock);
    if (!w) {
        w = calloc(1, sizeof *w);
        if (!w) return NAN;
        w->ring = malloc((size_t)2 * ring_rows * ref->width * sizeof(float));
        w->row = malloc(((size_t)3 * (ref->width + 2 * radius) + (size_t)5 * ref->width) * sizeof(float));
    }
    int ok = w->ring && w->row && ssim2_build_levels(w->levels, ref->count, ref->width, ref->height, pixels, stride, bands);
    /* pooled[scale][plane][0..5], in the order the weights are listed: plane, scale, norm, map. */
    double pooled[scales][3][6];
    for (int s = 0; ok && s < ref->count; s++) {
        const level *a = &ref->levels[s], *b = &w->levels[s];
        double n = (double)b->width * b->height;
        for (int c = 0; c < 3; c++) {
            double sum[6] = {0};
            score_plane(a->xyb[c], ref->mean[s][c], ref->square[s][c], b->xyb[c], b->width, b->height, w->ring, w->row, sum);
            for (int k = 0; k < 6; k++) {
                double mean = sum[k] / n;
                pooled[s][c][k] = (k & 1) ? pow(mean, 0.25) : mean;
            }
        }
    }
    if (ok) {
        pthread_mutex_lock(&ref->lock);
        w->next = ref->spare;
        ref->spare = w;
        pthread_mutex_unlock(&ref->lock);
    } else {
        free_scratch(w);
        return NAN;
    }

    double sum = 0;
    int i = 0;
    for (int c = 0; c < 3; c++) {
        for (int s = 0; s < ref->count; s++) {
            for (int norm = 0; norm < 2; norm++) {
                sum += weight[i++] * fabs(pooled[s][c][norm]);
                sum += weight[i++] * fabs(pooled[s][c][2 + norm]);
                sum += weight[i++] * fabs(pooled[s][c][4 + norm]);
            }
        }
    }
    sum *= 0.9562382616834844;
    sum = 2.326765642916932 * sum - 0.020884521182843837 * sum * sum + 6.248496625763138e-05 * sum * sum * sum;
    return sum > 0 ? 100.0 - 10.0 * pow(sum, 0.6276336467831387) : 100.0;
}
