#pragma once
// kafka_bench --security sasl_ssl: the node serves Kafka over TLS (a certificate made for the
// run by the openssl command) with SCRAM-SHA-256 authentication, and the clients use both, so
// that a run measures what they cost against a plaintext run.

#include <map>
#include <string>

#include "base/status.h"
#include "config/serve_config.h"
#include "node/node.h"

namespace mink::bench {

// Makes the run's certificate in `dir` and sets the node's TLS and authentication (the bench
// user a super user).
Status SecureNode(const std::string& dir, config::ServeConfig* config);
// Creates the bench user on the started node.
Status AddBenchUser(node::Node& node);
// librdkafka settings of `security` ("plaintext": none), trusting `ca`.
std::map<std::string, std::string> SecurityConf(const std::string& security, const std::string& ca);

}  // namespace mink::bench
