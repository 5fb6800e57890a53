#pragma once
// A node started in the test process and an Engine on it, for the query tests that write their
// own tables: answers come back as CSV lines (the values as `mink-query exec --format csv`
// prints them), with the scan reports of the query.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "node/node.h"
#include "query/engine.h"
#include "query/output.h"
#include "test_env.h"

namespace mink::query::testing {

// A node on a free loopback port, with SQLite metadata and file:// objects in a new directory.
inline Result<std::unique_ptr<node::Node>> StartLocalNode(const std::string& name) {
  std::string dir = testing_env::MakeTempDir(name);
  config::ServeConfig config;
  config.listen = "127.0.0.1:" + std::to_string(testing_env::FreePort());
  config.meta_url = "sqlite:" + dir + "/meta.db";
  config.storage_uri = "-2@file://" + dir + "/objects";
  config.wal_flush_interval = std::chrono::milliseconds(2);
  return node::Node::Start(config);
}

class QueryTestNode {
 public:
  // Starts the node and the engine; fails the test on error.
  void Start(const std::string& name) {
    auto node = StartLocalNode(name);
    ASSERT_TRUE(node.ok()) << node.status();
    node_ = std::move(*node);
    EngineOptions options;
    options.bootstrap = "grpc://127.0.0.1:" + std::to_string(node_->flight_port());
    auto engine = Engine::Open(options);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
  }

  void Stop() {
    engine_.reset();
    if (node_ != nullptr) node_->Stop();
    node_.reset();
  }

  table::TableStore* tables() { return node_->tables(); }
  Engine& engine() { return *engine_; }

  struct Answer {
    std::vector<std::string> rows;  // CSV lines, without the header
    std::vector<ScanReport> scans;
    bool ok = false;
  };

  Answer Run(const std::string& sql) {
    Answer answer;
    engine_->scans().TakeWhenEnded();  // what earlier queries' scans still had to report
    auto session = engine_->Connect();
    EXPECT_TRUE(session.ok()) << session.status();
    if (!session.ok()) return answer;
    std::string text;
    {
      auto result = (*session)->Execute(sql);
      EXPECT_TRUE(result.ok()) << sql << ": " << result.status();
      if (!result.ok()) return answer;
      auto printed = PrintResult(**result, OutputFormat::kCsv, false, [&](std::string_view s) {
        text += s;
        return true;
      });
      EXPECT_TRUE(printed.ok()) << sql << ": " << printed.status();
      if (!printed.ok()) return answer;
    }
    session->reset();
    size_t start = 0;
    bool header = true;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (!header) answer.rows.push_back(text.substr(start, end - start));
      header = false;
      start = end + 1;
    }
    answer.scans = engine_->scans().TakeWhenEnded();
    answer.ok = true;
    return answer;
  }

  // The plan text of EXPLAIN `sql`.
  std::string Explain(const std::string& sql) {
    Answer plan = Run("EXPLAIN " + sql);
    std::string text;
    for (const auto& row : plan.rows) text += row + "\n";
    return text;
  }

 private:
  std::unique_ptr<node::Node> node_;
  std::unique_ptr<Engine> engine_;
};

}  // namespace mink::query::testing
