#pragma once
// The ApiServer's insides, shared by api_server.cc (the listener and HTTP connections) and
// api_websocket.cc (WebSocket connections). Private to the http library: asio stays out of
// api_server.h.
//
// Threads: one io thread runs every socket operation and timer (so a connection's socket needs
// no strand); handlers run on the worker pool (plain requests) or a thread each (WebSockets),
// and reach a socket only by posting to the io thread.

#include <asio.hpp>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "http/api_server.h"
#include "http/websocket_frame.h"
#include "tls/tls_stream.h"

namespace mink::http {

class HttpConnection;

// A WebSocket after its handshake: frames out from any thread through a queue the io thread
// writes, the client's frames read on the io thread.
class WsConnection final : public WebSocket, public std::enable_shared_from_this<WsConnection> {
 public:
  static constexpr size_t kMaxQueuedBytes = 4 << 20;  // SendText waits beyond this
  static constexpr auto kSendStall = std::chrono::seconds(30);
  static constexpr auto kCloseWait = std::chrono::seconds(1);
  static constexpr size_t kMaxClientFrame = 1 << 20;

  // `open` counts the server's WebSocket sockets not closed yet (this one included).
  WsConnection(tls::Stream socket, std::atomic<int>* open);
  // On the io thread: writes `handshake` (the 101 answer), then reads the client's frames,
  // starting with `read_ahead` (bytes that came after the request).
  void Start(std::string handshake, std::string read_ahead);

  bool SendText(std::string text) override;
  bool Closed() const override { return closed_.load(); }
  void Close(int code, const std::string& reason) override;

 private:
  struct Outgoing {
    std::string bytes;
    bool close = false;  // a Close frame
  };

  void QueueLocked(std::string bytes, bool close);  // holds mutex_
  void Flush();                                     // io thread
  void Read();                                      // io thread
  void OnFrames();                                  // io thread
  void Fail(int code, const std::string& reason);   // io thread: a protocol error
  void Shut();                                      // io thread: the socket closes

  tls::Stream socket_;
  asio::steady_timer close_timer_;
  std::atomic<int>* const open_;
  WsFrameReader reader_{kMaxClientFrame};
  std::array<char, 16 << 10> chunk_{};
  std::atomic<bool> closed_{false};

  std::mutex mutex_;
  std::condition_variable drained_;
  std::deque<Outgoing> out_;  // guarded by mutex_, as the flags below
  size_t queued_bytes_ = 0;
  bool flush_posted_ = false;
  bool writing_ = false;
  bool close_queued_ = false;  // ours (or our answer to the peer's)
  bool close_written_ = false;
  bool peer_closed_ = false;  // the peer sent Close, or failed the protocol
  bool shut_ = false;
};

struct ApiServer::Impl {
  Handler handler;
  WebSocketHandler ws_handler;
  std::atomic<bool> stopped{false};
  std::atomic<int> open_websockets{0};  // before io: the connections it destroys count here
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  asio::ip::tcp::acceptor acceptor{io};
  std::shared_ptr<asio::ssl::context> tls;  // null: plain TCP
  std::unique_ptr<ThreadPool> pool;  // plain requests' handlers
  std::thread io_thread;

  struct WsThread {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::mutex mutex;  // guards the three lists
  std::vector<std::weak_ptr<HttpConnection>> connections;
  std::vector<std::weak_ptr<WsConnection>> websockets;
  std::vector<WsThread> ws_threads;

  void Accept();
  // On the io thread: `socket` becomes a WebSocket (`handshake` its 101 answer, `read_ahead`
  // what came after the request) and ws_handler runs for it on a thread of its own. False, and
  // `socket` left alone, when kMaxWebSockets run already or the server stops.
  bool StartWebSocket(tls::Stream& socket, std::string handshake, std::string read_ahead,
                      ServerRequest request);
};

}  // namespace mink::http
