#include "tls/tls_stream.h"

#include "tls/certificate_reloader.h"

namespace mink::tls {

Result<std::shared_ptr<asio::ssl::context>> MakeServerContext(const ServerFiles& files) {
  MINK_ASSIGN_OR_RETURN(std::shared_ptr<CertificateReloader> certificates,
                        CertificateReloader::Open(files));
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
  // Each handshake is given the certificate of the files as they are now.
  certificates->InstallOn(context->native_handle());
  if (!files.client_ca.empty()) MINK_RETURN_IF_ERROR(RequireClientCertificates(context->native_handle(), files));
  // The reloader lives as long as the context that calls it.
  return std::shared_ptr<asio::ssl::context>(
      context.release(), [certificates](asio::ssl::context* c) { delete c; });
}

}  // namespace mink::tls
