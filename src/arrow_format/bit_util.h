#pragma once
// Validity and boolean bitmaps: bit i lives in byte i / 8 at position i % 8 (LSB first).

#include <bit>
#include <cstdint>
#include <cstring>

namespace mink::arrow::bits {

// Overflow-safe for any non-negative count.
inline int64_t BytesForBits(int64_t bits) { return bits / 8 + (bits % 8 != 0 ? 1 : 0); }

inline bool GetBit(const uint8_t* bitmap, int64_t i) { return (bitmap[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bitmap, int64_t i) {
  bitmap[i >> 3] = static_cast<uint8_t>(bitmap[i >> 3] | (1u << (i & 7)));
}
inline void ClearBit(uint8_t* bitmap, int64_t i) {
  bitmap[i >> 3] = static_cast<uint8_t>(bitmap[i >> 3] & ~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bitmap, int64_t i, bool value) {
  if (value) {
    SetBit(bitmap, i);
  } else {
    ClearBit(bitmap, i);
  }
}

// Number of set bits among bits [offset, offset + length).
inline int64_t CountSetBits(const uint8_t* bitmap, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  while (i < end && (i & 63) != 0) count += GetBit(bitmap, i++);
  for (; i + 64 <= end; i += 64) {
    uint64_t word;
    std::memcpy(&word, bitmap + (i >> 3), 8);
    count += std::popcount(word);
  }
  while (i < end) count += GetBit(bitmap, i++);
  return count;
}

// Copies bits [src_offset, src_offset + length) of `src` to bits [0, length) of `dst`.
inline void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst) {
  if ((src_offset & 7) == 0) {
    std::memcpy(dst, src + (src_offset >> 3), static_cast<size_t>(BytesForBits(length)));
    return;
  }
  for (int64_t i = 0; i < length; ++i) SetBitTo(dst, i, GetBit(src, src_offset + i));
}

}  // namespace mink::arrow::bits
