#include "flight/service/continuous_action.h"

#include <nlohmann/json.hpp>

#include "stream/sql_endpoint.h"

namespace mink::flight {

Result<nlohmann::json> RunContinuousSql(stream::Catalog& catalog, const std::string& sql, int64_t now_ms) {
  MINK_ASSIGN_OR_RETURN(auto statements, stream::ParseStatements(sql));
  nlohmann::json results = nlohmann::json::array();
  for (const auto& s : statements) {
    if (s.kind == stream::StatementKind::kQuery || s.kind == stream::StatementKind::kExplain) {
      return InvalidArgumentError("a query is answered by mink-query, not by continuous-sql: " + s.text);
    }
    MINK_ASSIGN_OR_RETURN(stream::StatementResult r, catalog.Execute(s, now_ms));
    nlohmann::json out = nlohmann::json::parse(stream::StatementResultJson(r));
    results.push_back(std::move(out));
  }
  return results;
}

}  // namespace mink::flight
