#include "metadata/commands_json.h"

namespace mink::metadata {

json ToJson(const AllocateWriterId& c) { return {{"writer", c.writer_id}}; }

void FromJson(const json& j, AllocateWriterId* c) { c->writer_id = j.at("writer").get<int64_t>(); }

}  // namespace mink::metadata
