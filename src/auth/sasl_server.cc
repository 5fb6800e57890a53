#include "auth/sasl_server.h"

#include <openssl/crypto.h>

#include "auth/scram.h"

namespace mink::auth {
namespace {

Status Denied() { return PermissionDeniedError("invalid user name or password"); }

// The attributes of a SCRAM message ("n=user,r=nonce,..."): each `x=value`, in order.
std::vector<std::pair<char, std::string>> Attributes(std::string_view message) {
  std::vector<std::pair<char, std::string>> out;
  size_t start = 0;
  while (start <= message.size()) {
    size_t comma = message.find(',', start);
    if (comma == std::string_view::npos) comma = message.size();
    std::string_view part = message.substr(start, comma - start);
    if (part.size() >= 2 && part[1] == '=') out.emplace_back(part[0], std::string(part.substr(2)));
    else out.emplace_back('\0', std::string(part));
    start = comma + 1;
  }
  return out;
}

// A saslname: "=2C" is ',' and "=3D" is '='; false for any other '='.
bool DecodeSaslName(std::string_view name, std::string* out) {
  out->clear();
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '=') {
      out->push_back(name[i]);
    } else if (name.substr(i, 3) == "=2C") {
      out->push_back(',');
      i += 2;
    } else if (name.substr(i, 3) == "=3D") {
      out->push_back('=');
      i += 2;
    } else {
      return false;
    }
  }
  return !out->empty();
}

}  // namespace

const std::vector<std::string>& SaslMechanisms() {
  static const std::vector<std::string> mechanisms = {kPlain, kScramSha256, kScramSha512};
  return mechanisms;
}

Result<std::unique_ptr<SaslServer>> SaslServer::Make(std::string_view mechanism, const UserDirectory* users) {
  for (const auto& m : SaslMechanisms()) {
    if (m == mechanism) return std::unique_ptr<SaslServer>(new SaslServer(m, users));
  }
  return InvalidArgumentError("SASL mechanism " + std::string(mechanism) + " is not supported (PLAIN, "
                              "SCRAM-SHA-256, SCRAM-SHA-512)");
}

Result<std::string> SaslServer::Step(std::string_view token) {
  const int step = step_++;
  if (authenticated_ || (mechanism_ == kPlain && step > 0) || step > 1) {
    return InvalidArgumentError("the SASL exchange is over");
  }
  if (mechanism_ == kPlain) return Plain(token);
  return step == 0 ? ScramFirst(token) : ScramFinal(token);
}

Result<std::string> SaslServer::Plain(std::string_view token) {
  const size_t first = token.find('\0');
  const size_t second = first == std::string_view::npos ? first : token.find('\0', first + 1);
  if (second == std::string_view::npos) return InvalidArgumentError("a PLAIN token is authzid NUL user NUL password");
  const std::string_view authzid = token.substr(0, first);
  const std::string_view user = token.substr(first + 1, second - first - 1);
  const std::string_view password = token.substr(second + 1);
  if (!authzid.empty() && authzid != user) return PermissionDeniedError("a user may not act as another");
  MINK_RETURN_IF_ERROR(users_->CheckPassword(user, password));
  user_ = std::string(user);
  authenticated_ = true;
  return std::string();
}

Result<std::string> SaslServer::ScramFirst(std::string_view token) {
  // gs2-header: "n,," or "y,," (no channel binding), maybe an authzid "n,a=user,".
  const auto attrs = Attributes(token);
  if (attrs.size() < 4 || (attrs[0].second != "n" && attrs[0].second != "y") || attrs[0].first != '\0') {
    return InvalidArgumentError("a SCRAM client-first message starts n,, or y,, (channel binding is not supported)");
  }
  const size_t header_end = token.find(',', token.find(',') + 1);
  gs2_header_ = std::string(token.substr(0, header_end + 1));
  client_first_bare_ = std::string(token.substr(header_end + 1));
  std::string user, client_nonce;
  for (const auto& [k, v] : Attributes(client_first_bare_)) {
    if (k == 'm') return InvalidArgumentError("SCRAM mandatory extensions are not supported");
    if (k == 'n' && !DecodeSaslName(v, &user)) return InvalidArgumentError("a SCRAM user name is not a saslname");
    if (k == 'r') client_nonce = v;
  }
  if (user.empty() || client_nonce.empty()) return InvalidArgumentError("a SCRAM client-first message needs n= and r=");
  if (attrs[1].first == 'a' && attrs[1].second != user) return PermissionDeniedError("a user may not act as another");
  auto credential = users_->Credential(user, mechanism_);
  if (credential) {
    credential_ = *credential;
  } else {
    // An unknown user: go on with a salt of no one's; the proof cannot match.
    MINK_ASSIGN_OR_RETURN(std::string salt, scram::RandomBytes(16));
    credential_ = metadata::ScramCredential{mechanism_, scram::Base64(salt), kDefaultIterations, "", ""};
  }
  user_ = user;
  MINK_ASSIGN_OR_RETURN(std::string server_nonce, scram::RandomBytes(18));
  nonce_ = client_nonce + scram::Base64(server_nonce);
  server_first_ = "r=" + nonce_ + ",s=" + credential_.salt + ",i=" + std::to_string(credential_.iterations);
  return server_first_;
}

Result<std::string> SaslServer::ScramFinal(std::string_view token) {
  const size_t proof_at = token.rfind(",p=");
  if (proof_at == std::string_view::npos) return InvalidArgumentError("a SCRAM client-final message ends ,p=proof");
  const std::string_view without_proof = token.substr(0, proof_at);
  std::string channel, nonce, proof;
  for (const auto& [k, v] : Attributes(without_proof)) {
    if (k == 'c') channel = v;
    if (k == 'r') nonce = v;
  }
  if (!scram::FromBase64(token.substr(proof_at + 3), &proof)) return InvalidArgumentError("a SCRAM proof is base64");
  // Kafka's brokers accept a final nonce that ends with theirs: librdkafka (2.0) sends its own
  // nonce again in front of the whole one.
  const bool nonce_ok = nonce.size() >= nonce_.size() && nonce.compare(nonce.size() - nonce_.size(), nonce_.size(), nonce_) == 0;
  if (channel != scram::Base64(gs2_header_) || !nonce_ok) {
    return InvalidArgumentError("a SCRAM client-final message repeats the channel binding and the nonce (c=" + channel +
                                ", r=" + nonce + "; expected c=" + scram::Base64(gs2_header_) + ", r=" + nonce_ + ")");
  }
  std::string stored, server_key;
  if (!scram::FromBase64(credential_.stored_key, &stored) || !scram::FromBase64(credential_.server_key, &server_key) ||
      stored.empty()) {
    return Denied();
  }
  const std::string auth_message = client_first_bare_ + "," + server_first_ + "," + std::string(without_proof);
  const std::string signature = scram::Hmac(mechanism_, stored, auth_message);
  if (proof.size() != signature.size()) return Denied();
  std::string client_key(proof.size(), '\0');
  for (size_t i = 0; i < proof.size(); ++i) client_key[i] = static_cast<char>(proof[i] ^ signature[i]);
  const std::string derived = scram::Hash(mechanism_, client_key);
  if (derived.size() != stored.size() || CRYPTO_memcmp(derived.data(), stored.data(), stored.size()) != 0) {
    return Denied();
  }
  authenticated_ = true;
  return "v=" + scram::Base64(scram::Hmac(mechanism_, server_key, auth_message));
}

}  // namespace mink::auth
