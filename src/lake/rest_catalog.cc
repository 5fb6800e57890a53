#include "lake/rest_catalog.h"

#include <chrono>
#include <functional>
#include <set>

#include "base/log.h"
#include "lake/iceberg.h"
#include "lake/rest_common.h"
#include "lake/table_metadata.h"
#include "lake/tiered_commit.h"

namespace mink::lake {
namespace {

using metadata::NamespaceName;
using namespace rest;  // NOLINT: the REST catalog's shared helpers

constexpr int kCommitAttempts = 5;

// What a commit's change needs: write when it only adds, removes or points at snapshots and
// statistics (what an engine's writes do); admin otherwise.
auth::Operation CommitNeeds(const TableChange& change) {
  return change.OnlyWrites() ? auth::Operation::kWrite : auth::Operation::kAdmin;
}

// Where a table named in the catalog is.
struct TableRef {
  bool mink = false;          // a Mink table: tiering owns it
  bool tiered = false;        // a Mink table with a lake snapshot
  std::string location;       // its current metadata file ("" when none)
};

}  // namespace

// One request: routing and the operations.
class RestCatalog::Call {
 public:
  Call(RestCatalog* catalog, const http::ServerRequest& request) : c_(*catalog), r_(request) {}

  http::ServerResponse Run() {
    using auth::Operation;
    std::vector<std::string> parts;
    for (auto& p : Split(r_.path, '/')) {
      if (!p.empty()) parts.push_back(std::move(p));
    }
    if (parts.empty() || parts[0] != "v1") return NotFoundPath();
    parts.erase(parts.begin());
    if (parts == std::vector<std::string>{"oauth", "tokens"}) {
      return r_.method == "POST" ? c_.access_.Token(r_) : MethodNotAllowed();
    }
    auto user = c_.access_.Authenticate(r_);
    if (!user.ok()) {
      auto refused = ErrorResponse(401, "NotAuthorizedException", user.status().message());
      refused.headers.emplace_back("WWW-Authenticate", "Bearer, Basic realm=\"mink\"");
      return refused;
    }
    user_ = *user;
    // A key is its user's: nobody is answered another user's recorded outcome.
    if (std::string key = r_.Header("idempotency-key"); !key.empty()) key_ = user_.empty() ? key : user_ + "\n" + key;
    static const std::set<std::string> kRoots = {"config", "namespaces", "tables", "transactions"};
    if (!parts.empty() && !kRoots.count(parts[0])) parts.erase(parts.begin());  // a {prefix}
    if (parts.empty()) return NotFoundPath();
    const std::string& m = r_.method;
    const bool mutation = m == "POST" || m == "DELETE";
    if (mutation && !key_.empty()) {
      if (auto replay = Replay()) return *replay;
    }
    if (parts[0] == "config" && parts.size() == 1 && m == "GET") return Config();
    if (parts[0] == "tables" && parts.size() == 2 && parts[1] == "rename" && m == "POST") return Rename();
    if (parts[0] == "transactions" && parts.size() == 2 && parts[1] == "commit" && m == "POST") {
      return CommitTransaction();
    }
    if (parts[0] != "namespaces") return NotFoundPath();
    if (parts.size() == 1) {
      if (m == "GET") return ListNamespaces();
      if (m == "POST") return CreateNamespace();
      return MethodNotAllowed();
    }
    const NamespaceName space = Split(parts[1], '\x1f');
    const auth::Resource database = RestAccess::NamespaceResource(space);
    if (parts.size() == 2) {
      if (m == "GET" || m == "HEAD") return LoadNamespace(space);
      if (m == "DELETE") {
        if (auto no = Refused(database, Operation::kAdmin)) return *no;
        return DropNamespace(space);
      }
      return MethodNotAllowed();
    }
    if (parts.size() == 3 && parts[2] == "properties" && m == "POST") {
      if (auto no = Refused(database, Operation::kAdmin)) return *no;
      return UpdateNamespace(space);
    }
    if (parts.size() == 3 && parts[2] == "register" && m == "POST") return Register(space);
    if (parts[2] != "tables") return NotFoundPath();
    if (parts.size() == 3) {
      if (m == "GET") return ListTables(space);
      if (m == "POST") return CreateTable(space);
      return MethodNotAllowed();
    }
    const std::string& name = parts[3];
    const auth::Resource table = RestAccess::TableResource(space, name);
    if (parts.size() == 5 && parts[4] == "metrics" && m == "POST") {
      if (auto no = Refused(table, Operation::kDescribe)) return *no;
      return NoContent();
    }
    if (parts.size() != 4) return NotFoundPath();
    if (m == "GET" || m == "HEAD") {
      if (auto no = Refused(table, Operation::kDescribe)) return *no;
      return LoadTable(space, name);
    }
    if (m == "POST") return CommitTable(space, name);
    if (m == "DELETE") {
      if (auto no = Refused(table, Operation::kAdmin)) return *no;
      return DropTable(space, name);
    }
    return MethodNotAllowed();
  }

 private:
  http::ServerResponse NotFoundPath() {
    return ErrorResponse(404, "NoSuchEndpointException", r_.method + " " + r_.path + " is not an endpoint of this catalog");
  }
  http::ServerResponse MethodNotAllowed() {
    return ErrorResponse(405, "MethodNotAllowedException", r_.method + " is not allowed on " + r_.path);
  }

  metadata::IdempotentOutcome Outcome(int status, const Json& body) const {
    return {key_, status, key_.empty() || body.is_null() ? std::string() : body.dump()};
  }

  // The recorded outcome of this Idempotency-Key, if any. A table's result is kept without its
  // metadata (null), which is read again from the metadata location.
  std::optional<http::ServerResponse> Replay() {
    auto record = c_.meta_->Read([&](const metadata::State& s) -> std::optional<metadata::IdempotentRecord> {
      auto it = s.idempotent_outcomes().find(key_);
      if (it == s.idempotent_outcomes().end()) return std::nullopt;
      return it->second;
    });
    if (!record) return std::nullopt;
    if (record->body.empty()) return http::ServerResponse{record->status, "application/json", "", {}};
    Json body = Json::parse(record->body, nullptr, false);
    if (body.is_object() && body.contains("metadata-location") &&
        (!body.contains("metadata") || body.at("metadata").is_null())) {
      auto metadata = ReadMetadata(body.at("metadata-location").get<std::string>());
      if (!metadata.ok()) return ErrorFor(metadata.status());
      body["metadata"] = std::move(*metadata);
    }
    return JsonResponse(record->status, body);
  }

  // Appends the command `build` makes; a used key (a concurrent retry) answers as recorded.
  Result<int64_t> Append(const metadata::MetadataLog::Builder& build) {
    auto seq = c_.meta_->Append(build);
    return seq;
  }

  Result<Json> ReadMetadata(const std::string& location) {
    MINK_ASSIGN_OR_RETURN(std::string text, c_.warehouse_->Read(location));
    try {
      return Json::parse(text);
    } catch (const std::exception& e) {
      return DataLossError("the table metadata file " + location + " is not JSON: " + e.what());
    }
  }

  Result<TableRef> Find(const NamespaceName& space, const std::string& name) {
    return c_.meta_->Read([&](const metadata::State& s) -> Result<TableRef> {
      if (!s.LakeNamespaceExists(space)) return NotFoundError("namespace " + Dotted(space) + " does not exist");
      if (const metadata::TableState* t = s.MinkTableOf(space, name)) {
        TableRef ref{true, false, ""};
        auto lake = s.lake_tables().find(t->table_id);
        if (lake != s.lake_tables().end() && !lake->second.metadata_location.empty()) {
          ref.tiered = true;
          ref.location = lake->second.metadata_location;
        }
        return ref;
      }
      auto it = s.lake_catalog_tables().find({space, name});
      if (it == s.lake_catalog_tables().end()) {
        return NotFoundError("table " + Dotted(space) + "." + name + " does not exist");
      }
      return TableRef{false, false, it->second.metadata_location};
    });
  }

  http::ServerResponse Config() {
    static const char* kEndpoints[] = {
        "GET /v1/{prefix}/namespaces",
        "POST /v1/{prefix}/namespaces",
        "GET /v1/{prefix}/namespaces/{namespace}",
        "HEAD /v1/{prefix}/namespaces/{namespace}",
        "DELETE /v1/{prefix}/namespaces/{namespace}",
        "POST /v1/{prefix}/namespaces/{namespace}/properties",
        "GET /v1/{prefix}/namespaces/{namespace}/tables",
        "POST /v1/{prefix}/namespaces/{namespace}/tables",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/register",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
        "POST /v1/{prefix}/tables/rename",
        "POST /v1/{prefix}/transactions/commit",
    };
    Json endpoints = Json::array();
    for (const char* e : kEndpoints) endpoints.push_back(e);
    return JsonResponse(200, Json{{"defaults", Json::object()},
                                  {"overrides", Json::object()},
                                  {"endpoints", endpoints},
                                  {"idempotency-key-lifetime", "PT30M"}});
  }

  // A list answer: `field` holds the page of items `item(i)` makes, next-page-token the rest.
  http::ServerResponse Paged(const char* field, const std::vector<std::string>& keys,
                             const std::function<Json(size_t)>& item) {
    auto page = PageOf(r_, keys);
    if (!page.ok()) return ErrorFor(page.status());
    Json out = Json::array();
    for (size_t i = page->begin; i < page->end; ++i) out.push_back(item(i));
    return JsonResponse(200, Json{{field, out}, {"next-page-token", page->next}});
  }

  // Namespaces -------------------------------------------------------------------------------

  http::ServerResponse ListNamespaces() {
    NamespaceName parent;
    if (!r_.Query("parent").empty()) parent = Split(r_.Query("parent"), '\x1f');
    auto listed = c_.meta_->Read([&](const metadata::State& s) -> Result<std::set<NamespaceName>> {
      std::set<NamespaceName> all;
      for (const auto& [name, db] : s.databases()) all.insert({name});
      for (const auto& [name, ns] : s.lake_namespaces()) all.insert(name);
      std::set<NamespaceName> children;
      bool parent_seen = parent.empty();
      for (const auto& name : all) {
        if (name.size() < parent.size() || !std::equal(parent.begin(), parent.end(), name.begin())) continue;
        parent_seen = true;
        if (name.size() > parent.size()) children.insert(NamespaceName(name.begin(), name.begin() + parent.size() + 1));
      }
      if (!parent_seen) return NotFoundError("namespace " + Dotted(parent) + " does not exist");
      return children;
    });
    if (!listed.ok()) return ErrorFor(listed.status());
    std::vector<std::string> keys;
    std::vector<NamespaceName> names;
    c_.meta_->Read([&](const metadata::State& s) {
      for (const auto& name : *listed) {
        if (!c_.access_.MaySee(user_, s, name)) continue;
        keys.push_back(Dotted(name));
        names.push_back(name);
      }
    });
    return Paged("namespaces", keys, [&](size_t i) { return Json(names[i]); });
  }

  http::ServerResponse CreateNamespace() {
    auto body = ParseBody(r_.body);
    if (!body.ok()) return ErrorFor(body.status());
    auto request = ReadCreateNamespace(*body);
    if (!request.ok()) return ErrorFor(request.status());
    if (auto no = Refused(RestAccess::NamespaceResource(request->space), auth::Operation::kAdmin)) return *no;
    const Json response{{"namespace", request->space}, {"properties", request->properties}};
    auto seq = Append([&](const metadata::State&) -> Result<metadata::Command> {
      return metadata::Command(metadata::CreateLakeNamespace{request->space, request->properties, Outcome(200, response)});
    });
    if (!seq.ok()) return Retried(seq.status(), "NoSuchNamespaceException");
    return JsonResponse(200, response);
  }

  // A mutation refused because its key was used meanwhile (a concurrent retry): its outcome.
  http::ServerResponse Retried(const Status& s, const std::string& missing) {
    if (s.code() == StatusCode::kAborted && !key_.empty()) {
      if (auto replay = Replay()) return *replay;
    }
    if (s.code() == StatusCode::kFailedPrecondition && s.message().find("not empty") != std::string::npos) {
      return ErrorResponse(409, "NamespaceNotEmptyException", s.message());
    }
    if (s.code() == StatusCode::kFailedPrecondition && s.message().find("Mink") != std::string::npos) {
      return ErrorResponse(403, "ForbiddenException", s.message());
    }
    return ErrorFor(s, missing);
  }

  Result<std::map<std::string, std::string>> NamespaceProperties(const NamespaceName& space) {
    return c_.meta_->Read([&](const metadata::State& s) -> Result<std::map<std::string, std::string>> {
      if (!s.LakeNamespaceExists(space)) return NotFoundError("namespace " + Dotted(space) + " does not exist");
      auto it = s.lake_namespaces().find(space);
      return it == s.lake_namespaces().end() ? std::map<std::string, std::string>() : it->second.properties;
    });
  }

  http::ServerResponse LoadNamespace(const NamespaceName& space) {
    if (!c_.meta_->Read([&](const metadata::State& s) { return c_.access_.MaySee(user_, s, space); })) {
      return *Refused(RestAccess::NamespaceResource(space), auth::Operation::kDescribe);
    }
    auto properties = NamespaceProperties(space);
    if (!properties.ok()) return ErrorFor(properties.status(), "NoSuchNamespaceException");
    if (r_.method == "HEAD") return NoContent();
    return JsonResponse(200, Json{{"namespace", space}, {"properties", *properties}});
  }

  http::ServerResponse DropNamespace(const NamespaceName& space) {
    auto seq = Append([&](const metadata::State&) -> Result<metadata::Command> {
      return metadata::Command(metadata::DropLakeNamespace{space, Outcome(204, Json())});
    });
    if (!seq.ok()) return Retried(seq.status(), "NoSuchNamespaceException");
    return NoContent();
  }

  http::ServerResponse UpdateNamespace(const NamespaceName& space) {
    auto body = ParseBody(r_.body);
    if (!body.ok()) return ErrorFor(body.status());
    auto request = ReadUpdateNamespace(*body);
    if (!request.ok()) return ErrorFor(request.status());
    metadata::UpdateLakeNamespace update;
    update.name = space;
    update.removals = std::move(request->removals);
    update.updates = std::move(request->updates);
    Json response;
    auto seq = Append([&](const metadata::State& s) -> Result<metadata::Command> {
      std::map<std::string, std::string> current;
      if (auto it = s.lake_namespaces().find(space); it != s.lake_namespaces().end()) current = it->second.properties;
      Json updated = Json::array(), removed = Json::array(), missing = Json::array();
      for (const auto& [k, v] : update.updates) updated.push_back(k);
      for (const auto& k : update.removals) (current.count(k) ? removed : missing).push_back(k);
      response = Json{{"updated", updated}, {"removed", removed}, {"missing", missing}};
      metadata::UpdateLakeNamespace c = update;
      c.outcome = Outcome(200, response);
      return metadata::Command(std::move(c));
    });
    if (!seq.ok()) return Retried(seq.status(), "NoSuchNamespaceException");
    return JsonResponse(200, response);
  }

  // Tables -----------------------------------------------------------------------------------

  http::ServerResponse ListTables(const NamespaceName& space) {
    auto listed = c_.meta_->Read([&](const metadata::State& s) -> Result<std::vector<std::string>> {
      if (!s.LakeNamespaceExists(space)) return NotFoundError("namespace " + Dotted(space) + " does not exist");
      std::vector<std::string> names;
      for (const auto& [id, lake] : s.lake_tables()) {
        const metadata::TableState* t = s.FindTable(id);
        if (t != nullptr && space.size() == 1 && t->database == space[0] && !lake.metadata_location.empty()) {
          names.push_back(t->name);
        }
      }
      for (const auto& [name, t] : s.lake_catalog_tables()) {
        if (name.first == space) names.push_back(name.second);
      }
      std::sort(names.begin(), names.end());
      return names;
    });
    if (!listed.ok()) return ErrorFor(listed.status(), "NoSuchNamespaceException");
    std::vector<std::string> names;
    for (const auto& name : *listed) {
      if (c_.access_.May(user_, RestAccess::TableResource(space, name), auth::Operation::kDescribe)) names.push_back(name);
    }
    return Paged("identifiers", names, [&](size_t i) { return Json{{"namespace", space}, {"name", names[i]}}; });
  }

  static Json LoadResult(const std::string& location, Json metadata) {
    Json out{{"metadata", std::move(metadata)}, {"config", Json::object()}};
    if (!location.empty()) out["metadata-location"] = location;
    return out;
  }

  http::ServerResponse LoadTable(const NamespaceName& space, const std::string& name) {
    auto ref = Find(space, name);
    if (!ref.ok()) return ErrorFor(ref.status());
    if (ref->mink && !ref->tiered) {
      return ErrorResponse(404, "NoSuchTableException",
                           "table " + Dotted(space) + "." + name +
                               " is a Mink table without a lake snapshot (not tiered, or not yet: "
                               "tiering commits the first within the table's freshness)");
    }
    const std::string etag = "\"" + std::to_string(std::hash<std::string>{}(ref->location)) + "\"";
    if (r_.Header("if-none-match") == etag) return http::ServerResponse{304, "application/json", "", {{"ETag", etag}}};
    if (r_.method == "HEAD") return http::ServerResponse{204, "application/json", "", {{"ETag", etag}}};
    auto metadata = ReadMetadata(ref->location);
    if (!metadata.ok()) return ErrorFor(metadata.status());
    auto response = JsonResponse(200, LoadResult(ref->location, std::move(*metadata)));
    response.headers.push_back({"ETag", etag});
    return response;
  }

  // The default location of a new table: <warehouse>/<namespace levels>/<name>.
  Result<std::string> DefaultLocation(const NamespaceName& space, const std::string& name) {
    std::string key;
    for (const auto& level : space) key += level + "/";
    key += name;
    const std::string uri = c_.warehouse_->Uri(key);
    if (!c_.warehouse_->KeyOf(uri).ok()) {
      return InvalidArgumentError("table " + Dotted(space) + "." + name +
                                  " needs a location: its names make no object key (letters, digits, . _ = - only)");
    }
    return uri;
  }

  http::ServerResponse CreateTable(const NamespaceName& space) {
    auto body = ParseBody(r_.body);
    if (!body.ok()) return ErrorFor(body.status());
    auto request = ReadCreateTable(*body);
    if (!request.ok()) return ErrorFor(request.status());
    const std::string& name = request->name;
    if (auto no = Refused(RestAccess::TableResource(space, name), auth::Operation::kAdmin)) return *no;
    auto exists = Find(space, name);
    if (exists.ok()) return ErrorResponse(409, "AlreadyExistsException", "table " + Dotted(space) + "." + name + " already exists");
    if (exists.status().message().rfind("namespace", 0) == 0) return ErrorFor(exists.status());
    Result<std::string> location =
        !request->location.empty() ? Result<std::string>(request->location) : DefaultLocation(space, name);
    if (!location.ok()) return ErrorFor(location.status());
    while (!location->empty() && location->back() == '/') location->pop_back();
    if (auto key = c_.warehouse_->KeyOf(*location); !key.ok()) {
      return ErrorResponse(400, "BadRequestException",
                           "location " + *location + " is not in this catalog's warehouse " + c_.warehouse_->base_uri());
    }
    const metadata::LakeTableName self{space, name};
    auto free = [&](const metadata::State& s) { return c_.locations_.CheckFree(s, *location, self); };
    if (Status st = c_.locations_.CheckFreeNow(*c_.meta_, *location, self); !st.ok()) return ErrorFor(st);
    auto metadata = NewTableMetadata(*body, *location, NewUuid(), NowMs());
    if (!metadata.ok()) return ErrorFor(metadata.status());
    if (request->stage_create) return JsonResponse(200, LoadResult("", *metadata));
    const std::string file = NextMetadataFile(*location, "");
    if (Status s = c_.warehouse_->Write(file, metadata->dump(2)); !s.ok()) return ErrorFor(s);
    auto seq = Append([&](const metadata::State& s) -> Result<metadata::Command> {
      MINK_RETURN_IF_ERROR(free(s));  // again, on the state the command lands on
      return metadata::Command(metadata::CommitLakeCatalog{{metadata::LakeTableMove{space, name, "", file}},
                                                           Outcome(200, LoadResult(file, nullptr))});
    });
    if (!seq.ok()) return Retried(seq.status(), "NoSuchTableException");
    return JsonResponse(200, LoadResult(file, std::move(*metadata)));
  }

  http::ServerResponse Register(const NamespaceName& space) {
    auto body = ParseBody(r_.body);
    if (!body.ok()) return ErrorFor(body.status());
    auto request = ReadRegisterTable(*body);
    if (!request.ok()) return ErrorFor(request.status());
    const std::string& name = request->name;
    const std::string& location = request->metadata_location;
    if (auto no = Refused(RestAccess::TableResource(space, name), auth::Operation::kAdmin)) return *no;
    auto metadata = ReadMetadata(location);
    if (!metadata.ok()) {
      return ErrorResponse(400, "BadRequestException", "cannot read " + location + ": " + metadata.status().message());
    }
    if (!metadata->contains("format-version") || !metadata->contains("table-uuid") || !metadata->contains("location")) {
      return ErrorResponse(400, "BadRequestException", location + " is not Iceberg table metadata");
    }
    const bool overwrite = request->overwrite;
    const bool named = metadata->at("location").is_string();
    const std::string table_location = named ? metadata->at("location").get<std::string>() : "";
    if (!named || !c_.warehouse_->KeyOf(table_location).ok()) {
      return ErrorResponse(400, "BadRequestException",
                           "the table's location " + metadata->at("location").dump() + " is not in this catalog's warehouse " +
                               c_.warehouse_->base_uri());
    }
    auto seq = Append([&](const metadata::State& s) -> Result<metadata::Command> {
      // Another table's files may not become this one's (a purge would delete them); with
      // overwrite, the table's own former location is its own.
      const metadata::LakeTableName self{space, overwrite ? name : std::string()};
      MINK_RETURN_IF_ERROR(c_.locations_.CheckFree(s, table_location, self));
      std::string expected;
      if (overwrite) {
        auto it = s.lake_catalog_tables().find({space, name});
        if (it != s.lake_catalog_tables().end()) expected = it->second.metadata_location;
      }
      return metadata::Command(metadata::CommitLakeCatalog{{metadata::LakeTableMove{space, name, expected, location}},
                                                           Outcome(200, LoadResult(location, nullptr))});
    });
    if (!seq.ok()) return Retried(seq.status(), "NoSuchTableException");
    return JsonResponse(200, LoadResult(location, std::move(*metadata)));
  }

  // One table's change of a commit, prepared: its new metadata written, its move to append.
  struct Prepared {
    metadata::LakeTableMove move;
    Json metadata;
    std::string claims;  // a location the table takes (created or moved), checked at the append
  };

  Result<Prepared> Prepare(const NamespaceName& space, const std::string& name, const TableChange& change) {
    const std::string table = Dotted(space) + "." + name;
    const bool creates = change.Creates();
    auto ref = Find(space, name);
    if (!ref.ok() && !(creates && ref.status().code() == StatusCode::kNotFound &&
                       ref.status().message().rfind("table", 0) == 0)) {
      return ref.status();
    }
    if (ref.ok() && ref->mink) {
      return FailedPreconditionError("table " + table + " is a Mink table: commit to it alone, not in a transaction");
    }
    std::optional<Json> base;
    if (ref.ok()) {
      MINK_ASSIGN_OR_RETURN(base, ReadMetadata(ref->location));
    }
    for (const auto& r : change.requirements) MINK_RETURN_IF_ERROR(CheckRequirement(base ? &*base : nullptr, r));
    if (!base && !creates) return NotFoundError("table " + table + " does not exist");
    MetadataUpdater updater(base ? *base : Json{{"format-version", 2}});
    for (const auto& u : change.updates) MINK_RETURN_IF_ERROR(updater.Apply(u));
    const std::string previous = ref.ok() ? ref->location : "";
    const int64_t previous_updated = base ? IntOr(*base, "last-updated-ms", 0) : 0;
    MINK_ASSIGN_OR_RETURN(Json after, updater.Finish(previous, previous_updated, NowMs()));
    if (!base && !after.contains("location")) {
      MINK_ASSIGN_OR_RETURN(after["location"], DefaultLocation(space, name));
    }
    std::string location = StringOr(after, "location");
    while (!location.empty() && location.back() == '/') location.pop_back();
    if (!c_.warehouse_->KeyOf(location).ok()) {
      return InvalidArgumentError("location " + location + " is not in this catalog's warehouse " +
                                  c_.warehouse_->base_uri());
    }
    if (base && !updater.changed()) return Prepared{{space, name, previous, previous}, std::move(after), ""};
    std::string claims;
    if (!base || StringOr(*base, "location") != StringOr(after, "location")) {
      claims = location;
      MINK_RETURN_IF_ERROR(c_.locations_.CheckFreeNow(*c_.meta_, location, {space, name}));
    }
    const std::string file = NextMetadataFile(location, previous);
    MINK_RETURN_IF_ERROR(c_.warehouse_->Write(file, after.dump(2)));
    return Prepared{{space, name, previous, file}, std::move(after), claims};
  }

  // Prepares and appends the changes (each {identifier, requirements, updates}) as one command;
  // starts over from the newer metadata when a pointer moved meanwhile.
  Result<std::vector<Prepared>> Commit(const std::vector<IdentifiedChange>& changes,
                                       int status,
                                       const std::function<Json(const std::vector<Prepared>&)>& outcome_body) {
    Status last = Status::Ok();
    for (int attempt = 0; attempt < kCommitAttempts; ++attempt) {
      std::vector<Prepared> prepared;
      for (const auto& [id, change] : changes) {
        MINK_ASSIGN_OR_RETURN(auto p, Prepare(id.first, id.second, change));
        prepared.push_back(std::move(p));
      }
      metadata::CommitLakeCatalog command;
      for (const auto& p : prepared) {
        if (p.move.expected != p.move.location) command.moves.push_back(p.move);
      }
      if (command.moves.empty()) return prepared;  // nothing changed
      command.outcome = Outcome(status, outcome_body(prepared));
      auto seq = Append([&](const metadata::State& s) -> Result<metadata::Command> {
        for (const auto& p : prepared) {
          if (!p.claims.empty()) {
            MINK_RETURN_IF_ERROR(c_.locations_.CheckFree(s, p.claims, {p.move.space, p.move.name}));
          }
        }
        return metadata::Command(command);
      });
      if (seq.ok()) return prepared;
      last = seq.status();
      const bool moved = last.code() == StatusCode::kAborted && last.message().find("Idempotency-Key") == std::string::npos;
      if (!moved) return last;
      MINK_LOG_DEBUG("lake", "catalog commit: {}; again", last.ToString());
    }
    return last;
  }

  http::ServerResponse CommitTable(const NamespaceName& space, const std::string& name) {
    auto body = ParseBody(r_.body);
    if (!body.ok()) return ErrorFor(body.status());
    auto change = ReadTableChange(*body);
    if (!change.ok()) return ErrorFor(change.status());
    if (auto no = Refused(RestAccess::TableResource(space, name), CommitNeeds(*change))) return *no;
    if (auto ref = Find(space, name); ref.ok() && ref->tiered && space.size() == 1) {
      auto commit = [&] { return CommitToTieredTable(c_.meta_, c_.tables_, c_.warehouse_, space[0] + "." + name, *change); };
      auto done = c_.tiering_ != nullptr ? c_.tiering_->Exclusive(commit) : commit();
      if (!done.ok()) return Retried(done.status(), "NoSuchTableException");
      return JsonResponse(200, Json{{"metadata-location", done->metadata_location}, {"metadata", done->metadata}});
    }
    auto done = Commit({{{space, name}, std::move(*change)}}, 200, [](const std::vector<Prepared>& p) {
      return Json{{"metadata-location", p[0].move.location}};
    });
    if (!done.ok()) return Retried(done.status(), "NoSuchTableException");
    return JsonResponse(200, Json{{"metadata-location", (*done)[0].move.location}, {"metadata", (*done)[0].metadata}});
  }

  http::ServerResponse CommitTransaction() {
    auto body = ParseBody(r_.body);
    if (!body.ok()) return ErrorFor(body.status());
    auto list = ReadTransaction(*body);
    if (!list.ok()) return ErrorFor(list.status());
    for (const auto& [id, change] : *list) {
      if (auto no = Refused(RestAccess::TableResource(id.first, id.second), CommitNeeds(change))) return *no;
    }
    auto done = Commit(*list, 204, [](const std::vector<Prepared>&) { return Json(); });
    if (!done.ok()) return Retried(done.status(), "NoSuchTableException");
    return NoContent();
  }

  http::ServerResponse DropTable(const NamespaceName& space, const std::string& name) {
    auto ref = Find(space, name);
    if (!ref.ok()) return ErrorFor(ref.status());
    if (ref->mink) {
      return ErrorResponse(403, "ForbiddenException",
                           "table " + Dotted(space) + "." + name + " is a Mink table: drop it with mink table drop");
    }
    auto seq = Append([&](const metadata::State&) -> Result<metadata::Command> {
      return metadata::Command(metadata::CommitLakeCatalog{{metadata::LakeTableMove{space, name, ref->location, ""}},
                                                           Outcome(204, Json())});
    });
    if (!seq.ok()) return Retried(seq.status(), "NoSuchTableException");
    if (r_.Query("purgeRequested") == "true") {
      // The files the dropped table reaches, but none another table reaches or keeps files near.
      const metadata::State now = c_.meta_->Read([](const metadata::State& s) { return s; });
      auto removed = c_.locations_.Purge(now, ref->location);
      if (!removed.ok()) {
        MINK_LOG_WARN("lake", "purging {}.{}: {}", Dotted(space), name, removed.status().ToString());
      } else {
        MINK_LOG_INFO("lake", "purged {}.{}: {} files", Dotted(space), name, *removed);
      }
    }
    return NoContent();
  }

  http::ServerResponse Rename() {
    auto body = ParseBody(r_.body);
    if (!body.ok()) return ErrorFor(body.status());
    auto request = ReadRename(*body);
    if (!request.ok()) return ErrorFor(request.status());
    const TableIdentifier& from = request->from;
    const TableIdentifier& to = request->to;
    for (const auto* id : {&from, &to}) {
      if (auto no = Refused(RestAccess::TableResource(id->first, id->second), auth::Operation::kAdmin)) return *no;
    }
    auto seq = Append([&](const metadata::State&) -> Result<metadata::Command> {
      return metadata::Command(
          metadata::RenameLakeTable{from.first, from.second, to.first, to.second, Outcome(204, Json())});
    });
    if (!seq.ok()) return Retried(seq.status(), "NoSuchTableException");
    return NoContent();
  }

  // OK, or the 403 answer when the caller may not do `op` on `resource`.
  std::optional<http::ServerResponse> Refused(const auth::Resource& resource, auth::Operation op) {
    if (Status st = c_.access_.Need(user_, resource, op); !st.ok()) return ErrorFor(st);
    return std::nullopt;
  }

  RestCatalog& c_;
  const http::ServerRequest& r_;
  std::string user_;
  std::string key_;
};

http::ServerResponse RestCatalog::Handle(const http::ServerRequest& request) {
  return Call(this, request).Run();
}

}  // namespace mink::lake
