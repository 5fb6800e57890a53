#pragma once
// SaslHandshake (key 17), version 1, and SaslAuthenticate (key 36), versions 0-2 (flexible
// from 2): a client names a mechanism, then sends its SASL tokens in SaslAuthenticate requests
// and gets the server's in the answers (docs/kafka.md, Authentication).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct SaslHandshakeRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kSaslHandshake, true);
  std::string mechanism;
};

struct SaslHandshakeResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kSaslHandshake, false);
  int16_t error_code = 0;
  std::vector<std::string> mechanisms;  // the server's, whatever was asked
};

struct SaslAuthenticateRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kSaslAuthenticate, true);
  std::string auth_bytes;
};

struct SaslAuthenticateResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kSaslAuthenticate, false);
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::string auth_bytes;
  int64_t session_lifetime_ms = 0;  // v1+; 0: the session does not expire
};

SaslHandshakeResponse ErrorResponse(const SaslHandshakeRequest& request, int16_t version, ErrorCode code);
SaslAuthenticateResponse ErrorResponse(const SaslAuthenticateRequest& request, int16_t version, ErrorCode code);

}  // namespace mink::kafka
