// TableReader: logs and changelogs from the bucket streams, snapshots from the KV state, with
// projection and metadata columns.

#include "table/table_reader.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "arrow_format/builder.h"
#include "arrow_format/ipc_project.h"
#include "base/bytes.h"
#include "base/strings.h"
#include "table/arrow_rows.h"
#include "table/changelog.h"
#include "table/payload.h"
#include "table/row_codec.h"
#include "table/schema_evolution.h"

namespace mink::table {

using metadata::State;

namespace {

struct Projection {
  std::vector<int> columns;  // table column indexes
  arrow::SchemaPtr schema;   // output schema
};

Result<Projection> Project(const arrow::SchemaPtr& table_schema, const TableDescriptor& d,
                           const ReadRequest& request, bool snapshot) {
  Projection p;
  std::vector<arrow::Field> fields;
  if (request.columns.empty()) {
    for (int i = 0; i < table_schema->num_fields(); ++i) p.columns.push_back(i);
  } else {
    for (const auto& c : request.columns) {
      int i = d.schema.Find(c);
      if (i < 0) return InvalidArgumentError("unknown column '" + c + "'");
      p.columns.push_back(i);
    }
  }
  for (int i : p.columns) fields.push_back(table_schema->field(i));
  if (request.meta) {
    fields.emplace_back("__bucket", arrow::Utf8(), false);
    if (!snapshot) {
      fields.emplace_back("__offset", arrow::Int64(), false);
      fields.emplace_back("__change", arrow::Utf8(), false);
    }
  }
  if (request.timestamp && !snapshot) {
    fields.emplace_back("__timestamp", arrow::Timestamp(arrow::TimeUnit::kMilli, "UTC"), false);
  }
  p.schema = std::make_shared<arrow::Schema>(std::move(fields));
  return p;
}

// A column holding `value` `rows` times.
Result<arrow::ArrayDataPtr> ConstantString(const std::string& value, int64_t rows) {
  arrow::StringBuilder b;
  b.Reserve(rows);
  b.ReserveData(static_cast<int64_t>(value.size()) * rows);
  for (int64_t i = 0; i < rows; ++i) MINK_RETURN_IF_ERROR(b.Append(value));
  return b.Finish();
}

}  // namespace

Result<arrow::SchemaPtr> TableReader::ReadSchema(const ReadRequest& request) const {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(request.table));
  MINK_ASSIGN_OR_RETURN(Projection p, Project(table->schema, table->d, request,
                                              request.mode != ReadMode::kLog));
  return p.schema;
}

Status TableReader::Read(const ReadRequest& request, const BatchSink& sink,
                         const std::function<bool()>& cancelled) {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(request.table));
  switch (request.mode) {
    case ReadMode::kLog: return ReadLog(*table, request, sink, cancelled);
    case ReadMode::kSnapshot:
      if (!table->d.has_primary_key()) {
        return FailedPreconditionError("snapshot mode reads the KV state of a primary-key table; " +
                                       table->name + " is a log table: read its log");
      }
      return ReadSnapshot(*table, request, sink);
    case ReadMode::kUnion: {
      MINK_ASSIGN_OR_RETURN(Projection p, Project(table->schema, table->d, request, true));
      return union_.Read(*table, request, p.schema, p.columns, sink);
    }
  }
  return InvalidArgumentError("unknown read mode");
}

Status TableReader::ReadMessages(const ReadRequest& request, const MessageSink& sink,
                                 const std::function<bool()>& cancelled) {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(request.table));
  if (request.mode != ReadMode::kLog) {
    return InvalidArgumentError("encoded reads are log reads");
  }
  return ReadLog(*table, request, nullptr, cancelled, &sink);
}

Status TableReader::ReadLog(const ResolvedTable& table, const ReadRequest& request,
                            const BatchSink& sink, const std::function<bool()>& cancelled,
                            const MessageSink* messages) {
  MINK_ASSIGN_OR_RETURN(Projection proj, Project(table.schema, table.d, request, false));
  // Batches written under an earlier schema are read under the current one (schema_evolution.h).
  MINK_ASSIGN_OR_RETURN(TableBatchDecoder decoder, TableBatchDecoder::Make(table.d, proj.columns));
  std::optional<int64_t> from_offset;
  if (request.from != "earliest" && request.from != "latest") {
    auto n = ParseInt64(request.from);
    if (!n.ok() || *n < 0) {
      return InvalidArgumentError("a read starts at earliest, latest or an offset, not '" +
                                  request.from + "'");
    }
    from_offset = *n;
  }
  int64_t remaining = request.limit < 0 ? INT64_MAX : request.limit;
  bool stop = false;

  // Sends the rows of `batch` from offset `at` on; returns the next offset.
  auto emit = [&](const BucketRef& target, const storage::BatchPtr& b, int64_t at) -> Status {
    int64_t skip = std::max<int64_t>(0, at - b->base_offset);
    int64_t take = std::min<int64_t>(b->record_count - skip, remaining);
    if (request.end && !request.follow) {
      take = std::min<int64_t>(take, *request.end - (b->base_offset + skip));
    }
    if (take <= 0) return Status::Ok();
    const bool current_schema = b->schema_id == table.d.schema.schema_id;
    if (messages != nullptr && skip == 0 && take == b->record_count && !request.meta &&
        !request.timestamp && current_schema) {
      // The stored message, projected, its buffers as stored (see payload.h for the layout).
      std::string_view stored = b->payload.view();
      uint32_t metadata_len = stored.size() >= 8 ? LoadU32(stored.data()) : 0;
      if (stored.size() >= 8 && metadata_len <= stored.size() - 8) {
        std::string_view all = stored;
        auto message = arrow::ProjectRecordBatchMessage(all.substr(8, metadata_len),
                                                        all.substr(8 + metadata_len),
                                                        *table.schema, proj.columns);
        if (message.ok()) {
          remaining -= take;
          if (!(*messages)(std::move(*message))) stop = true;
          return Status::Ok();
        }
      }
      // Not projectable as stored: decoded below.
    }
    // Only the projected columns are decoded (and decompressed).
    auto decoded = decoder.Decode(b->payload, b->schema_id);
    if (!decoded.ok()) {
      return decoded.status().WithContext(table.name + " " + target.label + " offset " +
                                          std::to_string(b->base_offset));
    }
    arrow::RecordBatchPtr projected = std::move(*decoded);
    if (skip > 0 || take < b->record_count) {
      // Part of a batch: rebuild those rows.
      std::vector<LogicalType> types;
      for (int c : proj.columns) types.push_back(table.types[static_cast<size_t>(c)]);
      std::vector<Row> rows = BatchToRows(*projected, types);
      std::vector<const Row*> subset;
      for (int64_t i = skip; i < skip + take; ++i) subset.push_back(&rows[static_cast<size_t>(i)]);
      MINK_ASSIGN_OR_RETURN(projected, RowsToBatch(subset, projected->schema(), types));
    }
    std::vector<arrow::ArrayDataPtr> columns = projected->columns();
    if (request.meta) {
      MINK_ASSIGN_OR_RETURN(auto bucket, ConstantString(target.label, take));
      columns.push_back(bucket);
      arrow::Int64Builder offsets;
      offsets.Reserve(take);
      arrow::StringBuilder changes;
      changes.Reserve(take);
      for (int64_t i = 0; i < take; ++i) {
        offsets.Append(b->base_offset + skip + i);
        auto type = b->change_types.empty()
                        ? ChangeType::kAppend
                        : static_cast<ChangeType>(b->change_types[static_cast<size_t>(skip + i)]);
        MINK_RETURN_IF_ERROR(changes.Append(ChangeTypeName(type)));
      }
      MINK_ASSIGN_OR_RETURN(auto offset_column, offsets.Finish());
      MINK_ASSIGN_OR_RETURN(auto change_column, changes.Finish());
      columns.push_back(offset_column);
      columns.push_back(change_column);
    }
    if (request.timestamp) {
      arrow::TimestampBuilder ts(arrow::Timestamp(arrow::TimeUnit::kMilli, "UTC"));
      ts.Reserve(take);
      for (int64_t i = 0; i < take; ++i) ts.Append(b->timestamp_ms);
      MINK_ASSIGN_OR_RETURN(auto ts_column, ts.Finish());
      columns.push_back(ts_column);
    }
    MINK_ASSIGN_OR_RETURN(auto out, arrow::RecordBatch::Make(proj.schema, take, std::move(columns)));
    remaining -= take;
    if (messages != nullptr) {
      MINK_ASSIGN_OR_RETURN(arrow::IpcMessage message, arrow::EncodeRecordBatchMessage(*out));
      if (!(*messages)(std::move(message))) stop = true;
    } else if (!sink(out)) {
      stop = true;
    }
    return Status::Ok();
  };

  auto start_of = [&](const BucketRef& t) -> Result<int64_t> {
    int64_t start = 0, end = 0;
    meta_->Read([&](const State& s) {
      const metadata::StreamState* st = s.FindStream(t.stream_id);
      if (st != nullptr) {
        start = st->start_offset;
        end = st->end_offset;
      }
    });
    if (request.from == "earliest") return start;
    if (request.from == "latest") return end;
    if (*from_offset < start) {
      return OutOfRangeError("offset " + std::to_string(*from_offset) + " of " + table.name + " " +
                             t.label + " is before its start " + std::to_string(start));
    }
    return std::min(*from_offset, end);
  };
  constexpr size_t kReadBytes = 4 << 20;

  if (!request.follow) {
    MINK_ASSIGN_OR_RETURN(auto targets, catalog_->Buckets(table, request.partition, request.bucket));
    for (const auto& t : targets) {
      MINK_ASSIGN_OR_RETURN(int64_t at, start_of(t));
      const int64_t end = request.end.value_or(INT64_MAX);
      while (remaining > 0 && !stop && at < end && !(cancelled && cancelled())) {
        MINK_ASSIGN_OR_RETURN(storage::ReadResult r, storage_->Read(t.stream_id, at, kReadBytes));
        if (r.batches.empty()) break;
        for (const auto& b : r.batches) {
          if (b->base_offset >= end) {
            at = end;
            break;
          }
          MINK_RETURN_IF_ERROR(emit(t, b, at));
          at = b->end_offset();
          if (remaining <= 0 || stop || at >= end) break;
        }
        if (at >= r.end_offset) break;
      }
      if (remaining <= 0 || stop) break;
    }
    return Status::Ok();
  }

  // Follow: poll every bucket (new partitions included) and wait for commits when idle.
  std::map<uint64_t, int64_t> positions;
  while (remaining > 0 && !stop && !(cancelled && cancelled())) {
    int64_t seen_seq = meta_->applied_seq();
    MINK_ASSIGN_OR_RETURN(auto targets, catalog_->Buckets(table, request.partition, request.bucket));
    bool progressed = false;
    for (const auto& t : targets) {
      auto pos = positions.find(t.stream_id);
      if (pos == positions.end()) {
        MINK_ASSIGN_OR_RETURN(int64_t at, start_of(t));
        pos = positions.emplace(t.stream_id, at).first;
      }
      MINK_ASSIGN_OR_RETURN(storage::ReadResult r, storage_->Read(t.stream_id, pos->second, kReadBytes));
      for (const auto& b : r.batches) {
        MINK_RETURN_IF_ERROR(emit(t, b, pos->second));
        pos->second = b->end_offset();
        progressed = true;
        if (remaining <= 0 || stop) break;
      }
      if (remaining <= 0 || stop) break;
    }
    if (!progressed) meta_->WaitApplied(seen_seq, std::chrono::milliseconds(200));
  }
  return Status::Ok();
}

Status TableReader::ReadSnapshot(const ResolvedTable& table, const ReadRequest& request,
                                 const BatchSink& sink) {
  MINK_ASSIGN_OR_RETURN(Projection proj, Project(table.schema, table.d, request, true));
  MINK_ASSIGN_OR_RETURN(auto targets, catalog_->Buckets(table, request.partition, request.bucket));
  int64_t remaining = request.limit < 0 ? INT64_MAX : request.limit;
  for (const auto& t : targets) {
    BucketState* bucket = buckets_->Get(t.stream_id, t.label);
    std::unique_ptr<kv::KvCursor> cursor;
    {
      std::lock_guard<std::mutex> lock(bucket->mutex);
      // Another node writes it: what was loaded here may be behind, so it is rebuilt.
      if (!storage_->Writes(t.stream_id)) bucket->writers_stale = true;
      MINK_RETURN_IF_ERROR(buckets_->Load(table, bucket));
      // A view of the state now, in key order; writes go on while it is read.
      cursor = bucket->kv->Scan();
    }
    while (cursor->Valid() && remaining > 0) {
      // The projected columns' builders, by table column; the rows decode straight into them.
      std::vector<std::unique_ptr<arrow::ArrayBuilder>> owned(table.types.size());
      std::vector<arrow::ArrayBuilder*> builders(table.types.size(), nullptr);
      for (int c : proj.columns) {
        const auto i = static_cast<size_t>(c);
        if (owned[i]) continue;  // a column projected twice is decoded once
        MINK_ASSIGN_OR_RETURN(owned[i], arrow::MakeBuilder(table.schema->field(c).type()));
        builders[i] = owned[i].get();
      }
      int64_t n = 0;
      for (; cursor->Valid() && n < std::min(snapshot_batch_rows_, remaining); cursor->Next(), ++n) {
        MINK_RETURN_IF_ERROR(AppendEncodedRow(cursor->value(), table.types, builders));
      }
      MINK_RETURN_IF_ERROR(cursor->status());
      std::vector<arrow::ArrayDataPtr> finished(table.types.size());
      for (size_t i = 0; i < owned.size(); ++i) {
        if (!owned[i]) continue;
        MINK_ASSIGN_OR_RETURN(finished[i], owned[i]->Finish());
      }
      std::vector<arrow::ArrayDataPtr> columns;
      for (int c : proj.columns) columns.push_back(finished[static_cast<size_t>(c)]);
      if (request.meta) {
        MINK_ASSIGN_OR_RETURN(auto label, ConstantString(t.label, static_cast<int64_t>(n)));
        columns.push_back(label);
      }
      MINK_ASSIGN_OR_RETURN(auto out, arrow::RecordBatch::Make(proj.schema, static_cast<int64_t>(n),
                                                               std::move(columns)));
      if (!sink(out)) return Status::Ok();
      remaining -= static_cast<int64_t>(n);
    }
    MINK_RETURN_IF_ERROR(cursor->status());
    if (remaining <= 0) break;
  }
  return Status::Ok();
}

Result<std::vector<BucketOffsets>> TableReader::Offsets(const std::string& name,
                                                        std::optional<int64_t> at_ms) {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(name));
  MINK_ASSIGN_OR_RETURN(auto targets, catalog_->Buckets(*table, std::nullopt, std::nullopt));
  std::vector<BucketOffsets> out;
  for (const auto& t : targets) {
    BucketOffsets o;
    o.bucket = t.label;
    meta_->Read([&](const State& s) {
      const metadata::StreamState* st = s.FindStream(t.stream_id);
      if (st != nullptr) {
        o.start = st->start_offset;
        o.end = st->end_offset;
        if (st->owner_node != 0 && st->owner_node_epoch == s.NodeEpoch(st->owner_node)) {
          o.owner = st->owner_node;
        }
      }
    });
    if (at_ms) {
      MINK_ASSIGN_OR_RETURN(int64_t at, storage_->OffsetAtTime(t.stream_id, *at_ms));
      o.at = at;
    }
    out.push_back(o);
  }
  return out;
}

}  // namespace mink::table
