#include "table/changelog.h"

#include <algorithm>

namespace mink::table {

std::string_view ChangeTypeName(ChangeType type) {
  switch (type) {
    case ChangeType::kAppend: return "+A";
    case ChangeType::kInsert: return "+I";
    case ChangeType::kUpdateBefore: return "-U";
    case ChangeType::kUpdateAfter: return "+U";
    case ChangeType::kDelete: return "-D";
  }
  return "?";
}

Result<RowMerger> RowMerger::Make(const TableDescriptor& d, std::vector<bool> targets) {
  if (!d.has_primary_key()) return FailedPreconditionError("a log table has no merge engine");
  const size_t n = d.schema.columns.size();
  if (!targets.empty()) {
    if (targets.size() != n) return InvalidArgumentError("partial update target list has the wrong size");
    bool all = std::all_of(targets.begin(), targets.end(), [](bool b) { return b; });
    if (all) {
      targets.clear();
    } else {
      if (d.merge_engine == MergeEngineKind::kFirstRow ||
          d.merge_engine == MergeEngineKind::kVersioned) {
        return InvalidArgumentError("partial update is not supported by the " +
                                    std::string(d.merge_engine == MergeEngineKind::kFirstRow
                                                    ? "first_row"
                                                    : "versioned") +
                                    " merge engine");
      }
      for (int k : d.PrimaryKeyIndexes()) {
        if (!targets[static_cast<size_t>(k)]) {
          return InvalidArgumentError("a partial update must include primary key column '" +
                                      d.schema.columns[static_cast<size_t>(k)].name + "'");
        }
      }
      auto keys = d.PrimaryKeyIndexes();
      for (size_t i = 0; i < n; ++i) {
        bool key = std::find(keys.begin(), keys.end(), static_cast<int>(i)) != keys.end();
        if (!key && d.schema.columns[i].not_null) {
          return InvalidArgumentError("partial updates need every non-key column nullable; '" +
                                      d.schema.columns[i].name + "' is NOT NULL");
        }
      }
    }
  }
  return RowMerger(d, std::move(targets));
}

RowMerger::RowMerger(const TableDescriptor& d, std::vector<bool> targets)
    : descriptor_(&d), targets_(std::move(targets)), partial_(!targets_.empty()) {
  is_key_.assign(d.schema.columns.size(), false);
  for (int k : d.PrimaryKeyIndexes()) is_key_[static_cast<size_t>(k)] = true;
  version_index_ = d.version_column.empty() ? -1 : d.schema.Find(d.version_column);
}

namespace {

int CompareValues(const Value& a, const Value& b) {
  switch (a.kind()) {
    case Value::Kind::kBool:
    case Value::Kind::kInt:
      return a.int_value() < b.int_value() ? -1 : (a.int_value() > b.int_value() ? 1 : 0);
    case Value::Kind::kDouble:
      return a.double_value() < b.double_value() ? -1 : (a.double_value() > b.double_value() ? 1 : 0);
    case Value::Kind::kDecimal:
      return a.decimal_value() < b.decimal_value() ? -1
                                                   : (a.decimal_value() > b.decimal_value() ? 1 : 0);
    case Value::Kind::kBytes:
      return a.bytes().compare(b.bytes());
    default:
      return 0;
  }
}

// Wraps an integer to the width of its column (two's complement), as Fluss's sum does.
int64_t WrapToWidth(int64_t v, TypeKind kind) {
  switch (kind) {
    case TypeKind::kTinyInt: return static_cast<int8_t>(v);
    case TypeKind::kSmallInt: return static_cast<int16_t>(v);
    case TypeKind::kInt: return static_cast<int32_t>(v);
    default: return v;
  }
}

}  // namespace

Value RowMerger::Aggregate(size_t column, const Value& acc, const Value& input) const {
  const Column& col = descriptor_->schema.columns[column];
  auto fn_it = descriptor_->aggregations.find(col.name);
  const std::string fn =
      fn_it == descriptor_->aggregations.end() ? "last_value_ignore_nulls" : fn_it->second;
  if (fn == "last_value") return input;
  if (fn == "last_value_ignore_nulls") return input.is_null() ? acc : input;
  // The key's first row set acc: first_value keeps it even when it is null.
  if (fn == "first_value") return acc;
  if (fn == "first_value_ignore_nulls") return acc.is_null() ? input : acc;
  if (input.is_null()) return acc;
  if (acc.is_null()) return input;
  if (fn == "sum" || fn == "product") {
    bool sum = fn == "sum";
    switch (acc.kind()) {
      case Value::Kind::kInt: {
        uint64_t a = static_cast<uint64_t>(acc.int_value()), b = static_cast<uint64_t>(input.int_value());
        return Value::Int(WrapToWidth(static_cast<int64_t>(sum ? a + b : a * b), col.type.kind));
      }
      case Value::Kind::kDouble:
        return Value::Double(sum ? acc.double_value() + input.double_value()
                                 : acc.double_value() * input.double_value());
      case Value::Kind::kDecimal: {
        if (sum) return Value::Decimal(acc.decimal_value() + input.decimal_value());
        // Unscaled product carries twice the scale; bring it back to the column's.
        int128 p = acc.decimal_value() * input.decimal_value();
        for (int i = 0; i < col.type.scale; ++i) p /= 10;
        return Value::Decimal(p);
      }
      default:
        return input;
    }
  }
  if (fn == "max") return CompareValues(input, acc) > 0 ? input : acc;
  if (fn == "min") return CompareValues(input, acc) < 0 ? input : acc;
  if (fn == "listagg" || fn == "string_agg") {
    auto delimiter = descriptor_->listagg_delimiters.find(col.name);
    return Value::Bytes(acc.bytes() +
                        (delimiter == descriptor_->listagg_delimiters.end() ? "," : delimiter->second) +
                        input.bytes());
  }
  if (fn == "bool_and") return Value::Bool(acc.bool_value() && input.bool_value());
  if (fn == "bool_or") return Value::Bool(acc.bool_value() || input.bool_value());
  return input;
}

std::optional<Row> RowMerger::Merge(const Row* old, const Row& input) const {
  const TableDescriptor& d = *descriptor_;
  const size_t n = d.schema.columns.size();
  // A partial write takes its target columns from the input and the rest from the old row.
  Row merged(n);
  if (partial_) {
    bool only_keys = true;
    for (size_t i = 0; i < n; ++i) {
      if (targets_[i] && !is_key_[i]) only_keys = false;
    }
    if (old != nullptr && only_keys) return std::nullopt;  // names only the key: nothing changes
  }
  switch (d.merge_engine) {
    case MergeEngineKind::kFirstRow:
      if (old != nullptr) return std::nullopt;
      return input;
    case MergeEngineKind::kVersioned: {
      if (old == nullptr) return input;
      // A null version is the smallest; a tie goes to the new row.
      const Value& nv = input[static_cast<size_t>(version_index_)];
      const Value& ov = (*old)[static_cast<size_t>(version_index_)];
      bool replace = nv.is_null() ? ov.is_null() : (ov.is_null() || nv.int_value() >= ov.int_value());
      if (!replace) return std::nullopt;
      return input;
    }
    case MergeEngineKind::kAggregation:
      if (old == nullptr) {
        for (size_t i = 0; i < n; ++i) merged[i] = (!partial_ || targets_[i]) ? input[i] : Value();
        return merged;
      }
      for (size_t i = 0; i < n; ++i) {
        if (is_key_[i]) merged[i] = (*old)[i];
        else if (partial_ && !targets_[i]) merged[i] = (*old)[i];
        else merged[i] = Aggregate(i, (*old)[i], input[i]);
      }
      return merged;
    case MergeEngineKind::kDefault:
      if (!partial_) return input;
      for (size_t i = 0; i < n; ++i) {
        merged[i] = targets_[i] ? input[i] : (old != nullptr ? (*old)[i] : Value());
      }
      return merged;
  }
  return input;
}

Result<std::optional<Row>> RowMerger::Apply(const std::optional<Row>& old, const Row& input,
                                            bool is_delete,
                                            std::vector<ChangeRecord>* changes) const {
  const TableDescriptor& d = *descriptor_;
  const bool wal = d.changelog_image == ChangelogImage::kWal;
  if (is_delete) {
    switch (d.delete_behavior) {
      case DeleteBehavior::kIgnore: return old;
      case DeleteBehavior::kDisable:
        return InvalidArgumentError("deletes are disabled on this table (table.delete.behavior)");
      case DeleteBehavior::kAllow: break;
    }
    if (!old) return old;  // deleting a missing key changes nothing
    if (partial_) {
      // A partial delete clears the non-key target columns; the row goes only if nothing else
      // is left.
      Row updated = *old;
      bool rest_null = true;
      for (size_t i = 0; i < updated.size(); ++i) {
        if (is_key_[i]) continue;
        if (targets_[i]) updated[i] = Value();
        else if (!updated[i].is_null()) rest_null = false;
      }
      if (!rest_null) {
        if (!wal) changes->push_back({ChangeType::kUpdateBefore, *old});
        changes->push_back({ChangeType::kUpdateAfter, updated});
        return std::optional<Row>(std::move(updated));
      }
    }
    changes->push_back({ChangeType::kDelete, *old});
    return std::optional<Row>();
  }
  std::optional<Row> merged = Merge(old ? &*old : nullptr, input);
  if (!merged) return old;  // the engine kept the old row: no changelog
  if (!old) {
    bool blind_upsert = wal && d.merge_engine == MergeEngineKind::kDefault && !partial_;
    changes->push_back({blind_upsert ? ChangeType::kUpdateAfter : ChangeType::kInsert, *merged});
  } else {
    if (!wal) changes->push_back({ChangeType::kUpdateBefore, *old});
    changes->push_back({ChangeType::kUpdateAfter, *merged});
  }
  return merged;
}

}  // namespace mink::table
