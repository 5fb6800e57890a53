// ZstdWindowLogFor: the smallest power of two that holds the output bound, within zstd's limits.

#include "codec/zstd_window.h"

#include <gtest/gtest.h>

namespace mink::codec {
namespace {

TEST(ZstdWindowTest, TheWindowIsTheSmallestPowerOfTwoThatHoldsTheBound) {
  EXPECT_EQ(ZstdWindowLogFor(0), 10);  // zstd's smallest window
  EXPECT_EQ(ZstdWindowLogFor(1024), 10);
  EXPECT_EQ(ZstdWindowLogFor(1025), 11);
  EXPECT_EQ(ZstdWindowLogFor(size_t{1} << 20), 20);
  EXPECT_EQ(ZstdWindowLogFor((size_t{1} << 20) + 1), 21);
  EXPECT_EQ(ZstdWindowLogFor(size_t{64} << 20), 26);
  EXPECT_EQ(ZstdWindowLogFor(size_t{1} << 40), 27);  // never above the decoder's default
}

}  // namespace
}  // namespace mink::codec
