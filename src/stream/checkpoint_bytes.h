#pragma once
// The frame of an operator's checkpoint bytes (docs/formats/continuous-state.md): a 4-byte
// magic naming the operator, a version byte, the body, and a CRC32C of everything before it.
// Rows of Scalars are a u32 count and the Scalars.

#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "base/result.h"
#include "stream/scalar.h"

namespace mink::stream {

// Version 2 added decimal scalars and accumulators' decimal sums; version 1 is still read.
inline constexpr uint8_t kCheckpointVersion = 2;

// Starts a checkpoint of operator `magic` (4 characters).
std::string BeginCheckpoint(std::string_view magic);
// Appends the CRC32C trailer.
std::string SealCheckpoint(std::string bytes);
// The body of checkpoint bytes of operator `magic`, after checking the magic, the version and
// the CRC; DataLoss naming what is wrong. `version` (when given) is set to the bytes' version.
Result<std::string_view> OpenCheckpoint(std::string_view bytes, std::string_view magic, uint8_t* version = nullptr);

void EncodeRow(const std::vector<Scalar>& row, std::string* out);
bool DecodeRow(ByteReader* in, std::vector<Scalar>* row);

}  // namespace mink::stream
