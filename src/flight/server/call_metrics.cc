#include "flight/server/call_metrics.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "base/log.h"
#include "metrics/metrics.h"

namespace mink::flight {
namespace {

using grpc::experimental::InterceptionHookPoints;

// "/arrow.flight.protocol.FlightService/DoGet" -> "DoGet".
std::string MethodName(const char* full) {
  std::string method = full == nullptr ? "" : full;
  const size_t slash = method.rfind('/');
  return slash == std::string::npos ? method : method.substr(slash + 1);
}

// Series looked up once per (method, code) and kept.
class Series {
 public:
  metrics::Counter Requests(const std::string& method, int code) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto key = std::make_pair(method, code);
    auto it = requests_.find(key);
    if (it == requests_.end()) {
      it = requests_
               .emplace(key, metrics::CounterOf("mink_flight_requests_total",
                                                "Arrow Flight calls, by method and gRPC status code.",
                                                {{"method", method}, {"code", std::to_string(code)}}))
               .first;
    }
    return it->second;
  }
  metrics::Histogram Duration(const std::string& method) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = durations_.find(method);
    if (it == durations_.end()) {
      it = durations_
               .emplace(method, metrics::HistogramOf("mink_flight_request_duration_seconds",
                                                     "Arrow Flight call latency, by method (streams included).",
                                                     metrics::LatencyBuckets(), {{"method", method}}))
               .first;
    }
    return it->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<std::string, int>, metrics::Counter> requests_;
  std::map<std::string, metrics::Histogram> durations_;
};

class CallMetrics final : public grpc::experimental::Interceptor {
 public:
  CallMetrics(Series* series, std::string method, std::string peer)
      : series_(series), method_(std::move(method)), peer_(std::move(peer)), start_(metrics::NowNanos()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      const int code = methods->GetSendStatus().error_code();
      const double seconds = metrics::SecondsSince(start_);
      series_->Requests(method_, code).Add();
      series_->Duration(method_).Observe(seconds);
      MINK_LOG_DEBUG("flight", "{} from {} ended with gRPC status {} in {:.3f} ms", method_, peer_, code, seconds * 1e3);
    }
    methods->Proceed();
  }

 private:
  Series* const series_;
  const std::string method_;
  const std::string peer_;
  const int64_t start_;
};

class CallMetricsFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new CallMetrics(&series_, MethodName(info->method()),
                           info->server_context() != nullptr ? info->server_context()->peer() : "");
  }

 private:
  Series series_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MakeCallMetrics() {
  return std::make_unique<CallMetricsFactory>();
}

}  // namespace mink::flight
