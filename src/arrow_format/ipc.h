#pragma once
// Arrow IPC: the encapsulated message format and the streaming format.
//
// Writing: MetadataVersion V5, continuation-marker framing, 8-byte aligned metadata and body,
// optional per-buffer body compression (LZ4 frame or ZSTD; a buffer that does not shrink is
// stored raw with length -1). Reading accepts V4 and V5, continuation and legacy (pre-0.15)
// framing, an optional end-of-stream marker, and dictionary-encoded utf8/binary fields, which
// are materialised as plain utf8/binary columns.
//
// The reader treats its input as untrusted: every length and offset is checked against the
// input before use and nothing is allocated from an unchecked length; a malformed stream is an
// InvalidArgument status naming what is wrong, a valid stream using a feature Mink does not
// support is Unimplemented. Uncompressed buffers reference the input without copying (the
// arrays hold a shared_ptr to it).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow_format/buffer.h"
#include "arrow_format/compression.h"
#include "arrow_format/record_batch.h"
#include "arrow_format/type.h"
#include "base/result.h"

namespace mink::arrow {

namespace ipc_internal {
struct MessageInfo;
}

struct IpcWriteOptions {
  CompressionCodec compression = CompressionCodec::kNone;
  int compression_level = 0;  // 0: the codec's default fast level
};

struct IpcReadOptions {
  // Largest flatbuffer metadata accepted per message.
  int64_t max_metadata_size = 64 << 20;
  // Largest row count of a record batch (a batch of only null-type columns has no buffer that
  // would bound its length).
  int64_t max_rows_per_batch = INT32_MAX;
  // Largest total of decompressed and materialised bytes per message (compressed buffers and
  // dictionary-encoded columns); protects against small inputs that claim huge outputs.
  int64_t max_decoded_bytes_per_message = int64_t{1} << 31;
};

// One encapsulated message as Flight carries it (FlightData.data_header / data_body).
struct IpcMessage {
  std::string metadata;  // the flatbuffer Message, unframed
  std::string body;      // 8-byte padded body; empty for a schema
};

// ---- Message-level API (Flight).

IpcMessage EncodeSchemaMessage(const Schema& schema);
Result<IpcMessage> EncodeRecordBatchMessage(const RecordBatch& batch,
                                            const IpcWriteOptions& options = {});

// The "IPC-encapsulated schema" of FlightInfo.schema and SchemaResult.schema: continuation
// marker, metadata length, Schema message, padding to 8 bytes.
std::string SerializeSchema(const Schema& schema);
// Reads those bytes (with or without the continuation marker).
Result<SchemaPtr> DeserializeSchema(std::string_view bytes, const IpcReadOptions& options = {});

// Decodes a sequence of messages: first a Schema, then DictionaryBatch and RecordBatch messages
// in stream order. Keeps the dictionaries seen so far. Not thread-safe.
class IpcDecoder {
 public:
  enum class Kind { kSchema, kDictionaryBatch, kRecordBatch };
  struct Decoded {
    Kind kind;
    RecordBatchPtr batch;  // set for kRecordBatch
  };

  explicit IpcDecoder(IpcReadOptions options = {});
  ~IpcDecoder();
  IpcDecoder(IpcDecoder&&) noexcept;
  IpcDecoder& operator=(IpcDecoder&&) noexcept;

  // `metadata` is the flatbuffer Message (unframed); `body` the message body (may be null when
  // the message has none). Batches reference `body` without copying when uncompressed.
  Result<Decoded> Decode(std::string_view metadata, BufferPtr body);
  // Like Decode, but a record batch comes back with only `columns` (schema field indexes, in
  // that order); the other columns' buffers are skipped without being read or decompressed.
  Result<Decoded> DecodeProjected(std::string_view metadata, BufferPtr body,
                                  const std::vector<int>& columns);
  // Null until a schema message was decoded. Dictionary-encoded fields appear with their
  // value type.
  const SchemaPtr& schema() const;

 private:
  friend class StreamReader;
  struct State;
  std::unique_ptr<State> state_;
};

// ---- Stream format.

// Appends framed messages to a string: the schema before the first batch, then batches, then
// the end-of-stream marker. Each message is copied into `out` once (compressed buffers are
// compressed into a scratch area first).
class StreamWriter {
 public:
  explicit StreamWriter(SchemaPtr schema, IpcWriteOptions options = {});
  ~StreamWriter();

  const SchemaPtr& schema() const { return schema_; }
  // Appends the schema message if it was not written yet.
  void WriteSchema(std::string* out);
  // The batch's schema must equal the writer's.
  Status WriteBatch(const RecordBatch& batch, std::string* out);
  // Appends the end-of-stream marker (0xFFFFFFFF 0x00000000).
  void WriteEnd(std::string* out);

 private:
  SchemaPtr schema_;
  IpcWriteOptions options_;
  bool schema_written_ = false;
  std::string scratch_;  // compressed body
};

// A complete stream: schema, batches and end-of-stream marker.
Result<std::string> WriteStream(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                                const IpcWriteOptions& options = {});

// Reads a stream held in memory, one message at a time.
class StreamReader {
 public:
  // Reads up to and including the schema message.
  static Result<std::unique_ptr<StreamReader>> Open(BufferPtr input, IpcReadOptions options = {});

  const SchemaPtr& schema() const { return decoder_.schema(); }
  // The next record batch, or null at the end of the stream.
  Result<RecordBatchPtr> Next();

 private:
  StreamReader(BufferPtr input, IpcReadOptions options);
  // The next message and its body; *end is set at the end of the stream.
  Status ReadMessage(ipc_internal::MessageInfo* message, BufferPtr* body, bool* end);

  BufferPtr input_;
  IpcReadOptions options_;
  IpcDecoder decoder_;
  int64_t position_ = 0;
  bool done_ = false;
};

struct StreamContents {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};

Result<StreamContents> ReadStream(BufferPtr input, const IpcReadOptions& options = {});

}  // namespace mink::arrow
