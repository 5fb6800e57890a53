#include "node/operations_endpoint.h"

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "base/log.h"

namespace mink::node {
namespace {

http::ServerResponse Text(int status, std::string body) {
  http::ServerResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body) + "\n";
  return r;
}

}  // namespace

http::ServerResponse OperationsEndpoint::Handle(const http::ServerRequest& request) const {
  const int64_t start = metrics::NowNanos();
  http::ServerResponse response = Route(request);
  MINK_LOG_DEBUG("http", "{} {} from {}: {} in {:.3f} ms", request.method, request.path, request.remote,
                 response.status, metrics::SecondsSince(start) * 1e3);
  return response;
}

http::ServerResponse OperationsEndpoint::Route(const http::ServerRequest& request) const {
  const bool get = request.method == "GET" || request.method == "HEAD";
  if (request.path == "/health" || request.path == "/ready" || request.path == "/metrics") {
    if (!get) {
      http::ServerResponse r = Text(405, request.path + " answers GET");
      r.headers.emplace_back("Allow", "GET, HEAD");
      return r;
    }
  }
  // Orchestrators probe these without credentials; they tell nothing about the data.
  if (request.path == "/health") return Text(200, "ok");
  if (request.path == "/ready") return Ready();
  std::string who;  // "" with authentication off
  if (authenticate_) {
    auto user = authenticate_(request.Header("authorization"));
    if (!user.ok()) {
      http::ServerResponse r;
      r.status = 401;
      r.body = nlohmann::json{{"error", user.status().message()}}.dump();
      r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"mink\", Bearer");
      return r;
    }
    if (Status allowed = authorize_ ? authorize_(*user, request) : Status::Ok(); !allowed.ok()) {
      http::ServerResponse r;
      r.status = 403;
      r.body = nlohmann::json{{"error", allowed.message()}}.dump();
      return r;
    }
    who = *user;
  }
  if (request.path == "/metrics") {
    http::ServerResponse r;
    r.content_type = metrics::kContentType;
    r.body = metrics::Exposition(GatherNodeMetrics(sources_));
    return r;
  }
  return next_(request, who);
}

http::ServerResponse OperationsEndpoint::Ready() const {
  // Caught up: whatever the log held when asked is applied within a second.
  auto last = sources_.meta->store()->LastSeq();
  if (!last.ok()) return Text(503, "not ready: the metadata database does not answer: " + last.status().ToString());
  const int64_t applied = sources_.meta->WaitApplied(*last - 1, std::chrono::milliseconds(1000));
  if (applied < *last) {
    return Text(503, "not ready: metadata applied up to " + std::to_string(applied) + " of " + std::to_string(*last));
  }
  const size_t to_open = tables_->BucketsToOpen();
  if (to_open > 0) return Text(503, "not ready: " + std::to_string(to_open) + " buckets assigned here are not open yet");
  return Text(200, "ready");
}

}  // namespace mink::node
