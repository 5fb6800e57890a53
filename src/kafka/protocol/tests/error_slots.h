#pragma once
// A response with an error in every slot, as the server's handlers build it: every per-topic,
// per-partition, per-member, per-group and per-resource element of the API's sample response
// becomes a default-constructed element that keeps only its key fields and gets the error code
// UNKNOWN_TOPIC_OR_PARTITION. APIs without such elements get a default-constructed response with
// the code. For response_schema_test.cc.

#include <functional>

#include "kafka/protocol/messages.h"

namespace mink::kafka::testing {

// The code every slot carries.
inline const int16_t kErrorSlotCode = ToWire(ErrorCode::kUnknownTopicOrPartition);

// The builder of `key`'s response; null for an API that is not advertised.
std::function<Response()> ErrorSlotsBuilder(ApiKey key);

}  // namespace mink::kafka::testing
