#pragma once
// Stream: one accepted TCP connection of a listener, with TLS over it when the listener has a
// certificate (tls_files.h). Listeners written on asio (Kafka, the HTTP API) read and write it
// as they would the socket: it is an asio AsyncReadStream and AsyncWriteStream for callback
// handlers, and a TLS connection's handshake runs first (AsyncHandshake; at once when plain).
// Include it in .cc files only: it brings asio and OpenSSL.

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <memory>
#include <optional>
#include <utility>

#include "base/result.h"
#include "tls/tls_files.h"

namespace mink::tls {

// A server context of the files (TLS 1.2 and later) whose certificate is read again when the
// files change (CertificateReloader); InvalidArgument naming what does not load.
Result<std::shared_ptr<asio::ssl::context>> MakeServerContext(const ServerFiles& files);

class Stream {
 public:
  using executor_type = asio::any_io_executor;

  // `context` null: plain TCP. The context must outlive the stream.
  Stream(asio::ip::tcp::socket socket, asio::ssl::context* context) {
    if (context != nullptr) {
      tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket>>(std::move(socket), *context);
    } else {
      plain_.emplace(std::move(socket));
    }
  }

  executor_type get_executor() { return tcp().get_executor(); }
  asio::ip::tcp::socket& tcp() { return tls_ ? tls_->next_layer() : *plain_; }
  bool is_tls() const { return tls_ != nullptr; }

  template <typename Buffers, typename Handler>
  void async_read_some(const Buffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_->async_read_some(buffers, std::forward<Handler>(handler));
    }
  }

  template <typename Buffers, typename Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    if (tls_) {
      tls_->async_write_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_->async_write_some(buffers, std::forward<Handler>(handler));
    }
  }

  // The server side of the TLS handshake; `handler(error_code)` at once (posted) when plain.
  template <typename Handler>
  void AsyncHandshake(Handler&& handler) {
    if (tls_) {
      tls_->async_handshake(asio::ssl::stream_base::server, std::forward<Handler>(handler));
    } else {
      asio::post(get_executor(), [h = std::forward<Handler>(handler)]() mutable { h(asio::error_code()); });
    }
  }

  // Closes the connection (without TLS's close_notify: a peer sees the TCP connection end).
  // Nothing for a stream moved from.
  void Close() {
    if (!tls_ && !plain_) return;
    asio::error_code ignored;
    tcp().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    tcp().close(ignored);
  }

 private:
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket>> tls_;
  std::optional<asio::ip::tcp::socket> plain_;
};

}  // namespace mink::tls
