// ZstdWindowLogFor: the smallest power of two that holds the output bound, within zstd's limits;
// CheckZstdFramesAreCurrent: frames of the current format (and skippable ones) only.

#include "codec/zstd_frames.h"

#include <gtest/gtest.h>

#include <string>

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

// Magic, a descriptor without content size, a 1 KiB window, then one last raw block of "x".
const std::string kCurrentFrame("\x28\xb5\x2f\xfd\x00\x00\x09\x00\x00x", 10);

TEST(ZstdFramesTest, CurrentAndSkippableFramesPassInAnyNumber) {
  EXPECT_TRUE(CheckZstdFramesAreCurrent("").ok());
  EXPECT_TRUE(CheckZstdFramesAreCurrent(kCurrentFrame).ok());
  EXPECT_TRUE(CheckZstdFramesAreCurrent(kCurrentFrame + kCurrentFrame).ok());
  // A skippable frame: magic 0x184D2A5?, a 4-byte length, that many bytes.
  const std::string skippable("\x53\x2a\x4d\x18\x02\x00\x00\x00" "ab", 10);
  EXPECT_TRUE(CheckZstdFramesAreCurrent(skippable + kCurrentFrame).ok());
}

TEST(ZstdFramesTest, FramesOfOlderFormatsAndTruncatedFramesAreNamedByTheirByte) {
  // The input kafka_record_batch_fuzzer found: a frame of zstd 0.6's format (magic 0xFD2FB526),
  // which made libzstd's legacy decoder allocate 128 MiB whatever ZSTD_d_windowLogMax said.
  const std::string legacy("\x26\xb5\x2f\xfd\x5f\xff\x07\x2f\xfd\x06\x31", 11);
  Status s = CheckZstdFramesAreCurrent(legacy);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("at byte 0 is not of the current format (magic 0xFD2FB526)"),
            std::string::npos)
      << s.ToString();
  // Behind a good frame, the byte where it starts.
  s = CheckZstdFramesAreCurrent(kCurrentFrame + legacy);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("at byte 10 "), std::string::npos) << s.ToString();
  EXPECT_FALSE(CheckZstdFramesAreCurrent(kCurrentFrame.substr(0, 8)).ok());
  EXPECT_FALSE(CheckZstdFramesAreCurrent(kCurrentFrame + "\x28\xb5").ok());
}

}  // namespace
}  // namespace mink::codec
