#pragma once
// Kafka topics are log tables: topic T is the table kafka.T with columns
//   key BYTES, value BYTES, headers ARRAY<ROW<key STRING, value BYTES>>, timestamp TIMESTAMP_LTZ(3)
// and its partitions are the table's buckets. Produce turns Kafka record batches into Arrow
// batches of that schema (one stored batch per Kafka batch, so offsets match); Fetch turns
// stored batches back into Kafka record batches with the same offsets.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "kafka/protocol/record_batch.h"
#include "table/table_store.h"

namespace mink::kafka {

inline constexpr char kKafkaDatabase[] = "kafka";

// Kafka's topic name rule: 1-249 of [a-zA-Z0-9._-], not "." or "..".
Status ValidateTopicName(const std::string& name);

class TopicCatalog {
 public:
  TopicCatalog(table::TableStore* tables, int32_t default_partitions)
      : tables_(tables), default_partitions_(default_partitions) {}

  static std::string TableName(const std::string& topic) { return std::string(kKafkaDatabase) + "." + topic; }

  // The partition count of a topic, or NotFound.
  Result<int32_t> Partitions(const std::string& topic) const;
  // Creates the topic (partitions <= 0: the default). AlreadyExists if it exists.
  Status Create(const std::string& topic, int32_t partitions,
                const std::vector<std::pair<std::string, std::string>>& configs = {});
  // The topic's partition count, creating it with the defaults if it does not exist.
  Result<int32_t> Ensure(const std::string& topic);
  Status Delete(const std::string& topic);
  // Every topic name.
  std::vector<std::string> List() const;
  // Whether the table is a Kafka topic (the right schema); topics created with `mink table
  // create` in database kafka with this schema are served too.
  Result<bool> IsTopic(const std::string& topic) const;
  int64_t RetentionMs(const std::string& topic) const;

  table::TableStore* tables() const { return tables_; }
  int32_t default_partitions() const { return default_partitions_; }

 private:
  table::TableStore* const tables_;
  const int32_t default_partitions_;
};

// The Arrow schema of a topic table.
const arrow::SchemaPtr& TopicSchema();

// Records of one decoded Kafka batch as an Arrow batch of the topic schema.
Result<arrow::RecordBatchPtr> RecordsToArrow(const DecodedBatch& batch);

// One stored batch back as a Kafka record batch with base offset `base_offset`, appended to
// `out`. Records before `from_offset` are kept (clients skip them, as with Kafka's own batches).
Status ArrowToRecordBatch(const arrow::RecordBatch& batch, int64_t base_offset,
                          int64_t producer_id, int16_t producer_epoch, int32_t base_sequence,
                          std::string* out);

}  // namespace mink::kafka
