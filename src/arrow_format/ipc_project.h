#pragma once
// Projection of an encoded record batch message without decoding it: the message keeps some of
// its top-level columns, whose buffers (compressed or not) are copied as they are. A node uses it
// to send stored batches, still compressed, with only the columns a reader asked for.

#include <string_view>
#include <vector>

#include "arrow_format/ipc.h"

namespace mink::arrow {

// The record batch message `metadata` + `body` (of a batch of `schema`, without dictionaries)
// reduced to the top-level columns `columns` (indexes into `schema`, in that order). The body
// compression of the input is kept. InvalidArgument when the message does not match `schema`
// or its buffers lie outside `body`.
Result<IpcMessage> ProjectRecordBatchMessage(std::string_view metadata, std::string_view body,
                                             const Schema& schema, const std::vector<int>& columns);

}  // namespace mink::arrow
