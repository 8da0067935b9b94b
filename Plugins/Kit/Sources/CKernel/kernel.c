#include "workbench_kernel.h"

size_t wb_sample_size(int32_t format) {
    switch (format) {
    case WB_SAMPLE_U8: return 1;
    case WB_SAMPLE_U16: return 2;
    case WB_SAMPLE_F32: return 4;
    default: return 0;
    }
}
