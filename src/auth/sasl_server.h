#pragma once
// SaslServer: the server's side of one SASL exchange (RFC 4422) of one connection, mechanism
// PLAIN (RFC 4616: one token "authzid NUL user NUL password") or SCRAM-SHA-256/512 (RFC 5802:
// client-first, server-first, client-final, server-final; no channel binding). Step takes each
// token the client sends and answers the server's; the exchange is done once a step answers and
// authenticated() is true.
//
// An unknown user goes through SCRAM's first step with a made-up salt and fails at the proof,
// as a wrong password does, so the answer does not tell which it was. Not thread-safe: one
// connection's.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/user_directory.h"
#include "base/result.h"

namespace mink::auth {

// PLAIN, SCRAM-SHA-256, SCRAM-SHA-512.
const std::vector<std::string>& SaslMechanisms();

class SaslServer {
 public:
  // InvalidArgument for a mechanism not in SaslMechanisms().
  static Result<std::unique_ptr<SaslServer>> Make(std::string_view mechanism, const UserDirectory* users);

  // The server's answer to the client's next token. PermissionDenied when the client is not
  // who it says ("invalid user name or password"); InvalidArgument for a token that is not one
  // of the mechanism's, or a step after the end.
  Result<std::string> Step(std::string_view token);

  bool authenticated() const { return authenticated_; }
  // The user, once authenticated.
  const std::string& user() const { return user_; }
  const std::string& mechanism() const { return mechanism_; }

 private:
  SaslServer(std::string mechanism, const UserDirectory* users) : mechanism_(std::move(mechanism)), users_(users) {}
  Result<std::string> Plain(std::string_view token);
  Result<std::string> ScramFirst(std::string_view token);
  Result<std::string> ScramFinal(std::string_view token);

  const std::string mechanism_;
  const UserDirectory* const users_;
  int step_ = 0;
  bool authenticated_ = false;
  std::string user_;
  // SCRAM between the two steps.
  metadata::ScramCredential credential_;
  std::string gs2_header_, client_first_bare_, server_first_, nonce_;
};

}  // namespace mink::auth
