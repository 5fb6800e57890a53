#pragma once
// The `continuous-sql` action (docs/flight-api.md): continuous SQL's statements carried out by
// the node's stream::Catalog. Body {"sql": "..."} (one or more statements); the answer is one
// JSON object per statement, in order: {"result_type", "object_name"} or, for SHOW and
// DESCRIBE, {"result_type": "metadata", "data": [{column: text, ...}, ...]}. A plain query is
// refused (mink-query answers those); statements before the first failure stay done.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "stream/catalog.h"

namespace mink::flight {

Result<nlohmann::json> RunContinuousSql(stream::Catalog& catalog, const std::string& sql, int64_t now_ms);

}  // namespace mink::flight
