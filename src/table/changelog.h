#pragma once
// The merge engines and the changelog rules of primary-key tables (docs/tables.md, "The
// changelog of primary-key tables" and "Merge engines"): given a key's current value and one
// write, the new value and the changelog records it produces.
//   upsert of a missing key      -> +I(merged)
//   upsert of an existing key    -> -U(old) +U(merged), or nothing if the engine keeps the old row
//   delete of a missing key      -> nothing
//   delete of an existing key    -> -D(old) (or -U/+U for a partial delete that keeps the row)
// With the `wal` changelog image there is no -U, and a default-engine full-row upsert is +U
// whether or not the key existed.

#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "table/descriptor.h"
#include "table/value.h"

namespace mink::table {

enum class ChangeType : uint8_t {
  kAppend = 0,
  kInsert = 1,
  kUpdateBefore = 2,
  kUpdateAfter = 3,
  kDelete = 4,
};

std::string_view ChangeTypeName(ChangeType type);  // "+A", "+I", "-U", "+U", "-D"

struct ChangeRecord {
  ChangeType type;
  Row row;
};

class RowMerger {
 public:
  // `targets` marks the columns a partial write names (empty = every column).
  static Result<RowMerger> Make(const TableDescriptor& descriptor, std::vector<bool> targets = {});

  // One upsert or delete of a key whose current value is `old` (nullopt = absent). Appends the
  // changelog to `changes` and returns the key's value afterwards (nullopt = absent).
  Result<std::optional<Row>> Apply(const std::optional<Row>& old, const Row& input,
                                   bool is_delete, std::vector<ChangeRecord>* changes) const;

  bool partial() const { return partial_; }

 private:
  RowMerger(const TableDescriptor& d, std::vector<bool> targets);
  // The merged row, or nullopt when the engine keeps `old` as it is.
  std::optional<Row> Merge(const Row* old, const Row& input) const;
  Value Aggregate(size_t column, const Value& acc, const Value& input) const;

  const TableDescriptor* descriptor_;
  std::vector<bool> targets_;
  bool partial_ = false;
  std::vector<bool> is_key_;
  int version_index_ = -1;
};

}  // namespace mink::table
