// libFuzzer target: every request and response decoder. The first 4 bytes pick the API (index
// into the API table) and the version (within its range); the rest is the body. A body that
// decodes must re-encode, and the re-encoding must decode to the same bytes. The whole input is
// also parsed as a request frame payload (header + body).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kafka/protocol/messages.h"

namespace {

using mink::kafka::AllApis;

void CheckStable(const mink::kafka::Request& message, int16_t key, int16_t version) {
  std::string first;
  if (!mink::kafka::EncodeRequest(message, version, &first).ok()) std::abort();
  auto again = mink::kafka::DecodeRequest(key, version, first);
  if (!again.ok()) std::abort();
  std::string second;
  if (!mink::kafka::EncodeRequest(*again, version, &second).ok() || first != second) std::abort();
}

void CheckStable(const mink::kafka::Response& message, int16_t key, int16_t version) {
  std::string first;
  if (!mink::kafka::EncodeResponse(message, version, &first).ok()) std::abort();
  auto again = mink::kafka::DecodeResponse(key, version, first);
  if (!again.ok()) std::abort();
  std::string second;
  if (!mink::kafka::EncodeResponse(*again, version, &second).ok() || first != second) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)mink::kafka::ParseRequestFrame(input);
  if (size < 4) return 0;
  const auto apis = AllApis();
  const auto& api = apis[((data[0] << 8) | data[1]) % apis.size()];
  const int range = api.max_version - api.min_version + 1;
  const auto version = static_cast<int16_t>(api.min_version + ((data[2] << 8) | data[3]) % range);
  const auto key = static_cast<int16_t>(api.key);
  std::string_view body = input.substr(4);
  auto request = mink::kafka::DecodeRequest(key, version, body);
  if (request.ok()) CheckStable(*request, key, version);
  auto response = mink::kafka::DecodeResponse(key, version, body);
  if (response.ok()) CheckStable(*response, key, version);
  return 0;
}
