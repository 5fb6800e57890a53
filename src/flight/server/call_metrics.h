#pragma once
// The Flight server's per-call metrics, as a gRPC server interceptor: every call of every method
// counted by its method and gRPC status code (mink_flight_requests_total) and timed from its
// start to its status (mink_flight_request_duration_seconds), and logged at debug. Internal to
// flight_server.cc.

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_interceptor.h>

#include <memory>

namespace mink::flight {

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MakeCallMetrics();

}  // namespace mink::flight
