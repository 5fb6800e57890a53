#pragma once
// Avro, as much as Iceberg's manifests and manifest lists need: the binary encoding of values
// (Encoder) and the object container file around the encoded records (ContainerWriter: header
// with the schema and Iceberg's key-value metadata, one data block, sync markers). Debian's
// avro-c cannot write custom file metadata, which Iceberg requires; decision 0013.
// docs/formats/lake.md has the byte layout.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace mink::lake::avro {

// Appends Avro binary encodings to a string. The caller writes a record's fields in schema
// order; an optional field is a union ["null", T]: Null() for null, else Branch(1) then T.
class Encoder {
 public:
  void Null() { Branch(0); }
  void Branch(int64_t index) { Long(index); }
  void Boolean(bool v) { out_.push_back(v ? '\1' : '\0'); }
  void Int(int32_t v) { Long(v); }
  void Long(int64_t v);  // zigzag varint
  void Bytes(std::string_view v);
  void String(std::string_view v) { Bytes(v); }
  // An array or map of `count` items: one block (its count, then the caller writes the items),
  // then ArrayEnd() (a block count of 0); an empty one is ArrayStart(0) then ArrayEnd().
  void ArrayStart(int64_t count) {
    if (count > 0) Long(count);
  }
  void ArrayEnd() { Long(0); }

  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

// One Avro object container file ("Obj\x01", metadata map with avro.schema and avro.codec
// "null", a 16-byte sync marker, then the records in one block).
class ContainerWriter {
 public:
  ContainerWriter(std::string schema_json, std::map<std::string, std::string> metadata);
  // One record, already encoded.
  void Append(std::string_view encoded_record);
  int64_t count() const { return count_; }
  // The whole file.
  std::string Finish() const;

 private:
  std::string schema_json_;
  std::map<std::string, std::string> metadata_;
  std::string sync_;
  std::string records_;
  int64_t count_ = 0;
};

}  // namespace mink::lake::avro
