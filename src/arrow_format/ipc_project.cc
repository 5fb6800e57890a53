#include "arrow_format/ipc_project.h"

#include "arrow_format/array_data.h"
#include "arrow_format/ipc_internal.h"

namespace mink::arrow {

using ipc_internal::BufferRegion;
using ipc_internal::FieldNodeInfo;

namespace {

// The field nodes and buffers a column of `type` takes in a record batch message.
void CountLayout(const DataType& type, size_t* nodes, size_t* buffers) {
  *nodes += 1;
  *buffers += static_cast<size_t>(NumBuffers(type.id()));
  for (const Field& child : type.children()) CountLayout(*child.type(), nodes, buffers);
}

}  // namespace

Result<IpcMessage> ProjectRecordBatchMessage(std::string_view metadata, std::string_view body,
                                             const Schema& schema,
                                             const std::vector<int>& columns) {
  MINK_ASSIGN_OR_RETURN(ipc_internal::MessageInfo info,
                        ipc_internal::ParseMessage(metadata, IpcReadOptions{}));
  if (info.kind != ipc_internal::MessageInfo::Kind::kRecordBatch) {
    return InvalidArgumentError("not a record batch message");
  }
  // Where each top-level column's nodes and buffers start.
  std::vector<size_t> node_at, buffer_at;
  size_t nodes = 0, buffers = 0;
  for (int i = 0; i < schema.num_fields(); ++i) {
    node_at.push_back(nodes);
    buffer_at.push_back(buffers);
    CountLayout(*schema.field(i).type(), &nodes, &buffers);
  }
  node_at.push_back(nodes);
  buffer_at.push_back(buffers);
  if (nodes != info.nodes.size() || buffers != info.buffers.size()) {
    return InvalidArgumentError("the record batch message does not match the schema");
  }
  std::vector<FieldNodeInfo> out_nodes;
  std::vector<BufferRegion> out_buffers;
  IpcMessage out;
  for (int c : columns) {
    if (c < 0 || c >= schema.num_fields())
      return InvalidArgumentError("no column " + std::to_string(c));
    auto column = static_cast<size_t>(c);
    for (size_t n = node_at[column]; n < node_at[column + 1]; ++n)
      out_nodes.push_back(info.nodes[n]);
    for (size_t b = buffer_at[column]; b < buffer_at[column + 1]; ++b) {
      const BufferRegion& r = info.buffers[b];
      if (r.offset < 0 || r.length < 0 || r.offset > static_cast<int64_t>(body.size()) ||
          r.length > static_cast<int64_t>(body.size()) - r.offset) {
        return InvalidArgumentError("a buffer lies outside the message body");
      }
      out_buffers.push_back(BufferRegion{static_cast<int64_t>(out.body.size()), r.length});
      out.body.append(body.substr(static_cast<size_t>(r.offset), static_cast<size_t>(r.length)));
      out.body.resize(
          static_cast<size_t>(ipc_internal::PaddedLength(static_cast<int64_t>(out.body.size()))),
          '\0');
    }
  }
  out.metadata = ipc_internal::BuildRecordBatchMessage(
      info.length, out_nodes, out_buffers, info.compression, static_cast<int64_t>(out.body.size()));
  return out;
}

}  // namespace mink::arrow
