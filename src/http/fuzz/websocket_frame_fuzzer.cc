// libFuzzer target: a client's WebSocket frames (WsFrameReader), fed in pieces the first byte
// chooses, as a stranger's connection would deliver them. Every frame is refused or read whole;
// none is longer than the limit; feeding in pieces reads what feeding at once reads.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "http/websocket_frame.h"

namespace {

constexpr size_t kMaxPayload = 4096;

// The frames read (payloads with opcode and fin) and whether reading ended in an error.
std::vector<std::string> ReadAll(const uint8_t* data, size_t size, size_t piece, bool* failed) {
  mink::http::WsFrameReader reader(kMaxPayload);
  std::vector<std::string> frames;
  *failed = false;
  for (size_t at = 0; at < size && !*failed; at += piece) {
    const size_t n = std::min(piece, size - at);
    reader.Feed(reinterpret_cast<const char*>(data + at), n);
    while (true) {
      mink::http::WsFrame frame;
      auto next = reader.Next(&frame);
      if (!next.ok()) {
        *failed = true;
        break;
      }
      if (!*next) break;
      if (frame.payload.size() > kMaxPayload) std::abort();
      frames.push_back(std::to_string(static_cast<int>(frame.opcode)) + (frame.fin ? "F" : "-") + frame.payload);
    }
  }
  return frames;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 16;
  bool failed_whole = false, failed_pieces = false;
  auto whole = ReadAll(data + 1, size - 1, size, &failed_whole);
  auto pieces = ReadAll(data + 1, size - 1, piece, &failed_pieces);
  // Pieces may stop at the error before reading frames that come after it in the same feed, so
  // compare only when neither failed.
  if (!failed_whole && !failed_pieces && whole != pieces) std::abort();
  return 0;
}
