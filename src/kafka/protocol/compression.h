#pragma once
// The record-batch compression codecs as Kafka uses them: gzip (RFC 1952 via zlib), snappy (raw
// blocks as librdkafka writes them, or the xerial framing of the Java clients; both decoded),
// lz4 (LZ4 frame format) and zstd (standard frames). Decompression is bounded: output beyond
// `max_output` bytes is ResourceExhausted, so a zip bomb costs at most that much memory.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace mink::kafka {

// Values of the low 3 bits of a record batch's attributes.
enum class Compression : int8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

std::string_view CompressionName(Compression codec);

struct CompressOptions {
  int level = 0;               // 0 = the codec's default
  bool snappy_xerial = false;  // write the Java clients' xerial framing instead of a raw block
};

Result<std::string> Compress(Compression codec, std::string_view input,
                             const CompressOptions& options = {});

// InvalidArgument for corrupt input; ResourceExhausted when the output would exceed max_output.
Result<std::string> Decompress(Compression codec, std::string_view input, size_t max_output);

}  // namespace mink::kafka
