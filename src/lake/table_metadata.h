#pragma once
// Iceberg v2 table metadata as JSON, and the REST catalog's changes to it (docs/iceberg-rest.md):
// a new table from a CreateTableRequest, the requirements a commit asserts, and the updates it
// applies. Private to the lake library (nlohmann's json is in this header).
//
// Errors: a requirement that does not hold is FailedPrecondition (the REST API answers 409
// CommitFailedException); a malformed request or an update that cannot apply is InvalidArgument
// (400); an update this catalog does not support is Unimplemented (400 too).

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace mink::lake {

using Json = nlohmann::json;

// The metadata of a table that a CreateTableRequest describes, at `location`.
Result<Json> NewTableMetadata(const Json& request, const std::string& location,
                              const std::string& uuid, int64_t now_ms);

// Whether `requirement` holds of `metadata` (nullptr: the table does not exist).
Status CheckRequirement(const Json* metadata, const Json& requirement);

// Applies one commit's updates in order. -1 in set-current-schema, set-default-spec and
// set-default-sort-order means the one this commit added last, as the spec says.
class MetadataUpdater {
 public:
  // `base`: the current metadata, or a bare {"format-version": 2} for a table being created.
  explicit MetadataUpdater(Json base) : metadata_(std::move(base)) {}
  Status Apply(const Json& update);
  // The result; `previous_location` ("" for none) enters the metadata log when anything
  // changed, and last-updated-ms becomes `now_ms`.
  Result<Json> Finish(const std::string& previous_location, int64_t previous_updated_ms,
                      int64_t now_ms);
  bool changed() const { return changed_; }

 private:
  Status ApplyOne(const Json& update);
  Result<Json> FinishUnguarded(const std::string& previous_location, int64_t previous_updated_ms, int64_t now_ms);
  Status AddSchema(const Json& update);
  Status AddSpec(const Json& update);
  Status AddSortOrder(const Json& update);
  Status AddSnapshot(const Json& update);
  Status SetRef(const Json& update);
  Status RemoveSnapshots(const Json& update);
  Json metadata_;
  bool changed_ = false;
  std::optional<int32_t> last_schema_, last_spec_, last_order_;
};

// The member `name` of `j` when it is an integer (a string), else `fallback`: for JSON a caller
// sent, where nlohmann's value() throws on a member of another type.
int64_t IntOr(const Json& j, const char* name, int64_t fallback);
std::string StringOr(const Json& j, const char* name, const std::string& fallback = "");

// The highest field id a schema (or a nested type) uses: its fields, list elements, map keys
// and values.
int32_t MaxFieldId(const Json& type);

// The name of the metadata file that follows `previous` ("" for a new table) in `location`:
// <location>/metadata/<5-digit version>-<uuid>.metadata.json.
std::string NextMetadataFile(const std::string& location, const std::string& previous);

}  // namespace mink::lake
