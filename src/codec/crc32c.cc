#include "codec/crc32c.h"

#include <array>
#include <cstring>

namespace mink::codec {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78;  // reflected Castagnoli

constexpr std::array<std::array<uint32_t, 256>, 8> MakeTables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  }
  return t;
}

constexpr auto kTables = MakeTables();

// Slicing-by-8 over the table.
uint32_t Software(uint32_t crc, const uint8_t* p, size_t n) {
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    word ^= crc;
    crc = kTables[7][word & 0xFF] ^ kTables[6][(word >> 8) & 0xFF] ^
          kTables[5][(word >> 16) & 0xFF] ^ kTables[4][(word >> 24) & 0xFF] ^
          kTables[3][(word >> 32) & 0xFF] ^ kTables[2][(word >> 40) & 0xFF] ^
          kTables[1][(word >> 48) & 0xFF] ^ kTables[0][word >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xFF];
  return crc;
}

#if defined(__x86_64__)
// The crc32 instruction has a latency of 3 cycles and a throughput of 1 per cycle, so one chain
// runs at a third of the speed the CPU allows. Long inputs are cut into three adjacent blocks
// checksummed as three independent chains, then joined: the register after A then B is the
// register after A moved over |B| zero bytes, XOR the register of B started from 0 (CRC is
// linear). "Moving over n zero bytes" is a linear map of the 32-bit register, applied with four
// byte tables built once for each block size.

// A 32x32 matrix over GF(2) (column i = image of bit i) times a vector.
constexpr uint32_t Gf2Times(const std::array<uint32_t, 32>& m, uint32_t v) {
  uint32_t sum = 0;
  for (int i = 0; v != 0; ++i, v >>= 1) {
    if (v & 1) sum ^= m[static_cast<size_t>(i)];
  }
  return sum;
}

constexpr std::array<uint32_t, 32> Gf2Square(const std::array<uint32_t, 32>& m) {
  std::array<uint32_t, 32> out{};
  for (size_t i = 0; i < 32; ++i) out[i] = Gf2Times(m, m[i]);
  return out;
}

// The tables that move a register over `bytes` zero bytes (a power of two).
constexpr std::array<std::array<uint32_t, 256>, 4> MakeShiftTables(size_t bytes) {
  std::array<uint32_t, 32> op{};  // one zero bit
  op[0] = kPolynomial;
  for (size_t i = 1; i < 32; ++i) op[i] = 1u << (i - 1);
  for (int i = 0; i < 3; ++i) op = Gf2Square(op);  // eight zero bits: one byte
  for (size_t n = bytes; n > 1; n >>= 1) op = Gf2Square(op);
  std::array<std::array<uint32_t, 256>, 4> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    for (int k = 0; k < 4; ++k) t[static_cast<size_t>(k)][b] = Gf2Times(op, b << (8 * k));
  }
  return t;
}

constexpr size_t kLongBlock = 8192;
constexpr size_t kShortBlock = 256;
constexpr auto kShiftLong = MakeShiftTables(kLongBlock);
constexpr auto kShiftShort = MakeShiftTables(kShortBlock);

uint32_t Shift(const std::array<std::array<uint32_t, 256>, 4>& t, uint32_t crc) {
  return t[0][crc & 0xFF] ^ t[1][(crc >> 8) & 0xFF] ^ t[2][(crc >> 16) & 0xFF] ^ t[3][crc >> 24];
}

// Runs `groups` groups of three `block`-byte blocks starting at `p`. A function of its own, not a lambda:
// the target attribute does not reach into lambdas under clang.
template <size_t block>
__attribute__((target("sse4.2"))) uint64_t ThreeChains(
    uint64_t c, const uint8_t* p, size_t groups,
    const std::array<std::array<uint32_t, 256>, 4>& shift) {
  for (; groups > 0; --groups) {
    uint64_t c1 = 0, c2 = 0;
    for (const uint8_t* end = p + block; p < end; p += 8) {
      uint64_t w0, w1, w2;
      std::memcpy(&w0, p, 8);
      std::memcpy(&w1, p + block, 8);
      std::memcpy(&w2, p + 2 * block, 8);
      c = __builtin_ia32_crc32di(c, w0);
      c1 = __builtin_ia32_crc32di(c1, w1);
      c2 = __builtin_ia32_crc32di(c2, w2);
    }
    c = Shift(shift, static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c1);
    c = Shift(shift, static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c2);
    p += 2 * block;
  }
  return c;
}

__attribute__((target("sse4.2"))) uint32_t Hardware(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = crc;
  size_t groups = n / (3 * kLongBlock);
  c = ThreeChains<kLongBlock>(c, p, groups, kShiftLong);
  p += groups * 3 * kLongBlock;
  n -= groups * 3 * kLongBlock;
  groups = n / (3 * kShortBlock);
  c = ThreeChains<kShortBlock>(c, p, groups, kShiftShort);
  p += groups * 3 * kShortBlock;
  n -= groups * 3 * kShortBlock;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}

bool HasSse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
#if defined(__x86_64__)
  if (HasSse42()) return ~Hardware(crc, p, size);
#endif
  return ~Software(crc, p, size);
}

}  // namespace mink::codec
