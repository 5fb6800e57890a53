#pragma once
// The WebSocket protocol's pieces (RFC 6455) the ApiServer's WebSocket connections use, written
// from the RFC: the handshake's accept key (section 4.2.2), a server's frames (unmasked, FIN set:
// Mink never fragments what it sends) and a reader of a client's frames (section 5.2), which
// must be masked. No extension is negotiated, so the reserved bits are always 0. Pure values
// and functions; a WsFrameReader has one owner.

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace mink::http {

enum class WsOpcode : uint8_t {
  kContinuation = 0x0,
  kText = 0x1,
  kBinary = 0x2,
  kClose = 0x8,
  kPing = 0x9,
  kPong = 0xA,
};

// Close codes (RFC 6455 section 7.4.1).
inline constexpr int kWsNormalClosure = 1000;
inline constexpr int kWsGoingAway = 1001;
inline constexpr int kWsProtocolError = 1002;
inline constexpr int kWsPolicyViolation = 1008;
inline constexpr int kWsMessageTooBig = 1009;
inline constexpr int kWsInternalError = 1011;

// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + the RFC's GUID)).
std::string WebSocketAccept(std::string_view key);

// One whole unmasked frame: FIN, `opcode`, the payload's length in 7, 16 or 64 bits.
std::string EncodeWsFrame(WsOpcode opcode, std::string_view payload);

// A Close frame's payload: the code (2 bytes, big-endian) and the reason, cut to the 123 bytes
// a control frame leaves it (at a UTF-8 character's start).
std::string WsClosePayload(int code, std::string_view reason);

struct WsFrame {
  bool fin = true;
  WsOpcode opcode = WsOpcode::kText;
  std::string payload;  // unmasked
};

// A client's frames out of its bytes as they arrive.
class WsFrameReader {
 public:
  // A frame whose payload is longer than `max_payload` is refused (ResourceExhausted).
  explicit WsFrameReader(size_t max_payload) : max_payload_(max_payload) {}

  void Feed(const char* data, size_t size) { buffer_.append(data, size); }
  // Takes the next whole frame off the bytes fed: true and `frame` set, or false when the
  // frame is not all there yet. InvalidArgument for a frame the protocol does not allow (not
  // masked, reserved bits, an unknown opcode, a fragmented or long control frame, a length with
  // its top bit set), ResourceExhausted for one too long: the connection fails (1002, 1009).
  Result<bool> Next(WsFrame* frame);

 private:
  size_t max_payload_;
  std::string buffer_;
  size_t at_ = 0;  // the first byte of buffer_ not taken yet
};

}  // namespace mink::http
