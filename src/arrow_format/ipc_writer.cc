// IPC writing: record batch bodies (optionally compressed), framed messages and streams.

#include <algorithm>
#include <cstring>
#include <string>

#include "arrow_format/bit_util.h"
#include "arrow_format/ipc_internal.h"
#include "base/bytes.h"

namespace mink::arrow {
namespace ipc_internal {
namespace {

constexpr int kMaxDepth = 64;

// Collects field nodes and the bytes of every buffer, pre-order, checking that each buffer
// holds what the array's length says it should (so a malformed hand-built array is an error,
// not an out-of-bounds read).
class Collector {
 public:
  Status Visit(const ArrayData& a, int depth) {
    if (!a.type) return InvalidArgumentError("array without a type");
    // Sizes below are computed from the length; keep them far from overflow.
    if (a.length < 0 || a.length > (int64_t{1} << 58)) return Bad(a, "bad length");
    if (depth > kMaxDepth) return InvalidArgumentError("array nested too deeply");
    if (static_cast<int>(a.buffers.size()) != NumBuffers(a.type->id())) {
      return Bad(a, "wrong number of buffers");
    }
    nodes.push_back({a.length, a.type->id() == TypeId::kNull ? a.length : a.null_count});
    const TypeId id = a.type->id();
    if (id == TypeId::kNull) return Status::Ok();
    // Validity: omitted (length 0) when there are no nulls.
    if (a.null_count > 0) {
      MINK_RETURN_IF_ERROR(Add(a, a.buffers[0], bits::BytesForBits(a.length), "validity"));
    } else {
      sources.emplace_back();
    }
    switch (id) {
      case TypeId::kBool:
        return Add(a, a.buffers[1], bits::BytesForBits(a.length), "values");
      case TypeId::kUtf8:
      case TypeId::kBinary: {
        MINK_RETURN_IF_ERROR(Add(a, a.buffers[1], (a.length + 1) * 4, "offsets"));
        int32_t end;
        std::memcpy(&end, a.buffers[1]->data() + a.length * 4, 4);
        return Add(a, a.buffers[2], end, "data");
      }
      case TypeId::kList:
      case TypeId::kMap:
        if (a.children.size() != 1 || !a.children[0]) return Bad(a, "missing child");
        MINK_RETURN_IF_ERROR(Add(a, a.buffers[1], (a.length + 1) * 4, "offsets"));
        return Visit(*a.children[0], depth + 1);
      case TypeId::kStruct:
        if (a.children.size() != a.type->children().size()) return Bad(a, "wrong child count");
        for (const auto& child : a.children) {
          if (!child) return Bad(a, "missing child");
          MINK_RETURN_IF_ERROR(Visit(*child, depth + 1));
        }
        return Status::Ok();
      default:
        return Add(a, a.buffers[1], a.length * a.type->byte_width(), "values");
    }
  }

  std::vector<FieldNodeInfo> nodes;
  std::vector<std::string_view> sources;

 private:
  static Status Bad(const ArrayData& a, const std::string& what) {
    return InvalidArgumentError("cannot write " + a.type->ToString() + " array: " + what);
  }
  Status Add(const ArrayData& a, const BufferPtr& buffer, int64_t needed, const char* name) {
    if (needed < 0) return Bad(a, std::string("bad ") + name + " size");
    if (!buffer || buffer->size() < needed) {
      return Bad(
          a, std::string(name) + " buffer is smaller than " + std::to_string(needed) + " bytes");
    }
    sources.emplace_back(reinterpret_cast<const char*>(buffer->data()),
                         static_cast<size_t>(needed));
    return Status::Ok();
  }
};

// Buffers at least kProbeMinBytes long are compressed whole only if their first kProbeBytes
// shrink to at most kProbeKeepRatio of their size: data that does not compress (random bytes,
// values compressed already) otherwise costs a full pass of the codec for nothing.
constexpr size_t kProbeMinBytes = 64 << 10;
constexpr size_t kProbeBytes = 16 << 10;
constexpr double kProbeKeepRatio = 0.9375;

Result<bool> WorthCompressing(const IpcWriteOptions& options, std::string_view source) {
  if (source.size() < kProbeMinBytes) return true;
  const std::string_view sample = source.substr(0, kProbeBytes);
  const int64_t bound = MaxCompressedSize(options.compression, static_cast<int64_t>(sample.size()));
  std::string out(static_cast<size_t>(bound), '\0');
  MINK_ASSIGN_OR_RETURN(int64_t n, CompressBuffer(options.compression, options.compression_level,
                                                  sample, reinterpret_cast<uint8_t*>(out.data()),
                                                  bound));
  return static_cast<double>(n) <= kProbeKeepRatio * static_cast<double>(sample.size());
}

Status CompressInto(const IpcWriteOptions& options, std::string_view source, std::string* scratch,
                    BufferRegion* region) {
  region->offset = static_cast<int64_t>(scratch->size());
  if (source.empty()) {
    region->length = 0;
    return Status::Ok();
  }
  const size_t start = scratch->size();
  MINK_ASSIGN_OR_RETURN(bool worth, WorthCompressing(options, source));
  const int64_t bound =
      worth ? MaxCompressedSize(options.compression, static_cast<int64_t>(source.size())) : 0;
  scratch->resize(start + 8 + std::max(static_cast<size_t>(bound), source.size()));
  auto* dst = reinterpret_cast<uint8_t*>(scratch->data() + start + 8);
  int64_t n = static_cast<int64_t>(source.size());
  if (worth) {
    MINK_ASSIGN_OR_RETURN(n, CompressBuffer(options.compression, options.compression_level, source,
                                            dst, bound));
  }
  char* prefix = scratch->data() + start;
  if (n >= static_cast<int64_t>(source.size())) {
    // Compression does not pay: store the bytes raw, marked with length -1.
    StoreU32(prefix, 0xFFFFFFFFu);
    StoreU32(prefix + 4, 0xFFFFFFFFu);
    std::memcpy(scratch->data() + start + 8, source.data(), source.size());
    n = static_cast<int64_t>(source.size());
  } else {
    uint64_t len = source.size();
    StoreU32(prefix, static_cast<uint32_t>(len));
    StoreU32(prefix + 4, static_cast<uint32_t>(len >> 32));
  }
  region->length = 8 + n;
  scratch->resize(start + static_cast<size_t>(PaddedLength(8 + n)), '\0');
  return Status::Ok();
}

}  // namespace

Result<BodyPlan> PlanRecordBatch(const RecordBatch& batch, const IpcWriteOptions& options,
                                 std::string* scratch) {
  Collector collector;
  for (int i = 0; i < batch.num_columns(); ++i) {
    Status s = collector.Visit(*batch.Column(i), 0);
    if (!s.ok()) return s.WithContext("column " + batch.schema()->field(i).name());
  }
  BodyPlan plan;
  plan.nodes = std::move(collector.nodes);
  plan.regions.resize(collector.sources.size());
  if (options.compression == CompressionCodec::kNone) {
    int64_t offset = 0;
    for (size_t i = 0; i < collector.sources.size(); ++i) {
      const int64_t len = static_cast<int64_t>(collector.sources[i].size());
      plan.regions[i] = {offset, len};
      offset += PaddedLength(len);
    }
    plan.body_length = offset;
    plan.sources = std::move(collector.sources);
  } else {
    plan.compressed = true;
    scratch->clear();
    for (size_t i = 0; i < collector.sources.size(); ++i) {
      MINK_RETURN_IF_ERROR(CompressInto(options, collector.sources[i], scratch, &plan.regions[i]));
    }
    plan.body_length = static_cast<int64_t>(scratch->size());
  }
  plan.metadata = BuildRecordBatchMessage(batch.num_rows(), plan.nodes, plan.regions,
                                          options.compression, plan.body_length);
  return plan;
}

void AppendBody(const BodyPlan& plan, const std::string& scratch, std::string* out) {
  if (plan.compressed) {
    out->append(scratch);
    return;
  }
  const size_t base = out->size();
  for (size_t i = 0; i < plan.sources.size(); ++i) {
    const size_t at = base + static_cast<size_t>(plan.regions[i].offset);
    if (out->size() < at) out->append(at - out->size(), '\0');
    out->append(plan.sources[i]);
  }
  const size_t end = base + static_cast<size_t>(plan.body_length);
  if (out->size() < end) out->append(end - out->size(), '\0');
}

}  // namespace ipc_internal

using namespace ipc_internal;  // NOLINT: this file implements the internal API

IpcMessage EncodeSchemaMessage(const Schema& schema) {
  return IpcMessage{BuildSchemaMessage(schema), std::string()};
}

Result<IpcMessage> EncodeRecordBatchMessage(const RecordBatch& batch,
                                            const IpcWriteOptions& options) {
  std::string scratch;
  MINK_ASSIGN_OR_RETURN(BodyPlan plan, PlanRecordBatch(batch, options, &scratch));
  IpcMessage message;
  message.metadata = std::move(plan.metadata);
  if (plan.compressed) {
    message.body = std::move(scratch);
  } else {
    message.body.reserve(static_cast<size_t>(plan.body_length));
    AppendBody(plan, scratch, &message.body);
  }
  return message;
}

std::string SerializeSchema(const Schema& schema) {
  std::string out;
  AppendFramedMetadata(BuildSchemaMessage(schema), &out);
  return out;
}

StreamWriter::StreamWriter(SchemaPtr schema, IpcWriteOptions options)
    : schema_(std::move(schema)), options_(options) {}

StreamWriter::~StreamWriter() = default;

void StreamWriter::WriteSchema(std::string* out) {
  if (schema_written_) return;
  AppendFramedMetadata(BuildSchemaMessage(*schema_), out);
  schema_written_ = true;
}

Status StreamWriter::WriteBatch(const RecordBatch& batch, std::string* out) {
  if (!batch.schema()->Equals(*schema_)) {
    return InvalidArgumentError("record batch schema does not match the stream schema");
  }
  WriteSchema(out);
  MINK_ASSIGN_OR_RETURN(BodyPlan plan, PlanRecordBatch(batch, options_, &scratch_));
  const int64_t framed = 8 + PaddedMetadataSize(static_cast<int64_t>(plan.metadata.size()));
  out->reserve(out->size() + static_cast<size_t>(framed + plan.body_length));
  AppendFramedMetadata(plan.metadata, out);
  AppendBody(plan, scratch_, out);
  return Status::Ok();
}

void StreamWriter::WriteEnd(std::string* out) {
  WriteSchema(out);
  PutU32(out, kContinuation);
  PutU32(out, 0);
}

Result<std::string> WriteStream(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                                const IpcWriteOptions& options) {
  StreamWriter writer(schema, options);
  std::string out;
  writer.WriteSchema(&out);
  for (const auto& batch : batches) MINK_RETURN_IF_ERROR(writer.WriteBatch(*batch, &out));
  writer.WriteEnd(&out);
  return out;
}

}  // namespace mink::arrow
