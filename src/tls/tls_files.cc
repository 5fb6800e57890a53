#include "tls/tls_files.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <fstream>
#include <memory>
#include <sstream>

namespace mink::tls {
namespace {

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown error";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

void FreeNames(STACK_OF(X509_NAME)* names) { sk_X509_NAME_pop_free(names, X509_NAME_free); }

}  // namespace

Result<std::string> ReadPem(const std::string& path, const std::string& setting) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgumentError(setting + ": cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().find("-----BEGIN ") == std::string::npos) {
    return InvalidArgumentError(setting + ": " + path + " holds no PEM block");
  }
  return text.str();
}

Status Check(const ServerFiles& files) {
  if (files.cert.empty() != files.key.empty()) {
    return InvalidArgumentError("TLS needs both --tls-cert and --tls-key");
  }
  if (!files.client_ca.empty() && files.cert.empty()) {
    return InvalidArgumentError("--tls-client-ca needs TLS (--tls-cert and --tls-key)");
  }
  if (!files.enabled()) return Status::Ok();
  MINK_RETURN_IF_ERROR(ReadPem(files.cert, "--tls-cert").status());
  MINK_RETURN_IF_ERROR(ReadPem(files.key, "--tls-key").status());
  if (!files.ca.empty()) MINK_RETURN_IF_ERROR(ReadPem(files.ca, "--tls-ca").status());
  if (!files.client_ca.empty()) {
    MINK_RETURN_IF_ERROR(ReadPem(files.client_ca, "--tls-client-ca").status());
    std::unique_ptr<STACK_OF(X509_NAME), decltype(&FreeNames)> names(
        SSL_load_client_CA_file(files.client_ca.c_str()), FreeNames);
    if (!names || sk_X509_NAME_num(names.get()) == 0) {
      return InvalidArgumentError("--tls-client-ca " + files.client_ca +
                                  " holds no certificate: " + OpenSslError());
    }
  }
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return InternalError("OpenSSL: " + OpenSslError());
  // The key first: loaded after a certificate, a key of another one fails as "not a key".
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), files.key.c_str(), SSL_FILETYPE_PEM) != 1) {
    return InvalidArgumentError("--tls-key " + files.key + " is not a private key: " + OpenSslError());
  }
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), files.cert.c_str()) != 1) {
    return InvalidArgumentError("--tls-cert " + files.cert + " is not a certificate chain: " + OpenSslError());
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    return InvalidArgumentError("--tls-key " + files.key + " does not belong to the certificate of --tls-cert: " +
                                OpenSslError());
  }
  return Status::Ok();
}

}  // namespace mink::tls
