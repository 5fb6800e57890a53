#include "codec/crc32c.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace mink::codec {
namespace {

TEST(Crc32c, StandardCheckValue) {
  // The check value of CRC-32C from the catalogue of parametrised CRC algorithms.
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
}

TEST(Crc32c, Rfc3720Vectors) {
  // iSCSI (RFC 3720 B.4): 32 bytes of zeros and 32 bytes of 0xFF.
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
}

TEST(Crc32c, ExtendEqualsWhole) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7));
  uint32_t whole = Crc32c(data);
  uint32_t part = Crc32cExtend(0, data.data(), 333);
  part = Crc32cExtend(part, data.data() + 333, data.size() - 333);
  EXPECT_EQ(whole, part);
}

// A bit at a time, straight from the definition: the reference for the fast paths.
uint32_t Reference(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : data) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
  }
  return ~crc;
}

TEST(Crc32c, EveryLengthAndAlignmentMatchesTheDefinition) {
  // Long inputs go through three interleaved chains (blocks of 8 KiB, then 256 B) joined with
  // shift tables; lengths around every block boundary, at every alignment, and extended in
  // pieces that cut through the blocks.
  std::string data(3 * 8192 * 2 + 3 * 256 * 3 + 64, '\0');
  uint64_t x = 88172645463325252ull;
  for (char& c : data) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x);
  }
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 80; ++n) lengths.push_back(n);
  for (size_t base : {size_t{3 * 256}, size_t{3 * 8192}, size_t{2 * 3 * 8192}}) {
    for (size_t d = 0; d < 20; ++d) {
      lengths.push_back(base - 10 + d);
      lengths.push_back(base + 3 * 256 + d);
    }
  }
  lengths.push_back(data.size() - 8);
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n : lengths) {
      if (offset + n > data.size()) continue;
      std::string_view piece(data.data() + offset, n);
      ASSERT_EQ(Crc32c(piece), Reference(piece)) << "offset " << offset << " length " << n;
    }
  }
  const std::string_view all(data);
  uint32_t crc = 0;
  for (size_t at = 0, step = 1000; at < all.size(); at += step, step += 3001) {
    const size_t n = std::min(step, all.size() - at);
    crc = Crc32cExtend(crc, all.data() + at, n);
  }
  EXPECT_EQ(crc, Reference(all));
}

}  // namespace
}  // namespace mink::codec
