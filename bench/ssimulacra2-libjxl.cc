// bench/ssimulacra2-libjxl.sh's timing of libjxl's own SSIMULACRA2 (tools/ssimulacra2.cc, the
// C++ tool's code): two PNGs of one size decoded once, then the pair scored ten times; prints
// "pair_ms score" (the median; decoding not counted), as bench/ssimulacra2-speed.c does for ours.
// Built by the script against a libjxl source tree whose `ssimulacra2` target it has built.
#include <jxl/memory_manager.h>

#include <algorithm>
#include <utility>
#include <chrono>
#include <cstdio>
#include <vector>

#include "lib/extras/codec.h"
#include "lib/jxl/codec_in_out.h"
#include "tools/file_io.h"
#include "tools/no_memory_manager.h"
#include "tools/ssimulacra2.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s ORIGINAL.png DISTORTED.png\n", argv[0]);
    return 2;
  }
  JxlMemoryManager* memory = jpegxl::tools::NoMemoryManager();
  jxl::CodecInOut original{memory}, distorted{memory};
  jxl::CodecInOut* images[2] = {&original, &distorted};
  for (int i = 0; i < 2; i++) {
    std::vector<uint8_t> bytes;
    if (!jpegxl::tools::ReadFile(argv[1 + i], &bytes) ||
        !jxl::SetFromBytes(jxl::Bytes(bytes), jxl::extras::ColorHints(), images[i])) {
      fprintf(stderr, "cannot read %s\n", argv[1 + i]);
      return 1;
    }
  }
  std::vector<double> times;
  double score = 0;
  for (int k = 0; k < 10; k++) {
    auto start = std::chrono::steady_clock::now();
    auto result = ComputeSSIMULACRA2(original.Main(), distorted.Main());
    auto end = std::chrono::steady_clock::now();
    if (!result.ok()) {
      fprintf(stderr, "libjxl's SSIMULACRA2 failed\n");
      return 1;
    }
    score = std::move(result).value_().Score();
    times.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(times.begin(), times.end());
  printf("%.2f %.8f\n", (times[4] + times[5]) / 2, score);
  return 0;
}
