#include "stream/external_kafka.h"

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <map>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"

namespace mink::stream {
namespace {

constexpr int kTimeoutMs = 10'000;

struct HandleDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleDeleter>;

// A librdkafka client of `bootstrap` with `settings` on top.
Result<Handle> Connect(rd_kafka_type_t type, const std::string& bootstrap,
                       const std::vector<std::pair<std::string, std::string>>& settings) {
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  std::vector<std::pair<std::string, std::string>> all = {{"bootstrap.servers", bootstrap}, {"log_level", "3"}};
  all.insert(all.end(), settings.begin(), settings.end());
  for (const auto& [k, v] : all) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), error, sizeof(error)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return InvalidArgumentError("Kafka setting " + k + ": " + error);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(type, conf, error, sizeof(error));  // takes conf
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return UnavailableError(std::string("cannot make a Kafka client: ") + error);
  }
  return Handle(rk);
}

Status KafkaError(rd_kafka_resp_err_t err, const std::string& what) {
  return UnavailableError(what + ": " + rd_kafka_err2str(err));
}

class ExternalKafkaInput final : public PipelineInput {
 public:
  ExternalKafkaInput(Handle consumer, std::string topic, JsonRecords records, bool from_latest)
      : consumer_(std::move(consumer)), topic_(std::move(topic)), records_(std::move(records)), from_latest_(from_latest) {}

  const arrow::SchemaPtr& schema() const override { return records_.schema(); }
  int64_t skipped() const override { return records_.skipped(); }

  Result<Positions> Start() override {
    Positions out;
    MINK_ASSIGN_OR_RETURN(int32_t partitions, Partitions());
    for (int32_t p = 0; p < partitions; ++p) {
      MINK_ASSIGN_OR_RETURN(auto bounds, Bounds(p));
      out["p" + std::to_string(p)] = from_latest_ ? bounds.second : bounds.first;
    }
    return out;
  }

  Result<Positions> End(const Positions& /*from*/, int64_t /*now_ms*/) override {
    Positions out;
    MINK_ASSIGN_OR_RETURN(int32_t partitions, Partitions());
    for (int32_t p = 0; p < partitions; ++p) {
      MINK_ASSIGN_OR_RETURN(auto bounds, Bounds(p));
      out["p" + std::to_string(p)] = bounds.second;
    }
    return out;
  }

  Status Read(const Positions& from, const Positions& to,
              const std::function<Status(const InputBatch&)>& each) override {
    for (const auto& [label, end] : to) {
      const int32_t partition = std::stoi(label.substr(1));
      int64_t at = from.count(label) ? from.at(label) : 0;
      if (at >= end) continue;
      MINK_ASSIGN_OR_RETURN(auto bounds, Bounds(partition));
      at = std::max(at, bounds.first);  // records removed by the topic's retention are gone
      if (at >= end) continue;
      MINK_RETURN_IF_ERROR(ReadPartition(partition, at, end, each));
    }
    return Status::Ok();
  }

 private:
  Result<int32_t> Partitions() {
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_topic_t* t = rd_kafka_topic_new(consumer_.get(), topic_.c_str(), nullptr);
    rd_kafka_resp_err_t err = rd_kafka_metadata(consumer_.get(), 0, t, &md, kTimeoutMs);
    rd_kafka_topic_destroy(t);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaError(err, "the metadata of topic " + topic_);
    int32_t partitions = 0;
    rd_kafka_resp_err_t topic_err = RD_KAFKA_RESP_ERR_NO_ERROR;
    if (md->topic_cnt == 1) {
      partitions = md->topics[0].partition_cnt;
      topic_err = md->topics[0].err;
    }
    rd_kafka_metadata_destroy(md);
    if (topic_err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaError(topic_err, "topic " + topic_);
    return partitions;
  }

  Result<std::pair<int64_t, int64_t>> Bounds(int32_t partition) {
    int64_t low = 0, high = 0;
    rd_kafka_resp_err_t err =
        rd_kafka_query_watermark_offsets(consumer_.get(), topic_.c_str(), partition, &low, &high, kTimeoutMs);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return KafkaError(err, "the offsets of " + topic_ + " partition " + std::to_string(partition));
    }
    return std::make_pair(low, high);
  }

  // The records of one partition at offsets [at, end), in batches of values.
  Status ReadPartition(int32_t partition, int64_t at, int64_t end,
                       const std::function<Status(const InputBatch&)>& each) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic_.c_str(), partition)->offset = at;
    rd_kafka_resp_err_t err = rd_kafka_assign(consumer_.get(), list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaError(err, "assigning " + topic_);
    auto schema = std::make_shared<arrow::Schema>(std::vector<arrow::Field>{arrow::Field("value", arrow::Binary())});
    MINK_ASSIGN_OR_RETURN(auto builder, arrow::RecordBatchBuilder::Make(schema));
    auto flush = [&]() -> Status {
      if (builder->num_rows() == 0) return Status::Ok();
      MINK_ASSIGN_OR_RETURN(auto values, builder->Flush());
      return records_.Decode(values, each);
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
    Status status;
    while (at < end && status.ok()) {
      if (std::chrono::steady_clock::now() > deadline) {
        status = UnavailableError("topic " + topic_ + " partition " + std::to_string(partition) +
                                  ": no record at offset " + std::to_string(at) + " within 10 s");
        break;
      }
      rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer_.get(), 100);
      if (m == nullptr) continue;
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        at = std::max(at, m->offset);
      } else if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        status = KafkaError(m->err, "reading " + topic_);
      } else if (m->offset >= at && m->offset < end) {
        auto* values = builder->GetFieldAs<arrow::BinaryBuilder>(0);
        status = m->payload == nullptr ? (values->AppendNull(), Status::Ok())
                                       : values->Append(std::string_view(static_cast<const char*>(m->payload), m->len));
        at = m->offset + 1;
        if (status.ok() && builder->num_rows() >= 10'000) status = flush();
      }
      rd_kafka_message_destroy(m);
    }
    rd_kafka_assign(consumer_.get(), nullptr);
    MINK_RETURN_IF_ERROR(status);
    return flush();
  }

  Handle consumer_;
  const std::string topic_;
  JsonRecords records_;
  const bool from_latest_;
};

class ExternalKafkaWriter final : public RowWriter {
 public:
  ExternalKafkaWriter(Handle producer, std::string bootstrap, std::string topic, OutputLayout layout)
      : producer_(std::move(producer)),
        bootstrap_(std::move(bootstrap)),
        topic_(std::move(topic)),
        layout_(std::move(layout)) {}

  std::string target() const override { return "kafka://" + bootstrap_ + "/" + topic_; }

  Status Write(const std::vector<Row>& upserts, const std::vector<Row>& deletes) override {
    MINK_ASSIGN_OR_RETURN(auto records, JsonRecordsOf(layout_, upserts, deletes));
    if (records.empty()) return Status::Ok();
    for (auto& r : records) {
      void* key = r.key ? r.key->data() : nullptr;
      const size_t key_size = r.key ? r.key->size() : 0;
      void* value = r.value ? r.value->data() : nullptr;
      const size_t value_size = r.value ? r.value->size() : 0;
      rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
      for (int attempt = 0; attempt < 100; ++attempt) {
        err = rd_kafka_producev(producer_.get(), RD_KAFKA_V_TOPIC(topic_.c_str()), RD_KAFKA_V_KEY(key, key_size),
                                RD_KAFKA_V_VALUE(value, value_size), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                RD_KAFKA_V_END);
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
        rd_kafka_poll(producer_.get(), 100);  // the queue drains as deliveries are reported
      }
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaError(err, "producing to " + target());
    }
    // Every record acknowledged before the epoch commits (at least once).
    rd_kafka_resp_err_t err = rd_kafka_flush(producer_.get(), kTimeoutMs);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return KafkaError(err, "flushing to " + target());
    if (failed_.load() > 0) {
      failed_ = 0;
      return UnavailableError("records to " + target() + " were not delivered; the epoch is sent again");
    }
    return Status::Ok();
  }

  // The producer, made with this writer as its delivery reports' opaque.
  void Attach(Handle producer) { producer_ = std::move(producer); }

  static void OnDelivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* m, void* opaque) {
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) static_cast<ExternalKafkaWriter*>(opaque)->failed_++;
  }

 private:
  Handle producer_;
  const std::string bootstrap_;
  const std::string topic_;
  const OutputLayout layout_;
  std::atomic<int64_t> failed_{0};
};

}  // namespace

Result<std::unique_ptr<PipelineInput>> MakeExternalKafkaInput(const std::string& bootstrap, const std::string& topic,
                                                              JsonRecords records, bool from_latest) {
  // No group: the pipeline keeps its own positions and assigns partitions itself.
  MINK_ASSIGN_OR_RETURN(Handle consumer, Connect(RD_KAFKA_CONSUMER, bootstrap,
                                                 {{"group.id", "mink-pipeline"},
                                                  {"enable.auto.commit", "false"},
                                                  {"enable.partition.eof", "true"},
                                                  {"auto.offset.reset", "earliest"}}));
  return std::unique_ptr<PipelineInput>(
      new ExternalKafkaInput(std::move(consumer), topic, std::move(records), from_latest));
}

Result<std::unique_ptr<RowWriter>> MakeExternalKafkaWriter(const std::string& bootstrap, const std::string& topic,
                                                           OutputLayout layout, const Clock* /*clock*/) {
  auto writer = std::make_unique<ExternalKafkaWriter>(nullptr, bootstrap, topic, std::move(layout));
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", bootstrap}, {"enable.idempotence", "true"}, {"acks", "all"}, {"log_level", "3"}}) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), error, sizeof(error)) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return InvalidArgumentError("Kafka setting " + k + ": " + error);
    }
  }
  rd_kafka_conf_set_dr_msg_cb(conf, &ExternalKafkaWriter::OnDelivery);
  rd_kafka_conf_set_opaque(conf, writer.get());
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof(error));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return UnavailableError(std::string("cannot make a Kafka producer: ") + error);
  }
  writer->Attach(Handle(rk));
  return std::unique_ptr<RowWriter>(std::move(writer));
}

}  // namespace mink::stream
