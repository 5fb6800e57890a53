#pragma once
// PutSender: sends the parts of one `mink write` to a node, one DoPut per part
// (docs/flight-api.md). The first part takes a writer id from the init-writer action; parts are
// numbered 0, 1, ... as the DoPut's "sequence". A DoPut that fails as Unavailable (the node
// went away, or asks to retry) is sent again with the same writer id and sequence, which the
// node answers with the original offsets instead of writing the rows twice.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "flight/client/flight_client.h"

namespace mink::cli {

struct PutSenderOptions {
  std::string table;
  bool is_delete = false;
  std::vector<std::string> columns;  // the descriptor's "columns" (a partial update), or empty
  // Unavailable is retried until one of these runs out. 30 s outlasts a failover (the session
  // timeout, 9 s by default, then the new owner opens the bucket).
  int max_attempts = 100;
  std::chrono::milliseconds retry_for{30'000};
  std::chrono::milliseconds first_backoff{200};  // doubled after every failed attempt
  // Short, so that the retry that finds a bucket's new owner comes soon after it opened.
  std::chrono::milliseconds max_backoff{500};
};

class PutSender {
 public:
  PutSender(flight::FlightClient* client, arrow::SchemaPtr schema, PutSenderOptions options)
      : client_(client), schema_(std::move(schema)), options_(std::move(options)) {}

  // Sends one part (its batches have schema()) and returns once the node acknowledged it.
  Status Send(const std::vector<arrow::RecordBatchPtr>& batches, int64_t rows);

  int64_t rows_written() const { return rows_written_; }
  int64_t writer_id() const { return writer_id_; }
  // The sequence the next part will carry.
  int32_t next_sequence() const { return sequence_; }

 private:
  Status PutOnce(const std::string& command, const std::vector<arrow::RecordBatchPtr>& batches);

  flight::FlightClient* client_;
  arrow::SchemaPtr schema_;
  PutSenderOptions options_;
  int64_t writer_id_ = -1;
  int32_t sequence_ = 0;
  int64_t rows_written_ = 0;
};

}  // namespace mink::cli
