#include "lake/avro.h"

#include <random>

namespace mink::lake::avro {

void Encoder::Long(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out_.push_back(static_cast<char>((z & 0x7F) | 0x80));
    z >>= 7;
  }
  out_.push_back(static_cast<char>(z));
}

void Encoder::Bytes(std::string_view v) {
  Long(static_cast<int64_t>(v.size()));
  out_.append(v.data(), v.size());
}

ContainerWriter::ContainerWriter(std::string schema_json,
                                 std::map<std::string, std::string> metadata)
    : schema_json_(std::move(schema_json)), metadata_(std::move(metadata)) {
  std::random_device device;
  std::mt19937_64 random((static_cast<uint64_t>(device()) << 32) ^ device());
  for (int i = 0; i < 2; ++i) {
    const uint64_t word = random();
    sync_.append(reinterpret_cast<const char*>(&word), 8);
  }
}

void ContainerWriter::Append(std::string_view encoded_record) {
  records_.append(encoded_record.data(), encoded_record.size());
  ++count_;
}

std::string ContainerWriter::Finish() const {
  Encoder header;
  std::map<std::string, std::string> metadata = metadata_;
  metadata["avro.schema"] = schema_json_;
  metadata["avro.codec"] = "null";
  header.ArrayStart(static_cast<int64_t>(metadata.size()));
  for (const auto& [key, value] : metadata) {
    header.String(key);
    header.Bytes(value);
  }
  header.ArrayEnd();
  std::string out = "Obj\x01";
  out += header.bytes();
  out += sync_;
  if (count_ > 0) {
    Encoder block;
    block.Long(count_);
    block.Long(static_cast<int64_t>(records_.size()));
    out += block.bytes();
    out += records_;
    out += sync_;
  }
  return out;
}

}  // namespace mink::lake::avro
