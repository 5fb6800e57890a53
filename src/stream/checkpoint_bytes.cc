#include "stream/checkpoint_bytes.h"

#include "codec/crc32c.h"

namespace mink::stream {

std::string BeginCheckpoint(std::string_view magic) {
  std::string out(magic);
  PutU8(&out, kCheckpointVersion);
  return out;
}

std::string SealCheckpoint(std::string bytes) {
  PutU32(&bytes, codec::Crc32c(bytes));
  return bytes;
}

Result<std::string_view> OpenCheckpoint(std::string_view bytes, std::string_view magic, uint8_t* version) {
  const std::string what = "checkpoint of operator " + std::string(magic) + ": ";
  if (bytes.size() < magic.size() + 1 + 4 || bytes.substr(0, magic.size()) != magic) {
    return DataLossError(what + "not one (magic)");
  }
  const uint32_t crc = LoadU32(bytes.data() + bytes.size() - 4);
  if (codec::Crc32c(bytes.substr(0, bytes.size() - 4)) != crc) return DataLossError(what + "its CRC does not match");
  const auto found = static_cast<uint8_t>(bytes[magic.size()]);
  if (found < 1 || found > kCheckpointVersion) {
    return DataLossError(what + "version " + std::to_string(found) + ", this build reads 1 to " +
                         std::to_string(kCheckpointVersion));
  }
  if (version != nullptr) *version = found;
  return bytes.substr(magic.size() + 1, bytes.size() - magic.size() - 1 - 4);
}

void EncodeRow(const std::vector<Scalar>& row, std::string* out) {
  PutU32(out, static_cast<uint32_t>(row.size()));
  for (const auto& s : row) s.Encode(out);
}

bool DecodeRow(ByteReader* in, std::vector<Scalar>* row) {
  uint32_t n = 0;
  if (!in->ReadU32(&n) || n > in->remaining()) return false;
  row->assign(n, Scalar());
  for (auto& s : *row) {
    if (!Scalar::Decode(in, &s)) return false;
  }
  return true;
}

}  // namespace mink::stream
