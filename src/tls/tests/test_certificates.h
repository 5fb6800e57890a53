#pragma once
// Certificates for tests, made with the openssl command (Debian's openssl package).

#include <string>

namespace mink::tls::testing {

struct Certificate {
  std::string cert;  // PEM file: a self-signed certificate for localhost and 127.0.0.1
  std::string key;   // PEM file: its private key
};

// A fresh self-signed certificate in `dir`, named `name`.{crt,key}; empty paths if openssl fails.
Certificate MakeSelfSigned(const std::string& dir, const std::string& name);

}  // namespace mink::tls::testing
