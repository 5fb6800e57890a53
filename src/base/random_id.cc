#include "base/random_id.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>

namespace mink {
namespace {

uint64_t NextRandom() {
  // The clock as well: random_device may be a fixed sequence where no entropy source exists.
  thread_local std::mt19937_64 random{
      std::random_device{}() ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())};
  return random();
}

}  // namespace

std::string NewUuid() {
  const uint64_t hi = (NextRandom() & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
  const uint64_t lo = (NextRandom() & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08llx-%04llx-%04llx-%04llx-%012llx",
                static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xFFFF),
                static_cast<unsigned long long>(hi & 0xFFFF),
                static_cast<unsigned long long>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

std::string RandomHex(size_t bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  uint64_t word = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (i % 8 == 0) word = NextRandom();
    const auto byte = static_cast<uint8_t>(word >> (8 * (i % 8)));
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0xF];
  }
  return out;
}

}  // namespace mink
