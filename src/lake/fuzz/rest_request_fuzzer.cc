// libFuzzer target: a request body sent to the Iceberg REST catalog, read as every request reads
// its body (rest_requests.h), then, as a commit does, as a create-table request (NewTableMetadata)
// and a table change whose requirements are checked and whose updates are applied: to no table,
// to the table the body creates, and to the body's "metadata" taken as a table's stored metadata
// (a registered file is anyone's JSON). Each step must refuse or succeed, never throw, crash or
// hang; finished metadata must have a string location, as the catalog reads it.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lake/rest_requests.h"
#include "lake/table_metadata.h"

namespace {

using mink::lake::Json;

void Commit(const Json* base, const mink::lake::rest::TableChange& change) {
  for (const auto& r : change.requirements) (void)mink::lake::CheckRequirement(base, r);
  mink::lake::MetadataUpdater updater(base != nullptr ? *base : Json{{"format-version", 2}});
  for (const auto& u : change.updates) {
    if (!updater.Apply(u).ok()) return;
  }
  auto after = updater.Finish(base != nullptr ? "s3://w/t/metadata/00000-a.metadata.json" : "", 1, 2);
  if (!after.ok()) return;
  if (after->contains("location") && !after->at("location").is_string()) std::abort();
  (void)mink::lake::MaxFieldId(*after);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace rest = mink::lake::rest;
  auto body = rest::ParseBody(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!body.ok()) return 0;
  (void)rest::ReadCreateNamespace(*body);
  (void)rest::ReadUpdateNamespace(*body);
  (void)rest::ReadCreateTable(*body);
  (void)rest::ReadRegisterTable(*body);
  (void)rest::ReadRename(*body);
  if (auto transaction = rest::ReadTransaction(*body); transaction.ok()) {
    for (const auto& c : *transaction) Commit(nullptr, c.change);
  }
  auto change = rest::ReadTableChange(*body);
  if (change.ok()) {
    (void)change->Creates();
    (void)change->OnlyWrites();
    Commit(nullptr, *change);
  }
  auto created = mink::lake::NewTableMetadata(*body, "s3://w/t", "9a8b7c6d-0000-4000-8000-000000000001", 1);
  if (created.ok() && change.ok()) Commit(&*created, *change);
  if (change.ok() && body->contains("metadata") && body->at("metadata").is_object()) {
    Commit(&body->at("metadata"), *change);
  }
  return 0;
}
