#include "table/table_stats.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "table/schema_evolution.h"

namespace mink::table {

using metadata::State;

struct ColumnStatsCache::Entry {
  std::mutex mutex;
  std::string descriptor;  // the table descriptor the ranges were computed with
  int64_t end = -1;        // the ranges cover the log below this offset (-1: nothing yet)
  int64_t rows = 0;
  std::vector<ColumnRange> columns;
};

namespace {

// Integer-valued columns: stored as a signed integer of 1, 2, 4 or 8 bytes.
bool HasIntegerRange(const LogicalType& t) {
  switch (t.kind) {
    case TypeKind::kTinyInt:
    case TypeKind::kSmallInt:
    case TypeKind::kInt:
    case TypeKind::kBigInt:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz:
      return true;
    default:
      return false;
  }
}

template <typename T>
void Widen(const arrow::ArrayData& a, ColumnRange* range) {
  const T* values = a.buffers[1]->data_as<T>();
  const uint8_t* validity = a.null_count > 0 && a.buffers[0] ? a.buffers[0]->data() : nullptr;
  T lo = std::numeric_limits<T>::max();
  T hi = std::numeric_limits<T>::min();
  int64_t valid = 0;
  if (validity == nullptr) {
    for (int64_t i = 0; i < a.length; ++i) {
      lo = std::min(lo, values[i]);
      hi = std::max(hi, values[i]);
    }
    valid = a.length;
  } else {
    for (int64_t i = 0; i < a.length; ++i) {
      if (((validity[i >> 3] >> (i & 7)) & 1) == 0) continue;
      lo = std::min(lo, values[i]);
      hi = std::max(hi, values[i]);
      ++valid;
    }
  }
  range->null_count += a.length - valid;
  if (valid == 0) return;
  if (!range->has_values) {
    range->min = lo;
    range->max = hi;
    range->has_values = true;
  } else {
    range->min = std::min<int64_t>(range->min, lo);
    range->max = std::max<int64_t>(range->max, hi);
  }
}

Status WidenColumn(const arrow::ArrayData& a, ColumnRange* range) {
  int width = a.type->byte_width();
  if (a.buffers.size() < 2 || a.buffers[1] == nullptr ||
      a.buffers[1]->size() < a.length * std::max(width, 1) ||
      (a.null_count > 0 && a.buffers[0] != nullptr && a.buffers[0]->size() * 8 < a.length)) {
    return DataLossError("column " + range->column + ": buffers shorter than its rows");
  }
  switch (width) {
    case 1:
      Widen<int8_t>(a, range);
      return Status::Ok();
    case 2:
      Widen<int16_t>(a, range);
      return Status::Ok();
    case 4:
      Widen<int32_t>(a, range);
      return Status::Ok();
    case 8:
      Widen<int64_t>(a, range);
      return Status::Ok();
    default:
      return InternalError("column " + range->column + " is not integer-valued");
  }
}

}  // namespace

Result<std::vector<BucketColumnStats>> ColumnStatsCache::ColumnStats(const std::string& name) {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(name));
  if (table->d.has_primary_key()) {
    return FailedPreconditionError("column statistics are kept for log tables; " + table->name +
                                   " has a primary key");
  }
  struct Item {
    std::optional<std::string> partition;
    int32_t bucket = 0;
    uint64_t stream_id = 0;
    int64_t start = 0;
    int64_t end = 0;
  };
  std::vector<Item> items;
  meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(table->id);
    if (t == nullptr) return;
    auto add = [&](const std::vector<uint64_t>& streams, const std::optional<std::string>& p) {
      for (size_t b = 0; b < streams.size(); ++b) {
        Item item{p, static_cast<int32_t>(b), streams[b], 0, 0};
        if (const metadata::StreamState* st = s.FindStream(streams[b]); st != nullptr) {
          item.start = st->start_offset;
          item.end = st->end_offset;
        }
        items.push_back(std::move(item));
      }
    };
    if (!t->partitioned) {
      add(t->streams, std::nullopt);
      return;
    }
    for (const auto& [pname, p] : t->partitions) add(p.streams, pname);
  });

  std::vector<int> columns;
  for (size_t i = 0; i < table->types.size(); ++i) {
    if (HasIntegerRange(table->types[i])) columns.push_back(static_cast<int>(i));
  }
  std::vector<BucketColumnStats> out;
  std::optional<TableBatchDecoder> decoder;
  constexpr size_t kReadBytes = 4 << 20;
  for (const Item& item : items) {
    std::shared_ptr<Entry> entry;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto& slot = entries_[item.stream_id];
      if (slot == nullptr) slot = std::make_shared<Entry>();
      entry = slot;
    }
    std::lock_guard<std::mutex> lock(entry->mutex);
    if (entry->descriptor != table->descriptor_json) {
      entry->descriptor = table->descriptor_json;
      entry->end = -1;
    }
    if (entry->end < 0) {
      entry->rows = 0;
      entry->columns.clear();
      for (int c : columns) {
        entry->columns.push_back(
            ColumnRange{table->d.schema.columns[static_cast<size_t>(c)].name, 0, false, 0, 0});
      }
      entry->end = item.start;
    }
    if (!columns.empty() && entry->end < item.end) {
      if (!decoder) {
        MINK_ASSIGN_OR_RETURN(TableBatchDecoder d, TableBatchDecoder::Make(table->d, columns));
        decoder.emplace(std::move(d));
      }
      // The rows of [entry->end, item.end): whole batches, so a batch that started before
      // entry->end counts again (harmless for a range).
      int64_t at = std::max(entry->end, item.start);
      while (at < item.end) {
        MINK_ASSIGN_OR_RETURN(storage::ReadResult r,
                              storage_->Read(item.stream_id, at, kReadBytes));
        if (r.batches.empty()) break;
        for (const auto& b : r.batches) {
          if (b->base_offset >= item.end) break;
          MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch,
                                decoder->Decode(b->payload, b->schema_id));
          for (size_t i = 0; i < columns.size(); ++i) {
            MINK_RETURN_IF_ERROR(
                WidenColumn(*batch->Column(static_cast<int>(i)), &entry->columns[i]));
          }
          entry->rows += b->record_count;
          at = b->end_offset();
        }
        if (at >= r.end_offset) break;
      }
      // Batches past item.end may have been included (never fewer rows than below item.end).
      entry->end = std::max(item.end, at);
    } else {
      entry->end = std::max(entry->end, item.end);
    }
    BucketColumnStats stats;
    stats.partition = item.partition;
    stats.bucket = item.bucket;
    stats.end = item.end;
    stats.rows = entry->rows;
    stats.columns = entry->columns;
    out.push_back(std::move(stats));
  }
  return out;
}

}  // namespace mink::table
