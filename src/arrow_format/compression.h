#pragma once
// Buffer codecs of the IPC body compression (BodyCompression.codec): LZ4 frame and Zstandard.

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace mink::arrow {

enum class CompressionCodec : uint8_t { kNone, kLz4Frame, kZstd };

std::string_view CompressionCodecName(CompressionCodec codec);

// Upper bound of the compressed size of `input_size` bytes.
int64_t MaxCompressedSize(CompressionCodec codec, int64_t input_size);

// Compresses `input` into `out` (at least MaxCompressedSize bytes); returns the size written.
// `level` 0 picks the codec's default (fast) level.
Result<int64_t> CompressBuffer(CompressionCodec codec, int level, std::string_view input,
                               uint8_t* out, int64_t out_capacity);

// Decompresses `input`, which must hold exactly one frame that expands to exactly
// `output_size` bytes, into `output`. A corrupt or mismatching frame is InvalidArgument.
Status DecompressBuffer(CompressionCodec codec, std::string_view input, uint8_t* output,
                        int64_t output_size);

// Decompresses one frame whose uncompressed size is not known in advance into a new buffer of
// at most `max_size` bytes (growing as it goes). For writers that put something other than the
// uncompressed length in the prefix (Arrow JS 21 writes the compressed length there).
Result<std::string> DecompressBufferToFit(CompressionCodec codec, std::string_view input,
                                          int64_t max_size);

// The largest expansion a frame of `compressed_size` bytes can claim before it is rejected
// without being decompressed (a bound from the codec's format, so that a forged length cannot
// make the reader allocate).
int64_t MaxPlausibleDecompressedSize(CompressionCodec codec, int64_t compressed_size);

}  // namespace mink::arrow
