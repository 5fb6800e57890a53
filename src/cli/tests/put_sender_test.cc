// PutSender against an in-process Flight server: writer ids, sequences and retries.

#include "cli/put_sender.h"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "arrow_format/ipc.h"
#include "cli/json_to_arrow.h"
#include "cli/tests/test_tables.h"
#include "flight/server/flight_server.h"

namespace mink::cli {
namespace {

using nlohmann::json;

// Answers init-writer with writer id 7 and records every DoPut: its descriptor and row count.
// The first `unavailable_puts` DoPuts fail as Unavailable after reading everything (as a node
// that went away before answering would); `fail_with` fails every DoPut.
class FakeNode final : public flight::FlightHandler {
 public:
  int unavailable_puts = 0;
  Status fail_with;

  struct Put {
    json descriptor;
    int64_t rows = 0;
  };
  std::vector<Put> puts() {
    std::lock_guard<std::mutex> lock(mutex_);
    return puts_;
  }

  Result<std::vector<flight::FlightInfo>> ListFlights(const std::string&) override {
    return std::vector<flight::FlightInfo>{};
  }
  Result<flight::FlightInfo> GetFlightInfo(const flight::FlightDescriptor&) override {
    return NotFoundError("no flights");
  }
  Result<std::string> GetSchema(const flight::FlightDescriptor&) override {
    return NotFoundError("no flights");
  }
  Status DoGet(const std::string&, flight::FlightDataWriter&) override {
    return UnimplementedError("no reads");
  }
  Result<std::vector<flight::ActionType>> ListActions() override {
    return std::vector<flight::ActionType>{};
  }
  Status DoAction(const flight::Action& action, flight::ActionResultWriter& writer) override {
    if (action.type != "init-writer") return InvalidArgumentError("unknown action");
    writer.Write(flight::ActionResult{R"({"writer_id": 7})"});
    return Status::Ok();
  }
  Status DoPut(flight::FlightDataReader& reader, flight::PutResultWriter& writer) override {
    Put put;
    arrow::IpcDecoder decoder;
    flight::FlightData data;
    while (true) {
      MINK_ASSIGN_OR_RETURN(bool more, reader.Next(&data));
      if (!more) break;
      if (data.descriptor) put.descriptor = json::parse(data.descriptor->cmd);
      MINK_ASSIGN_OR_RETURN(auto decoded,
                            decoder.Decode(data.data_header, arrow::Buffer::FromString(data.body)));
      if (decoded.batch) put.rows += decoded.batch->num_rows();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      puts_.push_back(put);
      if (unavailable_puts > 0) {
        --unavailable_puts;
        return UnavailableError("node is restarting");
      }
    }
    MINK_RETURN_IF_ERROR(fail_with);
    writer.Write(flight::PutResult{json{{"rows", put.rows}}.dump()});
    return Status::Ok();
  }

 private:
  std::mutex mutex_;
  std::vector<Put> puts_;
};

class PutSenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = flight::FlightServer::Start("127.0.0.1:0", &node_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    auto client = flight::FlightClient::Connect(server_->address());
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
    auto converter = JsonRowConverter::Make(testing::Orders(), {});
    ASSERT_TRUE(converter.ok());
    schema_ = converter->schema();
    auto builder = BatchBuilder::Make(converter->schema(), converter->types());
    for (int id = 1; id <= 3; ++id) {
      ASSERT_TRUE(builder
                      ->Append(*converter->ConvertLine(R"({"id": )" + std::to_string(id) +
                                                       R"(, "region": "us"})"))
                      .ok());
    }
    batches_.push_back(*builder->Finish());
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Shutdown();
  }
  PutSender Sender(PutSenderOptions options = {}) {
    if (options.table.empty()) options.table = "shop.orders";
    options.first_backoff = std::chrono::milliseconds(1);
    return PutSender(client_.get(), schema_, options);
  }

  FakeNode node_;
  std::unique_ptr<flight::FlightServer> server_;
  std::unique_ptr<flight::FlightClient> client_;
  arrow::SchemaPtr schema_;
  std::vector<arrow::RecordBatchPtr> batches_;
};

TEST_F(PutSenderTest, NumbersDoPutsWithOneWriterId) {
  PutSender sender = Sender();
  ASSERT_TRUE(sender.Send(batches_, 3).ok());
  ASSERT_TRUE(sender.Send(batches_, 3).ok());
  auto puts = node_.puts();
  ASSERT_EQ(puts.size(), 2u);
  EXPECT_EQ(puts[0].descriptor,
            json::parse(R"({"table":"shop.orders","mode":"upsert","writer_id":7,"sequence":0})"));
  EXPECT_EQ(puts[1].descriptor["sequence"], 1);
  EXPECT_EQ(puts[1].descriptor["writer_id"], 7);
  EXPECT_EQ(puts[0].rows, 3);
  EXPECT_EQ(sender.rows_written(), 6);
  EXPECT_EQ(sender.next_sequence(), 2);
}

TEST_F(PutSenderTest, RetriedDoPutKeepsWriterIdAndSequence) {
  node_.unavailable_puts = 2;
  PutSender sender = Sender();
  ASSERT_TRUE(sender.Send(batches_, 3).ok());
  ASSERT_TRUE(sender.Send(batches_, 3).ok());
  auto puts = node_.puts();
  ASSERT_EQ(puts.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(puts[i].descriptor["sequence"], 0) << i;
    EXPECT_EQ(puts[i].descriptor["writer_id"], 7) << i;
    EXPECT_EQ(puts[i].rows, 3) << i;
  }
  EXPECT_EQ(puts[3].descriptor["sequence"], 1);
  EXPECT_EQ(sender.rows_written(), 6);
}

TEST_F(PutSenderTest, GivesUpAfterTheLastAttempt) {
  node_.unavailable_puts = 100;
  PutSenderOptions options;
  options.max_attempts = 3;
  PutSender sender = Sender(options);
  Status s = sender.Send(batches_, 3);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "node is restarting");
  EXPECT_EQ(node_.puts().size(), 3u);
  EXPECT_EQ(sender.rows_written(), 0);
}

TEST_F(PutSenderTest, GivesUpWhenTheRetryTimeRunsOut) {
  node_.unavailable_puts = 100;
  PutSenderOptions options;
  options.retry_for = std::chrono::milliseconds(300);
  PutSender sender(client_.get(), schema_, [&] {
    options.table = "shop.orders";
    options.first_backoff = std::chrono::milliseconds(50);
    options.max_backoff = std::chrono::milliseconds(100);
    return options;
  }());
  auto start = std::chrono::steady_clock::now();
  Status s = sender.Send(batches_, 3);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  // Backoffs 50, 100, 100: the next would end past 300 ms (3 on a slow machine).
  EXPECT_GE(node_.puts().size(), 3u);
  EXPECT_LE(node_.puts().size(), 4u);
  EXPECT_LT(took, std::chrono::milliseconds(1000));
}

TEST_F(PutSenderTest, RefusedWritesAreNotRetried) {
  node_.fail_with = InvalidArgumentError("row 2: column 'region' is NOT NULL but missing");
  PutSender sender = Sender();
  Status s = sender.Send(batches_, 3);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "row 2: column 'region' is NOT NULL but missing");
  EXPECT_EQ(node_.puts().size(), 1u);
}

TEST_F(PutSenderTest, DeletesAndPartialUpdatesSayWhatTheyAre) {
  PutSenderOptions options;
  options.is_delete = true;
  ASSERT_TRUE(Sender(options).Send(batches_, 3).ok());
  PutSenderOptions partial;
  partial.columns = {"id", "region", "amount"};
  ASSERT_TRUE(Sender(partial).Send(batches_, 3).ok());
  auto puts = node_.puts();
  ASSERT_EQ(puts.size(), 2u);
  EXPECT_EQ(puts[0].descriptor["mode"], "delete");
  EXPECT_FALSE(puts[0].descriptor.contains("columns"));
  EXPECT_EQ(puts[1].descriptor["mode"], "upsert");
  EXPECT_EQ(puts[1].descriptor["columns"], json::parse(R"(["id","region","amount"])"));
}

TEST_F(PutSenderTest, NothingToSendSendsNothing) {
  PutSender sender = Sender();
  ASSERT_TRUE(sender.Send({}, 0).ok());
  EXPECT_TRUE(node_.puts().empty());
  EXPECT_EQ(sender.writer_id(), -1);
}

}  // namespace
}  // namespace mink::cli
