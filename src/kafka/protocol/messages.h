#pragma once
// Every message this library knows, as one variant per direction, and whole-frame helpers:
// what a server (or a load driver) uses to go from a frame payload to a typed message and back.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/result.h"
#include "kafka/protocol/acls.h"
#include "kafka/protocol/alter_configs.h"
#include "kafka/protocol/api_versions.h"
#include "kafka/protocol/create_partitions.h"
#include "kafka/protocol/create_topics.h"
#include "kafka/protocol/delete_groups.h"
#include "kafka/protocol/delete_records.h"
#include "kafka/protocol/delete_topics.h"
#include "kafka/protocol/describe_configs.h"
#include "kafka/protocol/describe_groups.h"
#include "kafka/protocol/fetch.h"
#include "kafka/protocol/find_coordinator.h"
#include "kafka/protocol/header.h"
#include "kafka/protocol/heartbeat.h"
#include "kafka/protocol/init_producer_id.h"
#include "kafka/protocol/join_group.h"
#include "kafka/protocol/leave_group.h"
#include "kafka/protocol/list_groups.h"
#include "kafka/protocol/list_offsets.h"
#include "kafka/protocol/metadata.h"
#include "kafka/protocol/offset_commit.h"
#include "kafka/protocol/offset_fetch.h"
#include "kafka/protocol/produce.h"
#include "kafka/protocol/sasl.h"
#include "kafka/protocol/sync_group.h"
#include "kafka/protocol/transactions.h"

// X(Api): one line per API; <Api>Request / <Api>Response are the structs.
#define MINK_KAFKA_FOR_EACH_API(X) \
  X(Produce)                       \
  X(Fetch)                         \
  X(ListOffsets)                   \
  X(Metadata)                      \
  X(OffsetCommit)                  \
  X(OffsetFetch)                   \
  X(FindCoordinator)               \
  X(JoinGroup)                     \
  X(Heartbeat)                     \
  X(LeaveGroup)                    \
  X(SyncGroup)                     \
  X(DescribeGroups)                \
  X(ListGroups)                    \
  X(ApiVersions)                   \
  X(CreateTopics)                  \
  X(DeleteTopics)                  \
  X(DeleteRecords)                 \
  X(InitProducerId)                \
  X(AddPartitionsToTxn)            \
  X(AddOffsetsToTxn)               \
  X(EndTxn)                        \
  X(TxnOffsetCommit)               \
  X(DescribeAcls)                  \
  X(CreateAcls)                    \
  X(DeleteAcls)                    \
  X(DescribeConfigs)               \
  X(AlterConfigs)                  \
  X(CreatePartitions)              \
  X(DeleteGroups)                  \
  X(SaslHandshake)                 \
  X(SaslAuthenticate)


namespace mink::kafka {

#define MINK_KAFKA_REQUEST_ALTERNATIVE(Api) , Api##Request
#define MINK_KAFKA_RESPONSE_ALTERNATIVE(Api) , Api##Response
using Request = std::variant<std::monostate MINK_KAFKA_FOR_EACH_API(MINK_KAFKA_REQUEST_ALTERNATIVE)>;
using Response =
    std::variant<std::monostate MINK_KAFKA_FOR_EACH_API(MINK_KAFKA_RESPONSE_ALTERNATIVE)>;
#undef MINK_KAFKA_REQUEST_ALTERNATIVE
#undef MINK_KAFKA_RESPONSE_ALTERNATIVE

// The API of a message (std::monostate, the empty state, has none: returns -1).
int16_t ApiKeyOf(const Request& request);
int16_t ApiKeyOf(const Response& response);

// Bodies (no header). The version must be in the API's supported range.
Result<Request> DecodeRequest(int16_t api_key, int16_t version, std::string_view body);
Status EncodeRequest(const Request& request, int16_t version, std::string* out);
Result<Response> DecodeResponse(int16_t api_key, int16_t version, std::string_view body);
Status EncodeResponse(const Response& response, int16_t version, std::string* out);

// The response to `request` that reports `code` for everything it asked about (each topic,
// partition, group or resource), for refusing a request the server cannot serve. (ApiVersions:
// the code with an empty api_keys list; use EncodeUnsupportedApiVersionsBody for version errors.)
Response ErrorResponseFor(const Request& request, int16_t version, ErrorCode code);

// A request frame payload (the bytes after the int32 size): header and decoded body.
struct ParsedRequest {
  RequestHeader header;
  Request body;
};
// Fails with InvalidArgument for a malformed header or body, and for unknown APIs or versions
// (check with FindApi/IsSupportedVersion first to answer those instead of failing).
Result<ParsedRequest> ParseRequestFrame(std::string_view payload);

// Appends a whole frame: int32 size, header, body.
Status AppendRequestFrame(const RequestHeader& header, const Request& body, std::string* out);
Status AppendResponseFrame(int32_t correlation_id, int16_t version, const Response& body,
                           std::string* out);
// The same frame with the large RECORDS fields of `body` left out of `out` and noted in
// `splices` (positions in `out`); the frame is `out` with each splice's bytes inserted at its
// position, and the size prefix counts them. The splices point into `body`.
Status AppendResponseFrame(int32_t correlation_id, int16_t version, const Response& body,
                           std::string* out, std::vector<Splice>* splices);

struct ParsedResponse {
  int32_t correlation_id = 0;
  Response body;
};
// Parses a response frame payload for a request of `api_key` at `version`.
Result<ParsedResponse> ParseResponseFrame(int16_t api_key, int16_t version,
                                          std::string_view payload);

}  // namespace mink::kafka
