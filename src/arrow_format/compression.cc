#include "arrow_format/compression.h"

#include <lz4frame.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <memory>
#include <string>

#include "codec/zstd_frames.h"

namespace mink::arrow {
namespace {

struct Lz4DecompressContextDeleter {
  void operator()(LZ4F_dctx* ctx) const { LZ4F_freeDecompressionContext(ctx); }
};

LZ4F_dctx* ThreadLz4Context() {
  thread_local std::unique_ptr<LZ4F_dctx, Lz4DecompressContextDeleter> ctx;
  if (!ctx) {
    LZ4F_dctx* raw = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) return nullptr;
    ctx.reset(raw);
  }
  return ctx.get();
}

struct ZstdDecompressContextDeleter {
  void operator()(ZSTD_DCtx* ctx) const { ZSTD_freeDCtx(ctx); }
};

ZSTD_DCtx* ThreadZstdContext() {
  thread_local std::unique_ptr<ZSTD_DCtx, ZstdDecompressContextDeleter> ctx(ZSTD_createDCtx());
  return ctx.get();
}

Status Lz4Decompress(std::string_view input, uint8_t* output, int64_t output_size) {
  LZ4F_dctx* ctx = ThreadLz4Context();
  if (ctx == nullptr) return InternalError("cannot create an LZ4 decompression context");
  LZ4F_resetDecompressionContext(ctx);
  const char* src = input.data();
  size_t src_left = input.size();
  uint8_t* dst = output;
  size_t dst_left = static_cast<size_t>(output_size);
  // Once the output is full the frame may still hold its end mark or checksum; LZ4F needs some
  // output room to step past them, so it gets a spill area that must stay unused.
  uint8_t spill[64];
  while (true) {
    const bool full = dst_left == 0;
    size_t src_size = src_left;
    size_t dst_size = full ? sizeof(spill) : dst_left;
    size_t hint = LZ4F_decompress(ctx, full ? spill : dst, &dst_size, src, &src_size, nullptr);
    if (LZ4F_isError(hint)) {
      return InvalidArgumentError(std::string("corrupt LZ4 frame: ") + LZ4F_getErrorName(hint));
    }
    if (full && dst_size > 0) {
      return InvalidArgumentError("LZ4 frame expands beyond its declared length " +
                                  std::to_string(output_size));
    }
    src += src_size;
    src_left -= src_size;
    if (!full) {
      dst += dst_size;
      dst_left -= dst_size;
    }
    if (hint == 0) break;  // frame complete
    if (src_size == 0 && dst_size == 0) return InvalidArgumentError("truncated LZ4 frame");
  }
  if (dst_left != 0) {
    return InvalidArgumentError("LZ4 frame expands to " +
                                std::to_string(output_size - static_cast<int64_t>(dst_left)) +
                                " bytes, its declared length is " + std::to_string(output_size));
  }
  if (src_left != 0) return InvalidArgumentError("trailing bytes after the LZ4 frame");
  return Status::Ok();
}

Status ZstdDecompress(std::string_view input, uint8_t* output, int64_t output_size) {
  Status current = codec::CheckZstdFramesAreCurrent(input);
  if (!current.ok()) return InvalidArgumentError("corrupt ZSTD data: " + current.message());
  unsigned long long content = ZSTD_getFrameContentSize(input.data(), input.size());
  if (content == ZSTD_CONTENTSIZE_ERROR) return InvalidArgumentError("corrupt ZSTD frame header");
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != static_cast<uint64_t>(output_size)) {
    return InvalidArgumentError("ZSTD frame holds " + std::to_string(content) +
                                " bytes, its declared length is " + std::to_string(output_size));
  }
  ZSTD_DCtx* ctx = ThreadZstdContext();
  if (ctx == nullptr) return InternalError("cannot create a ZSTD decompression context");
  // The thread's context may carry the window bound of an earlier DecompressBufferToFit.
  ZSTD_DCtx_reset(ctx, ZSTD_reset_session_and_parameters);
  size_t n = ZSTD_decompressDCtx(ctx, output, static_cast<size_t>(output_size), input.data(),
                                 input.size());
  if (ZSTD_isError(n)) {
    return InvalidArgumentError(std::string("corrupt ZSTD frame: ") + ZSTD_getErrorName(n));
  }
  if (n != static_cast<size_t>(output_size)) {
    return InvalidArgumentError("ZSTD frame expands to " + std::to_string(n) +
                                " bytes, its declared length is " + std::to_string(output_size));
  }
  return Status::Ok();
}

// Grows `out` (doubling, at most to max_size); false when it is already at max_size.
bool Grow(std::string* out, int64_t max_size) {
  const int64_t size = static_cast<int64_t>(out->size());
  if (size >= max_size) return false;
  out->resize(static_cast<size_t>(std::min(max_size, std::max<int64_t>(4096, size * 2))));
  return true;
}

Result<std::string> Lz4DecompressToFit(std::string_view input, int64_t max_size) {
  LZ4F_dctx* ctx = ThreadLz4Context();
  if (ctx == nullptr) return InternalError("cannot create an LZ4 decompression context");
  LZ4F_resetDecompressionContext(ctx);
  std::string out;
  size_t produced = 0;
  const char* src = input.data();
  size_t src_left = input.size();
  while (true) {
    if (produced == out.size() && !Grow(&out, max_size)) {
      return InvalidArgumentError("LZ4 frame expands beyond " + std::to_string(max_size) +
                                  " bytes");
    }
    size_t src_size = src_left;
    size_t dst_size = out.size() - produced;
    size_t hint = LZ4F_decompress(ctx, out.data() + produced, &dst_size, src, &src_size, nullptr);
    if (LZ4F_isError(hint)) {
      return InvalidArgumentError(std::string("corrupt LZ4 frame: ") + LZ4F_getErrorName(hint));
    }
    src += src_size;
    src_left -= src_size;
    produced += dst_size;
    if (hint == 0) break;
    if (src_size == 0 && dst_size == 0 && produced < out.size()) {
      return InvalidArgumentError("truncated LZ4 frame");
    }
  }
  if (src_left != 0) return InvalidArgumentError("trailing bytes after the LZ4 frame");
  out.resize(produced);
  return out;
}

Result<std::string> ZstdDecompressToFit(std::string_view input, int64_t max_size) {
  ZSTD_DCtx* ctx = ThreadZstdContext();
  if (ctx == nullptr) return InternalError("cannot create a ZSTD decompression context");
  ZSTD_DCtx_reset(ctx, ZSTD_reset_session_only);
  Status current = codec::CheckZstdFramesAreCurrent(input);
  if (!current.ok()) return InvalidArgumentError("corrupt ZSTD data: " + current.message());
  const int window_log = codec::ZstdWindowLogFor(static_cast<size_t>(std::max<int64_t>(max_size, 0)));
  if (ZSTD_isError(ZSTD_DCtx_setParameter(ctx, ZSTD_d_windowLogMax, window_log))) {
    return InternalError("cannot bound the ZSTD window");
  }
  std::string out;
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  size_t produced = 0;
  while (true) {
    if (produced == out.size() && !Grow(&out, max_size)) {
      return InvalidArgumentError("ZSTD frame expands beyond " + std::to_string(max_size) +
                                  " bytes");
    }
    ZSTD_outBuffer dst{out.data(), out.size(), produced};
    size_t ret = ZSTD_decompressStream(ctx, &dst, &in);
    if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge) {
      return InvalidArgumentError("ZSTD frame's window is larger than " +
                                  std::to_string(size_t{1} << window_log) +
                                  " bytes, the most a buffer of at most " +
                                  std::to_string(max_size) + " bytes may use");
    }
    if (ZSTD_isError(ret)) {
      return InvalidArgumentError(std::string("corrupt ZSTD frame: ") + ZSTD_getErrorName(ret));
    }
    const bool progress = dst.pos != produced;
    produced = dst.pos;
    if (ret == 0) break;  // frame complete
    if (!progress && in.pos == in.size && produced < out.size()) {
      return InvalidArgumentError("truncated ZSTD frame");
    }
  }
  if (in.pos != in.size) return InvalidArgumentError("trailing bytes after the ZSTD frame");
  out.resize(produced);
  return out;
}

}  // namespace

Result<std::string> DecompressBufferToFit(CompressionCodec codec, std::string_view input,
                                          int64_t max_size) {
  switch (codec) {
    case CompressionCodec::kLz4Frame:
      return Lz4DecompressToFit(input, max_size);
    case CompressionCodec::kZstd:
      return ZstdDecompressToFit(input, max_size);
    case CompressionCodec::kNone:
      break;
  }
  return InvalidArgumentError("DecompressBufferToFit: no codec");
}

std::string_view CompressionCodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kNone:
      return "none";
    case CompressionCodec::kLz4Frame:
      return "lz4_frame";
    case CompressionCodec::kZstd:
      return "zstd";
  }
  return "?";
}

int64_t MaxCompressedSize(CompressionCodec codec, int64_t input_size) {
  switch (codec) {
    case CompressionCodec::kLz4Frame: {
      LZ4F_preferences_t prefs{};
      prefs.frameInfo.contentSize = static_cast<unsigned long long>(input_size);
      return static_cast<int64_t>(LZ4F_compressFrameBound(static_cast<size_t>(input_size), &prefs));
    }
    case CompressionCodec::kZstd:
      return static_cast<int64_t>(ZSTD_compressBound(static_cast<size_t>(input_size)));
    case CompressionCodec::kNone:
      return input_size;
  }
  return input_size;
}

Result<int64_t> CompressBuffer(CompressionCodec codec, int level, std::string_view input,
                               uint8_t* out, int64_t out_capacity) {
  switch (codec) {
    case CompressionCodec::kLz4Frame: {
      LZ4F_preferences_t prefs{};
      prefs.frameInfo.contentSize = input.size();  // lets readers check the declared length
      prefs.compressionLevel = level;
      size_t n = LZ4F_compressFrame(out, static_cast<size_t>(out_capacity), input.data(),
                                    input.size(), &prefs);
      if (LZ4F_isError(n)) {
        return InternalError(std::string("LZ4 compression failed: ") + LZ4F_getErrorName(n));
      }
      return static_cast<int64_t>(n);
    }
    case CompressionCodec::kZstd: {
      size_t n = ZSTD_compress(out, static_cast<size_t>(out_capacity), input.data(), input.size(),
                               level == 0 ? 1 : level);
      if (ZSTD_isError(n)) {
        return InternalError(std::string("ZSTD compression failed: ") + ZSTD_getErrorName(n));
      }
      return static_cast<int64_t>(n);
    }
    case CompressionCodec::kNone:
      break;
  }
  return InvalidArgumentError("CompressBuffer: no codec");
}

Status DecompressBuffer(CompressionCodec codec, std::string_view input, uint8_t* output,
                        int64_t output_size) {
  switch (codec) {
    case CompressionCodec::kLz4Frame:
      return Lz4Decompress(input, output, output_size);
    case CompressionCodec::kZstd:
      return ZstdDecompress(input, output, output_size);
    case CompressionCodec::kNone:
      break;
  }
  return InvalidArgumentError("DecompressBuffer: no codec");
}

int64_t MaxPlausibleDecompressedSize(CompressionCodec codec, int64_t compressed_size) {
  // LZ4 sequences encode at most ~255 output bytes per input byte; a Zstandard RLE block turns
  // 4 bytes into up to 128 KiB. The constant covers frame headers of tiny inputs.
  switch (codec) {
    case CompressionCodec::kLz4Frame:
      return compressed_size * 256 + 4096;
    case CompressionCodec::kZstd:
      return compressed_size * 32768 + 131072;
    case CompressionCodec::kNone:
      return compressed_size;
  }
  return compressed_size;
}

}  // namespace mink::arrow
