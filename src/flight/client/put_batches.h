#pragma once
// PutBatches: one DoPut of Arrow record batches (a schema message, then the batches) with a
// command descriptor; the app_metadata of every PutResult the node answered.

#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "flight/client/flight_client.h"

namespace mink::flight {

Result<std::vector<std::string>> PutBatches(FlightClient& client, const std::string& command,
                                            const arrow::Schema& schema,
                                            const std::vector<arrow::RecordBatchPtr>& batches,
                                            const CallOptions& options = {});

}  // namespace mink::flight
