#pragma once
// CRC-32C (Castagnoli), the checksum of every object and batch Mink writes. Uses the SSE4.2
// instruction when the CPU has it, a table otherwise; both give the same values.

#include <cstdint>
#include <string_view>

namespace mink::codec {

// Extends `crc` (the value returned for the previous bytes, 0 to start) over `data`.
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size);

inline uint32_t Crc32c(std::string_view data) { return Crc32cExtend(0, data.data(), data.size()); }

}  // namespace mink::codec
