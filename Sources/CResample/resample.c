#include "CResample.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#else
void wb_resample_scalar_only(int on) { (void)on; }
#endif

#define FRACTION 12
#define HALF (1 << (FRACTION - 1))

static inline uint8_t clamp_sample(int32_t sum) {
    sum >>= FRACTION;
    return sum < 0 ? 0 : sum > 255 ? 255 : (uint8_t)sum;
}

/* One output row from the `count` input rows `rows` names, samples [from, stride). */
static void row_scalar(const uint8_t *in, int stride, uint8_t *line, int from, const int32_t *rows,
                       const int16_t *w, int count) {
    for (int i = from; i < stride; i++) {
        int32_t sum = HALF;
        for (int k = 0; k < count; k++) sum += w[k] * in[(size_t)rows[k] * stride + i];
        line[i] = clamp_sample(sum);
    }
}

#if defined(__x86_64__)
static int scalar_only;
void wb_resample_scalar_only(int on) { __atomic_store_n(&scalar_only, on, __ATOMIC_RELAXED); }

/* Decided once, before any thread can ask. */
static int avx2;
__attribute__((constructor)) static void detect_avx2(void) {
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2");
}
static inline int has_avx2(void) { return avx2 && !__atomic_load_n(&scalar_only, __ATOMIC_RELAXED); }

/* Two weights side by side, as vpmaddwd multiplies a pair of 16-bit samples. */
static inline int32_t weight_pair(int16_t a, int16_t b) {
    return (int32_t)((uint32_t)(uint16_t)a | ((uint32_t)(uint16_t)b << 16));
}

/* Sixteen samples at a time: two input rows interleaved as 16-bit pairs, multiplied by their
 * two weights and summed in one instruction. */
__attribute__((target("avx2")))
static void row_avx2(const uint8_t *in, int stride, uint8_t *line, const int32_t *rows, const int16_t *w, int count) {
    const __m256i zero = _mm256_setzero_si256();
    int i = 0;
    for (; i + 16 <= stride; i += 16) {
        __m256i low = _mm256_set1_epi32(HALF), high = low;
        int k = 0;
        for (; k + 1 < count; k += 2) {
            __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(in + (size_t)rows[k] * stride + i)));
            __m256i b = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(in + (size_t)rows[k + 1] * stride + i)));
            __m256i pair = _mm256_set1_epi32(weight_pair(w[k], w[k + 1]));
            low = _mm256_add_epi32(low, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), pair));
            high = _mm256_add_epi32(high, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), pair));
        }
        if (k < count) {
            __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(in + (size_t)rows[k] * stride + i)));
            __m256i pair = _mm256_set1_epi32(weight_pair(w[k], 0));
            low = _mm256_add_epi32(low, _mm256_madd_epi16(_mm256_unpacklo_epi16(a, zero), pair));
            high = _mm256_add_epi32(high, _mm256_madd_epi16(_mm256_unpackhi_epi16(a, zero), pair));
        }
        /* low holds samples 0-3 and 8-11, high 4-7 and 12-15: packing them lane by lane puts
         * 0-15 back in order. Saturation is the clamp to 0..255. */
        __m256i words = _mm256_packs_epi32(_mm256_srai_epi32(low, FRACTION), _mm256_srai_epi32(high, FRACTION));
        __m128i bytes = _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
        _mm_storeu_si128((__m128i *)(line + i), bytes);
    }
    row_scalar(in, stride, line, i, rows, w, count);
}
#endif

void wb_reduce_rows(const uint8_t *in, int stride, uint8_t *out, int out_height,
                    const int32_t *inputs, const int16_t *weights, int count) {
    for (int y = 0; y < out_height; y++) {
        uint8_t *line = out + (size_t)y * stride;
        const int32_t *rows = inputs + (size_t)y * count;
        const int16_t *w = weights + (size_t)y * count;
#if defined(__x86_64__)
        if (has_avx2()) {
            row_avx2(in, stride, line, rows, w, count);
            continue;
        }
#endif
        row_scalar(in, stride, line, 0, rows, w, count);
    }
}

static void columns_scalar(const uint8_t *in, int in_width, int height, int bands, uint8_t *out, int out_width,
                           const int32_t *inputs, const int16_t *weights, int count) {
    for (int y = 0; y < height; y++) {
        const uint8_t *row = in + (size_t)y * in_width * bands;
        uint8_t *o = out + (size_t)y * out_width * bands;
        for (int x = 0; x < out_width; x++) {
            const int16_t *w = weights + (size_t)x * count;
            for (int b = 0; b < bands; b++) {
                int32_t sum = HALF;
                for (int k = 0; k < count; k++)
                    sum += w[k] * row[(size_t)inputs[(size_t)x * count + k] * bands + b];
                *o++ = clamp_sample(sum);
            }
        }
    }
}

#if defined(__x86_64__)
/* Three-band pixels, four taps at a time: each 128-bit lane of one 16-byte load takes two
 * neighbouring pixels' R, G and B as 16-bit pairs, multiplied by those two taps' weights. Every
 * row is first copied with its edge pixels repeated, so that no tap needs clamping. */
__attribute__((target("avx2")))
static int columns_rgb_avx2(const uint8_t *in, int in_width, int height, uint8_t *out, int out_width,
                            const int32_t *first, const int16_t *weights, int count) {
    int groups = (count + 3) / 4;
    int lowest = first[0], highest = first[0];
    for (int x = 1; x < out_width; x++) {
        if (first[x] < lowest) lowest = first[x];
        if (first[x] > highest) highest = first[x];
    }
    int left = lowest < 0 ? -lowest : 0;
    /* The last group's load reaches two pixels past its fourth tap. */
    int reach = highest + groups * 4 + 2;
    int right = reach > in_width ? reach - in_width : 0;
    int padded_width = left + in_width + right;

    uint8_t *padded = malloc((size_t)padded_width * 3);
    int32_t *pairs = malloc((size_t)out_width * groups * 8 * sizeof(int32_t));
    if (!padded || !pairs) {
        free(padded);
        free(pairs);
        return 0;
    }
    for (int x = 0; x < out_width; x++) {
        for (int g = 0; g < groups; g++) {
            int16_t t[4];
            for (int j = 0; j < 4; j++) {
                int k = g * 4 + j;
                t[j] = k < count ? weights[(size_t)x * count + k] : 0;
            }
            int32_t *lanes = pairs + ((size_t)x * groups + g) * 8;
            for (int j = 0; j < 4; j++) {
                lanes[j] = weight_pair(t[0], t[1]);
                lanes[4 + j] = weight_pair(t[2], t[3]);
            }
        }
    }
    const __m256i spread = _mm256_setr_epi8(
        0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1,
        6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1);
    const __m128i half = _mm_set1_epi32(HALF);
    for (int y = 0; y < height; y++) {
        const uint8_t *row = in + (size_t)y * in_width * 3;
        for (int x = 0; x < left; x++) memcpy(padded + x * 3, row, 3);
        memcpy(padded + (size_t)left * 3, row, (size_t)in_width * 3);
        for (int x = left + in_width; x < padded_width; x++) memcpy(padded + (size_t)x * 3, row + (size_t)(in_width - 1) * 3, 3);

        uint8_t *o = out + (size_t)y * out_width * 3;
        for (int x = 0; x < out_width; x++) {
            const uint8_t *p = padded + (size_t)(first[x] + left) * 3;
            const __m256i *w = (const __m256i *)(pairs + (size_t)x * groups * 8);
            __m256i sum = _mm256_setzero_si256();
            for (int g = 0; g < groups; g++) {
                __m256i pixels = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + g * 12)));
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, spread), _mm256_loadu_si256(w + g)));
            }
            __m128i rgb = _mm_add_epi32(_mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1)), half);
            rgb = _mm_srai_epi32(rgb, FRACTION);
            rgb = _mm_packus_epi16(_mm_packs_epi32(rgb, rgb), rgb);
            uint32_t bytes = (uint32_t)_mm_cvtsi128_si32(rgb);
            o[0] = (uint8_t)bytes;
            o[1] = (uint8_t)(bytes >> 8);
            o[2] = (uint8_t)(bytes >> 16);
            o += 3;
        }
    }
    free(padded);
    free(pairs);
    return 1;
}

/* One band (grey, or a plane of a YCbCr image), sixteen taps at a time: sixteen neighbouring
 * samples widened to 16 bits and multiplied by their sixteen weights in one instruction, the
 * eight sums then added across. Rows are copied with their edges repeated, as for RGB. */
__attribute__((target("avx2")))
static int columns_grey_avx2(const uint8_t *in, int in_width, int height, uint8_t *out, int out_width,
                             const int32_t *first, const int16_t *weights, int count) {
    int groups = (count + 15) / 16;
    int lowest = first[0], highest = first[0];
    for (int x = 1; x < out_width; x++) {
        if (first[x] < lowest) lowest = first[x];
        if (first[x] > highest) highest = first[x];
    }
    int left = lowest < 0 ? -lowest : 0;
    int reach = highest + groups * 16;
    int right = reach > in_width ? reach - in_width : 0;
    int padded_width = left + in_width + right;

    uint8_t *padded = malloc((size_t)padded_width);
    int16_t *taps = calloc((size_t)out_width * groups * 16, sizeof(int16_t));
    if (!padded || !taps) {
        free(padded);
        free(taps);
        return 0;
    }
    for (int x = 0; x < out_width; x++) memcpy(taps + (size_t)x * groups * 16, weights + (size_t)x * count, (size_t)count * sizeof(int16_t));
    for (int y = 0; y < height; y++) {
        const uint8_t *row = in + (size_t)y * in_width;
        memset(padded, row[0], (size_t)left);
        memcpy(padded + left, row, (size_t)in_width);
        memset(padded + left + in_width, row[in_width - 1], (size_t)right);

        uint8_t *o = out + (size_t)y * out_width;
        for (int x = 0; x < out_width; x++) {
            const uint8_t *p = padded + first[x] + left;
            const __m256i *w = (const __m256i *)(taps + (size_t)x * groups * 16);
            __m256i sum = _mm256_setzero_si256();
            for (int g = 0; g < groups; g++) {
                __m256i samples = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(p + g * 16)));
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(samples, _mm256_loadu_si256(w + g)));
            }
            __m128i four = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
            four = _mm_add_epi32(four, _mm_shuffle_epi32(four, _MM_SHUFFLE(1, 0, 3, 2)));
            four = _mm_add_epi32(four, _mm_shuffle_epi32(four, _MM_SHUFFLE(2, 3, 0, 1)));
            o[x] = clamp_sample(_mm_cvtsi128_si32(four) + HALF);
        }
    }
    free(padded);
    free(taps);
    return 1;
}
#endif

void wb_reduce_columns(const uint8_t *in, int in_width, int height, int bands, uint8_t *out, int out_width,
                       const int32_t *first, const int32_t *inputs, const int16_t *weights, int count) {
#if defined(__x86_64__)
    if (bands == 3 && out_width > 0 && has_avx2() &&
        columns_rgb_avx2(in, in_width, height, out, out_width, first, weights, count))
        return;
    if (bands == 1 && out_width > 0 && has_avx2() &&
        columns_grey_avx2(in, in_width, height, out, out_width, first, weights, count))
        return;
#endif
    columns_scalar(in, in_width, height, bands, out, out_width, inputs, weights, count);
}
