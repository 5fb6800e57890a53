// Reading a response body by a SchemaSet (schema_reader.h); the notation is schema_parser.cc's.

#include "kafka/protocol/tests/schema_reader.h"

#include <cstdio>
#include <utility>

#include "kafka/protocol/tests/schema_text.h"

namespace mink::kafka::testing {
namespace {

std::string Hex2(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return buf;
}

std::string Join(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

class BodyReader {
 public:
  BodyReader(const MessageSchema& schema, int version, std::string_view data)
      : schema_(schema),
        version_(version),
        flexible_(schema.IsFlexible(version)),
        data_(data),
        end_(data.size()) {}

  Status Read(SchemaNode* root) {
    MINK_RETURN_IF_ERROR(ReadStruct(schema_.fields, "", root));
    if (pos_ != data_.size()) {
      return Fail("(end of body)",
                  std::to_string(data_.size() - pos_) + " byte(s) left over after the last field");
    }
    return Status::Ok();
  }

 private:
  Status Fail(const std::string& path, const std::string& what) const {
    return InvalidArgumentError(schema_.name + " v" + std::to_string(version_) + ": " + path +
                                ": " + what);
  }

  size_t Left() const { return end_ - pos_; }

  Status Need(size_t n, const std::string& path) const {
    if (n > Left()) {
      return Fail(path, "needs " + std::to_string(n) + " byte(s), only " + std::to_string(Left()) +
                            " left");
    }
    return Status::Ok();
  }

  Status ReadBigEndian(size_t n, const std::string& path, uint64_t* out) {
    MINK_RETURN_IF_ERROR(Need(n, path));
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(data_[pos_ + i]);
    pos_ += n;
    *out = v;
    return Status::Ok();
  }

  // Kafka's unsigned varints here are 32-bit: at most 5 bytes, 7 bits each, low group first.
  Status ReadUnsignedVarint(const std::string& path, uint32_t* out) {
    uint64_t v = 0;
    for (int i = 0; i < 5; ++i) {
      MINK_RETURN_IF_ERROR(Need(1, path));
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) {
        if (v > 0xffffffffu) return Fail(path, "unsigned varint does not fit in 32 bits");
        *out = static_cast<uint32_t>(v);
        return Status::Ok();
      }
    }
    return Fail(path, "unsigned varint longer than 5 bytes");
  }

  // A length or count: -1 for null. Compact from the flexible version on (N+1, 0 = null);
  // before it int16 for strings, int32 for everything else.
  Status ReadLength(const FieldSchema& f, SchemaType type, const std::string& path, int64_t* out) {
    int64_t length;
    if (flexible_) {
      uint32_t u;
      MINK_RETURN_IF_ERROR(ReadUnsignedVarint(path, &u));
      length = static_cast<int64_t>(u) - 1;
    } else if (type == SchemaType::kString) {
      uint64_t raw;
      MINK_RETURN_IF_ERROR(ReadBigEndian(2, path, &raw));
      length = static_cast<int16_t>(raw);
    } else {
      uint64_t raw;
      MINK_RETURN_IF_ERROR(ReadBigEndian(4, path, &raw));
      length = static_cast<int32_t>(raw);
    }
    if (length < -1) return Fail(path, "negative length " + std::to_string(length));
    if (length == -1) {
      if (!f.nullable.Contains(version_)) {
        return Fail(path, "null, but the field is not nullable at v" + std::to_string(version_) +
                              " (nullable: " + RangeText(f.nullable) + ")");
      }
      if (!f.refuse_null.empty()) {
        return Fail(path, "null, but clients refuse a null here (" + f.refuse_null + ")");
      }
    } else if (static_cast<uint64_t>(length) > Left()) {
      // Every array element takes at least one byte, so a count beyond what is left is as
      // wrong as a string length beyond it.
      return Fail(path, (type == SchemaType::kArray ? "count " : "length ") +
                            std::to_string(length) + ", but only " + std::to_string(Left()) +
                            " byte(s) are left");
    }
    *out = length;
    return Status::Ok();
  }

  Status ReadPrimitive(const FieldSchema& f, SchemaType type, const std::string& path,
                       SchemaValue* out) {
    out->type = type;
    uint64_t raw = 0;
    switch (type) {
      case SchemaType::kInt8:
        MINK_RETURN_IF_ERROR(ReadBigEndian(1, path, &raw));
        out->number = static_cast<int8_t>(raw);
        return Status::Ok();
      case SchemaType::kInt16:
        MINK_RETURN_IF_ERROR(ReadBigEndian(2, path, &raw));
        out->number = static_cast<int16_t>(raw);
        return Status::Ok();
      case SchemaType::kInt32:
        MINK_RETURN_IF_ERROR(ReadBigEndian(4, path, &raw));
        out->number = static_cast<int32_t>(raw);
        return Status::Ok();
      case SchemaType::kInt64:
        MINK_RETURN_IF_ERROR(ReadBigEndian(8, path, &raw));
        out->number = static_cast<int64_t>(raw);
        return Status::Ok();
      case SchemaType::kBool:
        MINK_RETURN_IF_ERROR(ReadBigEndian(1, path, &raw));
        if (raw > 1)
          return Fail(path, "bool byte " + Hex2(static_cast<uint8_t>(raw)) + " is neither 0 nor 1");
        out->number = static_cast<int64_t>(raw);
        return Status::Ok();
      case SchemaType::kUuid:
        MINK_RETURN_IF_ERROR(Need(16, path));
        out->bytes = std::string(data_.substr(pos_, 16));
        pos_ += 16;
        return Status::Ok();
      case SchemaType::kString:
      case SchemaType::kBytes:
      case SchemaType::kRecords: {
        int64_t length;
        MINK_RETURN_IF_ERROR(ReadLength(f, type, path, &length));
        if (length < 0) {
          out->is_null = true;
          return Status::Ok();
        }
        out->bytes = std::string(data_.substr(pos_, static_cast<size_t>(length)));
        pos_ += static_cast<size_t>(length);
        return Status::Ok();
      }
      case SchemaType::kArray:
      case SchemaType::kStruct:
        break;
    }
    return Fail(path, "not a primitive type");
  }

  Status ReadField(const FieldSchema& f, const std::string& path, SchemaValue* out) {
    if (f.type == SchemaType::kStruct) {
      out->type = SchemaType::kStruct;
      out->elements.emplace_back();
      return ReadStruct(f.fields, path, &out->elements.back());
    }
    if (f.type != SchemaType::kArray) return ReadPrimitive(f, f.type, path, out);
    out->type = SchemaType::kArray;
    int64_t count;
    MINK_RETURN_IF_ERROR(ReadLength(f, SchemaType::kArray, path, &count));
    if (count < 0) {
      out->is_null = true;
      return Status::Ok();
    }
    FieldSchema element_schema;  // primitives in an array are never null
    for (int64_t i = 0; i < count; ++i) {
      std::string element_path = path + "[" + std::to_string(i) + "]";
      if (f.element == SchemaType::kStruct) {
        out->elements.emplace_back();
        MINK_RETURN_IF_ERROR(ReadStruct(f.fields, element_path, &out->elements.back()));
      } else {
        out->items.emplace_back();
        MINK_RETURN_IF_ERROR(
            ReadPrimitive(element_schema, f.element, element_path, &out->items.back()));
      }
    }
    return Status::Ok();
  }

  Status ReadStruct(const std::vector<FieldSchema>& fields, const std::string& prefix,
                    SchemaNode* out) {
    for (const FieldSchema& f : fields) {
      if (f.tag >= 0 || !f.versions.Contains(version_)) continue;
      SchemaField field{f.name, {}};
      MINK_RETURN_IF_ERROR(ReadField(f, Join(prefix, f.name), &field.value));
      out->fields.push_back(std::move(field));
    }
    if (flexible_) return ReadTaggedSection(fields, prefix, out);
    return Status::Ok();
  }

  // count, then per field: tag, size, content. Tags ascend strictly; a known tag's content must
  // use exactly `size` bytes; unknown tags are skipped.
  Status ReadTaggedSection(const std::vector<FieldSchema>& fields, const std::string& prefix,
                           SchemaNode* out) {
    std::string section = Join(prefix, "(tagged fields)");
    uint32_t count;
    MINK_RETURN_IF_ERROR(ReadUnsignedVarint(section, &count));
    if (count > Left()) {
      return Fail(section, "count " + std::to_string(count) + ", but only " +
                               std::to_string(Left()) + " byte(s) are left");
    }
    int64_t previous = -1;
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t tag, size;
      MINK_RETURN_IF_ERROR(ReadUnsignedVarint(section, &tag));
      MINK_RETURN_IF_ERROR(ReadUnsignedVarint(section, &size));
      if (static_cast<int64_t>(tag) <= previous) {
        return Fail(section, "tag " + std::to_string(tag) + " after tag " +
                                 std::to_string(previous) +
                                 ": tags must ascend, each at most once");
      }
      previous = tag;
      std::string tag_path = section + "[tag " + std::to_string(tag) + "]";
      MINK_RETURN_IF_ERROR(Need(size, tag_path));
      const FieldSchema* known = nullptr;
      for (const FieldSchema& f : fields) {
        if (f.tag >= 0 && static_cast<uint32_t>(f.tag) == tag && f.versions.Contains(version_)) {
          known = &f;
        }
      }
      if (known == nullptr) {
        pos_ += size;
        continue;
      }
      std::string path = Join(prefix, known->name);
      size_t saved_end = end_;
      size_t start = pos_;
      end_ = pos_ + size;
      SchemaField field{known->name, {}};
      Status s = ReadField(*known, path, &field.value);
      size_t used = pos_ - start;
      end_ = saved_end;
      MINK_RETURN_IF_ERROR(s);
      if (used != size) {
        return Fail(path, "tag " + std::to_string(tag) + " says " + std::to_string(size) +
                              " byte(s), but its content used " + std::to_string(used));
      }
      out->fields.push_back(std::move(field));
    }
    return Status::Ok();
  }

  const MessageSchema& schema_;
  int version_;
  bool flexible_;
  std::string_view data_;
  size_t pos_ = 0;
  size_t end_;  // reads stop here: the body's end, or a tagged field's
};

void CollectAll(const SchemaNode& node, const std::string& prefix, std::string_view name,
                std::vector<FoundField>* out) {
  for (const SchemaField& field : node.fields) {
    std::string path = Join(prefix, field.name);
    if (field.name == name) out->push_back(FoundField{path, &field.value});
    const SchemaValue& v = field.value;
    if (v.type == SchemaType::kStruct && !v.elements.empty()) {
      CollectAll(v.elements[0], path, name, out);
    } else if (v.type == SchemaType::kArray) {
      for (size_t i = 0; i < v.elements.size(); ++i) {
        CollectAll(v.elements[i], path + "[" + std::to_string(i) + "]", name, out);
      }
    }
  }
}

}  // namespace

std::string_view SchemaTypeName(SchemaType type) {
  switch (type) {
    case SchemaType::kInt8:
      return "int8";
    case SchemaType::kInt16:
      return "int16";
    case SchemaType::kInt32:
      return "int32";
    case SchemaType::kInt64:
      return "int64";
    case SchemaType::kBool:
      return "bool";
    case SchemaType::kString:
      return "string";
    case SchemaType::kBytes:
      return "bytes";
    case SchemaType::kRecords:
      return "records";
    case SchemaType::kUuid:
      return "uuid";
    case SchemaType::kArray:
      return "array";
    case SchemaType::kStruct:
      return "struct";
  }
  return "?";
}

const MessageSchema* SchemaSet::Find(int api_key) const {
  for (const MessageSchema& m : messages_) {
    if (m.api_key == api_key) return &m;
  }
  return nullptr;
}

const SchemaValue* SchemaNode::Find(std::string_view name) const {
  for (const SchemaField& field : fields) {
    if (field.name == name) return &field.value;
  }
  return nullptr;
}

Result<SchemaNode> ReadBody(const MessageSchema& schema, int version, std::string_view body) {
  if (!schema.versions.Contains(version)) {
    return InvalidArgumentError(schema.name + " v" + std::to_string(version) +
                                ": not in the schema's versions " + RangeText(schema.versions));
  }
  SchemaNode root;
  BodyReader reader(schema, version, body);
  MINK_RETURN_IF_ERROR(reader.Read(&root));
  return root;
}

std::vector<FoundField> FindAll(const SchemaNode& root, std::string_view name) {
  std::vector<FoundField> out;
  CollectAll(root, "", name, &out);
  return out;
}

const SchemaValue* Lookup(const SchemaNode& root, std::string_view path) {
  const SchemaNode* node = &root;
  const SchemaValue* value = nullptr;
  while (!path.empty()) {
    size_t dot = path.find('.');
    std::string_view segment = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (node == nullptr) return nullptr;  // a primitive has no fields
    std::string_view name = segment;
    int index = -1;
    size_t bracket = segment.find('[');
    if (bracket != std::string_view::npos) {
      if (segment.back() != ']' ||
          !ParseInt(segment.substr(bracket + 1, segment.size() - bracket - 2), &index)) {
        return nullptr;
      }
      name = segment.substr(0, bracket);
    }
    value = node->Find(name);
    if (value == nullptr) return nullptr;
    node = nullptr;
    if (index >= 0) {
      if (value->type != SchemaType::kArray) return nullptr;
      if (static_cast<size_t>(index) < value->elements.size()) {
        node = &value->elements[index];
        value = nullptr;
      } else if (static_cast<size_t>(index) < value->items.size()) {
        value = &value->items[index];
      } else {
        return nullptr;
      }
    } else if (value->type == SchemaType::kStruct && !value->elements.empty()) {
      node = &value->elements[0];
    }
    if (value == nullptr && path.empty()) return nullptr;  // ends on an array element struct
  }
  return value;
}

}  // namespace mink::kafka::testing
