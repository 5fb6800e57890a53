// The GetSqlInfo result of Flight SQL, encoded here: its `value` column is a dense union, which
// our Arrow library (and its IPC writer) does not have. The messages follow the Arrow IPC format
// (metadata version 5): pre-order field nodes, and per array its buffers in layout order — a
// dense union has no validity buffer, only type ids (int8) and offsets (int32).

#include <flatbuffers/flatbuffers.h>

#include <cstring>

#include "arrow_fbs/Message_generated.h"
#include "arrow_fbs/Schema_generated.h"
#include "query/flight_sql_service.h"

namespace mink::query {
namespace {

namespace fb = mink::arrow::flatbuf;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<fb::Field> MakeField(FlatBufferBuilder& b, const char* name, bool nullable, fb::Type type,
                            Offset<void> type_table,
                            const std::vector<Offset<fb::Field>>& children = {}) {
  auto n = b.CreateString(name);
  auto c = b.CreateVector(children);
  return fb::CreateField(b, n, nullable, type, type_table, 0, c);
}

Offset<fb::Field> IntField(FlatBufferBuilder& b, const char* name, int bits, bool is_signed,
                           bool nullable) {
  return MakeField(b, name, nullable, fb::Type::Int, fb::CreateInt(b, bits, is_signed).Union());
}

Offset<fb::Field> Utf8Field(FlatBufferBuilder& b, const char* name, bool nullable) {
  return MakeField(b, name, nullable, fb::Type::Utf8, fb::CreateUtf8(b).Union());
}

Offset<fb::Schema> BuildSchema(FlatBufferBuilder& b) {
  auto info_name = IntField(b, "info_name", 32, false, false);
  auto string_value = Utf8Field(b, "string_value", true);
  auto bool_value = MakeField(b, "bool_value", true, fb::Type::Bool, fb::CreateBool(b).Union());
  auto bigint_value = IntField(b, "bigint_value", 64, true, true);
  auto bitmask = IntField(b, "int32_bitmask", 32, true, true);
  auto list_item = Utf8Field(b, "item", false);
  auto string_list =
      MakeField(b, "string_list", true, fb::Type::List, fb::CreateList(b).Union(), {list_item});
  auto key = IntField(b, "key", 32, true, false);
  auto value_item = IntField(b, "item", 32, true, true);
  auto value = MakeField(b, "value", true, fb::Type::List, fb::CreateList(b).Union(), {value_item});
  auto entries =
      MakeField(b, "entries", false, fb::Type::Struct_, fb::CreateStruct_(b).Union(), {key, value});
  auto map = MakeField(b, "int32_to_int32_list_map", true, fb::Type::Map,
                       fb::CreateMap(b, false).Union(), {entries});
  std::vector<int32_t> type_ids = {0, 1, 2, 3, 4, 5};
  auto union_type = fb::CreateUnion(b, fb::UnionMode::Dense, b.CreateVector(type_ids));
  auto value_field =
      MakeField(b, "value", false, fb::Type::Union, union_type.Union(),
                {string_value, bool_value, bigint_value, bitmask, string_list, map});
  std::vector<Offset<fb::Field>> fields = {info_name, value_field};
  return fb::CreateSchema(b, fb::Endianness::Little, b.CreateVector(fields));
}

// The body of a record batch: buffers appended in order, each padded to 8 bytes.
class Body {
 public:
  void Add(const void* data, size_t size) {
    buffers_.emplace_back(static_cast<int64_t>(bytes_.size()), static_cast<int64_t>(size));
    bytes_.append(static_cast<const char*>(data), size);
    bytes_.resize((bytes_.size() + 7) / 8 * 8, '\0');
  }
  template <typename T>
  void Add(const std::vector<T>& values) {
    Add(values.data(), values.size() * sizeof(T));
  }
  void AddEmpty() { Add(nullptr, 0); }  // an absent validity buffer (no nulls)
  void Node(int64_t length) { nodes_.emplace_back(length, 0); }

  std::string bytes_;
  std::vector<fb::Buffer> buffers_;
  std::vector<fb::FieldNode> nodes_;
};

// Utf8 offsets and data of `texts`.
void AddStrings(Body& body, const std::vector<std::string>& texts) {
  std::vector<int32_t> offsets = {0};
  std::string data;
  for (const auto& t : texts) {
    data += t;
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  body.Node(static_cast<int64_t>(texts.size()));
  body.AddEmpty();
  body.Add(offsets);
  body.Add(data.data(), data.size());
}

std::string Finish(FlatBufferBuilder& b, fb::MessageHeader type, Offset<void> header,
                   int64_t body_length) {
  auto message = fb::CreateMessage(b, fb::MetadataVersion::V5, type, header, body_length);
  b.Finish(message);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace

std::string SqlInfoSchemaMessage() {
  FlatBufferBuilder b;
  auto schema = BuildSchema(b);
  return Finish(b, fb::MessageHeader::Schema, schema.Union(), 0);
}

std::string SqlInfoSchemaBytes() {
  std::string message = SqlInfoSchemaMessage();
  size_t padded = (message.size() + 8 + 7) / 8 * 8 - 8;
  std::string out(8, '\0');
  uint32_t continuation = 0xFFFFFFFFu;
  auto length = static_cast<int32_t>(padded);
  std::memcpy(out.data(), &continuation, 4);
  std::memcpy(out.data() + 4, &length, 4);
  out += message;
  out.resize(8 + padded, '\0');
  return out;
}

std::pair<std::string, std::string> SqlInfoBatchMessage(const std::vector<SqlInfoValue>& values) {
  using Kind = SqlInfoValue::Kind;
  Body body;
  const auto n = static_cast<int64_t>(values.size());
  std::vector<uint32_t> ids;
  std::vector<int8_t> type_ids;
  std::vector<int32_t> offsets;
  std::vector<std::string> strings;
  std::vector<uint8_t> bools;
  int64_t bool_count = 0;
  std::vector<int64_t> bigints;
  std::vector<int32_t> bitmasks;
  std::vector<int32_t> list_offsets = {0};
  std::vector<std::string> list_items;
  for (const auto& v : values) {
    ids.push_back(v.id);
    type_ids.push_back(static_cast<int8_t>(v.kind));
    switch (v.kind) {
      case Kind::kString:
        offsets.push_back(static_cast<int32_t>(strings.size()));
        strings.push_back(v.text);
        break;
      case Kind::kBool:
        offsets.push_back(static_cast<int32_t>(bool_count));
        if (bool_count % 8 == 0) bools.push_back(0);
        if (v.flag) bools.back() |= static_cast<uint8_t>(1u << (bool_count % 8));
        ++bool_count;
        break;
      case Kind::kBigInt:
        offsets.push_back(static_cast<int32_t>(bigints.size()));
        bigints.push_back(v.number);
        break;
      case Kind::kBitmask:
        offsets.push_back(static_cast<int32_t>(bitmasks.size()));
        bitmasks.push_back(static_cast<int32_t>(v.number));
        break;
      case Kind::kStringList:
        offsets.push_back(static_cast<int32_t>(list_offsets.size() - 1));
        for (const auto& item : v.list) list_items.push_back(item);
        list_offsets.push_back(static_cast<int32_t>(list_items.size()));
        break;
    }
  }
  // info_name
  body.Node(n);
  body.AddEmpty();
  body.Add(ids);
  // value: dense union
  body.Node(n);
  body.Add(type_ids);
  body.Add(offsets);
  AddStrings(body, strings);  // string_value
  body.Node(bool_count);      // bool_value
  body.AddEmpty();
  body.Add(bools);
  body.Node(static_cast<int64_t>(bigints.size()));  // bigint_value
  body.AddEmpty();
  body.Add(bigints);
  body.Node(static_cast<int64_t>(bitmasks.size()));  // int32_bitmask
  body.AddEmpty();
  body.Add(bitmasks);
  body.Node(static_cast<int64_t>(list_offsets.size() - 1));  // string_list
  body.AddEmpty();
  body.Add(list_offsets);
  AddStrings(body, list_items);
  const std::vector<int32_t> zero = {0};
  body.Node(0);  // int32_to_int32_list_map: empty
  body.AddEmpty();
  body.Add(zero);
  body.Node(0);  // entries
  body.AddEmpty();
  body.Node(0);  // key
  body.AddEmpty();
  body.AddEmpty();
  body.Node(0);  // value list
  body.AddEmpty();
  body.Add(zero);
  body.Node(0);  // item
  body.AddEmpty();
  body.AddEmpty();

  FlatBufferBuilder b;
  auto nodes = b.CreateVectorOfStructs(body.nodes_);
  auto buffers = b.CreateVectorOfStructs(body.buffers_);
  auto batch = fb::CreateRecordBatch(b, n, nodes, buffers);
  std::string metadata = Finish(b, fb::MessageHeader::RecordBatch, batch.Union(),
                                static_cast<int64_t>(body.bytes_.size()));
  return {std::move(metadata), std::move(body.bytes_)};
}

}  // namespace mink::query
