#pragma once
// TableLocations: where the lake's tables keep their files, and which files a table's metadata
// reaches. The Iceberg REST catalog asks it so that a table never takes a location that holds
// another table's files (Mink's or an engine's), and so that a purge deletes only the files the
// dropped table's own metadata names and no other table's does.
//
// A table's location is a warehouse key: a Mink table's is its lake location if it has one
// (attached), else where tiering puts it (<database>/<name, '.' as '/'>); an engine table's is
// its metadata's "location" (read once per metadata file: they never change). Two locations
// overlap when one is the other or lies under it ('/' boundaries: "a/b" and "a/bc" do not).
//
// Thread-safe.

#include <map>
#include <mutex>
#include <set>
#include <string>

#include "base/result.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "metadata/state.h"

namespace mink::lake {

bool LocationsOverlap(const std::string& a_key, const std::string& b_key);

class TableLocations {
 public:
  explicit TableLocations(Warehouse* warehouse) : warehouse_(warehouse) {}

  // OK, or InvalidArgument "location X overlaps the location of table T" when `location` (a URI
  // of the warehouse) overlaps that of a table of `s` other than `self` (an engine table's name;
  // a Mink table of that name is never itself here).
  Status CheckFree(const metadata::State& s, const std::string& location, const metadata::LakeTableName& self);
  // CheckFree on `meta`'s current state, with the engine tables' metadata files read before the
  // state is locked (so no object-store read runs under the metadata log's lock).
  Status CheckFreeNow(const metadata::MetadataLog& meta, const std::string& location,
                      const metadata::LakeTableName& self);

  // Every file the metadata at `metadata_location` reaches: itself, the earlier metadata files
  // of its log, each snapshot's manifest list, their manifests, the data and delete files those
  // list, and statistics files. URIs as the metadata names them; files that are gone are skipped.
  Result<std::set<std::string>> Reachable(const std::string& metadata_location);

  // Deletes the files of a dropped engine table (its last metadata file) that no table of `s`
  // reaches or holds under its location. How many were deleted.
  Result<size_t> Purge(const metadata::State& s, const std::string& metadata_location);

 private:
  // The warehouse keys of every table's location in `s` (engine tables by name, Mink tables by
  // "db.name"), except `self`.
  std::map<std::string, std::string> Locations(const metadata::State& s, const metadata::LakeTableName* self);
  // An engine table's location key, from its metadata file (cached); "" when unreadable.
  std::string EngineLocation(const std::string& metadata_location);

  Warehouse* const warehouse_;
  std::mutex mu_;
  std::map<std::string, std::string> engine_locations_;  // metadata file -> location key
};

}  // namespace mink::lake
