#include "stream/query_shape.h"

#include <algorithm>
#include <iterator>
#include <regex>

#include <nlohmann/json.hpp>

#include "sql/quote.h"

namespace mink::stream {
namespace {

using json = nlohmann::json;

// The first column of the first row of `sql`, as text (DuckDB casts it).
Result<std::string> TextOf(sql::Session& session, const std::string& sql) {
  MINK_ASSIGN_OR_RETURN(auto batches, session.Collect("SELECT CAST((" + sql + ") AS VARCHAR)"));
  for (const auto& b : batches) {
    if (b->num_rows() == 0) continue;
    MINK_ASSIGN_OR_RETURN(auto values, ScalarsOf(b->Column(0)));
    return values[0].is_string() ? values[0].string_value() : std::string();
  }
  return InternalError("no answer to " + sql);
}

// DuckDB's parse of `query` (the whole json_serialize_sql answer).
Result<json> Parse(sql::Session& session, const std::string& query) {
  MINK_ASSIGN_OR_RETURN(std::string text, TextOf(session, "SELECT json_serialize_sql(" + sql::QuoteLiteral(query) + ")"));
  json parsed = json::parse(text, nullptr, false);
  if (!parsed.is_object()) return InternalError("DuckDB's parse tree is not JSON");
  if (parsed.value("error", false)) {
    return InvalidArgumentError(parsed.value("error_message", std::string("the query does not parse")));
  }
  if (!parsed.contains("statements") || parsed["statements"].size() != 1) {
    return InvalidArgumentError("a continuous query is one SELECT");
  }
  return parsed;
}

// SQL for the parse tree `parsed` (DuckDB's deserializer).
Result<std::string> Deparse(sql::Session& session, const json& parsed) {
  return TextOf(session, "SELECT json_deserialize_sql(" + sql::QuoteLiteral(parsed.dump()) + ")");
}

// A node without what does not change its meaning (positions, aliases), for comparisons.
json Canonical(const json& node) {
  if (node.is_object()) {
    json out = json::object();
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() != "query_location" && it.key() != "alias") out[it.key()] = Canonical(it.value());
    }
    return out;
  }
  if (node.is_array()) {
    json out = json::array();
    for (const auto& item : node) out.push_back(Canonical(item));
    return out;
  }
  return node;
}

std::string FunctionName(const json& node) {
  return node.value("class", "") == "FUNCTION" ? node.value("function_name", "") : "";
}

bool IsWindowCall(const std::string& f) { return f == "tumble" || f == "hop" || f == "session"; }
bool IsAggregate(const std::string& f) {
  return f == "count_star" || f == "count" || f == "sum" || f == "min" || f == "max" || f == "avg" || f == "mean";
}

class Shaper {
 public:
  explicit Shaper(sql::Session& session) : session_(session) {}

  Result<QueryShape> Shape(const std::string& query) {
    // DuckDB has no FOR SYSTEM_TIME AS OF: the clause is taken out before it parses the query.
    std::string text = query;
    MINK_ASSIGN_OR_RETURN(const bool temporal, StripTemporalClause(&text));
    MINK_ASSIGN_OR_RETURN(json parsed, Parse(session_, text));
    json& node = parsed["statements"][0]["node"];
    if (node.value("type", "") != "SELECT_NODE") return InvalidArgumentError("a continuous query is a SELECT");
    QueryShape shape;
    json& from = node["from_table"];
    if (from.value("type", "") == "JOIN") {
      if (temporal) {
        MINK_RETURN_IF_ERROR(TemporalJoin(&from, &shape));
      } else {
        MINK_RETURN_IF_ERROR(IntervalJoinOf(from, &shape));
      }
    } else if (from.value("type", "") != "BASE_TABLE") {
      return InvalidArgumentError("a continuous query reads one source by name (subqueries are not supported)");
    } else if (temporal) {
      return InvalidArgumentError("FOR SYSTEM_TIME AS OF belongs to the table of a join");
    } else {
      shape.source = from.value("table_name", "");
    }
    if (!node.value("modifiers", json::array()).empty()) {
      return InvalidArgumentError("ORDER BY, LIMIT and DISTINCT have no end on a stream: not in a continuous query");
    }
    if (!node.value("having", json()).is_null()) return InvalidArgumentError("HAVING is not supported yet");

    // GROUP BY: the window call, and the keys (a position names a select item).
    std::vector<json> key_nodes, keys;  // as written (alias dropped), and canonical
    std::optional<json> window;
    for (json group : node.value("group_expressions", json::array())) {
      if (group.value("class", "") == "CONSTANT" && group["value"].value("value", json()).is_number_integer()) {
        const int64_t at = group["value"]["value"].get<int64_t>();
        if (at < 1 || at > static_cast<int64_t>(node["select_list"].size())) {
          return InvalidArgumentError("GROUP BY " + std::to_string(at) + " names no column of the select list");
        }
        group = node["select_list"][static_cast<size_t>(at - 1)];
      }
      if (IsWindowCall(FunctionName(group))) {
        if (window) return InvalidArgumentError("a continuous query groups by one window");
        window = group;
        MINK_ASSIGN_OR_RETURN(shape.window, WindowOf(group));
      } else {
        keys.push_back(Canonical(group));
        key_nodes.push_back(WithAlias(std::move(group), ""));
      }
    }

    // The select list: each item is a key, the window's start or end, or an aggregate.
    std::vector<json> arguments;
    const json& items = node["select_list"];
    for (size_t i = 0; i < items.size(); ++i) {
      const json& item = items[i];
      ShapeOutput out;
      MINK_ASSIGN_OR_RETURN(out.name, NameOf(item));
      const std::string f = FunctionName(item);
      const json canonical = Canonical(item);
      if (!f.empty() && !IsAggregate(f) && !IsWindowCall(f)) {
        // An aggregate of DuckDB's that continuous queries do not keep: named as such.
        MINK_ASSIGN_OR_RETURN(std::string aggregate,
                              TextOf(session_, "SELECT count(*) > 0 FROM duckdb_functions() WHERE function_name = " +
                                                   sql::QuoteLiteral(f) + " AND function_type = 'aggregate'"));
        if (aggregate == "true") return AggregateKindOf(f, false, false).status();
      }
      if (IsAggregate(f)) {
        if (!item.value("filter", json()).is_null()) return InvalidArgumentError("FILTER on an aggregate is not supported yet");
        const bool star = f == "count_star";
        MINK_ASSIGN_OR_RETURN(AggregateKind kind, AggregateKindOf(f, star, item.value("distinct", false)));
        if (!star && item["children"].size() != 1) return InvalidArgumentError(f + " takes one argument here");
        out.kind = ShapeOutput::Kind::kAggregate;
        out.index = static_cast<int>(shape.aggregates.size());
        shape.aggregates.push_back(kind);
        arguments.push_back(star ? json() : item["children"][0]);
      } else if (window && canonical == Canonical(*window)) {
        out.kind = ShapeOutput::Kind::kWindowStart;
      } else if (window && (f == "tumble_end" || f == "hop_end") &&
                 Canonical(item["children"]) == Canonical((*window)["children"])) {
        out.kind = ShapeOutput::Kind::kWindowEnd;
      } else if (auto key = std::find(keys.begin(), keys.end(), canonical); key != keys.end()) {
        out.kind = ShapeOutput::Kind::kKey;
        out.index = static_cast<int>(key - keys.begin());
      } else {
        out.kind = ShapeOutput::Kind::kProjected;
      }
      shape.outputs.push_back(std::move(out));
    }
    if (shape.interval_join && (!shape.aggregates.empty() || !keys.empty() || window)) {
      return InvalidArgumentError("an interval join's query is a projection: aggregate its stream in another query");
    }
    if (shape.aggregates.empty() && keys.empty() && !window) {
      // A projection: DuckDB runs it over each batch as it is (a temporal join's table renamed).
      if (shape.lookup_table.empty()) {
        shape.batch_sql = query;
      } else {
        MINK_ASSIGN_OR_RETURN(shape.batch_sql, Deparse(session_, parsed));
      }
      return shape;
    }
    for (size_t i = 0; i < shape.outputs.size(); ++i) {
      if (shape.outputs[i].kind == ShapeOutput::Kind::kProjected) {
        return InvalidArgumentError("column " + std::to_string(i + 1) + " (" + shape.outputs[i].name +
                                    ") of the select list is neither a group key, the window nor an aggregate");
      }
    }

    // The per-batch query: keys, event time and arguments as plain columns, the WHERE kept.
    json columns = json::array();
    for (size_t k = 0; k < key_nodes.size(); ++k) columns.push_back(WithAlias(key_nodes[k], "k" + std::to_string(k)));
    if (window) {
      MINK_ASSIGN_OR_RETURN(json time, Wrapped("SELECT epoch_us(x) AS __time", (*window)["children"][0]));
      columns.push_back(std::move(time));
    }
    for (size_t a = 0; a < arguments.size(); ++a) {
      MINK_ASSIGN_OR_RETURN(json null_item, ItemOf("SELECT NULL AS a" + std::to_string(a)));
      columns.push_back(arguments[a].is_null() ? null_item : WithAlias(arguments[a], "a" + std::to_string(a)));
    }
    json batch = parsed;
    json& batch_node = batch["statements"][0]["node"];
    batch_node["select_list"] = columns;
    batch_node["group_expressions"] = json::array();
    batch_node["group_sets"] = json::array();
    MINK_ASSIGN_OR_RETURN(shape.batch_sql, Deparse(session_, batch));
    if (window) {
      // The same with each row's number in its batch last (late rows are told apart by it).
      MINK_ASSIGN_OR_RETURN(json row_number, ItemOf(std::string("SELECT ") + kRowNumber));
      batch_node["select_list"].push_back(std::move(row_number));
      MINK_ASSIGN_OR_RETURN(shape.numbered_batch_sql, Deparse(session_, batch));
    }
    for (const auto& key : key_nodes) {
      MINK_ASSIGN_OR_RETURN(std::string sql, ExpressionSql(key));
      shape.keys.push_back(std::move(sql));
    }
    for (const auto& a : arguments) {
      std::string text;
      if (!a.is_null()) {
        MINK_ASSIGN_OR_RETURN(text, ExpressionSql(a));
      }
      shape.arguments.push_back(std::move(text));
    }
    return shape;
  }

 private:
  // Takes `FOR SYSTEM_TIME AS OF column` out of `text`; whether it was there (at most once).
  static Result<bool> StripTemporalClause(std::string* text) {
    static const std::regex clause(R"(\bFOR\s+SYSTEM_TIME\s+AS\s+OF\s+[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)",
                                   std::regex::icase);
    const auto found = std::distance(std::sregex_iterator(text->begin(), text->end(), clause), std::sregex_iterator());
    if (found > 1) return InvalidArgumentError("a continuous query has one temporal join");
    if (found == 0) return false;
    *text = std::regex_replace(*text, clause, " ");
    return true;
  }

  // A temporal join's FROM: the stream on the left, a Mink table (db.t) on the right, ON a
  // conjunction of equalities of the table's columns with expressions of the stream. The table
  // becomes the view __lookup (its alias kept); `shape` gets the source and the lookup.
  Status TemporalJoin(json* from, QueryShape* shape) {
    json& left = (*from)["left"];
    json& right = (*from)["right"];
    if (left.value("type", "") != "BASE_TABLE" || right.value("type", "") != "BASE_TABLE" ||
        right.value("schema_name", "").empty()) {
      return InvalidArgumentError("a temporal join joins a source or stream with a table database.table");
    }
    const std::string join_type = from->value("join_type", "");
    if (join_type != "INNER" && join_type != "LEFT") {
      return InvalidArgumentError("a temporal join is an INNER or LEFT join, not " + join_type);
    }
    const std::string table_alias = right.value("alias", "").empty() ? right.value("table_name", "")
                                                                        : right.value("alias", "");
    std::vector<json> conditions;
    std::vector<json> pending{(*from)["condition"]};
    while (!pending.empty()) {
      json c = std::move(pending.back());
      pending.pop_back();
      if (c.value("type", "") == "CONJUNCTION_AND") {
        for (const auto& child : c["children"]) pending.push_back(child);
      } else {
        conditions.push_back(std::move(c));
      }
    }
    auto table_column = [&](const json& e) -> std::string {
      if (e.value("class", "") != "COLUMN_REF") return "";
      const auto& names = e["column_names"];
      return names.size() == 2 && names[0] == table_alias ? names[1].get<std::string>() : "";
    };
    json keys = json::array();
    for (const auto& c : conditions) {
      if (c.value("type", "") != "COMPARE_EQUAL") {
        return InvalidArgumentError("the ON of a temporal join is equalities of the table's columns (AND)");
      }
      std::string column = table_column(c["left"]);
      json other = c["right"];
      if (column.empty()) {
        column = table_column(c["right"]);
        other = c["left"];
      }
      if (column.empty() || other.dump().find("\"" + table_alias + "\"") != std::string::npos) {
        return InvalidArgumentError("the ON of a temporal join compares a column of " + table_alias +
                                    " with an expression of the stream");
      }
      shape->lookup_columns.push_back(column);
      keys.push_back(WithAlias(other, column));
    }
    shape->source = left.value("table_name", "");
    shape->lookup_table = right.value("schema_name", "") + "." + right.value("table_name", "");
    // The keys of a batch: SELECT DISTINCT <expressions> FROM <the stream as the query names it>.
    MINK_ASSIGN_OR_RETURN(json lookup, Parse(session_, "SELECT 1"));
    lookup["statements"][0]["node"]["select_list"] = std::move(keys);
    lookup["statements"][0]["node"]["from_table"] = left;
    MINK_ASSIGN_OR_RETURN(std::string keys_sql, Deparse(session_, lookup));
    shape->lookup_sql = "SELECT DISTINCT * FROM (" + keys_sql + ")";
    right["schema_name"] = "";
    right["catalog_name"] = "";
    right["table_name"] = "__lookup";
    right["alias"] = table_alias;
    return Status::Ok();
  }

  // An interval join's FROM: two sources or streams by name, ON equalities and one
  // `x.t BETWEEN y.t - INTERVAL a AND y.t + INTERVAL b` relating their event times.
  Status IntervalJoinOf(const json& from, QueryShape* shape) {
    const json& left = from["left"];
    const json& right = from["right"];
    const std::string refused =
        "a join is an interval join of two sources or streams (ON ... AND b.ts BETWEEN a.ts - INTERVAL ... AND "
        "a.ts + INTERVAL ...) or a temporal join of a table (JOIN db.t FOR SYSTEM_TIME AS OF s.ts AS t ON ...)";
    if (left.value("type", "") != "BASE_TABLE" || right.value("type", "") != "BASE_TABLE" ||
        !right.value("schema_name", "").empty() || from.value("join_type", "") != "INNER") {
      return InvalidArgumentError(refused + "; an interval join is an INNER join");
    }
    auto alias_of = [](const json& t) {
      return t.value("alias", "").empty() ? t.value("table_name", "") : t.value("alias", "");
    };
    const std::string left_alias = alias_of(left), right_alias = alias_of(right);
    std::vector<json> pending{from["condition"]};
    std::optional<json> between;
    while (!pending.empty()) {
      json c = std::move(pending.back());
      pending.pop_back();
      if (c.value("type", "") == "CONJUNCTION_AND") {
        for (const auto& child : c["children"]) pending.push_back(child);
      } else if (c.value("type", "") == "COMPARE_BETWEEN") {
        between = std::move(c);
      }
    }
    auto column = [](const json& e) -> std::pair<std::string, std::string> {
      if (e.value("class", "") != "COLUMN_REF" || e["column_names"].size() != 2) return {};
      return {e["column_names"][0].get<std::string>(), e["column_names"][1].get<std::string>()};
    };
    if (!between) return InvalidArgumentError(refused);
    const auto input = column((*between)["input"]);
    const json& lower = (*between)["lower"];
    const json& upper = (*between)["upper"];
    if (FunctionName(lower) != "-" || FunctionName(upper) != "+" || lower["children"].size() != 2 ||
        upper["children"].size() != 2) {
      return InvalidArgumentError(refused);
    }
    const auto from_lower = column(lower["children"][0]);
    const auto from_upper = column(upper["children"][0]);
    if (input.first.empty() || from_lower.first.empty() || from_lower != from_upper || input.first == from_lower.first ||
        (input.first != left_alias && input.first != right_alias) ||
        (from_lower.first != left_alias && from_lower.first != right_alias)) {
      return InvalidArgumentError(refused);
    }
    MINK_ASSIGN_OR_RETURN(int64_t before, Micros(lower["children"][1], "the interval join's lower bound"));
    MINK_ASSIGN_OR_RETURN(int64_t after, Micros(upper["children"][1], "the interval join's upper bound"));
    QueryShape::IntervalJoin join;
    join.right_source = right.value("table_name", "");
    join.left_time = input.first == left_alias ? input.second : from_lower.second;
    join.right_time = input.first == right_alias ? input.second : from_lower.second;
    join.bound = std::max(before, after);
    shape->source = left.value("table_name", "");
    if (shape->source == join.right_source) return InvalidArgumentError("an interval join joins two different inputs");
    shape->interval_join = std::move(join);
    return Status::Ok();
  }

  static json WithAlias(json node, const std::string& alias) {
    node["alias"] = alias;
    return node;
  }
  // The first select item of `sql` (a template whose parts are replaced).
  Result<json> ItemOf(const std::string& sql) {
    MINK_ASSIGN_OR_RETURN(json parsed, Parse(session_, sql));
    return parsed["statements"][0]["node"]["select_list"][0];
  }
  // The template `sql`'s first item (a function of x) with x replaced by `argument`.
  Result<json> Wrapped(const std::string& sql, const json& argument) {
    MINK_ASSIGN_OR_RETURN(json item, ItemOf(sql));
    item["children"][0] = argument;
    return item;
  }
  // SQL text of an expression.
  Result<std::string> ExpressionSql(const json& expression) {
    MINK_ASSIGN_OR_RETURN(json parsed, Parse(session_, "SELECT 1"));
    parsed["statements"][0]["node"]["select_list"][0] = WithAlias(expression, "");
    MINK_ASSIGN_OR_RETURN(std::string text, Deparse(session_, parsed));
    return text.rfind("SELECT ", 0) == 0 ? text.substr(7) : text;
  }
  Result<std::string> NameOf(const json& item) {
    if (!item.value("alias", "").empty()) return item["alias"].get<std::string>();
    if (item.value("class", "") == "COLUMN_REF" && !item["column_names"].empty()) {
      return item["column_names"].back().get<std::string>();
    }
    return ExpressionSql(item);
  }
  // Microseconds of a constant interval argument (DuckDB evaluates it).
  Result<int64_t> Micros(const json& argument, const std::string& what) {
    MINK_ASSIGN_OR_RETURN(std::string sql, ExpressionSql(argument));
    MINK_ASSIGN_OR_RETURN(int64_t v, IntervalMicros(session_, sql, what));
    if (v <= 0) return InvalidArgumentError(what + " " + sql + " is not positive");
    return v;
  }
  Result<WindowSpec> WindowOf(const json& call) {
    const std::string f = FunctionName(call);
    const json& args = call["children"];
    WindowSpec spec;
    if (f == "tumble") {
      if (args.size() != 2 && args.size() != 3) return InvalidArgumentError("tumble(time, size [, offset])");
      MINK_ASSIGN_OR_RETURN(int64_t size, Micros(args[1], "tumble's size"));
      spec = WindowSpec::Tumble(size);
      if (args.size() == 3) {
        MINK_ASSIGN_OR_RETURN(spec.offset, Micros(args[2], "tumble's offset"));
      }
    } else if (f == "hop") {
      if (args.size() != 3) return InvalidArgumentError("hop(time, slide, size)");
      MINK_ASSIGN_OR_RETURN(int64_t slide, Micros(args[1], "hop's slide"));
      MINK_ASSIGN_OR_RETURN(int64_t size, Micros(args[2], "hop's size"));
      spec = WindowSpec::Hop(slide, size);
    } else {
      if (args.size() != 2) return InvalidArgumentError("session(time, gap)");
      MINK_ASSIGN_OR_RETURN(int64_t gap, Micros(args[1], "session's gap"));
      spec = WindowSpec::Session(gap);
    }
    MINK_RETURN_IF_ERROR(spec.Check());
    return spec;
  }

  sql::Session& session_;
};

}  // namespace

Result<QueryShape> ShapeOf(sql::Session& session, const std::string& query) { return Shaper(session).Shape(query); }

Result<int64_t> IntervalMicros(sql::Session& session, const std::string& sql, const std::string& what) {
  auto text = TextOf(session, "SELECT CAST(round(epoch(CAST((" + sql + ") AS INTERVAL)) * 1000000) AS BIGINT)");
  if (!text.ok()) return InvalidArgumentError(what + " " + sql + " is not a constant interval");
  try {
    return static_cast<int64_t>(std::stoll(*text));
  } catch (...) {
    return InvalidArgumentError(what + " " + sql + " is not a constant interval");
  }
}

}  // namespace mink::stream
