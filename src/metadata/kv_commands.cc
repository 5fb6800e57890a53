#include "metadata/commands_json.h"

namespace mink::metadata {

json ToJson(const CommitKvSnapshot& c) {
  return {{"stream", c.stream_id}, {"key", c.key}, {"bucket", c.bucket_id},
          {"size", c.size},        {"offset", c.offset}};
}

void FromJson(const json& j, CommitKvSnapshot* c) {
  c->stream_id = j.at("stream").get<uint64_t>();
  c->key = j.at("key").get<std::string>();
  c->bucket_id = j.at("bucket").get<int32_t>();
  c->size = j.at("size").get<uint64_t>();
  c->offset = j.at("offset").get<int64_t>();
}

}  // namespace mink::metadata
