#pragma once
// InitProducerId (key 22), versions 0-4 (flexible from 2).

#include <optional>
#include <string>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct InitProducerIdRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kInitProducerId, true);
  std::optional<std::string> transactional_id;  // null for idempotent-only producers
  int32_t transaction_timeout_ms = 0;
  int64_t producer_id = -1;    // v3+ (KIP-360 epoch bump)
  int16_t producer_epoch = -1;  // v3+
};

struct InitProducerIdResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kInitProducerId, false);
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

InitProducerIdResponse ErrorResponse(const InitProducerIdRequest& request, int16_t version,
                                     ErrorCode code);

}  // namespace mink::kafka
