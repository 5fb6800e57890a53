#include "stream/query_shape.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace mink::stream {
namespace {

using json = nlohmann::json;

std::string Literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

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
  MINK_ASSIGN_OR_RETURN(std::string text, TextOf(session, "SELECT json_serialize_sql(" + Literal(query) + ")"));
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
  return TextOf(session, "SELECT json_deserialize_sql(" + Literal(parsed.dump()) + ")");
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
    MINK_ASSIGN_OR_RETURN(json parsed, Parse(session_, query));
    json& node = parsed["statements"][0]["node"];
    if (node.value("type", "") != "SELECT_NODE") return InvalidArgumentError("a continuous query is a SELECT");
    const json& from = node["from_table"];
    if (from.value("type", "") != "BASE_TABLE") {
      return InvalidArgumentError("a continuous query reads one source by name (joins and subqueries are not "
                                  "supported yet)");
    }
    QueryShape shape;
    shape.source = from.value("table_name", "");
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
                                                   Literal(f) + " AND function_type = 'aggregate'"));
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
    if (shape.aggregates.empty() && keys.empty() && !window) {
      shape.batch_sql = query;  // a projection: DuckDB runs it over each batch as it is
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
    batch_node["select_list"] = std::move(columns);
    batch_node["group_expressions"] = json::array();
    batch_node["group_sets"] = json::array();
    MINK_ASSIGN_OR_RETURN(shape.batch_sql, Deparse(session_, batch));
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
    auto text = TextOf(session_, "SELECT CAST(round(epoch(CAST((" + sql + ") AS INTERVAL)) * 1000000) AS BIGINT)");
    if (!text.ok()) return InvalidArgumentError(what + " " + sql + " is not a constant interval");
    int64_t v = 0;
    try {
      v = std::stoll(*text);
    } catch (...) {
      return InvalidArgumentError(what + " " + sql + " is not a constant interval");
    }
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

}  // namespace mink::stream
