#include "kafka_bench_security.h"

#include <cstdlib>

#include "auth/scram.h"

namespace mink::bench {
namespace {

constexpr char kUser[] = "bench";
constexpr char kPassword[] = "bench-password";

}  // namespace

Status SecureNode(const std::string& dir, config::ServeConfig* config) {
  config->tls_cert = dir + "/bench.crt";
  config->tls_key = dir + "/bench.key";
  const std::string openssl = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext "
                              "subjectAltName=IP:127.0.0.1 -keyout " + config->tls_key + " -out " + config->tls_cert +
                              " 2>/dev/null";
  if (std::system(openssl.c_str()) != 0) return InternalError("the openssl command cannot make a certificate");
  config->auth_enabled = true;
  config->auth_super_users = kUser;
  return Status::Ok();
}

Status AddBenchUser(node::Node& node) {
  MINK_ASSIGN_OR_RETURN(auto credentials, auth::MakeCredentials(kPassword));
  return node.meta()->Append(metadata::Command(metadata::CreateUser{kUser, std::move(credentials), false})).status();
}

std::map<std::string, std::string> SecurityConf(const std::string& security, const std::string& ca) {
  if (security != "sasl_ssl") return {};
  return {{"security.protocol", "SASL_SSL"}, {"ssl.ca.location", ca}, {"sasl.mechanisms", "SCRAM-SHA-256"},
          {"sasl.username", kUser}, {"sasl.password", kPassword}};
}

}  // namespace mink::bench
