// Export to the Arrow C data interface. Exported arrays share the Mink buffers: the private data
// of each ArrowArray holds a reference to its ArrayData (or RecordBatch) until release.

#include <cstring>
#include <string>
#include <vector>

#include "arrow_format/c_bridge.h"

namespace mink::arrow {
namespace {

constexpr int kMaxDepth = 64;

// ---- Schemas

struct SchemaPrivate {
  std::string format;
  std::string name;
  std::string metadata;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_pointers;
};

void ReleaseSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  auto* priv = static_cast<SchemaPrivate*>(schema->private_data);
  for (ArrowSchema* child : priv->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  delete priv;
  schema->release = nullptr;
  schema->private_data = nullptr;
}

void PutNativeI32(std::string* out, int32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

std::string EncodeMetadata(const KeyValueMetadata& metadata) {
  std::string out;
  PutNativeI32(&out, static_cast<int32_t>(metadata.size()));
  for (const auto& [key, value] : metadata) {
    PutNativeI32(&out, static_cast<int32_t>(key.size()));
    out += key;
    PutNativeI32(&out, static_cast<int32_t>(value.size()));
    out += value;
  }
  return out;
}

// Fills `out` for a type with the given name, flags and metadata.
Status FillSchema(const DataType& type, const std::string& name, int64_t flags,
                  const KeyValueMetadata& metadata, ArrowSchema* out, int depth) {
  if (depth > kMaxDepth) return InvalidArgumentError("type nested too deeply to export");
  if (type.id() == TypeId::kMap && type.keys_sorted()) flags |= ARROW_FLAG_MAP_KEYS_SORTED;
  auto* priv = new SchemaPrivate();
  priv->format = CDataFormat(type);
  priv->name = name;
  if (!metadata.empty()) priv->metadata = EncodeMetadata(metadata);
  const auto& children = type.children();
  priv->children.resize(children.size());
  priv->child_pointers.resize(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    priv->children[i].release = nullptr;
    priv->child_pointers[i] = &priv->children[i];
  }
  out->format = priv->format.c_str();
  out->name = priv->name.c_str();
  out->metadata = metadata.empty() ? nullptr : priv->metadata.data();
  out->flags = flags;
  out->n_children = static_cast<int64_t>(children.size());
  out->children = priv->child_pointers.empty() ? nullptr : priv->child_pointers.data();
  out->dictionary = nullptr;
  out->release = ReleaseSchema;
  out->private_data = priv;
  for (size_t i = 0; i < children.size(); ++i) {
    const Field& child = children[i];
    int64_t child_flags = child.nullable() ? ARROW_FLAG_NULLABLE : 0;
    Status s = FillSchema(*child.type(), child.name(), child_flags, child.metadata(),
                          &priv->children[i], depth + 1);
    if (!s.ok()) {
      ReleaseSchema(out);
      return s;
    }
  }
  return Status::Ok();
}

// ---- Arrays

struct ArrayPrivate {
  std::shared_ptr<const void> owner;  // an ArrayData or a RecordBatch
  std::vector<const void*> buffers;
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_pointers;
};

void ReleaseArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  auto* priv = static_cast<ArrayPrivate*>(array->private_data);
  for (ArrowArray* child : priv->child_pointers) {
    if (child->release != nullptr) child->release(child);
  }
  delete priv;
  array->release = nullptr;
  array->private_data = nullptr;
}

ArrayPrivate* StartArray(std::shared_ptr<const void> owner, int64_t length, int64_t null_count,
                         size_t n_children, ArrowArray* out) {
  auto* priv = new ArrayPrivate();
  priv->owner = std::move(owner);
  priv->children.resize(n_children);
  priv->child_pointers.resize(n_children);
  for (size_t i = 0; i < n_children; ++i) {
    priv->children[i].release = nullptr;
    priv->child_pointers[i] = &priv->children[i];
  }
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = 0;
  out->n_children = static_cast<int64_t>(n_children);
  out->buffers = nullptr;
  out->children = n_children == 0 ? nullptr : priv->child_pointers.data();
  out->dictionary = nullptr;
  out->release = ReleaseArray;
  out->private_data = priv;
  return priv;
}

Status FillArray(const ArrayDataPtr& data, ArrowArray* out, int depth) {
  if (!data || !data->type) return InvalidArgumentError("cannot export an array without a type");
  if (depth > kMaxDepth) return InvalidArgumentError("array nested too deeply to export");
  ArrayPrivate* priv = StartArray(data, data->length, data->null_count, data->children.size(), out);
  priv->buffers.reserve(data->buffers.size());
  for (size_t i = 0; i < data->buffers.size(); ++i) {
    const BufferPtr& b = data->buffers[i];
    const bool omit = !b || (i == 0 && data->null_count == 0);
    priv->buffers.push_back(omit ? nullptr : b->data());
  }
  out->n_buffers = static_cast<int64_t>(priv->buffers.size());
  out->buffers = priv->buffers.empty() ? nullptr : priv->buffers.data();
  for (size_t i = 0; i < data->children.size(); ++i) {
    Status s = FillArray(data->children[i], &priv->children[i], depth + 1);
    if (!s.ok()) {
      ReleaseArray(out);
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace

std::string CDataFormat(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return "n";
    case TypeId::kBool:
      return "b";
    case TypeId::kInt8:
      return "c";
    case TypeId::kUInt8:
      return "C";
    case TypeId::kInt16:
      return "s";
    case TypeId::kUInt16:
      return "S";
    case TypeId::kInt32:
      return "i";
    case TypeId::kUInt32:
      return "I";
    case TypeId::kInt64:
      return "l";
    case TypeId::kUInt64:
      return "L";
    case TypeId::kFloat32:
      return "f";
    case TypeId::kFloat64:
      return "g";
    case TypeId::kDecimal128:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale());
    case TypeId::kUtf8:
      return "u";
    case TypeId::kBinary:
      return "z";
    case TypeId::kDate32:
      return "tdD";
    case TypeId::kTime32:
      return type.unit() == TimeUnit::kSecond ? "tts" : "ttm";
    case TypeId::kTime64:
      return type.unit() == TimeUnit::kMicro ? "ttu" : "ttn";
    case TypeId::kTimestamp: {
      static const char kUnits[] = {'s', 'm', 'u', 'n'};
      return std::string("ts") + kUnits[static_cast<int>(type.unit())] + ":" + type.timezone();
    }
    case TypeId::kList:
      return "+l";
    case TypeId::kMap:
      return "+m";
    case TypeId::kStruct:
      return "+s";
  }
  return "";
}

Status ExportField(const Field& field, ArrowSchema* out) {
  if (!field.type()) return InvalidArgumentError("cannot export a field without a type");
  int64_t flags = field.nullable() ? ARROW_FLAG_NULLABLE : 0;
  return FillSchema(*field.type(), field.name(), flags, field.metadata(), out, 0);
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  return FillSchema(*Struct(schema.fields()), "", 0, schema.metadata(), out, 0);
}

Status ExportArray(const ArrayDataPtr& array, ArrowArray* out) { return FillArray(array, out, 0); }

Status ExportRecordBatch(const RecordBatchPtr& batch, ArrowArray* out, ArrowSchema* out_schema) {
  if (!batch) return InvalidArgumentError("cannot export a null record batch");
  ArrayPrivate* priv = StartArray(batch, batch->num_rows(), 0, batch->columns().size(), out);
  priv->buffers.push_back(nullptr);  // struct validity: no nulls
  out->n_buffers = 1;
  out->buffers = priv->buffers.data();
  for (size_t i = 0; i < batch->columns().size(); ++i) {
    Status s = FillArray(batch->columns()[i], &priv->children[i], 1);
    if (!s.ok()) {
      ReleaseArray(out);
      return s;
    }
  }
  if (out_schema != nullptr) {
    Status s = ExportSchema(*batch->schema(), out_schema);
    if (!s.ok()) {
      ReleaseArray(out);
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace mink::arrow
