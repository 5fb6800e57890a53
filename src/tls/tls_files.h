#pragma once
// The TLS settings of a node's listeners (docs/operations.md, TLS): one certificate chain and
// private key (PEM files) serve every listener; `ca` is what a node trusts when it calls another
// node over TLS (default: the system's roots).

#include <string>

#include "base/result.h"

namespace mink::tls {

struct ServerFiles {
  std::string cert;  // PEM: the server's certificate, then any intermediates
  std::string key;   // PEM: its private key
  std::string ca;    // PEM: certificates to trust when calling other nodes ("": the system's)
  // PEM: the certificate authorities whose client certificates the listeners accept; set, every
  // TLS listener refuses a client without one (mutual TLS). "": no client certificate asked.
  std::string client_ca;

  bool enabled() const { return !cert.empty(); }
};

// The whole file; InvalidArgument naming the setting and the file when it cannot be read or
// does not hold a PEM block.
Result<std::string> ReadPem(const std::string& path, const std::string& setting);

// Checks that the files load as a certificate chain and a key that belongs to it (a node fails
// at start, not on its first TLS connection). InvalidArgument naming what is wrong.
Status Check(const ServerFiles& files);

}  // namespace mink::tls
