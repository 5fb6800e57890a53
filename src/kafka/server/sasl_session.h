#pragma once
// SaslSession: one Kafka connection's authentication (docs/kafka.md, Authentication). With
// authentication on, a client must authenticate before anything but ApiVersions: SaslHandshake
// v1 names a mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; the answer lists them), then
// SaslAuthenticate requests carry the SASL tokens (auth::SaslServer). After a SaslHandshake v0
// (Kafka's first flow, which kafka-python uses) the tokens come instead as bare size-prefixed
// frames without a request header, and are answered the same way. A failed exchange answers
// SASL_AUTHENTICATION_FAILED and the connection is closed, as Kafka's brokers do; so is a
// connection that sends another request first. With authentication off, a SaslHandshake is
// answered UNSUPPORTED_SASL_MECHANISM with no mechanisms, so a client configured for SASL fails
// with a clear error.
//
// Not thread-safe: the connection's strand owns it.

#include <memory>
#include <string>

#include "auth/sasl_server.h"
#include "auth/user_directory.h"
#include "kafka/protocol/messages.h"

namespace mink::kafka {

class SaslSession {
 public:
  // `users` null: authentication is off.
  explicit SaslSession(const auth::UserDirectory* users) : users_(users) {}

  static bool IsSasl(int16_t api_key);
  struct Answer {
    Response response;
    bool close = false;  // close the connection once the answer is sent
  };
  // The answer to a SaslHandshake or SaslAuthenticate (of `version`) of `peer`.
  Answer Handle(const Request& request, int16_t version, const std::string& peer);
  // Whether the next frame is a bare SASL token (after a SaslHandshake v0).
  bool ExpectsBareToken() const { return bare_tokens_ && exchange_ != nullptr && user_.empty(); }
  // The answer to a bare token: the server's token, or the error that ends the connection.
  Result<std::string> HandleBareToken(const std::string& token, const std::string& peer);
  // Whether a request of `api_key` may be served now.
  bool Allows(int16_t api_key) const;
  // The authenticated user ("" before, or with authentication off).
  const std::string& user() const { return user_; }

 private:
  const auth::UserDirectory* const users_;
  // The exchange's next step; the error that ends it, logged.
  Result<std::string> Step(const std::string& token, const std::string& peer);

  std::unique_ptr<auth::SaslServer> exchange_;
  bool bare_tokens_ = false;
  std::string user_;
};

}  // namespace mink::kafka
