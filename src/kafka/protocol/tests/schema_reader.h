#pragma once
// A second, independent reader of Kafka response bodies, driven by a text schema
// (response_schemas.txt, notation described at its top) instead of the codec's field lists.
// It shares nothing with wire.h: its own big-endian, varint and compact reading, and stricter
// checks than a decoder needs (every byte used, no null where the schema or a known client
// forbids one, tagged sections in order and of the right sizes). Tests encode with the codec
// and read with this, so an encoding a client would refuse fails even though our own decoder,
// which decodes what it encodes, accepts it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace mink::kafka::testing {

// Inclusive; empty when max < min.
struct VersionRange {
  int min = 0;
  int max = -1;
  bool Contains(int version) const { return version >= min && version <= max; }
  bool empty() const { return max < min; }
};

enum class SchemaType {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kBool,
  kString,
  kBytes,
  kRecords,
  kUuid,
  kArray,   // of `element` (a primitive, or kStruct with `fields`)
  kStruct,  // `fields`
};

std::string_view SchemaTypeName(SchemaType type);

struct FieldSchema {
  std::string name;
  SchemaType type = SchemaType::kInt32;
  SchemaType element = SchemaType::kStruct;  // arrays only
  VersionRange versions;
  VersionRange nullable;  // empty: never null
  int tag = -1;           // >= 0: a tagged field
  // Non-empty: the schema allows null here, but this client refuses it.
  std::string refuse_null;
  std::vector<FieldSchema> fields;  // struct, or array of structs
  int line = 0;                     // in the schema text, for messages
};

struct MessageSchema {
  std::string name;
  int api_key = -1;
  VersionRange versions;
  int first_flexible = 0x7fff;  // "none" reads as beyond every version
  std::vector<FieldSchema> fields;

  bool IsFlexible(int version) const { return version >= first_flexible; }
};

// The whole schema text. Parse fails (InvalidArgument, with the line) on any syntax error, bad
// indentation, duplicate names or tags, a tag outside the flexible versions, a null range on a
// type that has no null, or a field never present in the message's versions.
class SchemaSet {
 public:
  static Result<SchemaSet> Parse(std::string_view text);

  const std::vector<MessageSchema>& messages() const { return messages_; }
  const MessageSchema* Find(int api_key) const;

 private:
  std::vector<MessageSchema> messages_;
};

// response_schemas.txt of the source tree, read and parsed once per process; NotFound when the
// file cannot be read, else Parse's answer.
const Result<SchemaSet>& ResponseSchemas();

// What the reader found: a tree of named values. Tagged fields absent from the body are absent
// from the tree; fields not present at the version are absent too.
struct SchemaField;
struct SchemaValue;
struct SchemaNode {
  std::vector<SchemaField> fields;

  // nullptr when there is no field of that name.
  const SchemaValue* Find(std::string_view name) const;
};

struct SchemaValue {
  SchemaType type = SchemaType::kInt32;
  bool is_null = false;
  int64_t number = 0;                // integers and bool
  std::string bytes;                 // string, bytes, records, uuid (16 raw bytes)
  std::vector<SchemaNode> elements;  // array of structs; a struct is one element
  std::vector<SchemaValue> items;    // array of primitives
};

struct SchemaField {
  std::string name;
  SchemaValue value;
};

// Reads `body` as `schema` at `version`. Errors are InvalidArgument
// "<Name> v<version>: <field path>: <what>", e.g.
// "Fetch v11: responses[0].partitions[1].records: null, but clients refuse a null here
// (librdkafka-2.0.2)".
Result<SchemaNode> ReadBody(const MessageSchema& schema, int version, std::string_view body);

// Every field called `name` anywhere in the tree, with its path ("groups[1].error_code").
struct FoundField {
  std::string path;
  const SchemaValue* value;
};
std::vector<FoundField> FindAll(const SchemaNode& root, std::string_view name);

// The value at `path` ("responses[0].partitions[1].records", "diverging_epoch.epoch"), or
// nullptr when the path leads nowhere.
const SchemaValue* Lookup(const SchemaNode& root, std::string_view path);

}  // namespace mink::kafka::testing
