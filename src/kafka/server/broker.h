#pragma once
// Broker: the Kafka APIs of one node over the table layer. Handle() takes one decoded request
// and answers through `respond` exactly once, possibly later and from another thread (a Produce
// answers once its batches are committed, a Fetch may wait for data up to max_wait_ms). Calls
// for one connection are made in request order; the broker keeps appends in that order.
//
// Thread-safe.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "auth/access_control.h"
#include "base/thread_pool.h"
#include "kafka/protocol/messages.h"
#include "kafka/server/cluster_view.h"
#include "kafka/server/fetch_ahead.h"
#include "kafka/server/topics.h"
#include "table/table_store.h"

namespace mink::kafka {

class GroupCoordinator;

class ClusterView;

struct BrokerOptions {
  int32_t node_id = 1;
  std::string advertised_host = "127.0.0.1";
  int32_t advertised_port = 9092;
  int32_t default_partitions = 1;
  // Kafka's auto.create.topics.enable: a Produce, or a Metadata request that allows it, creates
  // a topic that does not exist.
  bool auto_create_topics = true;
  // Kafka's message.max.bytes: a larger record batch gets MESSAGE_TOO_LARGE.
  size_t max_message_bytes = 1'048'588;
  std::string cluster_id = "mink";
  int fetch_threads = 16;  // fetches waiting for data (long poll) each hold one
  // Reads of one fetch's partitions from the store run together on these (they mostly wait).
  int fetch_read_threads = 8;
  // Read-ahead of a consumer's next Fetch (fetch_ahead.h): at most this many encoded bytes kept;
  // 0 turns it off.
  size_t fetch_read_ahead_bytes = 64 << 20;
  // The other nodes of a cluster; null: this broker is alone (cluster_view.h).
  const ClusterView* cluster = nullptr;
  // With authentication on, what each user may do (broker_access.cc); null: everything.
  const auth::AccessControl* access = nullptr;
};

struct ClientInfo {
  std::string client_id;
  std::string host;
  std::string user;  // authenticated with SASL; "" with authentication off
};

class Broker {
 public:
  using Respond = std::function<void(std::optional<Response>)>;  // nullopt: send nothing

  // Topics are tables: everything goes through the table layer (a partition's records are its
  // bucket's log, table::BucketLog).
  Broker(BrokerOptions options, table::TableStore* tables, GroupCoordinator* groups);
  ~Broker();

  void Handle(const ParsedRequest& request, const ClientInfo& client, Respond respond);
  // From now on fetches are not read or answered (parked ones leave their wait): called before
  // the server stops, so its queued requests do not read the object store for nobody.
  void BeginStop() { stopping_ = true; }
  // BeginStop, then stops the fetch threads.
  void Stop();

  TopicCatalog& topics() { return topics_; }

 private:
  // A topic is created on first use when `user` may (MayCreateTopic).
  void Produce(const ProduceRequest& request, int16_t version, const std::string& user, Respond respond);
  // Why a partition's batches may not be appended (too large, transactional), or OK.
  Status CheckProducedBatches(const std::vector<BatchView>& batches) const;
  void Fetch(const FetchRequest& request, int16_t version, Respond respond);
  FetchResponse FetchOnce(const FetchRequest& request, int64_t* bytes);
  // Reads and encodes one partition's records from the store into `part` (a fetch's read-ahead
  // did not have them).
  void ReadPartition(const std::string& topic, uint64_t stream, int64_t offset, int64_t budget,
                     FetchResponse::Partition* part);
  // Encodes the records of `stream` from `offset` (with `budget`) on the read-ahead threads, up to
  // `depth` fetches ahead (FetchAheadCache::ClaimInChain), where there are committed records
  // (before `end`) and no read-ahead of them yet.
  void MaybeReadAhead(uint64_t stream, int64_t offset, int64_t end, int64_t budget, int depth);
  ListOffsetsResponse ListOffsets(const ListOffsetsRequest& request, int16_t version);
  // The first offset whose record timestamp is at or after `timestamp`, with that timestamp;
  // (-1, -1) when there is none.
  Result<std::pair<int64_t, int64_t>> OffsetForTimestamp(uint64_t stream, int64_t timestamp,
                                                         int64_t end);
  // Sets *stream to the stream of partition `index` of the topic whose table is `table` (with
  // `partitions` partitions, or why they could not be looked up); false, with the Kafka error in
  // *error, when there is none.
  bool PartitionStream(const std::string& table, const Result<int32_t>& partitions, int32_t index,
                       ErrorContext context, uint64_t* stream, int16_t* error);
  // The readable range [start, end) of `stream`; {0, 0} for a stream the state does not know.
  std::pair<int64_t, int64_t> StreamRange(uint64_t stream) const {
    auto r = log_->OffsetRange(stream).value_or(table::BucketLog::Range{});
    return {r.start, r.end};
  }
  // The partition's leader epoch: its stream's epoch (Kafka's is 32 bits; ours grows by one a
  // move or restart). 0 for a stream the state does not know.
  int32_t LeaderEpoch(uint64_t stream) const;
  // A request's current leader epoch against the partition's: FENCED_LEADER_EPOCH when the
  // client's is older (its metadata is stale), UNKNOWN_LEADER_EPOCH when newer (this broker's
  // is), none when it matches or the client sent none (-1).
  ErrorCode CheckLeaderEpoch(uint64_t stream, int32_t client_epoch) const;
  void HandleGroup(const ParsedRequest& request, const ClientInfo& client, Respond respond);
  // Whether this broker leads the partition whose stream this is (alone: always).
  bool Leads(uint64_t stream) const;
  // Whether this broker coordinates the group (alone: always).
  bool Coordinates(const std::string& group_id) const;
  // This broker's address, or another live one's by node id (alone: only this one).
  std::optional<BrokerAddress> AddressOf(int32_t node_id) const;
  MetadataResponse Metadata(const MetadataRequest& request, int16_t version, const std::string& user);
  // Access control (broker_access.cc): the error a request of `user` is refused with, if any;
  // whether `user` may see a topic or group.
  std::optional<ErrorCode> Refusal(const Request& body, const std::string& user) const;
  bool MayDescribeTopic(const std::string& user, const std::string& topic) const;
  bool MayDescribeGroup(const std::string& user, const std::string& group) const;
  // Whether a request of `user` may create a topic on first use (admin on it).
  bool MayCreateTopic(const std::string& user, const std::string& topic) const;
  // The ACL APIs (broker_acls.cc); with authentication on only.
  DescribeAclsResponse DescribeAcls(const DescribeAclsRequest& request);
  CreateAclsResponse CreateAcls(const CreateAclsRequest& request);
  DeleteAclsResponse DeleteAcls(const DeleteAclsRequest& request);
  FindCoordinatorResponse FindCoordinator(const FindCoordinatorRequest& request, int16_t version);
  InitProducerIdResponse InitProducerId(const InitProducerIdRequest& request);
  CreateTopicsResponse CreateTopics(const CreateTopicsRequest& request, int16_t version);
  DeleteTopicsResponse DeleteTopics(const DeleteTopicsRequest& request, int16_t version);
  DeleteRecordsResponse DeleteRecords(const DeleteRecordsRequest& request);
  DescribeConfigsResponse DescribeConfigs(const DescribeConfigsRequest& request, int16_t version);

  const BrokerOptions options_;
  table::TableStore* const tables_;
  table::BucketLog* const log_;
  GroupCoordinator* const groups_;
  TopicCatalog topics_;
  ThreadPool fetch_pool_;
  FetchAheadCache ahead_;
  ThreadPool ahead_pool_;  // after ahead_: its tasks use it
  ThreadPool read_pool_;   // after ahead_pool_: its reads start read-aheads
  std::atomic<bool> stopping_{false};
};

}  // namespace mink::kafka
