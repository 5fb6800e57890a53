#include "kafka/server/broker.h"

#include <map>
#include <mutex>
#include <set>

#include "base/log.h"
#include "metrics/metrics.h"
#include "kafka/server/group_coordinator.h"

namespace mink::kafka {

namespace {

int16_t Code(ErrorCode c) { return ToWire(c); }

// The series of one Kafka API: requests answered and their latency (from the decoded request
// to the answer handed back, long polls and produce acknowledgements included).
struct ApiSeries {
  metrics::Counter requests;
  metrics::Histogram duration;
};

const ApiSeries& SeriesOf(int16_t api_key) {
  static std::mutex mutex;
  static std::map<int16_t, ApiSeries>* series = new std::map<int16_t, ApiSeries>();  // lives on
  std::lock_guard<std::mutex> lock(mutex);
  auto it = series->find(api_key);
  if (it == series->end()) {
    const metrics::Labels labels = {{"api", ApiName(api_key)}};
    it = series->emplace(api_key,
                         ApiSeries{metrics::CounterOf("mink_kafka_requests_total", "Kafka requests answered, by API.",
                                                      labels),
                                   metrics::HistogramOf("mink_kafka_request_duration_seconds",
                                                        "Kafka request latency, by API (long polls included).",
                                                        metrics::LatencyBuckets(), labels)})
             .first;
  }
  return it->second;
}

}  // namespace

Broker::Broker(BrokerOptions options, table::TableStore* tables, GroupCoordinator* groups)
    : options_(std::move(options)),
      tables_(tables),
      log_(&tables->bucket_log()),
      groups_(groups),
      topics_(tables, options_.default_partitions),
      fetch_pool_(options_.fetch_threads, "kafka-fetch"),
      ahead_(options_.fetch_read_ahead_bytes),
      ahead_pool_(options_.fetch_read_ahead_bytes > 0 ? 2 : 0, "kafka-ahead"),
      read_pool_(options_.fetch_read_threads, "kafka-read") {}

Broker::~Broker() { Stop(); }

void Broker::Stop() {
  stopping_ = true;
  fetch_pool_.Stop();
  read_pool_.Stop();   // a fetch runs the reads no thread took itself, so none waits on it
  ahead_pool_.Stop();  // queued read-aheads see stopping_ and skip their work
}

void Broker::Handle(const ParsedRequest& request, const ClientInfo& client, Respond answer) {
  const int16_t version = request.header.api_version;
  // Counted and timed when answered (maybe later, on another thread).
  Respond respond = [series = &SeriesOf(request.header.api_key), start = metrics::NowNanos(),
                     key = request.header.api_key, version, client_id = client.client_id, host = client.host,
                     answer = std::move(answer)](std::optional<Response> response) {
    const double seconds = metrics::SecondsSince(start);
    series->requests.Add();
    series->duration.Observe(seconds);
    MINK_LOG_DEBUG("kafka", "{} v{} from {} ({}) answered in {:.3f} ms", ApiName(key), version, client_id, host,
                   seconds * 1e3);
    answer(std::move(response));
  };
  if (auto refused = Refusal(request.body, client.user)) {
    // A produce with acks=0 expects no answer, refused or not (nothing is written either way).
    const auto* produce = std::get_if<ProduceRequest>(&request.body);
    respond(produce != nullptr && produce->acks == 0 ? std::nullopt
                                                     : std::optional<Response>(ErrorResponseFor(request.body, version, *refused)));
    return;
  }
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          respond(std::nullopt);
        } else if constexpr (std::is_same_v<T, ApiVersionsRequest>) {
          respond(Response(MakeApiVersionsResponse()));
        } else if constexpr (std::is_same_v<T, ProduceRequest>) {
          Produce(body, version, client.user, std::move(respond));
        } else if constexpr (std::is_same_v<T, FetchRequest>) {
          Fetch(body, version, std::move(respond));
        } else if constexpr (std::is_same_v<T, ListOffsetsRequest>) {
          respond(Response(ListOffsets(body, version)));
        } else if constexpr (std::is_same_v<T, MetadataRequest>) {
          respond(Response(Metadata(body, version, client.user)));
        } else if constexpr (std::is_same_v<T, FindCoordinatorRequest>) {
          respond(Response(FindCoordinator(body, version)));
        } else if constexpr (std::is_same_v<T, InitProducerIdRequest>) {
          respond(Response(InitProducerId(body)));
        } else if constexpr (std::is_same_v<T, CreateTopicsRequest>) {
          respond(Response(CreateTopics(body, version)));
        } else if constexpr (std::is_same_v<T, DeleteTopicsRequest>) {
          respond(Response(DeleteTopics(body, version)));
        } else if constexpr (std::is_same_v<T, DeleteRecordsRequest>) {
          respond(Response(DeleteRecords(body)));
        } else if constexpr (std::is_same_v<T, DescribeConfigsRequest>) {
          respond(Response(DescribeConfigs(body, version)));
        } else if constexpr (std::is_same_v<T, AddPartitionsToTxnRequest> ||
                             std::is_same_v<T, AddOffsetsToTxnRequest> ||
                             std::is_same_v<T, EndTxnRequest> ||
                             std::is_same_v<T, TxnOffsetCommitRequest>) {
          MINK_LOG_INFO("kafka", "refused {} from client {}: Mink does not support transactions",
                        ApiName(request.header.api_key), client.client_id);
          respond(ErrorResponseFor(request.body, version, ErrorCode::kInvalidTxnState));
        } else if constexpr (std::is_same_v<T, AlterConfigsRequest>) {
          // A topic's settings are its table's options, fixed at creation.
          MINK_LOG_INFO("kafka", "refused AlterConfigs from client {}: topic configs are fixed",
                        client.client_id);
          respond(ErrorResponseFor(request.body, version, ErrorCode::kInvalidConfig));
        } else if constexpr (std::is_same_v<T, CreatePartitionsRequest>) {
          // Partitions are the table's buckets, whose count is fixed (rows are routed by it).
          MINK_LOG_INFO("kafka", "refused CreatePartitions from client {}: a topic's partition "
                        "count is its table's bucket count, fixed at creation", client.client_id);
          respond(ErrorResponseFor(request.body, version, ErrorCode::kInvalidPartitions));
        } else if constexpr (std::is_same_v<T, DescribeAclsRequest> || std::is_same_v<T, CreateAclsRequest> ||
                             std::is_same_v<T, DeleteAclsRequest>) {
          if (options_.access == nullptr) {
            // Kafka's answer when no authorizer is configured.
            respond(ErrorResponseFor(request.body, version, ErrorCode::kSecurityDisabled));
          } else if constexpr (std::is_same_v<T, DescribeAclsRequest>) {
            respond(Response(DescribeAcls(body)));
          } else if constexpr (std::is_same_v<T, CreateAclsRequest>) {
            respond(Response(CreateAcls(body)));
          } else {
            respond(Response(DeleteAcls(body)));
          }
        } else if constexpr (std::is_same_v<T, SaslHandshakeRequest> ||
                             std::is_same_v<T, SaslAuthenticateRequest>) {
          // The connection answers these (sasl_session.h); one reaching here has no exchange.
          respond(ErrorResponseFor(request.body, version, ErrorCode::kIllegalSaslState));
        } else {
          HandleGroup(request, client, std::move(respond));
        }
      },
      request.body);
}

bool Broker::Leads(uint64_t stream) const {
  return options_.cluster == nullptr || tables_->Writes(stream);
}

int32_t Broker::LeaderEpoch(uint64_t stream) const {
  const int64_t epoch = log_->OffsetRange(stream).value_or(table::BucketLog::Range{}).epoch;
  return static_cast<int32_t>(std::min<int64_t>(epoch, INT32_MAX));
}

ErrorCode Broker::CheckLeaderEpoch(uint64_t stream, int32_t client_epoch) const {
  if (client_epoch < 0) return ErrorCode::kNone;
  const int32_t epoch = LeaderEpoch(stream);
  if (client_epoch < epoch) return ErrorCode::kFencedLeaderEpoch;
  if (client_epoch > epoch) return ErrorCode::kUnknownLeaderEpoch;
  return ErrorCode::kNone;
}

bool Broker::Coordinates(const std::string& group_id) const {
  return options_.cluster == nullptr || options_.cluster->GroupFence(group_id).has_value();
}

std::optional<BrokerAddress> Broker::AddressOf(int32_t node_id) const {
  if (node_id == options_.node_id) {
    return BrokerAddress{options_.node_id, options_.advertised_host, options_.advertised_port};
  }
  if (options_.cluster == nullptr) return std::nullopt;
  for (const auto& b : options_.cluster->Brokers()) {
    if (b.node_id == node_id) return b;
  }
  return std::nullopt;
}

MetadataResponse Broker::Metadata(const MetadataRequest& request, int16_t version, const std::string& user) {
  MetadataResponse response;
  std::vector<BrokerAddress> brokers;
  if (options_.cluster != nullptr) brokers = options_.cluster->Brokers();
  bool self_listed = false;
  for (const auto& b : brokers) self_listed |= b.node_id == options_.node_id;
  if (!self_listed) {
    brokers.push_back({options_.node_id, options_.advertised_host, options_.advertised_port});
  }
  std::set<int32_t> live;
  for (const auto& b : brokers) {
    response.brokers.push_back({b.node_id, b.host, b.port, std::nullopt});
    live.insert(b.node_id);
  }
  response.cluster_id = options_.cluster_id;
  response.controller_id =
      options_.cluster != nullptr && options_.cluster->Controller() != 0 ? options_.cluster->Controller()
                                                                          : options_.node_id;
  std::vector<std::string> names;
  bool all = !request.topics.has_value() || (version == 0 && request.topics->empty());
  if (all) {
    names = topics_.List();
    std::erase_if(names, [&](const std::string& t) { return !MayDescribeTopic(user, t); });
  } else {
    for (const auto& t : *request.topics) names.push_back(t.name);
  }
  // Before v4 there is no flag: the broker's policy decides.
  const bool create =
      options_.auto_create_topics && (version < 4 || request.allow_auto_topic_creation);
  for (const auto& name : names) {
    MetadataResponse::Topic topic;
    topic.name = name;
    if (!MayDescribeTopic(user, name)) {
      topic.error_code = Code(ErrorCode::kTopicAuthorizationFailed);
      response.topics.push_back(std::move(topic));
      continue;
    }
    Result<int32_t> partitions =
        create && !all && MayCreateTopic(user, name) ? topics_.Ensure(name) : topics_.Partitions(name);
    if (!partitions.ok()) {
      topic.error_code = Code(!ValidateTopicName(name).ok() ? ErrorCode::kInvalidTopicException
                                                            : ErrorCodeFromStatus(partitions.status()));
      response.topics.push_back(std::move(topic));
      continue;
    }
    for (int32_t p = 0; p < *partitions; ++p) {
      MetadataResponse::Partition part;
      part.partition_index = p;
      int32_t leader = options_.node_id;
      auto stream = tables_->BucketStream(TopicCatalog::TableName(name), p);
      if (options_.cluster != nullptr) {
        leader = stream.ok() ? options_.cluster->Owner(*stream) : 0;
        if (!live.count(leader)) leader = 0;
      }
      if (leader == 0) {
        // Moving between nodes: clients retry the metadata until it has a leader.
        part.error_code = Code(ErrorCode::kLeaderNotAvailable);
        part.leader_id = -1;
      } else {
        part.leader_id = leader;
        part.replica_nodes = {leader};
        part.isr_nodes = {leader};
      }
      part.leader_epoch = stream.ok() ? LeaderEpoch(*stream) : 0;
      topic.partitions.push_back(std::move(part));
    }
    response.topics.push_back(std::move(topic));
  }
  return response;
}

FindCoordinatorResponse Broker::FindCoordinator(const FindCoordinatorRequest& request,
                                                int16_t version) {
  FindCoordinatorResponse response;
  const bool transaction = request.key_type == 1;
  const ErrorCode code = transaction ? ErrorCode::kCoordinatorNotAvailable : ErrorCode::kNone;
  // The node that coordinates a group; none (COORDINATOR_NOT_AVAILABLE, retriable) while the
  // cluster view has no live broker for it.
  auto coordinator_of = [&](const std::string& key) {
    const int32_t node =
        options_.cluster != nullptr ? options_.cluster->GroupCoordinator(key) : options_.node_id;
    return AddressOf(node);
  };
  if (version >= 4) {
    for (const auto& key : request.coordinator_keys) {
      FindCoordinatorResponse::Coordinator c;
      c.key = key;
      auto at = coordinator_of(key);
      c.node_id = at ? at->node_id : -1;
      c.host = at ? at->host : "";
      c.port = at ? at->port : -1;
      c.error_code = Code(at || transaction ? code : ErrorCode::kCoordinatorNotAvailable);
      if (transaction) c.error_message = "Mink does not support transactions";
      response.coordinators.push_back(std::move(c));
    }
  } else {
    auto at = coordinator_of(request.key);
    response.error_code = Code(at || transaction ? code : ErrorCode::kCoordinatorNotAvailable);
    if (transaction) response.error_message = "Mink does not support transactions";
    response.node_id = at ? at->node_id : -1;
    response.host = at ? at->host : "";
    response.port = at ? at->port : -1;
  }
  return response;
}

InitProducerIdResponse Broker::InitProducerId(const InitProducerIdRequest& request) {
  InitProducerIdResponse response;
  if (request.transactional_id.has_value()) {
    MINK_LOG_INFO("kafka", "refused InitProducerId for transactional id {}: no transactions",
                  *request.transactional_id);
    response.error_code = Code(ErrorCode::kInvalidTxnState);
    return response;
  }
  // Every (re)initialisation gets a new producer id at epoch 0: a bumped epoch is a new id.
  auto id = tables_->InitWriter();
  if (!id.ok()) {
    response.error_code = Code(ErrorCodeFromStatus(id.status()));
    return response;
  }
  response.producer_id = *id;
  response.producer_epoch = 0;
  return response;
}

CreateTopicsResponse Broker::CreateTopics(const CreateTopicsRequest& request, int16_t version) {
  (void)version;
  CreateTopicsResponse response;
  for (const auto& t : request.topics) {
    CreateTopicsResponse::Topic result;
    result.name = t.name;
    // -1 asks for the broker's default; zero or another negative count is invalid, as in Kafka.
    int32_t partitions = t.num_partitions == -1 ? options_.default_partitions : t.num_partitions;
    Status valid = ValidateTopicName(t.name);
    if (!valid.ok()) {
      result.error_code = Code(ErrorCode::kInvalidTopicException);
      result.error_message = valid.message();
    } else if (!t.assignments.empty()) {
      result.error_code = Code(ErrorCode::kInvalidRequest);
      result.error_message = "manual partition assignments are not supported";
    } else if (partitions < 1 || partitions > 4096) {
      result.error_code = Code(ErrorCode::kInvalidPartitions);
      result.error_message = "a topic has 1 to 4096 partitions, not " + std::to_string(partitions);
    } else if (topics_.Partitions(t.name).ok()) {
      result.error_code = Code(ErrorCode::kTopicAlreadyExists);
      result.error_message = "topic " + t.name + " already exists";
    } else if (!request.validate_only) {
      std::vector<std::pair<std::string, std::string>> configs;
      for (const auto& c : t.configs) configs.emplace_back(c.name, c.value.value_or(""));
      Status s = topics_.Create(t.name, partitions, configs);
      if (!s.ok()) {
        result.error_code = Code(s.code() == StatusCode::kAlreadyExists
                                     ? ErrorCode::kTopicAlreadyExists
                                     : ErrorCodeFromStatus(s, ErrorContext::kTopicAdmin));
        result.error_message = s.message();
      }
    }
    if (result.error_code == 0) {
      result.num_partitions = partitions;
      result.replication_factor = 1;
    }
    response.topics.push_back(std::move(result));
  }
  return response;
}

DeleteTopicsResponse Broker::DeleteTopics(const DeleteTopicsRequest& request, int16_t version) {
  DeleteTopicsResponse response;
  std::vector<std::string> names = request.topic_names;
  if (version >= 6) {
    for (const auto& t : request.topics) {
      if (t.name) names.push_back(*t.name);
    }
  }
  for (const auto& name : names) {
    DeleteTopicsResponse::TopicResult result;
    result.name = name;
    Status s = topics_.Delete(name);
    // The topic's committed offsets go with it (as in Kafka), so a new topic of that name
    // starts without them.
    if (s.ok() && groups_ != nullptr) s = groups_->OnTopicDeleted(name);
    if (!s.ok()) {
      result.error_code = Code(ErrorCodeFromStatus(s, ErrorContext::kTopicAdmin));
      result.error_message = s.message();
    }
    response.responses.push_back(std::move(result));
  }
  return response;
}

DescribeConfigsResponse Broker::DescribeConfigs(const DescribeConfigsRequest& request,
                                                int16_t version) {
  DescribeConfigsResponse response;
  for (const auto& resource : request.resources) {
    DescribeConfigsResponse::ResourceResult result;
    result.resource_type = resource.resource_type;
    result.resource_name = resource.resource_name;
    std::vector<std::pair<std::string, std::string>> configs;
    if (resource.resource_type == 2) {  // TOPIC
      auto partitions = topics_.Partitions(resource.resource_name);
      if (!partitions.ok()) {
        result.error_code = Code(ErrorCode::kUnknownTopicOrPartition);
        result.error_message = partitions.status().message();
        response.results.push_back(std::move(result));
        continue;
      }
      configs = {{"retention.ms", std::to_string(topics_.RetentionMs(resource.resource_name))},
                 {"cleanup.policy", "delete"},
                 {"compression.type", "producer"},
                 {"message.timestamp.type", "CreateTime"},
                 {"max.message.bytes", std::to_string(options_.max_message_bytes)},
                 {"min.insync.replicas", "1"}};
    } else if (resource.resource_type == 4) {  // BROKER
      configs = {{"broker.id", std::to_string(options_.node_id)},
                 {"num.partitions", std::to_string(options_.default_partitions)},
                 {"auto.create.topics.enable", options_.auto_create_topics ? "true" : "false"},
                 {"message.max.bytes", std::to_string(options_.max_message_bytes)},
                 {"default.replication.factor", "1"},
                 {"log.retention.ms", std::to_string(tables_->DefaultLogTtl().count() == 0
                                                         ? -1
                                                         : tables_->DefaultLogTtl().count())}};
    } else {
      result.error_code = Code(ErrorCode::kInvalidRequest);
      result.error_message = "unsupported resource type " + std::to_string(resource.resource_type);
      response.results.push_back(std::move(result));
      continue;
    }
    for (const auto& [name, value] : configs) {
      if (resource.configuration_keys) {
        const auto& keys = *resource.configuration_keys;
        if (std::find(keys.begin(), keys.end(), name) == keys.end()) continue;
      }
      DescribeConfigsResponse::Config c;
      c.name = name;
      c.value = value;
      c.read_only = true;
      c.is_default = version == 0;
      c.config_source = resource.resource_type == 2 ? 1 : 4;  // TOPIC_CONFIG / STATIC_BROKER
      result.configs.push_back(std::move(c));
    }
    response.results.push_back(std::move(result));
  }
  return response;
}

}  // namespace mink::kafka
