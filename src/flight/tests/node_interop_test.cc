// Interop with an independent Flight client: tests/node/flight_protocol_client.js (gRPC JS and
// proto-loader reading our spec/arrow/Flight.proto) against FlightServer with the fake handler.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "flight/server/flight_server.h"
#include "flight/tests/test_handler.h"
#include "test_env.h"

namespace mink::flight {
namespace {

const std::string kNodeDir = std::string(MINK_SOURCE_DIR) + "/tests/node";

bool RequireServices() {
  const char* require = std::getenv("MINK_TEST_REQUIRE_SERVICES");
  return require != nullptr && std::string(require) == "1";
}

// Runs `command`, returning its stdout and exit status.
std::string RunCommand(const std::string& command, int* exit_status) {
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    *exit_status = -1;
    return output;
  }
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  int status = ::pclose(pipe);
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

TEST(FlightNodeInteropTest, GrpcJsClientCallsEveryDataRpc) {
  int probe = 0;
  RunCommand("node --version >/dev/null 2>&1", &probe);
  bool have_modules = std::filesystem::exists(kNodeDir + "/node_modules/@grpc/grpc-js") &&
                      std::filesystem::exists(kNodeDir + "/node_modules/@grpc/proto-loader");
  if (probe != 0 || !have_modules) {
    if (RequireServices()) {
      FAIL() << "node or " << kNodeDir << "/node_modules is missing, but "
             << "MINK_TEST_REQUIRE_SERVICES=1 (run scripts/setup)";
    }
    GTEST_SKIP() << "node or tests/node/node_modules missing";
  }

  fake::TestHandler handler;
  auto server = FlightServer::Start("127.0.0.1:0", &handler);
  ASSERT_TRUE(server.ok()) << server.status();

  int exit_status = 0;
  std::string output = RunCommand("timeout 120 node " + kNodeDir + "/flight_protocol_client.js " +
                                      std::to_string((*server)->port()),
                                  &exit_status);
  ASSERT_EQ(exit_status, 0) << output;
  nlohmann::json out = nlohmann::json::parse(output, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(out.is_discarded()) << output;

  ASSERT_EQ(out["list_flights"].size(), 2u) << output;
  EXPECT_EQ(out["list_flights"][0]["type"], "PATH");
  EXPECT_EQ(out["list_flights"][0]["path"], nlohmann::json({"db", "t1"}));
  EXPECT_EQ(out["list_flights"][1]["path"], nlohmann::json({"db", "t2"}));
  EXPECT_EQ(out["list_flights"][0]["total_records"], "42");
  EXPECT_EQ(out["list_flights"][0]["endpoints"][0]["ticket"], "ticket-t1-0");
  EXPECT_EQ(out["list_flights"][0]["endpoints"][0]["locations"],
            nlohmann::json({"grpc://127.0.0.1:1"}));
  EXPECT_EQ(out["list_flights"][0]["endpoints"][1]["locations"], nlohmann::json::array());

  EXPECT_EQ(out["flight_info"]["schema"], "schema-of-t1");
  EXPECT_EQ(out["flight_info"]["total_bytes"], "4200");
  EXPECT_EQ(out["flight_info"]["ordered"], true);
  EXPECT_EQ(out["flight_info"]["app_metadata"], "meta-t1");

  EXPECT_EQ(out["missing"]["code"], 5);  // NOT_FOUND
  EXPECT_EQ(out["missing"]["details"], "table x");

  EXPECT_EQ(out["do_action"], nlohmann::json({"result-0", "result-1", "result-2"}));

  ASSERT_EQ(out["do_get"].size(), 3u) << output;
  for (int i = 0; i < 3; ++i) {
    const auto& message = out["do_get"][i];
    EXPECT_EQ(message["header"], "header-" + std::to_string(i));
    EXPECT_EQ(message["app_metadata"], "meta-" + std::to_string(i));
    EXPECT_EQ(message["body_length"], 100000);
    EXPECT_EQ(message["body_matches"], true) << "message " << i;
  }

  EXPECT_EQ(out["do_put"], nlohmann::json({"ack-0-50000", "ack-1-70000", "ack-2-0"}));
  auto puts = handler.Puts();
  ASSERT_EQ(puts.size(), 1u);
  ASSERT_EQ(puts[0].size(), 3u);
  ASSERT_TRUE(puts[0][0].descriptor.has_value());
  EXPECT_EQ(*puts[0][0].descriptor, FlightDescriptor::Path({"db", "t1"}));
  EXPECT_FALSE(puts[0][1].descriptor.has_value());
  EXPECT_EQ(puts[0][0].data_header, "js-0");
  EXPECT_TRUE(puts[0][0].body == fake::PatternBody(0, 50000));
  EXPECT_TRUE(puts[0][1].body == fake::PatternBody(1, 70000));
  EXPECT_EQ(puts[0][2].app_metadata, "m2");
}

}  // namespace
}  // namespace mink::flight
