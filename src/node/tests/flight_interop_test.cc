// A real Arrow implementation on the other end of Flight: Arrow JS + grpc-js create a table,
// DoPut rows and DoGet them back from a node started in this process.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "node/node.h"
#include "test_env.h"

namespace mink::node {
namespace {

std::string RunCommand(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  *status = pclose(pipe);
  return out;
}

TEST(FlightInterop, ArrowJsWritesAndReadsATable) {
  std::string root = MINK_SOURCE_DIR;
  if (!std::filesystem::exists(root + "/tests/node/node_modules/apache-arrow")) {
    if (std::getenv("MINK_TEST_REQUIRE_SERVICES") != nullptr) {
      FAIL() << "tests/node/node_modules is missing: run scripts/setup";
    }
    GTEST_SKIP() << "npm test clients not installed";
  }
  std::string dir = testing_env::MakeTempDir("node");
  config::ServeConfig config;
  int free_port = testing_env::FreePort();
  config.listen = "127.0.0.1:" + std::to_string(free_port);
  config.meta_url = "sqlite:" + dir + "/meta.db";
  config.storage_uri = "-2@file://" + dir + "/objects";
  config.wal_flush_interval = std::chrono::milliseconds(2);
  auto node = Node::Start(config);
  ASSERT_TRUE(node.ok()) << node.status();
  int port = (*node)->flight_port();
  int status = 0;
  std::string out = RunCommand("node " + root + "/tests/node/flight_table_client.js " + std::to_string(port), &status);
  ASSERT_EQ(status, 0) << out;
  nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["put"][0]["rows"], 4);
  // Row 4 upserts key 1: the snapshot holds three rows, the changelog five records.
  ASSERT_EQ(j["snapshot"].size(), 3u) << out;
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& r : j["snapshot"]) by_id[r["id"].get<std::string>()] = r;
  EXPECT_EQ(by_id["1"]["name"], "uno");
  EXPECT_EQ(by_id["1"]["price"], 9.75);
  EXPECT_TRUE(by_id["1"]["ok"].is_null());
  EXPECT_TRUE(by_id["2"]["name"].is_null());
  EXPECT_EQ(by_id["2"]["ok"], false);
  EXPECT_TRUE(by_id["3"]["price"].is_null());
  EXPECT_EQ(by_id["3"]["at"], 1700000002000);
  ASSERT_EQ(j["changelog"].size(), 5u) << out;
  std::multiset<std::string> changes;
  for (const auto& r : j["changelog"]) {
    changes.insert(r["__change"].get<std::string>() + r["id"].get<std::string>());
    EXPECT_EQ(r.size(), 5u);  // id, name, __bucket, __offset, __change
  }
  EXPECT_EQ(changes, (std::multiset<std::string>{"+I1", "+I2", "+I3", "-U1", "+U1"}));
  EXPECT_EQ(j["endpoints"], 2);
  EXPECT_EQ(j["endpoint_rows"], 5);
  EXPECT_EQ(j["locations"][0][0], "grpc://127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(j["schema_fields"][0], "id:Int64");
  EXPECT_NE(j["missing"].get<std::string>().find("table interop.nope does not exist"), std::string::npos);
  EXPECT_EQ(j["missing"].get<std::string>().substr(0, 2), "5 ");  // NOT_FOUND
  (*node)->Stop();
}

}  // namespace
}  // namespace mink::node
