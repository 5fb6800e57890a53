// IPC reading: message decoding with dictionaries, stream framing, encapsulated schemas.

#include <map>
#include <string>

#include "arrow_format/ipc_internal.h"
#include "base/bytes.h"

namespace mink::arrow {

using namespace ipc_internal;  // NOLINT: this file implements the internal API

namespace {

Status Invalid(const std::string& what) { return InvalidArgumentError("Arrow IPC: " + what); }

// Registers every dictionary-encoded field (at any depth) by id.
Status CollectDictionaries(const std::vector<WireField>& fields,
                           std::map<int64_t, WireField>* out) {
  for (const WireField& f : fields) {
    if (f.dictionary_encoded) {
      const TypeId id = f.field.type()->id();
      if (id != TypeId::kUtf8 && id != TypeId::kBinary) {
        return UnimplementedError("Arrow IPC: dictionary-encoded " + f.field.type()->ToString() +
                                  " (field " + f.field.name() +
                                  ") is not supported; only utf8 and binary dictionaries are");
      }
      WireField value;
      value.field = Field("dictionary", f.field.type(), true);
      auto [it, inserted] = out->emplace(f.dictionary_id, value);
      if (!inserted && !it->second.field.type()->Equals(*f.field.type())) {
        return Invalid("dictionary " + std::to_string(f.dictionary_id) +
                       " is used with two different value types");
      }
    }
    MINK_RETURN_IF_ERROR(CollectDictionaries(f.children, out));
  }
  return Status::Ok();
}

}  // namespace

struct IpcDecoder::State {
  IpcReadOptions options;
  SchemaPtr schema;
  std::vector<WireField> fields;
  std::map<int64_t, WireField> dictionary_fields;
  DictionaryMap dictionaries;

  Result<Decoded> Decode(const MessageInfo& message, BufferPtr body,
                         const std::vector<int>* projection = nullptr) {
    if (message.body_length > 0) {
      if (!body || body->size() < message.body_length) {
        return Invalid("message body has " + std::to_string(body ? body->size() : 0) +
                       " bytes, its metadata says " + std::to_string(message.body_length));
      }
      if (body->size() > message.body_length) body = Buffer::Slice(body, 0, message.body_length);
    } else {
      body = Buffer::Empty();
    }
    switch (message.kind) {
      case MessageInfo::Kind::kSchema: {
        if (schema) return Invalid("a second schema message in one stream");
        std::map<int64_t, WireField> dicts;
        MINK_RETURN_IF_ERROR(CollectDictionaries(message.fields, &dicts));
        std::vector<Field> plain;
        plain.reserve(message.fields.size());
        for (const WireField& f : message.fields) plain.push_back(f.field);
        fields = message.fields;
        dictionary_fields = std::move(dicts);
        schema = std::make_shared<const Schema>(std::move(plain), message.schema_metadata);
        return Decoded{Kind::kSchema, nullptr};
      }
      case MessageInfo::Kind::kDictionaryBatch: {
        if (!schema) return Invalid("dictionary batch before the schema");
        auto it = dictionary_fields.find(message.dictionary_id);
        if (it == dictionary_fields.end()) {
          return Invalid("dictionary batch for id " + std::to_string(message.dictionary_id) +
                         ", which no field uses");
        }
        MINK_ASSIGN_OR_RETURN(auto columns,
                              ReadBody(message, {it->second}, body, dictionaries, options));
        ArrayDataPtr values = std::move(columns[0]);
        auto existing = dictionaries.find(message.dictionary_id);
        if (message.is_delta && existing != dictionaries.end()) {
          MINK_ASSIGN_OR_RETURN(values, ConcatenateBinary(*existing->second, *values, options));
        }
        dictionaries[message.dictionary_id] = std::move(values);
        return Decoded{Kind::kDictionaryBatch, nullptr};
      }
      case MessageInfo::Kind::kRecordBatch: {
        if (!schema) return Invalid("record batch before the schema");
        if (projection == nullptr) {
          MINK_ASSIGN_OR_RETURN(auto columns, ReadBody(message, fields, body, dictionaries, options));
          MINK_ASSIGN_OR_RETURN(RecordBatchPtr batch,
                                RecordBatch::Make(schema, message.length, std::move(columns)));
          return Decoded{Kind::kRecordBatch, std::move(batch)};
        }
        // Only the projected columns are decoded (and decompressed); the rest are skipped.
        std::vector<bool> selected(fields.size(), false);
        for (int i : *projection) {
          if (i < 0 || static_cast<size_t>(i) >= fields.size()) {
            return InvalidArgumentError("projection names column " + std::to_string(i) +
                                        " of a " + std::to_string(fields.size()) + "-column schema");
          }
          selected[static_cast<size_t>(i)] = true;
        }
        MINK_ASSIGN_OR_RETURN(auto decoded,
                              ReadBody(message, fields, body, dictionaries, options, &selected));
        std::vector<ArrayDataPtr> by_field(fields.size());
        for (size_t i = 0, k = 0; i < fields.size(); ++i) {
          if (selected[i]) by_field[i] = decoded[k++];
        }
        std::vector<Field> out_fields;
        std::vector<ArrayDataPtr> columns;
        for (int i : *projection) {
          out_fields.push_back(schema->field(i));
          columns.push_back(by_field[static_cast<size_t>(i)]);
        }
        auto out_schema = std::make_shared<const Schema>(std::move(out_fields), schema->metadata());
        MINK_ASSIGN_OR_RETURN(RecordBatchPtr batch,
                              RecordBatch::Make(out_schema, message.length, std::move(columns)));
        return Decoded{Kind::kRecordBatch, std::move(batch)};
      }
    }
    return Invalid("unknown message kind");
  }
};

IpcDecoder::IpcDecoder(IpcReadOptions options) : state_(std::make_unique<State>()) {
  state_->options = options;
}
IpcDecoder::~IpcDecoder() = default;
IpcDecoder::IpcDecoder(IpcDecoder&&) noexcept = default;
IpcDecoder& IpcDecoder::operator=(IpcDecoder&&) noexcept = default;

Result<IpcDecoder::Decoded> IpcDecoder::Decode(std::string_view metadata, BufferPtr body) {
  MINK_ASSIGN_OR_RETURN(MessageInfo message, ParseMessage(metadata, state_->options));
  return state_->Decode(message, std::move(body));
}

Result<IpcDecoder::Decoded> IpcDecoder::DecodeProjected(std::string_view metadata, BufferPtr body,
                                                        const std::vector<int>& columns) {
  MINK_ASSIGN_OR_RETURN(MessageInfo message, ParseMessage(metadata, state_->options));
  return state_->Decode(message, std::move(body), &columns);
}

const SchemaPtr& IpcDecoder::schema() const { return state_->schema; }

// ---- Stream reader

StreamReader::StreamReader(BufferPtr input, IpcReadOptions options)
    : input_(std::move(input)), options_(options), decoder_(options) {}

Result<std::unique_ptr<StreamReader>> StreamReader::Open(BufferPtr input, IpcReadOptions options) {
  if (!input) return InvalidArgumentError("Arrow IPC: no input");
  std::unique_ptr<StreamReader> reader(new StreamReader(std::move(input), options));
  MessageInfo message;
  BufferPtr body;
  bool end = false;
  MINK_RETURN_IF_ERROR(reader->ReadMessage(&message, &body, &end));
  if (end) return Invalid("the stream has no schema message");
  if (message.kind != MessageInfo::Kind::kSchema) {
    return Invalid("the stream does not start with a schema message");
  }
  MINK_RETURN_IF_ERROR(reader->decoder_.state_->Decode(message, body).status());
  return reader;
}

Status StreamReader::ReadMessage(MessageInfo* message, BufferPtr* body, bool* end) {
  *body = nullptr;
  *end = false;
  const int64_t size = input_->size();
  const int64_t remaining = size - position_;
  if (done_ || remaining == 0) {
    done_ = true;  // the end-of-stream marker is optional
    *end = true;
    return Status::Ok();
  }
  const char* at = reinterpret_cast<const char*>(input_->data()) + position_;
  const std::string at_offset = " at offset " + std::to_string(position_);
  if (remaining < 4) return Invalid("truncated message prefix" + at_offset);
  int64_t prefix = 4;
  int32_t length = static_cast<int32_t>(LoadU32(at));
  if (static_cast<uint32_t>(length) == kContinuation) {
    if (remaining < 8) return Invalid("truncated message prefix" + at_offset);
    length = static_cast<int32_t>(LoadU32(at + 4));
    prefix = 8;
  }
  if (length == 0) {
    done_ = true;
    *end = true;
    return Status::Ok();
  }
  if (length < 0) return Invalid("negative metadata length" + at_offset);
  if (length > remaining - prefix) {
    return Invalid("message metadata of " + std::to_string(length) + " bytes" + at_offset +
                   " runs past the end of the input (" + std::to_string(remaining - prefix) +
                   " bytes left)");
  }
  auto parsed = ParseMessage(std::string_view(at + prefix, static_cast<size_t>(length)), options_);
  if (!parsed.ok()) return parsed.status().WithContext("message" + at_offset);
  *message = std::move(parsed).value();
  const int64_t body_start = position_ + prefix + length;
  if (message->body_length > size - body_start) {
    return Invalid("message body of " + std::to_string(message->body_length) + " bytes" +
                   at_offset + " runs past the end of the input (" +
                   std::to_string(size - body_start) + " bytes left)");
  }
  *body = message->body_length > 0 ? Buffer::Slice(input_, body_start, message->body_length)
                                   : Buffer::Empty();
  position_ = body_start + message->body_length;
  return Status::Ok();
}

Result<RecordBatchPtr> StreamReader::Next() {
  while (true) {
    MessageInfo message;
    BufferPtr body;
    bool end = false;
    MINK_RETURN_IF_ERROR(ReadMessage(&message, &body, &end));
    if (end) return RecordBatchPtr();
    MINK_ASSIGN_OR_RETURN(IpcDecoder::Decoded decoded, decoder_.state_->Decode(message, body));
    if (decoded.kind == IpcDecoder::Kind::kRecordBatch) return decoded.batch;
  }
}

Result<StreamContents> ReadStream(BufferPtr input, const IpcReadOptions& options) {
  MINK_ASSIGN_OR_RETURN(auto reader, StreamReader::Open(std::move(input), options));
  StreamContents out;
  out.schema = reader->schema();
  while (true) {
    MINK_ASSIGN_OR_RETURN(RecordBatchPtr batch, reader->Next());
    if (!batch) break;
    out.batches.push_back(std::move(batch));
  }
  return out;
}

Result<SchemaPtr> DeserializeSchema(std::string_view bytes, const IpcReadOptions& options) {
  if (bytes.size() < 4) return Invalid("encapsulated schema shorter than its prefix");
  size_t prefix = 4;
  int32_t length = static_cast<int32_t>(LoadU32(bytes.data()));
  if (static_cast<uint32_t>(length) == kContinuation) {
    if (bytes.size() < 8) return Invalid("encapsulated schema shorter than its prefix");
    length = static_cast<int32_t>(LoadU32(bytes.data() + 4));
    prefix = 8;
  }
  if (length <= 0 || static_cast<size_t>(length) > bytes.size() - prefix) {
    return Invalid("encapsulated schema length " + std::to_string(length) + " does not fit in " +
                   std::to_string(bytes.size()) + " bytes");
  }
  IpcDecoder decoder(options);
  MINK_ASSIGN_OR_RETURN(IpcDecoder::Decoded decoded,
                        decoder.Decode(bytes.substr(prefix, static_cast<size_t>(length)), nullptr));
  if (decoded.kind != IpcDecoder::Kind::kSchema) {
    return Invalid("encapsulated message is not a schema");
  }
  return decoder.schema();
}

}  // namespace mink::arrow
