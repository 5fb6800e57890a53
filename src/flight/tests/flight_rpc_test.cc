// Every Flight RPC through FlightClient against FlightServer with a fake handler, on loopback.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "arrow/Flight.grpc.pb.h"
#include "flight/client/flight_client.h"
#include "flight/server/flight_server.h"
#include "flight/tests/test_handler.h"
#include "test_env.h"

namespace mink::flight {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class FlightRpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = FlightServer::Start("127.0.0.1:0", &handler_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    auto client = FlightClient::Connect("grpc://" + server_->address());
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }

  fake::TestHandler handler_;
  std::unique_ptr<FlightServer> server_;
  std::unique_ptr<FlightClient> client_;
};

TEST_F(FlightRpcTest, ServerOnPortZeroReportsTheBoundPort) {
  EXPECT_GT(server_->port(), 0);
  EXPECT_EQ(server_->address(), "127.0.0.1:" + std::to_string(server_->port()));
  EXPECT_EQ(client_->address(), server_->address());
}

TEST_F(FlightRpcTest, ListFlightsReturnsEveryFlight) {
  auto flights = client_->ListFlights();
  ASSERT_TRUE(flights.ok()) << flights.status();
  ASSERT_EQ(flights->size(), 2u);
  EXPECT_EQ((*flights)[0], fake::TableInfo("t1"));
  EXPECT_EQ((*flights)[1], fake::TableInfo("t2"));
}

TEST_F(FlightRpcTest, ListFlightsHandlerErrorKeepsCodeAndMessage) {
  auto flights = client_->ListFlights("bad");
  ASSERT_FALSE(flights.ok());
  EXPECT_EQ(flights.status(), InvalidArgumentError("bad criteria: bad"));
}

TEST_F(FlightRpcTest, GetFlightInfoRoundTripsEveryField) {
  auto info = client_->GetFlightInfo(FlightDescriptor::Path({"db", "t2"}));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(*info, fake::TableInfo("t2"));

  FlightDescriptor cmd = FlightDescriptor::Command(std::string("{\"a\":1}\0\xff", 9));
  auto by_cmd = client_->GetFlightInfo(cmd);
  ASSERT_TRUE(by_cmd.ok()) << by_cmd.status();
  EXPECT_EQ(by_cmd->descriptor, cmd);
}

TEST_F(FlightRpcTest, NotFoundFromHandlerArrivesAsNotFoundWithSameMessage) {
  auto info = client_->GetFlightInfo(FlightDescriptor::Path({"db", "x"}));
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(info.status().message(), "table x");
}

TEST_F(FlightRpcTest, GetSchemaReturnsTheSchemaBytes) {
  auto schema = client_->GetSchema(FlightDescriptor::Path({"db", "t1"}));
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(*schema, "schema-of-t1");
  EXPECT_TRUE(IsNotFound(client_->GetSchema(FlightDescriptor::Path({"db", "x"})).status()));
}

TEST_F(FlightRpcTest, DoGetStreamsFiftyMegabytesInOrder) {
  constexpr int kMessages = 50;
  constexpr size_t kBodySize = 1 << 20;
  auto reader = client_->DoGet("count:50:size:" + std::to_string(kBodySize));
  ASSERT_TRUE(reader.ok()) << reader.status();
  int received = 0;
  size_t bytes = 0;
  while (true) {
    FlightData data;
    auto more = (*reader)->Next(&data);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    ASSERT_EQ(data.data_header, "header-" + std::to_string(received));
    ASSERT_EQ(data.app_metadata, "meta-" + std::to_string(received));
    ASSERT_EQ(data.body.size(), kBodySize);
    ASSERT_TRUE(data.body == fake::PatternBody(received, kBodySize)) << "message " << received;
    EXPECT_FALSE(data.descriptor.has_value());
    bytes += data.body.size();
    ++received;
  }
  EXPECT_EQ(received, kMessages);
  EXPECT_EQ(bytes, size_t{50} << 20);
  // After the end, Next keeps saying so.
  FlightData extra;
  EXPECT_FALSE((*reader)->Next(&extra).value_or(true));
}

TEST_F(FlightRpcTest, DoGetErrorAfterSomeMessagesArrivesAfterThem) {
  auto reader = client_->DoGet("fail-after:3");
  ASSERT_TRUE(reader.ok());
  FlightData data;
  for (int i = 0; i < 3; ++i) {
    auto more = (*reader)->Next(&data);
    ASSERT_TRUE(more.ok() && *more) << more.status();
  }
  auto end = (*reader)->Next(&data);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.status(), NotFoundError("table x"));
}

TEST_F(FlightRpcTest, CancelStopsTheHandlersWriteLoop) {
  auto reader = client_->DoGet("forever");
  ASSERT_TRUE(reader.ok());
  FlightData data;
  for (int i = 0; i < 5; ++i) {
    auto more = (*reader)->Next(&data);
    ASSERT_TRUE(more.ok() && *more) << more.status();
    EXPECT_EQ(data.data_header, "tick-" + std::to_string(i));
  }
  (*reader)->Cancel();
  EXPECT_TRUE(handler_.WaitStopped(seconds(10))) << "handler kept writing after Cancel";
  Result<bool> more = true;
  while (more.ok() && *more) more = (*reader)->Next(&data);  // drain what was in flight
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().code(), StatusCode::kCancelled);
}

TEST_F(FlightRpcTest, DroppingAReaderMidStreamCancelsTheCall) {
  {
    auto reader = client_->DoGet("forever");
    ASSERT_TRUE(reader.ok());
    FlightData data;
    ASSERT_TRUE((*reader)->Next(&data).value_or(false));
  }
  EXPECT_TRUE(handler_.WaitStopped(seconds(10)));
}

TEST_F(FlightRpcTest, IdleFollowReadSeesCancellationWithoutWriting) {
  auto reader = client_->DoGet("idle");
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(handler_.WaitStarted(seconds(10)));
  (*reader)->Cancel();
  EXPECT_TRUE(handler_.WaitStopped(seconds(10)));
}

TEST_F(FlightRpcTest, ShutdownCancelsRunningCallsAndWaitsForThem) {
  auto reader = client_->DoGet("idle");
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(handler_.WaitStarted(seconds(10)));
  server_->Shutdown(milliseconds(50));
  EXPECT_TRUE(handler_.WaitStopped(milliseconds(0))) << "Shutdown returned before the handler";
  FlightData data;
  EXPECT_FALSE((*reader)->Next(&data).ok());
  server_->Shutdown();  // idempotent
}

TEST_F(FlightRpcTest, DoPutDeliversEveryMessageAndReturnsResults) {
  auto put = client_->DoPut();
  ASSERT_TRUE(put.ok()) << put.status();
  std::vector<FlightData> sent;
  for (int i = 0; i < 5; ++i) {
    FlightData data;
    if (i == 0) data.descriptor = FlightDescriptor::Path({"db", "t1"});
    data.data_header = "h" + std::to_string(i);
    data.body = fake::PatternBody(i, i == 2 ? (3 << 20) : 100 * i);
    sent.push_back(data);
    ASSERT_TRUE((*put)->Write(std::move(data)).ok());
  }
  ASSERT_TRUE((*put)->DoneWriting().ok());
  std::vector<std::string> acks;
  PutResult result;
  while (true) {
    auto more = (*put)->ReadResult(&result);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    acks.push_back(result.app_metadata);
  }
  ASSERT_TRUE((*put)->Finish().ok());
  EXPECT_EQ(acks, (std::vector<std::string>{"ack-0-0", "ack-1-100", "ack-2-3145728", "ack-3-300",
                                            "ack-4-400"}));
  auto puts = handler_.Puts();
  ASSERT_EQ(puts.size(), 1u);
  EXPECT_EQ(puts[0], sent);
}

TEST_F(FlightRpcTest, DoPutFinishKeepsUnreadResultsReadable) {
  auto put = client_->DoPut();
  ASSERT_TRUE(put.ok());
  FlightData data;
  data.descriptor = FlightDescriptor::Path({"db", "t1"});
  ASSERT_TRUE((*put)->Write(std::move(data)).ok());
  ASSERT_TRUE((*put)->Finish().ok());
  PutResult result;
  EXPECT_TRUE((*put)->ReadResult(&result).value_or(false));
  EXPECT_EQ(result.app_metadata, "ack-0-0");
  EXPECT_FALSE((*put)->ReadResult(&result).value_or(true));
}

TEST_F(FlightRpcTest, DoPutRefusedByHandlerReturnsItsError) {
  auto put = client_->DoPut();
  ASSERT_TRUE(put.ok());
  FlightData first;
  first.descriptor = FlightDescriptor::Path({"db", "t1"});
  ASSERT_TRUE((*put)->Write(std::move(first)).ok());
  FlightData bad;
  bad.app_metadata = "reject";
  Status status = (*put)->Write(std::move(bad));
  // The refusal reaches the client on a later Write or at Finish, never as success.
  for (int i = 0; status.ok() && i < 1000; ++i) status = (*put)->Write(FlightData{});
  if (status.ok()) status = (*put)->Finish();
  EXPECT_EQ(status, InvalidArgumentError("rejected message 1"));
  EXPECT_EQ((*put)->Finish(), InvalidArgumentError("rejected message 1"));
  EXPECT_TRUE(handler_.Puts().empty());
}

TEST_F(FlightRpcTest, DoActionReturnsEveryResult) {
  auto results = client_->DoAction(Action{"count", "4"});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(*results,
            (std::vector<ActionResult>{{"result-0"}, {"result-1"}, {"result-2"}, {"result-3"}}));
  auto echo = client_->DoAction(Action{"echo", std::string("a\0b", 3)});
  ASSERT_TRUE(echo.ok());
  EXPECT_EQ(*echo, std::vector<ActionResult>{{std::string("a\0b", 3)}});
  auto none = client_->DoAction(Action{"count", "0"});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(FlightRpcTest, ListActionsReturnsTheHandlersActions) {
  auto actions = client_->ListActions();
  ASSERT_TRUE(actions.ok()) << actions.status();
  EXPECT_EQ(*actions, (std::vector<ActionType>{{"count", "N results"}, {"echo", "the body back"}}));
}

TEST_F(FlightRpcTest, EveryStatusCodeRoundTripsWithItsMessage) {
  const StatusCode same[] = {StatusCode::kCancelled,         StatusCode::kInvalidArgument,
                             StatusCode::kDeadlineExceeded,  StatusCode::kNotFound,
                             StatusCode::kAlreadyExists,     StatusCode::kPermissionDenied,
                             StatusCode::kResourceExhausted, StatusCode::kFailedPrecondition,
                             StatusCode::kAborted,           StatusCode::kOutOfRange,
                             StatusCode::kUnimplemented,     StatusCode::kInternal,
                             StatusCode::kUnavailable,       StatusCode::kDataLoss};
  for (StatusCode code : same) {
    std::string message = "failure " + std::string(StatusCodeName(code)) + " at bucket=3";
    auto results =
        client_->DoAction(Action{"status", std::to_string(static_cast<int>(code)) + ":" + message});
    ASSERT_FALSE(results.ok());
    EXPECT_EQ(results.status(), Status(code, message));
  }
  // Unknown has no Flight meaning of its own: it travels as INTERNAL.
  auto unknown = client_->DoAction(Action{"status", "2:odd"});
  EXPECT_EQ(unknown.status(), InternalError("odd"));
}

TEST_F(FlightRpcTest, ClientDeadlineIsDeadlineExceeded) {
  CallOptions options;
  options.timeout = milliseconds(100);
  auto results = client_->DoAction(Action{"sleep", "500"}, options);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(results.status().message().find(server_->address()), std::string::npos)
      << results.status();
}

TEST_F(FlightRpcTest, ConcurrentCallsAllSucceed) {
  std::vector<std::future<bool>> calls;
  for (int t = 0; t < 8; ++t) {
    calls.push_back(std::async(std::launch::async, [&, t] {
      for (int i = 0; i < 20; ++i) {
        auto info = client_->GetFlightInfo(FlightDescriptor::Path({"db", t % 2 ? "t1" : "t2"}));
        if (!info.ok()) return false;
      }
      return true;
    }));
  }
  for (auto& call : calls) EXPECT_TRUE(call.get());
}

// The calls FlightClient does not offer, made with the generated stub.
TEST_F(FlightRpcTest, HandshakeEchoesPollIsCompleteAndDoExchangeIsUnimplemented) {
  namespace pb = ::arrow::flight::protocol;
  auto stub = pb::FlightService::NewStub(
      grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    auto stream = stub->Handshake(&context);
    pb::HandshakeRequest request;
    request.set_protocol_version(1);
    request.set_payload("hello");
    ASSERT_TRUE(stream->Write(request));
    pb::HandshakeResponse response;
    ASSERT_TRUE(stream->Read(&response));
    EXPECT_EQ(response.payload(), "hello");
    EXPECT_EQ(response.protocol_version(), 1u);
    stream->WritesDone();
    EXPECT_TRUE(stream->Finish().ok());
  }
  {
    grpc::ClientContext context;
    pb::FlightDescriptor descriptor;
    descriptor.set_type(pb::FlightDescriptor::PATH);
    descriptor.add_path("db");
    descriptor.add_path("t1");
    pb::PollInfo poll;
    ASSERT_TRUE(stub->PollFlightInfo(&context, descriptor, &poll).ok());
    EXPECT_EQ(poll.info().schema(), "schema-of-t1");
    EXPECT_FALSE(poll.has_flight_descriptor());
    EXPECT_FALSE(poll.has_progress());
  }
  {
    grpc::ClientContext context;
    auto stream = stub->DoExchange(&context);
    stream->WritesDone();
    grpc::Status status = stream->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
    EXPECT_NE(status.error_message().find("DoExchange"), std::string::npos);
  }
}

TEST(FlightServerTest, SecondServerOnATakenPortFailsNamingTheAddress) {
  fake::TestHandler handler;
  auto first = FlightServer::Start("127.0.0.1:0", &handler);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = FlightServer::Start((*first)->address(), &handler);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find((*first)->address()), std::string::npos)
      << second.status();
  EXPECT_NE(second.status().message().find("in use"), std::string::npos) << second.status();
}

TEST(FlightServerTest, BadListenAddressIsInvalidArgument) {
  fake::TestHandler handler;
  auto server = FlightServer::Start("http://127.0.0.1:0", &handler);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
}

TEST(FlightClientTest, ConnectingToAClosedPortIsUnavailableNamingTheAddress) {
  std::string address = "127.0.0.1:" + std::to_string(testing_env::FreePort());
  auto client = FlightClient::Connect(address);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(client.status().message().find("cannot reach node at " + address), std::string::npos)
      << client.status();
}

TEST(FlightClientTest, LazyClientReportsAnUnreachableNodeOnTheFirstCall) {
  std::string address = "127.0.0.1:" + std::to_string(testing_env::FreePort());
  FlightClientOptions options;
  options.connect_timeout = milliseconds(0);
  auto client = FlightClient::Connect("grpc+tcp://" + address, options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto flights = (*client)->ListFlights();
  ASSERT_FALSE(flights.ok());
  EXPECT_EQ(flights.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(flights.status().message().find("cannot reach node at " + address), std::string::npos)
      << flights.status();
  auto reader = (*client)->DoGet("count:1:size:1");
  ASSERT_TRUE(reader.ok());
  FlightData data;
  EXPECT_TRUE(IsUnavailable((*reader)->Next(&data).status()));
  auto put = (*client)->DoPut();
  ASSERT_TRUE(put.ok());
  (void)(*put)->Write(FlightData{});
  EXPECT_TRUE(IsUnavailable((*put)->Finish()));
}

}  // namespace
}  // namespace mink::flight
