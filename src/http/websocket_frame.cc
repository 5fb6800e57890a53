#include "http/websocket_frame.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>

namespace mink::http {
namespace {

constexpr char kAcceptGuid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr size_t kMaxControlPayload = 125;

bool KnownOpcode(uint8_t op) {
  switch (static_cast<WsOpcode>(op)) {
    case WsOpcode::kContinuation:
    case WsOpcode::kText:
    case WsOpcode::kBinary:
    case WsOpcode::kClose:
    case WsOpcode::kPing:
    case WsOpcode::kPong:
      return true;
  }
  return false;
}

}  // namespace

std::string WebSocketAccept(std::string_view key) {
  const std::string text = std::string(key) + kAcceptGuid;
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  unsigned char encoded[4 * ((SHA_DIGEST_LENGTH + 2) / 3) + 1];
  const int n = EVP_EncodeBlock(encoded, digest, SHA_DIGEST_LENGTH);
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<size_t>(n));
}

std::string EncodeWsFrame(WsOpcode opcode, std::string_view payload) {
  std::string out;
  out.reserve(payload.size() + 10);
  out += static_cast<char>(0x80 | static_cast<uint8_t>(opcode));
  const uint64_t n = payload.size();
  if (n <= 125) {
    out += static_cast<char>(n);
  } else if (n <= 0xFFFF) {
    out += static_cast<char>(126);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(n & 0xFF);
  } else {
    out += static_cast<char>(127);
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((n >> shift) & 0xFF);
  }
  out.append(payload);
  return out;
}

std::string WsClosePayload(int code, std::string_view reason) {
  std::string out;
  out += static_cast<char>((code >> 8) & 0xFF);
  out += static_cast<char>(code & 0xFF);
  size_t keep = std::min(reason.size(), kMaxControlPayload - 2);
  // Not in the middle of a UTF-8 sequence: back up over continuation bytes.
  while (keep < reason.size() && keep > 0 && (static_cast<uint8_t>(reason[keep]) & 0xC0) == 0x80)
    --keep;
  out.append(reason.substr(0, keep));
  return out;
}

Result<bool> WsFrameReader::Next(WsFrame* frame) {
  const std::string_view bytes = std::string_view(buffer_).substr(at_);
  if (bytes.size() < 2) return false;
  const auto b0 = static_cast<uint8_t>(bytes[0]), b1 = static_cast<uint8_t>(bytes[1]);
  const bool fin = (b0 & 0x80) != 0;
  const uint8_t opcode = b0 & 0x0F;
  if ((b0 & 0x70) != 0)
    return InvalidArgumentError("a frame with reserved bits set (no extension was agreed)");
  if (!KnownOpcode(opcode)) return InvalidArgumentError("unknown opcode " + std::to_string(opcode));
  if ((b1 & 0x80) == 0) return InvalidArgumentError("a client's frame must be masked");
  const bool control = (opcode & 0x08) != 0;
  uint64_t length = b1 & 0x7F;
  size_t header = 2;
  if (length == 126) {
    if (bytes.size() < 4) return false;
    length = (uint64_t{static_cast<uint8_t>(bytes[2])} << 8) | static_cast<uint8_t>(bytes[3]);
    header = 4;
  } else if (length == 127) {
    if (bytes.size() < 10) return false;
    length = 0;
    for (size_t i = 2; i < 10; ++i) length = (length << 8) | static_cast<uint8_t>(bytes[i]);
    if ((length >> 63) != 0)
      return InvalidArgumentError("a frame length with its most significant bit set");
    header = 10;
  }
  if (control && (!fin || length > kMaxControlPayload)) {
    return InvalidArgumentError("a control frame must be whole and at most 125 bytes");
  }
  if (length > max_payload_) {
    return ResourceExhaustedError("a frame of " + std::to_string(length) + " bytes (at most " +
                                  std::to_string(max_payload_) + ")");
  }
  header += 4;  // the masking key
  if (bytes.size() < header + length) return false;
  const std::string_view mask = bytes.substr(header - 4, 4);
  frame->fin = fin;
  frame->opcode = static_cast<WsOpcode>(opcode);
  frame->payload.assign(bytes.substr(header, length));
  for (size_t i = 0; i < frame->payload.size(); ++i) frame->payload[i] ^= mask[i % 4];
  at_ += header + length;
  // What was taken goes once it is most of the buffer, so that a long connection's reader
  // keeps only what it has not read.
  if (at_ == buffer_.size() || at_ > (64 << 10)) {
    buffer_.erase(0, at_);
    at_ = 0;
  }
  return true;
}

}  // namespace mink::http
