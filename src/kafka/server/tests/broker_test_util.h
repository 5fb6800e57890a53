#pragma once
// A Broker over an in-process table layer (a metadata log on a temporary SQLite file, streams on
// an in-memory object store), with helpers that send it decoded requests and wait, bounded, for
// its answers; records built and read back with record_batch.h. No sockets.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "arrow_format/array.h"
#include "kafka/protocol/messages.h"
#include "kafka/protocol/record_batch.h"
#include "kafka/server/broker.h"
#include "kafka/server/group_coordinator.h"
#include "metadata/metadata_log.h"
#include "object_store/memory_store.h"
#include "storage/stream_store.h"
#include "table/table_store.h"
#include "test_env.h"

namespace mink::kafka::broker_test {

inline constexpr int64_t kT0 = 1'700'000'000'000;  // record timestamps, ms

inline int16_t Code(ErrorCode c) { return ToWire(c); }

// A record as a test writes and reads it (offset: where it was read; ignored when building).
struct Record {
  int64_t offset = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  int64_t timestamp = 0;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;

  bool operator==(const Record&) const = default;
};

inline std::string Show(const std::optional<std::string>& s) {
  return s ? "\"" + *s + "\"" : std::string("null");
}
inline std::ostream& operator<<(std::ostream& os, const Record& r) {
  os << "{offset " << r.offset << ", key " << Show(r.key) << ", value " << Show(r.value) << ", ts "
     << r.timestamp << ", headers [";
  for (const auto& [k, v] : r.headers) os << k << "=" << Show(v) << " ";
  return os << "]}";
}

inline Record Rec(std::optional<std::string> key, std::optional<std::string> value,
                  int64_t timestamp,
                  std::vector<std::pair<std::string, std::optional<std::string>>> headers = {}) {
  return Record{-1, std::move(key), std::move(value), timestamp, std::move(headers)};
}

// The records with consecutive offsets from `base`.
inline std::vector<Record> At(std::vector<Record> records, int64_t base) {
  for (auto& r : records) r.offset = base++;
  return records;
}

// The records at or after `offset`.
inline std::vector<Record> From(const std::vector<Record>& records, int64_t offset) {
  std::vector<Record> out;
  for (const auto& r : records) {
    if (r.offset >= offset) out.push_back(r);
  }
  return out;
}

// `n` bytes that do not compress (so stored and fetched sizes follow the record sizes).
inline std::string Noise(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (auto& c : s) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return s;
}

// One record batch of `records` (an idempotent one when options name a producer).
inline std::string Batch(const std::vector<Record>& records, BatchOptions options = {}) {
  std::vector<NewRecord> in;
  for (const auto& r : records) {
    NewRecord n;
    n.timestamp = r.timestamp;
    if (r.key) n.key = *r.key;
    if (r.value) n.value = *r.value;
    for (const auto& [k, v] : r.headers) {
      RecordHeaderView h;
      h.key = k;
      if (v) h.value = *v;
      n.headers.push_back(h);
    }
    in.push_back(std::move(n));
  }
  auto batch = BuildRecordBatch(options, in);
  EXPECT_TRUE(batch.ok()) << batch.status();
  return batch.ok() ? *batch : std::string();
}

inline BatchOptions Idempotent(int64_t producer_id, int16_t epoch, int32_t base_sequence) {
  BatchOptions o;
  o.producer_id = producer_id;
  o.producer_epoch = epoch;
  o.base_sequence = base_sequence;
  return o;
}

// Every record of a fetched record set (CRCs checked; a cut-off last batch is allowed).
inline std::vector<Record> Records(const std::optional<std::string>& records) {
  std::vector<Record> out;
  if (!records) {
    ADD_FAILURE() << "a null record set";
    return out;
  }
  SplitOptions split;
  split.allow_truncated_tail = true;
  auto batches = SplitBatches(*records, split);
  if (!batches.ok()) {
    ADD_FAILURE() << batches.status();
    return out;
  }
  for (const BatchView& view : *batches) {
    auto decoded = DecodeBatch(view);
    if (!decoded.ok()) {
      ADD_FAILURE() << decoded.status();
      return out;
    }
    for (const RecordView& r : decoded->records) {
      Record rec;
      rec.offset = r.offset;
      if (r.key) rec.key = std::string(*r.key);
      if (r.value) rec.value = std::string(*r.value);
      rec.timestamp = r.timestamp;
      for (const RecordHeaderView& h : decoded->HeadersOf(r)) {
        rec.headers.emplace_back(
            std::string(h.key),
            h.value ? std::optional<std::string>(std::string(*h.value)) : std::nullopt);
      }
      out.push_back(std::move(rec));
    }
  }
  return out;
}

// The number of record batches in a fetched record set.
inline size_t BatchCount(const std::optional<std::string>& records) {
  SplitOptions split;
  split.allow_truncated_tail = true;
  auto batches = SplitBatches(records.value_or(""), split);
  return batches.ok() ? batches->size() : 0;
}

// An error code no broker answers: what the helpers below report for a malformed response, so
// that the test's own checks fail too.
constexpr int16_t kNoAnswer = INT16_MIN;

struct FetchOptions {
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t partition_max_bytes = 1 << 20;
  int32_t max_bytes = 16 << 20;
};

class BrokerFixture : public ::testing::Test {
 protected:
  static constexpr int16_t kProduceVersion = 7;
  static constexpr int16_t kFetchVersion = 11;
  static constexpr std::chrono::seconds kAnswerLimit{10};

  // What the tests' broker runs with unless a test says otherwise.
  static BrokerOptions DefaultOptions() {
    BrokerOptions o;
    o.node_id = 7;
    o.advertised_host = "broker.test";
    o.advertised_port = 19092;
    o.fetch_threads = 4;
    o.fetch_read_threads = 2;
    return o;
  }

  void SetUp() override {
    const std::string dir = testing_env::MakeTempDir("kafka-broker");
    auto meta = metadata::MetadataLog::Open("sqlite:" + dir + "/meta.db");
    ASSERT_TRUE(meta.ok()) << meta.status();
    meta_ = std::move(*meta);
    objects_ = std::make_shared<object_store::MemoryStore>();
    OpenStores();
    GroupCoordinatorOptions go;
    go.offsets = meta_->store()->group_offsets();
    go.start_timer_thread = false;
    groups_ = std::make_unique<GroupCoordinator>(std::move(go));
    StartBroker(DefaultOptions());
  }

  // The node restarted on the same metadata and objects: a new node epoch, every stream reopened
  // (its epoch one higher), a new broker.
  void RestartNode() {
    if (broker_) broker_->Stop();
    broker_.reset();
    tables_->Stop();
    tables_.reset();
    storage_->Stop();
    storage_.reset();
    OpenStores();
    StartBroker(DefaultOptions());
  }

  void OpenStores() {
    auto id = storage::StreamStore::RegisterNode(meta_.get(), 1);
    ASSERT_TRUE(id.ok()) << id.status();
    storage::StorageOptions so;
    so.wal_flush_interval = std::chrono::milliseconds(2);
    auto storage = storage::StreamStore::Open(
        so, meta_.get(), storage::StoreSet{objects_, -2, objects_, -3}, *id, false);
    ASSERT_TRUE(storage.ok()) << storage.status();
    storage_ = std::move(*storage);
    tables_ = std::make_unique<table::TableStore>(meta_.get(), storage_.get());
    Status started = tables_->Start();
    ASSERT_TRUE(started.ok()) << started;
  }

  void TearDown() override {
    if (broker_) broker_->Stop();
    broker_.reset();
    if (groups_) groups_->Stop();
    if (tables_) tables_->Stop();
    if (storage_) storage_->Stop();
  }

  // Replaces the broker (the topics stay: they are tables).
  void StartBroker(BrokerOptions options) {
    if (broker_) broker_->Stop();
    broker_.reset();
    broker_ = std::make_unique<Broker>(std::move(options), tables_.get(), groups_.get());
  }

  // Sends one request; the future gets the broker's answer (nullopt: it sends none). A second
  // answer to one request fails the test.
  std::future<std::optional<Response>> Begin(Request body, int16_t version) {
    ParsedRequest request;
    request.header.api_key = ApiKeyOf(body);
    request.header.api_version = version;
    request.header.correlation_id = ++correlation_id_;
    request.header.client_id = "broker-test";
    request.body = std::move(body);
    auto promise = std::make_shared<std::promise<std::optional<Response>>>();
    auto calls = std::make_shared<std::atomic<int>>(0);
    auto future = promise->get_future();
    broker_->Handle(request, ClientInfo{"broker-test", "127.0.0.1"},
                    [promise, calls](std::optional<Response> response) {
                      if (calls->fetch_add(1) == 0) {
                        promise->set_value(std::move(response));
                      } else {
                        ADD_FAILURE() << "a request answered twice";
                      }
                    });
    return future;
  }

  // Waits at most kAnswerLimit: nullopt when the broker did not answer in time.
  static std::optional<std::optional<Response>> Await(std::future<std::optional<Response>>& f) {
    if (f.wait_for(kAnswerLimit) != std::future_status::ready) return std::nullopt;
    return f.get();
  }

  // The answer to `body`, which must be a `Resp`; a default `Resp` (after a failure) otherwise.
  template <class Resp, class Req>
  Resp Call(const Req& body, int16_t version) {
    auto future = Begin(Request(body), version);
    auto answer = Await(future);
    if (!answer || !*answer) {
      ADD_FAILURE() << (answer ? "no response sent" : "no answer within the time limit");
      return Resp{};
    }
    if (!std::holds_alternative<Resp>(**answer)) {
      ADD_FAILURE() << "a response of API " << ApiKeyOf(**answer);
      return Resp{};
    }
    return std::get<Resp>(std::move(**answer));
  }

  static ProduceRequest ProduceTo(const std::string& topic,
                                  std::vector<std::pair<int32_t, std::string>> partitions) {
    ProduceRequest request;
    request.acks = -1;
    request.timeout_ms = 10000;
    ProduceRequest::Topic& t = request.topic_data.emplace_back();
    t.name = topic;
    for (auto& [index, records] : partitions) {
      t.partition_data.push_back({index, std::move(records)});
    }
    return request;
  }

  // One partition's answer to a Produce of `records` (acks all).
  ProduceResponse::Partition ProduceOne(const std::string& topic, int32_t partition,
                                        std::string records) {
    auto r =
        Call<ProduceResponse>(ProduceTo(topic, {{partition, std::move(records)}}), kProduceVersion);
    if (r.responses.size() != 1 || r.responses[0].name != topic ||
        r.responses[0].partition_responses.size() != 1 ||
        r.responses[0].partition_responses[0].index != partition) {
      ADD_FAILURE() << "a Produce response for other partitions than asked";
      return ProduceResponse::Partition{partition, kNoAnswer};
    }
    return r.responses[0].partition_responses[0];
  }

  static FetchRequest FetchOf(const std::string& topic,
                              std::vector<std::pair<int32_t, int64_t>> partitions,
                              FetchOptions options = {}) {
    FetchRequest request;
    request.max_wait_ms = options.max_wait_ms;
    request.min_bytes = options.min_bytes;
    request.max_bytes = options.max_bytes;
    FetchRequest::Topic& t = request.topics.emplace_back();
    t.topic = topic;
    for (auto [index, offset] : partitions) {
      FetchRequest::Partition& p = t.partitions.emplace_back();
      p.partition = index;
      p.fetch_offset = offset;
      p.partition_max_bytes = options.partition_max_bytes;
    }
    return request;
  }

  FetchResponse::Partition FetchOne(const std::string& topic, int32_t partition, int64_t offset,
                                    FetchOptions options = {}) {
    auto r = Call<FetchResponse>(FetchOf(topic, {{partition, offset}}, options), kFetchVersion);
    if (r.responses.size() != 1 || r.responses[0].topic != topic ||
        r.responses[0].partitions.size() != 1 ||
        r.responses[0].partitions[0].partition_index != partition) {
      ADD_FAILURE() << "a Fetch response for other partitions than asked";
      FetchResponse::Partition p;
      p.error_code = kNoAnswer;
      return p;
    }
    return r.responses[0].partitions[0];
  }

  ListOffsetsResponse::Partition ListOne(const std::string& topic, int32_t partition,
                                         int64_t timestamp, int16_t version = 5) {
    ListOffsetsRequest request;
    ListOffsetsRequest::Topic& t = request.topics.emplace_back();
    t.name = topic;
    t.partitions.push_back({partition, -1, timestamp, 1});
    auto r = Call<ListOffsetsResponse>(request, version);
    if (r.topics.size() != 1 || r.topics[0].partitions.size() != 1 ||
        r.topics[0].partitions[0].partition_index != partition) {
      ADD_FAILURE() << "a ListOffsets response for other partitions than asked";
      return ListOffsetsResponse::Partition{partition, kNoAnswer};
    }
    return r.topics[0].partitions[0];
  }

  DeleteRecordsResponse::Partition DeleteOne(const std::string& topic, int32_t partition,
                                             int64_t offset) {
    DeleteRecordsRequest request;
    request.topics.push_back({topic, {{partition, offset}}});
    request.timeout_ms = 10000;
    auto r = Call<DeleteRecordsResponse>(request, 2);
    if (r.topics.size() != 1 || r.topics[0].partitions.size() != 1 ||
        r.topics[0].partitions[0].partition_index != partition) {
      ADD_FAILURE() << "a DeleteRecords response for other partitions than asked";
      return DeleteRecordsResponse::Partition{partition, -1, kNoAnswer};
    }
    return r.topics[0].partitions[0];
  }

  // CreateTopics of one topic: its result.
  CreateTopicsResponse::Topic CreateOne(
      const std::string& topic, int32_t partitions,
      std::vector<std::pair<std::string, std::string>> configs = {}, bool validate_only = false) {
    CreateTopicsRequest request;
    request.validate_only = validate_only;
    CreateTopicsRequest::Topic& t = request.topics.emplace_back();
    t.name = topic;
    t.num_partitions = partitions;
    for (auto& [name, value] : configs) t.configs.push_back({name, value});
    auto r = Call<CreateTopicsResponse>(request, 7);
    if (r.topics.size() != 1 || r.topics[0].name != topic) {
      ADD_FAILURE() << "a CreateTopics response for other topics than asked";
      CreateTopicsResponse::Topic failed;
      failed.error_code = kNoAnswer;
      return failed;
    }
    return r.topics[0];
  }

  MetadataResponse Metadata(std::optional<std::vector<std::string>> topics, int16_t version,
                            bool allow_auto_creation) {
    MetadataRequest request;
    if (topics) {
      request.topics.emplace();
      for (auto& name : *topics) request.topics->push_back({std::move(name)});
    }
    request.allow_auto_topic_creation = allow_auto_creation;
    return Call<MetadataResponse>(request, version);
  }

  InitProducerIdResponse InitProducerId(std::optional<std::string> transactional_id = {}) {
    InitProducerIdRequest request;
    request.transactional_id = std::move(transactional_id);
    request.transaction_timeout_ms = 60000;
    return Call<InitProducerIdResponse>(request, 4);
  }

  bool TableExists(const std::string& topic) const {
    return tables_->DescribeTable(TopicCatalog::TableName(topic)).ok();
  }

  // The partition's rows as the table layer reads them: "offset:value" ("null" for a null value).
  std::vector<std::string> TableValues(const std::string& topic, int32_t partition) {
    table::ReadRequest read{TopicCatalog::TableName(topic)};
    read.bucket = partition;
    read.columns = {"value"};
    read.meta = true;
    std::vector<std::string> rows;
    Status s = tables_->Read(read, [&](const arrow::RecordBatchPtr& b) {
      const int value_column = b->schema()->GetFieldIndex("value");
      const int offset_column = b->schema()->GetFieldIndex("__offset");
      EXPECT_GE(value_column, 0);
      EXPECT_GE(offset_column, 0);
      if (value_column < 0 || offset_column < 0) return false;
      arrow::BinaryArray values(b->Column(value_column));
      arrow::Int64Array offsets(b->Column(offset_column));
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        rows.push_back(std::to_string(offsets.Value(i)) + ":" +
                       (values.IsNull(i) ? "null" : values.GetString(i)));
      }
      return true;
    });
    EXPECT_TRUE(s.ok()) << s;
    return rows;
  }

  std::shared_ptr<object_store::MemoryStore> objects_;
  std::unique_ptr<metadata::MetadataLog> meta_;
  std::unique_ptr<storage::StreamStore> storage_;
  std::unique_ptr<table::TableStore> tables_;
  std::unique_ptr<GroupCoordinator> groups_;
  std::unique_ptr<Broker> broker_;

 private:
  int32_t correlation_id_ = 0;
};

}  // namespace mink::kafka::broker_test
