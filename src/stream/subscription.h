#pragma once
// Subscriptions: SUBSCRIBE name over the node's HTTP API (docs/streaming-sql.md, Subscriptions).
// A WebSocket opened on /ws/<name> follows the output table of stream or view <name> from its
// start (a follow read of its log, or of a primary-key table's changelog) and gets one text
// frame per change:
//   {"change":"+U","data":{"rows_seen":"31","last_seq":"30"}}
// `change` is +I, -U, +U or -D for a view's changes and +A for a stream's rows; `data` has the
// query's columns (not a global aggregate's hidden `__key`), 64-bit integers as strings as the
// SQL endpoint gives them. mink-query's `SUBSCRIBE name` reads the same changes over Flight.
//
// Thread-safe: each subscription runs on its WebSocket's thread.

#include <functional>
#include <string>

#include "base/result.h"
#include "http/api_server.h"
#include "metadata/metadata_log.h"
#include "table/table_store.h"

namespace mink::stream {

// The path prefix of subscriptions: /ws/<name>, the name percent-decoded.
inline constexpr char kSubscribePath[] = "/ws/";

// The changes of `name`'s output table from its start, each as its JSON object, handed to
// `send` (false stops) until `cancelled` says so. NotFound when `name` is not a stream or view.
Status FollowChanges(metadata::MetadataLog* meta, table::TableStore* tables,
                     const std::string& name, const std::function<bool(std::string)>& send,
                     const std::function<bool()>& cancelled);

// GET /ws/<name>: FollowChanges into `socket` until it closes. A name that is not a stream or
// view gets one {"error": "..."} frame and Close 1008; a read that fails, {"error"} and 1011.
void Subscribe(metadata::MetadataLog* meta, table::TableStore* tables,
               const http::ServerRequest& request, http::WebSocket& socket);

}  // namespace mink::stream
