#include "stream/subscription.h"

#include <nlohmann/json.hpp>

#include "arrow_format/array.h"
#include "arrow_json/arrow_to_json.h"
#include "base/log.h"
#include "http/websocket_frame.h"
#include "stream/output_table.h"

namespace mink::stream {
namespace {

// The frames of one read batch: its query columns as "data", __change as "change".
Status SendBatch(const arrow::RecordBatch& batch, const std::function<bool(std::string)>& send,
                 bool* stop) {
  std::vector<int> data;
  int change = -1;
  for (int c = 0; c < batch.num_columns(); ++c) {
    const std::string& name = batch.schema()->field(c).name();
    if (name == "__change") change = c;
    if (name != "__bucket" && name != "__offset" && name != "__change") data.push_back(c);
  }
  if (change < 0) return InternalError("a meta read without __change");
  MINK_ASSIGN_OR_RETURN(auto columns, batch.SelectColumns(data));
  MINK_ASSIGN_OR_RETURN(auto rows,
                        arrow_json::RowFormatter::Make(*columns, /*quote_wide_integers=*/true));
  const arrow::BinaryArray changes(batch.Column(change));
  for (int64_t i = 0; i < batch.num_rows() && !*stop; ++i) {
    std::string frame = "{\"change\":" + nlohmann::json(changes.GetString(i)).dump() + ",\"data\":";
    rows.AppendJsonRow(i, &frame);
    frame += '}';
    if (!send(std::move(frame))) *stop = true;
  }
  return Status::Ok();
}

}  // namespace

Status FollowChanges(metadata::MetadataLog* meta, table::TableStore* tables,
                     const std::string& name, const std::function<bool(std::string)>& send,
                     const std::function<bool()>& cancelled) {
  bool known = false;
  meta->Read([&](const metadata::State& st) {
    auto it = st.continuous().find(name);
    known =
        it != st.continuous().end() && (it->second.kind == "stream" || it->second.kind == "view");
  });
  if (!known) return NotFoundError(name + " is not a stream or materialized view");
  table::ReadRequest request;
  request.table = OutputTableName(name);
  request.mode = table::ReadMode::kLog;
  request.from = "earliest";
  request.follow = true;
  request.meta = true;
  MINK_ASSIGN_OR_RETURN(auto table, tables->Resolve(request.table));
  for (const auto& f : table->schema->fields()) {
    if (f.name() != kHiddenKey) request.columns.push_back(f.name());
  }
  bool stop = false;
  Status failed = Status::Ok();
  Status read = tables->Read(
      request,
      [&](const arrow::RecordBatchPtr& batch) {
        failed = SendBatch(*batch, send, &stop);
        return failed.ok() && !stop;
      },
      cancelled);
  MINK_RETURN_IF_ERROR(failed);
  return read;
}

void Subscribe(metadata::MetadataLog* meta, table::TableStore* tables,
               const http::ServerRequest& request, http::WebSocket& socket) {
  auto refuse = [&](int code, const std::string& message) {
    socket.SendText(nlohmann::json{{"error", message}}.dump());
    socket.Close(code, code == http::kWsPolicyViolation ? "no such stream or view" : "read failed");
  };
  const std::string prefix = kSubscribePath;
  if (request.path.rfind(prefix, 0) != 0 || request.path.size() == prefix.size()) {
    return refuse(http::kWsPolicyViolation,
                  "subscribe at /ws/<name of a stream or materialized view>");
  }
  const std::string name = request.path.substr(prefix.size());
  Status s = FollowChanges(
      meta, tables, name, [&](std::string frame) { return socket.SendText(std::move(frame)); },
      [&] { return socket.Closed(); });
  if (s.code() == StatusCode::kNotFound) return refuse(http::kWsPolicyViolation, s.message());
  if (!s.ok() && !socket.Closed()) {
    MINK_LOG_WARN("stream", "subscription to {} from {} failed: {}", name, request.remote,
                  s.ToString());
    return refuse(http::kWsInternalError, s.message());
  }
}

}  // namespace mink::stream
