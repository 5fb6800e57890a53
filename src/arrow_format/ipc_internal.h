#pragma once
// Internal to the IPC implementation: the flatbuffer metadata translated to and from plain
// structs (flatbuffers headers stay inside ipc_metadata_internal.cc), framing constants, and the
// record batch body reader and writer shared by the stream and message APIs.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "arrow_format/ipc.h"

namespace mink::arrow::ipc_internal {

constexpr uint32_t kContinuation = 0xFFFFFFFFu;

struct FieldNodeInfo {
  int64_t length;
  int64_t null_count;
};

struct BufferRegion {
  int64_t offset;  // from the start of the body
  int64_t length;
};

// A field as declared on the wire. `field` has the value type (for a dictionary-encoded field,
// the dictionary's value type); `children` mirror field.type()->children().
struct WireField {
  Field field;
  bool dictionary_encoded = false;
  int64_t dictionary_id = 0;
  int index_bit_width = 32;
  bool index_signed = true;
  std::vector<WireField> children;
};

struct MessageInfo {
  enum class Kind { kSchema, kDictionaryBatch, kRecordBatch };
  Kind kind = Kind::kSchema;
  int64_t body_length = 0;
  // kSchema.
  std::vector<WireField> fields;
  KeyValueMetadata schema_metadata;
  // kRecordBatch and kDictionaryBatch.
  int64_t length = 0;
  std::vector<FieldNodeInfo> nodes;
  std::vector<BufferRegion> buffers;
  CompressionCodec compression = CompressionCodec::kNone;
  // kDictionaryBatch.
  int64_t dictionary_id = 0;
  bool is_delta = false;
};

// Flatbuffer Message bytes (unframed, unpadded).
std::string BuildSchemaMessage(const Schema& schema);
std::string BuildRecordBatchMessage(int64_t length, const std::vector<FieldNodeInfo>& nodes,
                                    const std::vector<BufferRegion>& buffers,
                                    CompressionCodec compression, int64_t body_length);

// Verifies and translates a flatbuffer Message.
Result<MessageInfo> ParseMessage(std::string_view metadata, const IpcReadOptions& options);

// The metadata length to frame `flatbuffer_size` bytes with: padded so that the 8-byte prefix
// plus the metadata is a multiple of 8.
inline int64_t PaddedMetadataSize(int64_t flatbuffer_size) {
  return ((8 + flatbuffer_size + 7) & ~int64_t{7}) - 8;
}
inline int64_t PaddedLength(int64_t n) { return (n + 7) & ~int64_t{7}; }

// Appends continuation marker, length, metadata and its padding.
void AppendFramedMetadata(const std::string& metadata, std::string* out);

// ---- Body writer (ipc_writer.cc).

// The layout of one record batch body: metadata plus the regions to copy.
struct BodyPlan {
  std::vector<FieldNodeInfo> nodes;
  std::vector<BufferRegion> regions;
  std::vector<std::string_view> sources;  // the bytes of each region (uncompressed plan)
  int64_t body_length = 0;
  bool compressed = false;  // the body is the scratch string
  std::string metadata;
};

// Lays out the body of `batch`. With compression, the compressed buffers are written to
// `scratch` (whose bytes are the whole body) and `sources` is empty.
Result<BodyPlan> PlanRecordBatch(const RecordBatch& batch, const IpcWriteOptions& options,
                                 std::string* scratch);
// Copies the planned body into `out` (with zero padding).
void AppendBody(const BodyPlan& plan, const std::string& scratch, std::string* out);

// ---- Body reader (ipc_body_reader.cc).

using DictionaryMap = std::map<int64_t, ArrayDataPtr>;

// Decodes the columns described by `fields` from a record batch (or dictionary batch) message;
// with `selected`, only the fields marked true (the others are skipped undecoded).
Result<std::vector<ArrayDataPtr>> ReadBody(const MessageInfo& message,
                                           const std::vector<WireField>& fields,
                                           const BufferPtr& body, const DictionaryMap& dictionaries,
                                           const IpcReadOptions& options,
                                           const std::vector<bool>* selected = nullptr);

// Concatenates two utf8/binary arrays (a delta dictionary batch).
Result<ArrayDataPtr> ConcatenateBinary(const ArrayData& a, const ArrayData& b,
                                       const IpcReadOptions& options);

}  // namespace mink::arrow::ipc_internal
