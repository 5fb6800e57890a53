#pragma once
// Fully populated sample messages for every API (non-default values in every field, nested
// arrays with two elements), for round-trip, truncation and fuzz-seed use.

#include <string>
#include <vector>

#include "kafka/protocol/messages.h"

namespace mink::kafka::testing {

Request SampleRequest(ApiKey key);
Response SampleResponse(ApiKey key);

// A RECORDS blob with two small uncompressed batches.
std::string SampleRecords();

}  // namespace mink::kafka::testing
