#include "metadata/commands_json.h"

namespace mink::metadata {

json ToJson(const CommitKvSnapshot& c) {
  json j = {{"stream", c.stream_id}, {"key", c.key}, {"bucket", c.bucket_id},
            {"size", c.size},        {"offset", c.offset}};
  if (c.stream_epoch != 0) j["epoch"] = c.stream_epoch;
  if (!c.files.empty()) {
    json files = json::array();
    for (const auto& f : c.files) files.push_back({f.key, f.size});
    j["files"] = std::move(files);
  }
  return j;
}

void FromJson(const json& j, CommitKvSnapshot* c) {
  c->stream_id = j.at("stream").get<uint64_t>();
  c->key = j.at("key").get<std::string>();
  c->bucket_id = j.at("bucket").get<int32_t>();
  c->size = j.at("size").get<uint64_t>();
  c->offset = j.at("offset").get<int64_t>();
  c->stream_epoch = j.value("epoch", int64_t{0});
  if (j.contains("files")) {
    for (const auto& f : j.at("files")) {
      c->files.push_back({f.at(0).get<std::string>(), f.at(1).get<uint64_t>()});
    }
  }
}

}  // namespace mink::metadata
