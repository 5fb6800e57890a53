// Translation between Mink's types and the Arrow IPC flatbuffer metadata (spec/arrow/*.fbs).
// The only file that includes the generated flatbuffers code.

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <string>

#include "arrow_fbs/Message_generated.h"
#include "arrow_fbs/Schema_generated.h"
#include "arrow_format/ipc_internal.h"
#include "base/bytes.h"

namespace mink::arrow::ipc_internal {
namespace {

namespace fb = ::mink::arrow::flatbuf;
using FBB = flatbuffers::FlatBufferBuilder;

constexpr int kMaxFieldDepth = 64;

fb::TimeUnit ToWire(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return fb::TimeUnit::SECOND;
    case TimeUnit::kMilli:
      return fb::TimeUnit::MILLISECOND;
    case TimeUnit::kMicro:
      return fb::TimeUnit::MICROSECOND;
    case TimeUnit::kNano:
      return fb::TimeUnit::NANOSECOND;
  }
  return fb::TimeUnit::SECOND;
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> BuildMetadata(
    FBB& fbb, const KeyValueMetadata& metadata) {
  if (metadata.empty()) return 0;
  std::vector<flatbuffers::Offset<fb::KeyValue>> kvs;
  kvs.reserve(metadata.size());
  for (const auto& [key, value] : metadata) {
    kvs.push_back(fb::CreateKeyValue(fbb, fbb.CreateString(key), fbb.CreateString(value)));
  }
  return fbb.CreateVector(kvs);
}

std::pair<fb::Type, flatbuffers::Offset<void>> BuildType(FBB& fbb, const DataType& type) {
  auto int_type = [&](int width, bool is_signed) {
    return std::make_pair(fb::Type::Int, fb::CreateInt(fbb, width, is_signed).Union());
  };
  switch (type.id()) {
    case TypeId::kNull:
      return {fb::Type::Null, fb::CreateNull(fbb).Union()};
    case TypeId::kBool:
      return {fb::Type::Bool, fb::CreateBool(fbb).Union()};
    case TypeId::kInt8:
      return int_type(8, true);
    case TypeId::kInt16:
      return int_type(16, true);
    case TypeId::kInt32:
      return int_type(32, true);
    case TypeId::kInt64:
      return int_type(64, true);
    case TypeId::kUInt8:
      return int_type(8, false);
    case TypeId::kUInt16:
      return int_type(16, false);
    case TypeId::kUInt32:
      return int_type(32, false);
    case TypeId::kUInt64:
      return int_type(64, false);
    case TypeId::kFloat32:
      return {fb::Type::FloatingPoint, fb::CreateFloatingPoint(fbb, fb::Precision::SINGLE).Union()};
    case TypeId::kFloat64:
      return {fb::Type::FloatingPoint, fb::CreateFloatingPoint(fbb, fb::Precision::DOUBLE).Union()};
    case TypeId::kDecimal128:
      return {fb::Type::Decimal,
              fb::CreateDecimal(fbb, type.precision(), type.scale(), 128).Union()};
    case TypeId::kUtf8:
      return {fb::Type::Utf8, fb::CreateUtf8(fbb).Union()};
    case TypeId::kBinary:
      return {fb::Type::Binary, fb::CreateBinary(fbb).Union()};
    case TypeId::kDate32:
      return {fb::Type::Date, fb::CreateDate(fbb, fb::DateUnit::DAY).Union()};
    case TypeId::kTime32:
      return {fb::Type::Time, fb::CreateTime(fbb, ToWire(type.unit()), 32).Union()};
    case TypeId::kTime64:
      return {fb::Type::Time, fb::CreateTime(fbb, ToWire(type.unit()), 64).Union()};
    case TypeId::kTimestamp: {
      auto tz = type.timezone().empty() ? 0 : fbb.CreateString(type.timezone());
      return {fb::Type::Timestamp, fb::CreateTimestamp(fbb, ToWire(type.unit()), tz).Union()};
    }
    case TypeId::kList:
      return {fb::Type::List, fb::CreateList(fbb).Union()};
    case TypeId::kMap:
      return {fb::Type::Map, fb::CreateMap(fbb, type.keys_sorted()).Union()};
    case TypeId::kStruct:
      return {fb::Type::Struct_, fb::CreateStruct_(fbb).Union()};
  }
  return {fb::Type::NONE, 0};
}

flatbuffers::Offset<fb::Field> BuildField(FBB& fbb, const Field& field) {
  std::vector<flatbuffers::Offset<fb::Field>> children;
  for (const Field& child : field.type()->children()) children.push_back(BuildField(fbb, child));
  auto children_vec = fbb.CreateVector(children);
  auto metadata = BuildMetadata(fbb, field.metadata());
  auto [type_type, type_offset] = BuildType(fbb, *field.type());
  auto name = fbb.CreateString(field.name());
  return fb::CreateField(fbb, name, field.nullable(), type_type, type_offset, 0, children_vec,
                         metadata);
}

std::string Finish(FBB& fbb, fb::MessageHeader header_type, flatbuffers::Offset<void> header,
                   int64_t body_length) {
  auto message = fb::CreateMessage(fbb, fb::MetadataVersion::V5, header_type, header, body_length);
  fbb.Finish(message);
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

// ---- Parsing

Status Invalid(const std::string& what) { return InvalidArgumentError("Arrow IPC: " + what); }
Status Unsupported(const std::string& what) {
  return UnimplementedError("Arrow IPC: " + what + " is not supported");
}

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

KeyValueMetadata ParseMetadata(const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* kvs) {
  KeyValueMetadata out;
  if (kvs == nullptr) return out;
  out.reserve(kvs->size());
  for (const fb::KeyValue* kv : *kvs) {
    if (kv == nullptr) continue;
    out.emplace_back(Str(kv->key()), Str(kv->value()));
  }
  return out;
}

Result<TimeUnit> ParseUnit(fb::TimeUnit unit) {
  switch (unit) {
    case fb::TimeUnit::SECOND:
      return TimeUnit::kSecond;
    case fb::TimeUnit::MILLISECOND:
      return TimeUnit::kMilli;
    case fb::TimeUnit::MICROSECOND:
      return TimeUnit::kMicro;
    case fb::TimeUnit::NANOSECOND:
      return TimeUnit::kNano;
  }
  return Invalid("unknown time unit " + std::to_string(static_cast<int>(unit)));
}

Result<DataTypePtr> ParseInt(int width, bool is_signed) {
  switch (width) {
    case 8:
      return is_signed ? Int8() : UInt8();
    case 16:
      return is_signed ? Int16() : UInt16();
    case 32:
      return is_signed ? Int32() : UInt32();
    case 64:
      return is_signed ? Int64() : UInt64();
  }
  return Invalid("integer bit width " + std::to_string(width));
}

template <typename T>
Result<const T*> TypeTable(const T* table, const std::string& name) {
  if (table == nullptr) return Invalid("field " + name + " has no type table");
  return table;
}

Result<DataTypePtr> ParseType(const fb::Field& f, const std::string& name,
                              std::vector<WireField>& children) {
  auto need_children = [&](size_t n) -> Status {
    if (children.size() != n) {
      return Invalid("field " + name + " has " + std::to_string(children.size()) +
                     " children, its type needs " + std::to_string(n));
    }
    return Status::Ok();
  };
  const fb::Type type = f.type_type();
  switch (type) {
    case fb::Type::Null:
      MINK_RETURN_IF_ERROR(need_children(0));
      return Null();
    case fb::Type::Bool:
      MINK_RETURN_IF_ERROR(need_children(0));
      return Bool();
    case fb::Type::Utf8:
      MINK_RETURN_IF_ERROR(need_children(0));
      return Utf8();
    case fb::Type::Binary:
      MINK_RETURN_IF_ERROR(need_children(0));
      return Binary();
    case fb::Type::Int: {
      MINK_RETURN_IF_ERROR(need_children(0));
      MINK_ASSIGN_OR_RETURN(const fb::Int* t, TypeTable(f.type_as_Int(), name));
      return ParseInt(t->bitWidth(), t->is_signed());
    }
    case fb::Type::FloatingPoint: {
      MINK_RETURN_IF_ERROR(need_children(0));
      MINK_ASSIGN_OR_RETURN(const fb::FloatingPoint* t, TypeTable(f.type_as_FloatingPoint(), name));
      if (t->precision() == fb::Precision::SINGLE) return Float32();
      if (t->precision() == fb::Precision::DOUBLE) return Float64();
      return Unsupported("half-precision float (field " + name + ")");
    }
    case fb::Type::Decimal: {
      MINK_RETURN_IF_ERROR(need_children(0));
      MINK_ASSIGN_OR_RETURN(const fb::Decimal* t, TypeTable(f.type_as_Decimal(), name));
      if (t->bitWidth() != 128) {
        return Unsupported("decimal" + std::to_string(t->bitWidth()) + " (field " + name + ")");
      }
      auto decimal = MakeDecimal128(t->precision(), t->scale());
      if (!decimal.ok()) return Invalid("field " + name + ": " + decimal.status().message());
      return decimal;
    }
    case fb::Type::Date: {
      MINK_RETURN_IF_ERROR(need_children(0));
      MINK_ASSIGN_OR_RETURN(const fb::Date* t, TypeTable(f.type_as_Date(), name));
      if (t->unit() == fb::DateUnit::DAY) return Date32();
      return Unsupported("date64 (field " + name + ")");
    }
    case fb::Type::Time: {
      MINK_RETURN_IF_ERROR(need_children(0));
      MINK_ASSIGN_OR_RETURN(const fb::Time* t, TypeTable(f.type_as_Time(), name));
      MINK_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(t->unit()));
      const bool narrow = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
      if (t->bitWidth() != (narrow ? 32 : 64)) {
        return Invalid("field " + name + ": time bit width " + std::to_string(t->bitWidth()) +
                       " does not fit its unit");
      }
      return Time(unit);
    }
    case fb::Type::Timestamp: {
      MINK_RETURN_IF_ERROR(need_children(0));
      MINK_ASSIGN_OR_RETURN(const fb::Timestamp* t, TypeTable(f.type_as_Timestamp(), name));
      MINK_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(t->unit()));
      return Timestamp(unit, Str(t->timezone()));
    }
    case fb::Type::List:
      MINK_RETURN_IF_ERROR(need_children(1));
      return List(children[0].field);
    case fb::Type::Struct_: {
      std::vector<Field> fields;
      fields.reserve(children.size());
      for (const WireField& c : children) fields.push_back(c.field);
      return Struct(std::move(fields));
    }
    case fb::Type::Map: {
      MINK_RETURN_IF_ERROR(need_children(1));
      MINK_ASSIGN_OR_RETURN(const fb::Map* t, TypeTable(f.type_as_Map(), name));
      auto map = MakeMap(children[0].field, t->keysSorted());
      if (!map.ok()) return Invalid("field " + name + ": " + map.status().message());
      return map;
    }
    case fb::Type::NONE:
      return Invalid("field " + name + " has no type");
    default:
      break;
  }
  const char* type_name = fb::EnumNameType(type);
  return Unsupported(std::string("Arrow type ") + (*type_name ? type_name : "(unknown)") +
                     " (field " + name + ")");
}

Result<WireField> ParseField(const fb::Field* f, int depth) {
  if (f == nullptr) return Invalid("null field entry");
  if (depth > kMaxFieldDepth) return Invalid("fields nested too deeply");
  WireField out;
  std::string name = Str(f->name());
  if (f->children() != nullptr) {
    for (const fb::Field* child : *f->children()) {
      MINK_ASSIGN_OR_RETURN(WireField c, ParseField(child, depth + 1));
      out.children.push_back(std::move(c));
    }
  }
  MINK_ASSIGN_OR_RETURN(DataTypePtr type, ParseType(*f, name, out.children));
  if (const fb::DictionaryEncoding* dict = f->dictionary()) {
    out.dictionary_encoded = true;
    out.dictionary_id = dict->id();
    if (const fb::Int* index = dict->indexType()) {
      out.index_bit_width = index->bitWidth();
      out.index_signed = index->is_signed();
      if (out.index_bit_width != 8 && out.index_bit_width != 16 && out.index_bit_width != 32 &&
          out.index_bit_width != 64) {
        return Invalid("field " + name + ": dictionary index bit width " +
                       std::to_string(out.index_bit_width));
      }
    }
  }
  out.field =
      Field(std::move(name), std::move(type), f->nullable(), ParseMetadata(f->custom_metadata()));
  return out;
}

Status ParseBatch(const fb::RecordBatch* batch, MessageInfo* out) {
  if (batch == nullptr) return Invalid("record batch header missing");
  out->length = batch->length();
  if (out->length < 0) return Invalid("negative record batch length");
  // FieldNode and Buffer are 16-byte structs of two int64s. The verifier checks that a vector
  // lies inside the buffer but not that its structs are 8-byte aligned, so read the raw bytes.
  static_assert(sizeof(fb::FieldNode) == 16 && sizeof(fb::Buffer) == 16);
  if (const auto* nodes = batch->nodes()) {
    const char* p = reinterpret_cast<const char*>(nodes->Data());
    out->nodes.reserve(nodes->size());
    for (uint32_t i = 0; i < nodes->size(); ++i, p += 16) {
      out->nodes.push_back(
          {static_cast<int64_t>(LoadU64(p)), static_cast<int64_t>(LoadU64(p + 8))});
    }
  }
  if (const auto* buffers = batch->buffers()) {
    const char* p = reinterpret_cast<const char*>(buffers->Data());
    out->buffers.reserve(buffers->size());
    for (uint32_t i = 0; i < buffers->size(); ++i, p += 16) {
      out->buffers.push_back(
          {static_cast<int64_t>(LoadU64(p)), static_cast<int64_t>(LoadU64(p + 8))});
    }
  }
  if (const fb::BodyCompression* compression = batch->compression()) {
    if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
      return Unsupported("body compression method " +
                         std::to_string(static_cast<int>(compression->method())));
    }
    switch (compression->codec()) {
      case fb::CompressionType::LZ4_FRAME:
        out->compression = CompressionCodec::kLz4Frame;
        break;
      case fb::CompressionType::ZSTD:
        out->compression = CompressionCodec::kZstd;
        break;
      default:
        return Invalid("unknown compression codec " +
                       std::to_string(static_cast<int>(compression->codec())));
    }
  }
  if (batch->variadicBufferCounts() != nullptr && batch->variadicBufferCounts()->size() > 0) {
    return Unsupported("variadic buffers (view types)");
  }
  return Status::Ok();
}

}  // namespace

void AppendFramedMetadata(const std::string& metadata, std::string* out) {
  const int64_t padded = PaddedMetadataSize(static_cast<int64_t>(metadata.size()));
  PutU32(out, kContinuation);
  PutI32(out, static_cast<int32_t>(padded));
  out->append(metadata);
  out->append(static_cast<size_t>(padded) - metadata.size(), '\0');
}

std::string BuildSchemaMessage(const Schema& schema) {
  FBB fbb(1024);
  std::vector<flatbuffers::Offset<fb::Field>> fields;
  fields.reserve(schema.fields().size());
  for (const Field& f : schema.fields()) fields.push_back(BuildField(fbb, f));
  auto fields_vec = fbb.CreateVector(fields);
  auto metadata = BuildMetadata(fbb, schema.metadata());
  auto header = fb::CreateSchema(fbb, fb::Endianness::Little, fields_vec, metadata);
  return Finish(fbb, fb::MessageHeader::Schema, header.Union(), 0);
}

std::string BuildRecordBatchMessage(int64_t length, const std::vector<FieldNodeInfo>& nodes,
                                    const std::vector<BufferRegion>& buffers,
                                    CompressionCodec compression, int64_t body_length) {
  FBB fbb(256 + 16 * (nodes.size() + buffers.size()));
  std::vector<fb::FieldNode> fb_nodes;
  fb_nodes.reserve(nodes.size());
  for (const auto& n : nodes) fb_nodes.emplace_back(n.length, n.null_count);
  std::vector<fb::Buffer> fb_buffers;
  fb_buffers.reserve(buffers.size());
  for (const auto& b : buffers) fb_buffers.emplace_back(b.offset, b.length);
  auto nodes_vec = fbb.CreateVectorOfStructs(fb_nodes);
  auto buffers_vec = fbb.CreateVectorOfStructs(fb_buffers);
  flatbuffers::Offset<fb::BodyCompression> body_compression = 0;
  if (compression != CompressionCodec::kNone) {
    body_compression = fb::CreateBodyCompression(fbb,
                                                 compression == CompressionCodec::kZstd
                                                     ? fb::CompressionType::ZSTD
                                                     : fb::CompressionType::LZ4_FRAME,
                                                 fb::BodyCompressionMethod::BUFFER);
  }
  auto header = fb::CreateRecordBatch(fbb, length, nodes_vec, buffers_vec, body_compression);
  return Finish(fbb, fb::MessageHeader::RecordBatch, header.Union(), body_length);
}

Result<MessageInfo> ParseMessage(std::string_view metadata, const IpcReadOptions& options) {
  if (static_cast<int64_t>(metadata.size()) > options.max_metadata_size) {
    return Invalid("message metadata of " + std::to_string(metadata.size()) +
                   " bytes exceeds the limit of " + std::to_string(options.max_metadata_size));
  }
  // The flatbuffer accessors read scalars in place: give them 8-byte aligned memory.
  std::vector<uint64_t> aligned;
  const uint8_t* data = reinterpret_cast<const uint8_t*>(metadata.data());
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0) {
    aligned.resize((metadata.size() + 7) / 8);
    std::memcpy(aligned.data(), metadata.data(), metadata.size());
    data = reinterpret_cast<const uint8_t*>(aligned.data());
  }
  flatbuffers::Verifier::Options verifier_options;
  verifier_options.max_depth = 128;
  verifier_options.max_tables = 1000000;
  flatbuffers::Verifier verifier(data, metadata.size(), verifier_options);
  if (metadata.size() < 8 || !fb::VerifyMessageBuffer(verifier)) {
    return Invalid("message metadata is not a valid flatbuffer Message");
  }
  const fb::Message* message = fb::GetMessage(data);
  if (message->version() < fb::MetadataVersion::V4) {
    return Unsupported("metadata version V" +
                       std::to_string(static_cast<int>(message->version()) + 1));
  }
  MessageInfo out;
  out.body_length = message->bodyLength();
  if (out.body_length < 0) return Invalid("negative body length");
  switch (message->header_type()) {
    case fb::MessageHeader::Schema: {
      out.kind = MessageInfo::Kind::kSchema;
      const fb::Schema* schema = message->header_as_Schema();
      if (schema == nullptr) return Invalid("schema header missing");
      if (schema->endianness() != fb::Endianness::Little) return Unsupported("big-endian data");
      if (schema->fields() != nullptr) {
        for (const fb::Field* f : *schema->fields()) {
          MINK_ASSIGN_OR_RETURN(WireField field, ParseField(f, 0));
          out.fields.push_back(std::move(field));
        }
      }
      out.schema_metadata = ParseMetadata(schema->custom_metadata());
      return out;
    }
    case fb::MessageHeader::RecordBatch:
      out.kind = MessageInfo::Kind::kRecordBatch;
      MINK_RETURN_IF_ERROR(ParseBatch(message->header_as_RecordBatch(), &out));
      return out;
    case fb::MessageHeader::DictionaryBatch: {
      out.kind = MessageInfo::Kind::kDictionaryBatch;
      const fb::DictionaryBatch* dict = message->header_as_DictionaryBatch();
      if (dict == nullptr) return Invalid("dictionary batch header missing");
      out.dictionary_id = dict->id();
      out.is_delta = dict->isDelta();
      MINK_RETURN_IF_ERROR(ParseBatch(dict->data(), &out));
      return out;
    }
    case fb::MessageHeader::Tensor:
    case fb::MessageHeader::SparseTensor:
      return Unsupported("tensor messages");
    default:
      break;
  }
  return Invalid("unknown message header type " +
                 std::to_string(static_cast<int>(message->header_type())));
}

}  // namespace mink::arrow::ipc_internal
