#include "tls/tls_stream.h"

namespace mink::tls {

Result<std::unique_ptr<asio::ssl::context>> MakeServerContext(const ServerFiles& files) {
  MINK_RETURN_IF_ERROR(Check(files));
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
  asio::error_code ec;
  context->use_certificate_chain_file(files.cert, ec);
  if (!ec) context->use_private_key_file(files.key, asio::ssl::context::pem, ec);
  if (ec) return InvalidArgumentError("TLS files " + files.cert + ", " + files.key + ": " + ec.message());
  return context;
}

}  // namespace mink::tls
