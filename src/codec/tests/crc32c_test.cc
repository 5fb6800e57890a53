#include "codec/crc32c.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace mink::codec
