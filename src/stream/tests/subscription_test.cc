// Subscriptions (subscription.h) into a WebSocket of the test's own: a view's changes (+I, then
// -U/+U as a key's answer changes) and a stream's rows (+A) as JSON objects with 64-bit integers
// as strings, from the start of the output table and then as epochs commit; a name that is not
// a stream or view is refused with 1008; a closed socket ends the follow promptly.

#include "stream/subscription.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "http/websocket_frame.h"
#include "stream/catalog.h"
#include "stream/pipeline.h"
#include "stream/sql_endpoint.h"
#include "table/tests/table_test_node.h"

namespace mink::stream {
namespace {

using json = nlohmann::json;

// Keeps what is sent; closed after `close_after` frames, by Close, or by the test.
class FakeSocket : public http::WebSocket {
 public:
  explicit FakeSocket(size_t close_after) : close_after_(close_after) {}
  bool SendText(std::string text) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return false;
    frames_.push_back(std::move(text));
    if (frames_.size() >= close_after_) closed_ = true;
    return true;
  }
  bool Closed() const override { return closed_; }
  void Close(int code, const std::string&) override {
    close_code_ = code;
    closed_ = true;
  }
  std::vector<std::string> frames() {
    std::lock_guard<std::mutex> lock(mutex_);
    return frames_;
  }
  int close_code() const { return close_code_; }

 private:
  const size_t close_after_;
  std::mutex mutex_;
  std::vector<std::string> frames_;
  std::atomic<bool> closed_{false};
  std::atomic<int> close_code_{0};
};

class SubscriptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_ = table::testing::TestNode::Start(table::testing::TempMetaUrl("stream-subscription"),
                                            store_, {});
    ASSERT_TRUE(node_);
    auto db = sql::Database::Open();
    ASSERT_TRUE(db.ok());
    db_ = std::move(*db);
    catalog_ = std::make_unique<Catalog>(node_->meta.get(), node_->tables.get(), db_.get());
    endpoint_ = std::make_unique<SqlEndpoint>(catalog_.get(), node_->meta.get(),
                                              node_->tables.get(), db_.get());
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
    table::TableSpec events;
    events.columns = {"k STRING NOT NULL", "n BIGINT NOT NULL", "ts TIMESTAMP(6) NOT NULL"};
    ASSERT_TRUE(node_->tables->CreateTable("shop.events", events).ok());
    auto answers = endpoint_->Execute(
        "CREATE SOURCE events (WATERMARK FOR ts AS ts) FROM MINK ('table' = 'shop.events');"
        "CREATE MATERIALIZED VIEW totals AS SELECT k, COUNT(*) AS c, SUM(n) AS total FROM events "
        "GROUP BY k;"
        "CREATE STREAM copied AS SELECT k, n FROM events",
        1'000);
    ASSERT_TRUE(answers.ok()) << answers.status();
  }

  // Writes (k, n) events, then runs the view and the stream over them.
  void WriteAndRun(const std::string& values) {
    auto session = db_->Connect();
    ASSERT_TRUE(session.ok());
    auto batches = (*session)->Collect(
        "SELECT k, CAST(n AS BIGINT) AS n, make_timestamp(1790000000000000) AS ts FROM (VALUES " +
        values + ") t(k, n)");
    ASSERT_TRUE(batches.ok()) << batches.status();
    table::WriteRequest request;
    request.table = "shop.events";
    ASSERT_TRUE(node_->tables->Write(request, *batches).ok());
    PipelineContext context{node_->meta.get(), node_->tables.get(), store_.get(), db_.get(), 1};
    for (const char* name : {"totals", "copied"}) {
      auto pipeline = Pipeline::Open(name, context);
      ASSERT_TRUE(pipeline.ok()) << pipeline.status();
      // An epoch reads to the end the last one promised: the second one reads the new rows.
      for (int epoch = 0; epoch < 2; ++epoch) {
        auto ran = (*pipeline)->RunEpoch();
        ASSERT_TRUE(ran.ok()) << ran.status();
      }
    }
  }

  // Subscribes to `path` until `socket` closes (or 10 s pass: the test fails then).
  void Subscribe(const std::string& path, FakeSocket* socket) {
    http::ServerRequest request;
    request.method = "GET";
    request.path = path;
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
      for (int i = 0; i < 1000 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!done) socket->Close(-1, "watchdog");
    });
    endpoint_->Subscribe(request, *socket);
    done = true;
    watchdog.join();
    EXPECT_NE(socket->close_code(), -1) << "the subscription did not end within 10 s";
  }

  std::shared_ptr<object_store::ObjectStore> store_ = std::make_shared<object_store::MemoryStore>();
  std::unique_ptr<table::testing::TestNode> node_;
  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<SqlEndpoint> endpoint_;
};

TEST_F(SubscriptionTest, AViewsChangesFromItsStartThenAsTheyCome) {
  WriteAndRun("('k0', 0), ('k1', 1), ('k2', 2)");
  FakeSocket socket(5);
  std::thread later([&] {
    // The subscriber has the three first answers before the update is written.
    for (int i = 0; i < 500 && socket.frames().size() < 3; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    WriteAndRun("('k0', 3)");
  });
  Subscribe("/ws/totals", &socket);
  later.join();
  const auto frames = socket.frames();
  ASSERT_EQ(frames.size(), 5u);
  std::set<std::string> first(frames.begin(), frames.begin() + 3);
  EXPECT_EQ(first,
            (std::set<std::string>{R"({"change":"+I","data":{"k":"k0","c":"1","total":"0"}})",
                                   R"({"change":"+I","data":{"k":"k1","c":"1","total":"1"}})",
                                   R"({"change":"+I","data":{"k":"k2","c":"1","total":"2"}})"}));
  EXPECT_EQ(frames[3], R"({"change":"-U","data":{"k":"k0","c":"1","total":"0"}})");
  EXPECT_EQ(frames[4], R"({"change":"+U","data":{"k":"k0","c":"2","total":"3"}})");
}

TEST_F(SubscriptionTest, AStreamsRowsAreAppends) {
  WriteAndRun("('a', 1), ('b', 9007199254740993)");
  FakeSocket socket(2);
  Subscribe("/ws/copied", &socket);
  EXPECT_EQ(socket.frames(), (std::vector<std::string>{
                                 R"({"change":"+A","data":{"k":"a","n":"1"}})",
                                 R"({"change":"+A","data":{"k":"b","n":"9007199254740993"}})"}));
}

TEST_F(SubscriptionTest, WhatIsNotAStreamOrViewIsRefusedWith1008) {
  for (const char* path : {"/ws/nothing", "/ws/events", "/ws/"}) {
    FakeSocket socket(100);
    Subscribe(path, &socket);
    ASSERT_EQ(socket.frames().size(), 1u) << path;
    const json error = json::parse(socket.frames()[0]);
    EXPECT_TRUE(error.contains("error") && error["error"].is_string()) << socket.frames()[0];
    EXPECT_EQ(socket.close_code(), http::kWsPolicyViolation) << path;
  }
}

TEST_F(SubscriptionTest, AClosedSocketEndsTheFollowPromptly) {
  WriteAndRun("('k0', 0)");
  FakeSocket socket(100);
  const auto start = std::chrono::steady_clock::now();
  std::thread closer([&] {
    for (int i = 0; i < 500 && socket.frames().empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    socket.Close(http::kWsGoingAway, "");
  });
  Subscribe("/ws/totals", &socket);
  closer.join();
  EXPECT_EQ(socket.frames().size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

}  // namespace
}  // namespace mink::stream
