#pragma once
// The largest zstd window a decoder should accept when its output is bounded. A zstd frame names
// its window in the header, and a streaming decoder allocates that much (up to 128 MiB by
// default) before it writes a byte: a 10-byte frame could make every decode cost 128 MiB.
// Bounding the window by the output bound ties that allocation to the one the caller chose.

#include <cstddef>

namespace mink::codec {

// log2 of the smallest power of two >= max_output, within zstd's limits: 10 (1 KiB, the smallest
// window a frame can name) to 27 (128 MiB, the decoder's default limit). For ZSTD_d_windowLogMax.
constexpr int ZstdWindowLogFor(size_t max_output) {
  constexpr int kSmallest = 10, kDecoderDefault = 27;
  int log = kSmallest;
  while (log < kDecoderDefault && (size_t{1} << log) < max_output) ++log;
  return log;
}

}  // namespace mink::codec
