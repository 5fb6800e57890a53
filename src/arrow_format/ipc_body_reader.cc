// IPC reading: turns a record batch body into arrays. Every region is checked against the
// body, every decompressed length against a plausibility bound and the per-message budget, and
// the resulting arrays pass ValidateArrayData before anyone reads them.

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "arrow_format/bit_util.h"
#include "arrow_format/ipc_internal.h"
#include "base/bytes.h"

namespace mink::arrow::ipc_internal {
namespace {

constexpr int kMaxDepth = 64;

Status Invalid(const std::string& what) { return InvalidArgumentError("Arrow IPC: " + what); }

uint8_t* AllocateOrDie(int64_t size) {
  auto* p = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(size > 0 ? size : 1)));
  if (p == nullptr) std::abort();
  return p;
}

ArrayDataPtr MakeData(DataTypePtr type, int64_t length, int64_t null_count,
                      std::vector<BufferPtr> buffers, std::vector<ArrayDataPtr> children = {}) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = length;
  data->null_count = null_count;
  data->buffers = std::move(buffers);
  data->children = std::move(children);
  return data;
}

class BodyReader {
 public:
  BodyReader(const MessageInfo& message, const BufferPtr& body, const DictionaryMap& dictionaries,
             const IpcReadOptions& options)
      : message_(message), body_(body), dictionaries_(dictionaries), options_(options) {}

  Result<ArrayDataPtr> ReadField(const WireField& wire, int depth) {
    const Field& field = wire.field;
    if (depth > kMaxDepth) return Invalid("field " + field.name() + " nested too deeply");
    MINK_ASSIGN_OR_RETURN(FieldNodeInfo node, NextNode(field));
    const DataTypePtr& type = field.type();
    if (wire.dictionary_encoded) {
      MINK_ASSIGN_OR_RETURN(BufferPtr validity, NextBuffer(field, "validity"));
      MINK_ASSIGN_OR_RETURN(BufferPtr indices, NextBuffer(field, "indices"));
      return Materialize(wire, node, node.null_count > 0 ? validity : nullptr, indices);
    }
    if (type->id() == TypeId::kNull) return MakeData(type, node.length, node.length, {});
    MINK_ASSIGN_OR_RETURN(BufferPtr validity, NextBuffer(field, "validity"));
    if (node.null_count == 0) validity = nullptr;
    switch (type->id()) {
      case TypeId::kUtf8:
      case TypeId::kBinary: {
        MINK_ASSIGN_OR_RETURN(BufferPtr offsets, NextBuffer(field, "offsets"));
        MINK_ASSIGN_OR_RETURN(BufferPtr data, NextBuffer(field, "data"));
        if (node.length == 0 && offsets->size() < 4) offsets = Buffer::Zeros(4);
        return MakeData(type, node.length, node.null_count, {validity, offsets, data});
      }
      case TypeId::kList:
      case TypeId::kMap: {
        MINK_ASSIGN_OR_RETURN(BufferPtr offsets, NextBuffer(field, "offsets"));
        if (node.length == 0 && offsets->size() < 4) offsets = Buffer::Zeros(4);
        MINK_ASSIGN_OR_RETURN(ArrayDataPtr child, ReadField(wire.children[0], depth + 1));
        return MakeData(type, node.length, node.null_count, {validity, offsets}, {child});
      }
      case TypeId::kStruct: {
        std::vector<ArrayDataPtr> children;
        for (const WireField& c : wire.children) {
          MINK_ASSIGN_OR_RETURN(ArrayDataPtr child, ReadField(c, depth + 1));
          children.push_back(std::move(child));
        }
        return MakeData(type, node.length, node.null_count, {validity}, std::move(children));
      }
      default: {
        MINK_ASSIGN_OR_RETURN(BufferPtr values, NextBuffer(field, "values"));
        return MakeData(type, node.length, node.null_count, {validity, values});
      }
    }
  }

  // Steps over a field's nodes and buffers without reading them (a projected read).
  Status SkipField(const WireField& wire, int depth) {
    const Field& field = wire.field;
    if (depth > kMaxDepth) return Invalid("field " + field.name() + " nested too deeply");
    MINK_RETURN_IF_ERROR(NextNode(field).status());
    auto skip = [&](size_t n) -> Status {
      if (message_.buffers.size() - buffer_index_ < n) {
        return Invalid("too few buffers (at field " + field.name() + ")");
      }
      buffer_index_ += n;
      return Status::Ok();
    };
    if (wire.dictionary_encoded) return skip(2);
    switch (field.type()->id()) {
      case TypeId::kNull: return Status::Ok();
      case TypeId::kUtf8:
      case TypeId::kBinary: return skip(3);
      case TypeId::kList:
      case TypeId::kMap:
        MINK_RETURN_IF_ERROR(skip(2));
        return SkipField(wire.children[0], depth + 1);
      case TypeId::kStruct:
        MINK_RETURN_IF_ERROR(skip(1));
        for (const WireField& c : wire.children) MINK_RETURN_IF_ERROR(SkipField(c, depth + 1));
        return Status::Ok();
      default: return skip(2);
    }
  }

  Status CheckConsumed() const {
    if (node_index_ != message_.nodes.size()) {
      return Invalid("message has " + std::to_string(message_.nodes.size()) +
                     " field nodes, the schema uses " + std::to_string(node_index_));
    }
    if (buffer_index_ != message_.buffers.size()) {
      return Invalid("message has " + std::to_string(message_.buffers.size()) +
                     " buffers, the schema uses " + std::to_string(buffer_index_));
    }
    return Status::Ok();
  }

 private:
  Result<FieldNodeInfo> NextNode(const Field& field) {
    if (node_index_ >= message_.nodes.size()) {
      return Invalid("too few field nodes (at field " + field.name() + ")");
    }
    FieldNodeInfo node = message_.nodes[node_index_++];
    // Every slot of a null-type array is null whatever the count says (Arrow JS writes -1 for
    // sliced null arrays).
    if (field.type()->id() == TypeId::kNull && node.length >= 0) node.null_count = node.length;
    if (node.length < 0 || node.null_count < 0 || node.null_count > node.length) {
      return Invalid("field " + field.name() + " has length " + std::to_string(node.length) +
                     " and null count " + std::to_string(node.null_count));
    }
    return node;
  }

  Status Charge(int64_t bytes, const Field& field) {
    if (bytes > options_.max_decoded_bytes_per_message - decoded_bytes_) {
      return Invalid("field " + field.name() + " would decode more than " +
                     std::to_string(options_.max_decoded_bytes_per_message) +
                     " bytes in one message");
    }
    decoded_bytes_ += bytes;
    return Status::Ok();
  }

  Result<BufferPtr> NextBuffer(const Field& field, const char* what) {
    if (buffer_index_ >= message_.buffers.size()) {
      return Invalid(std::string("too few buffers (at the ") + what + " of field " + field.name() +
                     ")");
    }
    const BufferRegion region = message_.buffers[buffer_index_++];
    const int64_t body_size = body_->size();
    if (region.offset < 0 || region.length < 0 || region.offset > body_size ||
        region.length > body_size - region.offset) {
      return Invalid(std::string("the ") + what + " buffer of field " + field.name() + " (offset " +
                     std::to_string(region.offset) + ", length " + std::to_string(region.length) +
                     ") lies outside the body of " + std::to_string(body_size) + " bytes");
    }
    if (region.length == 0) return Buffer::Empty();
    if (message_.compression == CompressionCodec::kNone) {
      return Reference(region.offset, region.length);
    }
    if (region.length < 8) {
      return Invalid(std::string("compressed ") + what + " buffer of field " + field.name() +
                     " is shorter than its 8-byte length prefix");
    }
    const int64_t declared =
        static_cast<int64_t>(LoadU64(reinterpret_cast<const char*>(body_->data() + region.offset)));
    const int64_t payload = region.length - 8;
    if (declared == -1) return Reference(region.offset + 8, payload);
    std::string_view input(reinterpret_cast<const char*>(body_->data() + region.offset + 8),
                           static_cast<size_t>(payload));
    if (declared == payload) {
      // Arrow JS (up to at least 21.2) writes the compressed length here instead of the
      // uncompressed one; a conforming writer only gets here when the sizes happen to agree.
      // Decompress to fit, bounded like a declared length would be.
      const int64_t limit = std::min(MaxPlausibleDecompressedSize(message_.compression, payload),
                                     options_.max_decoded_bytes_per_message - decoded_bytes_);
      auto decoded = DecompressBufferToFit(message_.compression, input, limit);
      if (!decoded.ok()) {
        return Invalid(std::string("the ") + what + " buffer of field " + field.name() + ": " +
                       decoded.status().message());
      }
      MINK_RETURN_IF_ERROR(Charge(static_cast<int64_t>(decoded->size()), field));
      BufferPtr result = Buffer::FromString(std::move(decoded).value());
      if (reinterpret_cast<uintptr_t>(result->data()) % 8 != 0) {
        result = Buffer::Copy(result->data(), result->size());
      }
      return result;
    }
    if (declared < 0 || declared > MaxPlausibleDecompressedSize(message_.compression, payload)) {
      return Invalid(std::string("compressed ") + what + " buffer of field " + field.name() +
                     " declares an implausible uncompressed length " + std::to_string(declared));
    }
    MINK_RETURN_IF_ERROR(Charge(declared, field));
    if (declared == 0) return Buffer::Empty();
    uint8_t* out = AllocateOrDie(declared);
    BufferPtr result = Buffer::FromMalloc(out, declared);
    Status s = DecompressBuffer(message_.compression, input, out, declared);
    if (!s.ok()) {
      return Invalid(std::string("the ") + what + " buffer of field " + field.name() + ": " +
                     s.message());
    }
    return result;
  }

  // A view of the body; copied when misaligned so that typed reads stay aligned.
  BufferPtr Reference(int64_t offset, int64_t length) {
    const uint8_t* p = body_->data() + offset;
    if (reinterpret_cast<uintptr_t>(p) % 8 != 0) return Buffer::Copy(p, length);
    return Buffer::Slice(body_, offset, length);
  }

  Result<ArrayDataPtr> Materialize(const WireField& wire, const FieldNodeInfo& node,
                                   const BufferPtr& validity, const BufferPtr& indices);

  const MessageInfo& message_;
  const BufferPtr& body_;
  const DictionaryMap& dictionaries_;
  const IpcReadOptions& options_;
  size_t node_index_ = 0;
  size_t buffer_index_ = 0;
  int64_t decoded_bytes_ = 0;
};

int64_t LoadIndex(const uint8_t* p, int64_t i, int width, bool is_signed) {
  switch (width) {
    case 8:
      return is_signed ? static_cast<int8_t>(p[i]) : static_cast<int64_t>(p[i]);
    case 16: {
      uint16_t v;
      std::memcpy(&v, p + i * 2, 2);
      return is_signed ? static_cast<int16_t>(v) : static_cast<int64_t>(v);
    }
    case 32: {
      uint32_t v;
      std::memcpy(&v, p + i * 4, 4);
      return is_signed ? static_cast<int32_t>(v) : static_cast<int64_t>(v);
    }
    default: {
      int64_t v;
      std::memcpy(&v, p + i * 8, 8);
      return v;  // uint64 indices beyond INT64_MAX read as negative and are rejected
    }
  }
}

// Replaces dictionary indices by the dictionary's values (utf8/binary), giving a plain column.
Result<ArrayDataPtr> BodyReader::Materialize(const WireField& wire, const FieldNodeInfo& node,
                                             const BufferPtr& validity, const BufferPtr& indices) {
  const Field& field = wire.field;
  auto it = dictionaries_.find(wire.dictionary_id);
  if (it == dictionaries_.end()) {
    return Invalid("field " + field.name() + " uses dictionary " +
                   std::to_string(wire.dictionary_id) + " before any DictionaryBatch defined it");
  }
  const ArrayData& dict = *it->second;
  const int64_t n = node.length;
  const int width = wire.index_bit_width / 8;
  if (indices->size() / width < n) {
    return Invalid("field " + field.name() + ": indices buffer too small for " + std::to_string(n) +
                   " rows");
  }
  if (validity) {
    if (validity->size() < bits::BytesForBits(n)) {
      return Invalid("field " + field.name() + ": validity bitmap too small");
    }
    if (n - bits::CountSetBits(validity->data(), 0, n) != node.null_count) {
      return Invalid("field " + field.name() + ": null count does not match the validity bitmap");
    }
  }
  const uint8_t* dict_valid = dict.buffers[0] ? dict.buffers[0]->data() : nullptr;
  const uint8_t* dict_offsets = dict.buffers[1]->data();
  auto dict_offset = [&](int64_t i) {
    int32_t v;
    std::memcpy(&v, dict_offsets + i * 4, 4);
    return v;
  };
  // Pass 1: check every index and size the output.
  int64_t total = 0;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (validity && !bits::GetBit(validity->data(), i)) {
      ++nulls;
      continue;
    }
    int64_t index = LoadIndex(indices->data(), i, wire.index_bit_width, wire.index_signed);
    if (index < 0 || index >= dict.length) {
      return Invalid("field " + field.name() + ": dictionary index " + std::to_string(index) +
                     " at row " + std::to_string(i) + " is outside the dictionary of " +
                     std::to_string(dict.length) + " values");
    }
    if (dict_valid && !bits::GetBit(dict_valid, index)) {
      ++nulls;
      continue;
    }
    total += dict_offset(index + 1) - dict_offset(index);
    if (total > INT32_MAX) {
      return Invalid("field " + field.name() + ": materialised dictionary column exceeds 2 GiB");
    }
  }
  MINK_RETURN_IF_ERROR(Charge(total + (n + 1) * 4, field));
  // Pass 2: copy the values.
  uint8_t* offsets = AllocateOrDie((n + 1) * 4);
  BufferPtr offsets_buffer = Buffer::FromMalloc(offsets, (n + 1) * 4);
  uint8_t* data = AllocateOrDie(total);
  BufferPtr data_buffer = Buffer::FromMalloc(data, total);
  BufferPtr out_validity;
  uint8_t* valid_bits = nullptr;
  if (nulls > 0) {
    valid_bits = AllocateOrDie(bits::BytesForBits(n));
    std::memset(valid_bits, 0, static_cast<size_t>(bits::BytesForBits(n)));
    out_validity = Buffer::FromMalloc(valid_bits, bits::BytesForBits(n));
  }
  int32_t pos = 0;
  std::memcpy(offsets, &pos, 4);
  for (int64_t i = 0; i < n; ++i) {
    bool valid = !validity || bits::GetBit(validity->data(), i);
    int64_t index = 0;
    if (valid) {
      index = LoadIndex(indices->data(), i, wire.index_bit_width, wire.index_signed);
      valid = !dict_valid || bits::GetBit(dict_valid, index);
    }
    if (valid) {
      int32_t begin = dict_offset(index);
      int32_t len = dict_offset(index + 1) - begin;
      std::memcpy(data + pos, dict.buffers[2]->data() + begin, static_cast<size_t>(len));
      pos += len;
      if (valid_bits) bits::SetBit(valid_bits, i);
    }
    std::memcpy(offsets + (i + 1) * 4, &pos, 4);
  }
  return MakeData(field.type(), n, nulls, {out_validity, offsets_buffer, data_buffer});
}

}  // namespace

Result<std::vector<ArrayDataPtr>> ReadBody(const MessageInfo& message,
                                           const std::vector<WireField>& fields,
                                           const BufferPtr& body, const DictionaryMap& dictionaries,
                                           const IpcReadOptions& options,
                                           const std::vector<bool>* selected) {
  if (message.length > options.max_rows_per_batch) {
    return Invalid("record batch of " + std::to_string(message.length) +
                   " rows exceeds the limit of " + std::to_string(options.max_rows_per_batch));
  }
  BodyReader reader(message, body, dictionaries, options);
  std::vector<ArrayDataPtr> columns;
  columns.reserve(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    const WireField& field = fields[i];
    if (selected != nullptr && !(*selected)[i]) {
      MINK_RETURN_IF_ERROR(reader.SkipField(field, 0));
      continue;
    }
    MINK_ASSIGN_OR_RETURN(ArrayDataPtr column, reader.ReadField(field, 0));
    if (column->length != message.length) {
      return Invalid("column " + field.field.name() + " has " + std::to_string(column->length) +
                     " rows, the batch has " + std::to_string(message.length));
    }
    Status s = ValidateArrayData(*column);
    if (!s.ok()) return Invalid("column " + field.field.name() + ": " + s.message());
    columns.push_back(std::move(column));
  }
  MINK_RETURN_IF_ERROR(reader.CheckConsumed());
  return columns;
}

Result<ArrayDataPtr> ConcatenateBinary(const ArrayData& a, const ArrayData& b,
                                       const IpcReadOptions& options) {
  auto offset_at = [](const ArrayData& x, int64_t i) {
    int32_t v;
    std::memcpy(&v, x.buffers[1]->data() + i * 4, 4);
    return v;
  };
  const int64_t a_bytes = offset_at(a, a.length) - offset_at(a, 0);
  const int64_t b_bytes = offset_at(b, b.length) - offset_at(b, 0);
  const int64_t n = a.length + b.length;
  if (a_bytes + b_bytes > INT32_MAX || a_bytes + b_bytes > options.max_decoded_bytes_per_message) {
    return Invalid("delta dictionary grows beyond 2 GiB");
  }
  const int64_t total = a_bytes + b_bytes;
  uint8_t* offsets = AllocateOrDie((n + 1) * 4);
  BufferPtr offsets_buffer = Buffer::FromMalloc(offsets, (n + 1) * 4);
  uint8_t* data = AllocateOrDie(total);
  BufferPtr data_buffer = Buffer::FromMalloc(data, total);
  std::memcpy(data, a.buffers[2]->data() + offset_at(a, 0), static_cast<size_t>(a_bytes));
  std::memcpy(data + a_bytes, b.buffers[2]->data() + offset_at(b, 0), static_cast<size_t>(b_bytes));
  for (int64_t i = 0; i <= a.length; ++i) {
    int32_t v = offset_at(a, i) - offset_at(a, 0);
    std::memcpy(offsets + i * 4, &v, 4);
  }
  for (int64_t i = 1; i <= b.length; ++i) {
    int32_t v = static_cast<int32_t>(a_bytes) + offset_at(b, i) - offset_at(b, 0);
    std::memcpy(offsets + (a.length + i) * 4, &v, 4);
  }
  BufferPtr validity;
  if (a.null_count + b.null_count > 0) {
    uint8_t* bits_out = AllocateOrDie(bits::BytesForBits(n));
    std::memset(bits_out, 0xFF, static_cast<size_t>(bits::BytesForBits(n)));
    validity = Buffer::FromMalloc(bits_out, bits::BytesForBits(n));
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.buffers[0] && !bits::GetBit(a.buffers[0]->data(), i)) bits::ClearBit(bits_out, i);
    }
    for (int64_t i = 0; i < b.length; ++i) {
      if (b.buffers[0] && !bits::GetBit(b.buffers[0]->data(), i)) {
        bits::ClearBit(bits_out, a.length + i);
      }
    }
  }
  return MakeData(a.type, n, a.null_count + b.null_count, {validity, offsets_buffer, data_buffer});
}

}  // namespace mink::arrow::ipc_internal
