#include "kafka/protocol/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "codec/zstd_frames.h"
#include "kafka/protocol/wire.h"

namespace mink::kafka {
namespace {

constexpr size_t kChunk = 64 * 1024;
constexpr char kXerialMagic[8] = {static_cast<char>(0x82), 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kXerialHeaderSize = 16;
constexpr size_t kXerialBlockSize = 32 * 1024;
constexpr size_t kSnappyMaxExpansion = 32;

Status Corrupt(Compression codec, const std::string& what) {
  return InvalidArgumentError("malformed record batch: " + std::string(CompressionName(codec)) +
                              " data: " + what);
}

Status TooLarge(Compression codec, size_t max_output) {
  return ResourceExhaustedError("record batch: " + std::string(CompressionName(codec)) +
                                " data decompresses to more than " + std::to_string(max_output) +
                                " bytes");
}

// Grows `out` by up to kChunk bytes without passing max_output + 1 (one byte past the limit is
// how an oversized output is detected). Returns the writable region.
char* Grow(std::string* out, size_t max_output, size_t* avail) {
  const size_t cap = max_output + 1;
  const size_t used = out->size();
  const size_t add = std::min(kChunk, cap - used);
  out->resize(used + add);
  *avail = add;
  return out->data() + used;
}

// ---- gzip ----

Result<std::string> GzipCompress(std::string_view input, int level) {
  z_stream zs{};
  if (deflateInit2(&zs, level == 0 ? Z_DEFAULT_COMPRESSION : level, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return InternalError("gzip: deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, static_cast<uLong>(input.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  zs.avail_in = static_cast<uInt>(input.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  const size_t written = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return InternalError("gzip: deflate failed");
  out.resize(written);
  return out;
}

Result<std::string> GzipDecompress(std::string_view input, size_t max_output) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return InternalError("gzip: inflateInit2 failed");
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  zs.avail_in = static_cast<uInt>(input.size());
  std::string out;
  bool ended = false;
  while (true) {
    if (out.size() > max_output) return TooLarge(Compression::kGzip, max_output);
    size_t avail = 0;
    const size_t before = out.size();
    char* dst = Grow(&out, max_output, &avail);
    zs.next_out = reinterpret_cast<Bytef*>(dst);
    zs.avail_out = static_cast<uInt>(avail);
    int rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(before + (avail - zs.avail_out));
    if (rc == Z_STREAM_END) {
      ended = true;
      if (zs.avail_in == 0) break;
      if (inflateReset(&zs) != Z_OK) return Corrupt(Compression::kGzip, "bad member");
      continue;  // concatenated gzip members
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) break;  // input exhausted mid-stream
    if (rc != Z_OK) return Corrupt(Compression::kGzip, zs.msg ? zs.msg : "inflate failed");
  }
  if (out.size() > max_output) return TooLarge(Compression::kGzip, max_output);
  if (!ended) return Corrupt(Compression::kGzip, "truncated stream");
  return out;
}

// ---- snappy ----

Status SnappyBlock(std::string_view block, size_t max_output, std::string* out) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(block.data(), block.size(), &length)) {
    return Corrupt(Compression::kSnappy, "bad block header");
  }
  if (length > max_output - std::min(max_output, out->size())) {
    return TooLarge(Compression::kSnappy, max_output);
  }
  // Snappy expands at most ~21x (a 3-byte copy of 64 bytes): a larger claim is a lie, refused
  // before the output is allocated.
  if (length > kSnappyMaxExpansion * block.size() + 64) {
    return Corrupt(Compression::kSnappy, "a block of " + std::to_string(block.size()) +
                                             " bytes claims " + std::to_string(length) +
                                             " uncompressed bytes");
  }
  const size_t start = out->size();
  out->resize(start + length);
  if (!snappy::RawUncompress(block.data(), block.size(), out->data() + start)) {
    return Corrupt(Compression::kSnappy, "bad block");
  }
  return Status::Ok();
}

Result<std::string> SnappyDecompress(std::string_view input, size_t max_output) {
  std::string out;
  if (input.size() >= kXerialHeaderSize &&
      input.substr(0, sizeof(kXerialMagic)) == std::string_view(kXerialMagic, 8)) {
    size_t pos = kXerialHeaderSize;  // magic, version i32, compatible version i32
    while (pos < input.size()) {
      if (input.size() - pos < 4) return Corrupt(Compression::kSnappy, "truncated xerial block");
      const int32_t len = static_cast<int32_t>(LoadBe32(input.data() + pos));
      pos += 4;
      if (len < 0 || static_cast<size_t>(len) > input.size() - pos) {
        return Corrupt(Compression::kSnappy, "xerial block length " + std::to_string(len) +
                                                 " exceeds the data");
      }
      MINK_RETURN_IF_ERROR(SnappyBlock(input.substr(pos, len), max_output, &out));
      pos += static_cast<size_t>(len);
    }
    return out;
  }
  MINK_RETURN_IF_ERROR(SnappyBlock(input, max_output, &out));
  return out;
}

std::string SnappyCompress(std::string_view input, bool xerial) {
  std::string out;
  if (!xerial) {
    snappy::Compress(input.data(), input.size(), &out);
    return out;
  }
  out.append(kXerialMagic, 8);
  AppendBe32(&out, 1);  // version
  AppendBe32(&out, 1);  // minimum compatible version
  for (size_t pos = 0; pos < input.size(); pos += kXerialBlockSize) {
    std::string block;
    snappy::Compress(input.data() + pos, std::min(kXerialBlockSize, input.size() - pos), &block);
    AppendBe32(&out, static_cast<uint32_t>(block.size()));
    out.append(block);
  }
  return out;
}

// ---- lz4 ----

Result<std::string> Lz4Compress(std::string_view input, int level) {
  LZ4F_preferences_t prefs{};
  prefs.compressionLevel = level;
  prefs.frameInfo.contentSize = input.size();
  std::string out(LZ4F_compressFrameBound(input.size(), &prefs), '\0');
  size_t n = LZ4F_compressFrame(out.data(), out.size(), input.data(), input.size(), &prefs);
  if (LZ4F_isError(n)) return InternalError(std::string("lz4: ") + LZ4F_getErrorName(n));
  out.resize(n);
  return out;
}

Result<std::string> Lz4Decompress(std::string_view input, size_t max_output) {
  LZ4F_dctx* raw = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) {
    return InternalError("lz4: cannot create a decompression context");
  }
  std::unique_ptr<LZ4F_dctx, size_t (*)(LZ4F_dctx*)> ctx(raw, LZ4F_freeDecompressionContext);
  std::string out;
  size_t pos = 0;
  size_t hint = 1;
  while (pos < input.size()) {
    if (out.size() > max_output) return TooLarge(Compression::kLz4, max_output);
    size_t avail = 0;
    const size_t before = out.size();
    char* dst = Grow(&out, max_output, &avail);
    size_t src_size = input.size() - pos;
    hint = LZ4F_decompress(ctx.get(), dst, &avail, input.data() + pos, &src_size, nullptr);
    out.resize(before + avail);
    if (LZ4F_isError(hint)) return Corrupt(Compression::kLz4, LZ4F_getErrorName(hint));
    pos += src_size;
    if (src_size == 0 && avail == 0) return Corrupt(Compression::kLz4, "no progress");
  }
  // Drain output still buffered in the context.
  while (hint != 0) {
    if (out.size() > max_output) return TooLarge(Compression::kLz4, max_output);
    size_t avail = 0;
    const size_t before = out.size();
    char* dst = Grow(&out, max_output, &avail);
    size_t src_size = 0;
    hint = LZ4F_decompress(ctx.get(), dst, &avail, nullptr, &src_size, nullptr);
    out.resize(before + avail);
    if (LZ4F_isError(hint)) return Corrupt(Compression::kLz4, LZ4F_getErrorName(hint));
    if (avail == 0 && hint != 0) return Corrupt(Compression::kLz4, "truncated frame");
  }
  if (out.size() > max_output) return TooLarge(Compression::kLz4, max_output);
  return out;
}

// ---- zstd ----

Result<std::string> ZstdCompress(std::string_view input, int level) {
  std::string out(ZSTD_compressBound(input.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), input.data(), input.size(),
                           level == 0 ? 3 : level);
  if (ZSTD_isError(n)) return InternalError(std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

Result<std::string> ZstdDecompress(std::string_view input, size_t max_output) {
  Status current = codec::CheckZstdFramesAreCurrent(input);
  if (!current.ok()) return Corrupt(Compression::kZstd, current.message());
  // A frame that names its size says at once whether it fits.
  const unsigned long long named = ZSTD_getFrameContentSize(input.data(), input.size());
  if (named != ZSTD_CONTENTSIZE_UNKNOWN && named != ZSTD_CONTENTSIZE_ERROR && named > max_output) {
    return TooLarge(Compression::kZstd, max_output);
  }
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) return InternalError("zstd: cannot create a decompression context");
  const int window_log = codec::ZstdWindowLogFor(max_output);
  if (ZSTD_isError(ZSTD_DCtx_setParameter(ctx.get(), ZSTD_d_windowLogMax, window_log))) {
    return InternalError("zstd: cannot bound the window");
  }
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  std::string out;
  size_t last = 1;
  while (true) {
    if (out.size() > max_output) return TooLarge(Compression::kZstd, max_output);
    size_t avail = 0;
    const size_t before = out.size();
    char* dst = Grow(&out, max_output, &avail);
    ZSTD_outBuffer ob{dst, avail, 0};
    last = ZSTD_decompressStream(ctx.get(), &ob, &in);
    out.resize(before + ob.pos);
    if (ZSTD_getErrorCode(last) == ZSTD_error_frameParameter_windowTooLarge) {
      return Corrupt(Compression::kZstd,
                     "the frame's window is larger than " + std::to_string(size_t{1} << window_log) +
                         " bytes, the most a batch bounded to " + std::to_string(max_output) +
                         " decompressed bytes may use");
    }
    if (ZSTD_isError(last)) return Corrupt(Compression::kZstd, ZSTD_getErrorName(last));
    if (in.pos == in.size && ob.pos < ob.size) break;  // all input used, output flushed
  }
  if (out.size() > max_output) return TooLarge(Compression::kZstd, max_output);
  if (last != 0) return Corrupt(Compression::kZstd, "truncated frame");
  return out;
}

}  // namespace

std::string_view CompressionName(Compression codec) {
  switch (codec) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kSnappy:
      return "snappy";
    case Compression::kLz4:
      return "lz4";
    case Compression::kZstd:
      return "zstd";
  }
  return "unknown";
}

Result<std::string> Compress(Compression codec, std::string_view input,
                             const CompressOptions& options) {
  switch (codec) {
    case Compression::kNone:
      return std::string(input);
    case Compression::kGzip:
      return GzipCompress(input, options.level);
    case Compression::kSnappy:
      return SnappyCompress(input, options.snappy_xerial);
    case Compression::kLz4:
      return Lz4Compress(input, options.level);
    case Compression::kZstd:
      return ZstdCompress(input, options.level);
  }
  return InvalidArgumentError("unknown compression codec " +
                              std::to_string(static_cast<int>(codec)));
}

Result<std::string> Decompress(Compression codec, std::string_view input, size_t max_output) {
  max_output = std::min(max_output, std::numeric_limits<size_t>::max() / 2);  // room for +1
  switch (codec) {
    case Compression::kNone:
      if (input.size() > max_output) return TooLarge(codec, max_output);
      return std::string(input);
    case Compression::kGzip:
      return GzipDecompress(input, max_output);
    case Compression::kSnappy:
      return SnappyDecompress(input, max_output);
    case Compression::kLz4:
      return Lz4Decompress(input, max_output);
    case Compression::kZstd:
      return ZstdDecompress(input, max_output);
  }
  return InvalidArgumentError("malformed record batch: unknown compression codec " +
                              std::to_string(static_cast<int>(codec)));
}

}  // namespace mink::kafka
