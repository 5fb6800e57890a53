#include "codec/zstd_frames.h"

#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace mink::codec {
namespace {

constexpr uint32_t kCurrentMagic = 0xFD2FB528;    // ZSTD_MAGICNUMBER
constexpr uint32_t kSkippableMagic = 0x184D2A50;  // ZSTD_MAGIC_SKIPPABLE_START (low 4 bits free)

}  // namespace

Status CheckZstdFramesAreCurrent(std::string_view input) {
  size_t at = 0;
  while (at < input.size()) {
    if (input.size() - at < 4) {
      return InvalidArgumentError("truncated zstd frame at byte " + std::to_string(at));
    }
    uint32_t magic = 0;
    std::memcpy(&magic, input.data() + at, 4);  // little-endian, as zstd writes it
    if (magic != kCurrentMagic && (magic & 0xFFFFFFF0u) != kSkippableMagic) {
      char hex[16];
      std::snprintf(hex, sizeof(hex), "0x%08X", magic);
      return InvalidArgumentError("the zstd frame at byte " + std::to_string(at) +
                                  " is not of the current format (magic " + hex + ")");
    }
    const size_t size = ZSTD_findFrameCompressedSize(input.data() + at, input.size() - at);
    if (ZSTD_isError(size)) {
      return InvalidArgumentError("the zstd frame at byte " + std::to_string(at) + ": " +
                                  ZSTD_getErrorName(size));
    }
    at += size;
  }
  return Status::Ok();
}

}  // namespace mink::codec
