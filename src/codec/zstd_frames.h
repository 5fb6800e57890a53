#pragma once
// Limits for decoding zstd data from the network. A zstd frame names its window in its header,
// and a streaming decoder allocates that much (up to 128 MiB by default) before it writes a
// byte, so a 10-byte frame could make every decode cost 128 MiB. Two guards keep that allocation
// within the output bound the caller chose:
// - ZSTD_d_windowLogMax set to ZstdWindowLogFor(bound);
// - only frames of the current format: libzstd also decodes the formats of its 0.x releases,
//   and their decoders do not apply ZSTD_d_windowLogMax.

#include <cstddef>
#include <string_view>

#include "base/status.h"

namespace mink::codec {

// log2 of the smallest power of two >= max_output, within zstd's limits: 10 (1 KiB, the smallest
// window a frame can name) to 27 (128 MiB, the decoder's default limit).
constexpr int ZstdWindowLogFor(size_t max_output) {
  constexpr int kSmallest = 10, kDecoderDefault = 27;
  int log = kSmallest;
  while (log < kDecoderDefault && (size_t{1} << log) < max_output) ++log;
  return log;
}

// Ok when `input` is a sequence of zstd frames of the current format (skippable frames allowed);
// otherwise InvalidArgument naming the byte where the first other frame starts.
Status CheckZstdFramesAreCurrent(std::string_view input);

}  // namespace mink::codec
