#include "kafka/server/sasl_session.h"

#include "base/log.h"

namespace mink::kafka {

bool SaslSession::IsSasl(int16_t api_key) {
  return api_key == static_cast<int16_t>(ApiKey::kSaslHandshake) ||
         api_key == static_cast<int16_t>(ApiKey::kSaslAuthenticate);
}

bool SaslSession::Allows(int16_t api_key) const {
  return users_ == nullptr || !user_.empty() || api_key == static_cast<int16_t>(ApiKey::kApiVersions);
}

SaslSession::Answer SaslSession::Handle(const Request& request, int16_t version, const std::string& peer) {
  if (const auto* handshake = std::get_if<SaslHandshakeRequest>(&request)) {
    SaslHandshakeResponse r;
    if (users_ == nullptr) {
      r.error_code = ToWire(ErrorCode::kUnsupportedSaslMechanism);
      return {r, false};
    }
    r.mechanisms = auth::SaslMechanisms();
    if (!user_.empty() || exchange_ != nullptr) {
      r.error_code = ToWire(ErrorCode::kIllegalSaslState);
      return {r, true};
    }
    auto exchange = auth::SaslServer::Make(handshake->mechanism, users_);
    if (!exchange.ok()) {
      r.error_code = ToWire(ErrorCode::kUnsupportedSaslMechanism);
      return {r, false};
    }
    exchange_ = std::move(*exchange);
    bare_tokens_ = version == 0;
    return {r, false};
  }
  const auto& authenticate = std::get<SaslAuthenticateRequest>(request);
  SaslAuthenticateResponse r;
  if (exchange_ == nullptr || !user_.empty() || bare_tokens_) {
    r.error_code = ToWire(ErrorCode::kIllegalSaslState);
    r.error_message = users_ == nullptr ? "authentication is off on this listener"
                                        : "SaslAuthenticate without a SaslHandshake first";
    return {r, true};
  }
  auto answer = Step(authenticate.auth_bytes, peer);
  if (!answer.ok()) {
    r.error_code = ToWire(ErrorCode::kSaslAuthenticationFailed);
    r.error_message = "Authentication failed during authentication due to invalid credentials with SASL mechanism " +
                      exchange_->mechanism();
    return {r, true};
  }
  r.auth_bytes = std::move(*answer);
  return {r, false};
}

Result<std::string> SaslSession::HandleBareToken(const std::string& token, const std::string& peer) {
  return Step(token, peer);
}

Result<std::string> SaslSession::Step(const std::string& token, const std::string& peer) {
  auto answer = exchange_->Step(token);
  if (!answer.ok()) {
    MINK_LOG_INFO("kafka", "authentication of {} from {} with {} failed: {}",
                  exchange_->user().empty() ? "a client" : "user " + exchange_->user(), peer, exchange_->mechanism(),
                  answer.status().message());
    return answer.status();
  }
  if (exchange_->authenticated()) {
    user_ = exchange_->user();
    MINK_LOG_DEBUG("kafka", "{} authenticated as {} with {}", peer, user_, exchange_->mechanism());
  }
  return answer;
}

}  // namespace mink::kafka
