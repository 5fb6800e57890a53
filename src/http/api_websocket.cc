// The ApiServer's WebSocket connections (api_server_internal.h): the server side of RFC 6455
// after the handshake. The closing handshake (section 7.1): whoever sends Close first waits for
// the other's Close, then the server closes the TCP connection; a peer that does not answer
// within kCloseWait is cut off, as is one that breaks the protocol (after our Close 1002/1009).

#include <vector>

#include "base/log.h"
#include "http/api_server_internal.h"

namespace mink::http {

WsConnection::WsConnection(tls::Stream socket, std::atomic<int>* open)
    : socket_(std::move(socket)), close_timer_(socket_.get_executor()), open_(open) {
  ++*open_;
}

void WsConnection::Start(std::string handshake, std::string read_ahead) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    QueueLocked(std::move(handshake), false);
  }
  reader_.Feed(read_ahead.data(), read_ahead.size());
  OnFrames();
  Read();
}

bool WsConnection::SendText(std::string text) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() + kSendStall;
  while (!closed_ && queued_bytes_ > kMaxQueuedBytes) {
    if (drained_.wait_until(lock, deadline) == std::cv_status::timeout && !closed_ &&
        queued_bytes_ > kMaxQueuedBytes) {
      MINK_LOG_WARN("http", "a WebSocket peer read nothing for {} s: its connection is dropped",
                    std::chrono::duration_cast<std::chrono::seconds>(kSendStall).count());
      closed_ = true;
      asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Shut(); });
      return false;
    }
  }
  if (closed_) return false;
  QueueLocked(EncodeWsFrame(WsOpcode::kText, text), false);
  return true;
}

void WsConnection::Close(int code, const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    drained_.notify_all();
    if (close_queued_ || shut_) return;
    QueueLocked(EncodeWsFrame(WsOpcode::kClose, WsClosePayload(code, reason)), true);
  }
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    self->close_timer_.expires_after(kCloseWait);
    self->close_timer_.async_wait([self](const asio::error_code& ec) {
      if (!ec) self->Shut();
    });
  });
}

void WsConnection::QueueLocked(std::string bytes, bool close) {
  queued_bytes_ += bytes.size();
  if (close) close_queued_ = true;
  out_.push_back({std::move(bytes), close});
  if (flush_posted_) return;
  flush_posted_ = true;
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Flush(); });
}

void WsConnection::Flush() {
  auto batch = std::make_shared<std::vector<Outgoing>>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    flush_posted_ = false;
    if (writing_ || shut_ || out_.empty()) return;
    writing_ = true;
    while (!out_.empty()) {
      batch->push_back(std::move(out_.front()));
      out_.pop_front();
    }
  }
  std::vector<asio::const_buffer> buffers;
  size_t bytes = 0;
  bool has_close = false;
  for (const auto& o : *batch) {
    buffers.emplace_back(o.bytes.data(), o.bytes.size());
    bytes += o.bytes.size();
    has_close = has_close || o.close;
  }
  asio::async_write(
      socket_, buffers,
      [self = shared_from_this(), batch, bytes, has_close](const asio::error_code& ec, size_t) {
        bool shut = false;
        {
          std::lock_guard<std::mutex> lock(self->mutex_);
          self->writing_ = false;
          self->queued_bytes_ -= bytes;
          if (has_close) self->close_written_ = true;
          shut = ec || (self->close_written_ && self->peer_closed_);
          self->drained_.notify_all();
        }
        if (shut) return self->Shut();
        self->Flush();
      });
}

void WsConnection::Read() {
  socket_.async_read_some(asio::buffer(chunk_),
                          [self = shared_from_this()](const asio::error_code& ec, size_t n) {
                            if (ec)
                              return self->Shut();  // the peer went (or Shut closed the socket)
                            self->reader_.Feed(self->chunk_.data(), n);
                            self->OnFrames();
                            bool shut = false;
                            {
                              std::lock_guard<std::mutex> lock(self->mutex_);
                              shut = self->shut_;
                            }
                            if (!shut) self->Read();
                          });
}

void WsConnection::OnFrames() {
  // A bounded number of frames per call: a flood of pings is answered as it is read.
  for (int i = 0; i < 1024; ++i) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (peer_closed_ || shut_) return;
    }
    WsFrame frame;
    auto got = reader_.Next(&frame);
    if (!got.ok()) {
      return Fail(got.status().code() == StatusCode::kResourceExhausted ? kWsMessageTooBig
                                                                        : kWsProtocolError,
                  got.status().message());
    }
    if (!*got) return;
    switch (frame.opcode) {
      case WsOpcode::kPing: {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!close_queued_) QueueLocked(EncodeWsFrame(WsOpcode::kPong, frame.payload), false);
        break;
      }
      case WsOpcode::kClose: {
        if (frame.payload.size() == 1)
          return Fail(kWsProtocolError, "a Close frame with a one-byte body");
        bool shut = false;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          peer_closed_ = true;
          closed_ = true;
          drained_.notify_all();
          if (!close_queued_) {
            // Answered with its code (none when it gave none).
            QueueLocked(EncodeWsFrame(WsOpcode::kClose, frame.payload.substr(0, 2)), true);
          } else {
            shut = close_written_;
          }
        }
        if (shut) Shut();
        return;
      }
      default:
        break;  // text, binary, continuation, pong: a subscriber's input is not read
    }
  }
}

void WsConnection::Fail(int code, const std::string& reason) {
  MINK_LOG_WARN("http", "a WebSocket client broke the protocol ({}): closing with {}", reason,
                code);
  bool shut = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    peer_closed_ = true;  // nothing more is read: Shut once our Close is out
    closed_ = true;
    drained_.notify_all();
    if (!close_queued_) {
      QueueLocked(EncodeWsFrame(WsOpcode::kClose, WsClosePayload(code, reason)), true);
    } else {
      shut = close_written_;
    }
  }
  if (shut) Shut();
}

void WsConnection::Shut() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shut_) return;
    shut_ = true;
    closed_ = true;
    drained_.notify_all();
  }
  socket_.Close();
  close_timer_.cancel();
  --*open_;
}

}  // namespace mink::http
