// TableStore: the catalog, lookups and bucket runtime state (KV rebuild and snapshots).

#include "table/table_store.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/log.h"
#include "table/arrow_rows.h"
#include "table/bucketing.h"
#include "table/changelog.h"
#include "table/payload.h"
#include "table/row_codec.h"
#include "table/partition_name.h"
#include "table/table_internal.h"

namespace mink::table {

using metadata::Command;
using metadata::State;

Status SplitTableName(const std::string& name, std::string* database, std::string* table) {
  // The database is everything before the first dot (a table name may contain dots).
  size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) {
    return InvalidArgumentError("table name '" + name + "' must be <database>.<table>");
  }
  *database = name.substr(0, dot);
  *table = name.substr(dot + 1);
  return Status::Ok();
}

Result<std::string> PartitionName(const Row& row, const std::vector<int>& columns,
                                  const std::vector<LogicalType>& types) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < columns.size(); ++i) {
    const Value& v = row[static_cast<size_t>(columns[i])];
    if (v.is_null()) return InvalidArgumentError("a partition column is null");
    std::string part;
    switch (types[i].kind) {
      case TypeKind::kBoolean: part = v.bool_value() ? "true" : "false"; break;
      case TypeKind::kFloat:
      case TypeKind::kDouble: {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%g", v.double_value());
        part = buf;
        std::replace(part.begin(), part.end(), '.', '_');
        break;
      }
      case TypeKind::kString: part = v.bytes(); break;
      case TypeKind::kBytes: {
        static const char kHex[] = "0123456789abcdef";
        for (unsigned char c : v.bytes()) {
          part += kHex[c >> 4];
          part += kHex[c & 15];
        }
        break;
      }
      case TypeKind::kDate: {
        // Civil date from days since the epoch.
        int64_t z = v.int_value() + 719468;
        int64_t era = (z >= 0 ? z : z - 146096) / 146097;
        int64_t doe = z - era * 146097;
        int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
        int64_t m = mp < 10 ? mp + 3 : mp - 9;
        char buf[96];
        std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lld", static_cast<long long>(y + (m <= 2)),
                      static_cast<long long>(m), static_cast<long long>(d));
        part = buf;
        break;
      }
      default: part = std::to_string(v.int_value()); break;
    }
    if (part.empty() || part.size() > 200 || part.rfind("__", 0) == 0) {
      return InvalidArgumentError("partition value '" + part +
                                  "' must be 1-200 characters and not start with __");
    }
    for (char c : part) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
        return InvalidArgumentError("partition value '" + part +
                                    "' may only contain letters, digits, '_' and '-'");
      }
    }
    parts.push_back(std::move(part));
  }
  return JoinPartitionValues(parts);
}

TableStore::TableStore(metadata::MetadataLog* meta, storage::StreamStore* storage,
                       TableOptions options)
    : meta_(meta), storage_(storage), options_(options) {}

TableStore::~TableStore() { Stop(); }

void TableStore::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (snapshotter_.joinable()) snapshotter_.join();
}

Status TableStore::Start() {
  const auto& node = storage_->node();
  std::vector<uint64_t> reopen;
  meta_->Read([&](const State& s) {
    for (const auto& [id, t] : s.tables()) {
      std::vector<uint64_t> streams = t.streams;
      for (const auto& [name, p] : t.partitions) streams.insert(streams.end(), p.streams.begin(), p.streams.end());
      for (uint64_t stream : streams) {
        const metadata::StreamState* st = s.FindStream(stream);
        // Ours from an earlier process, or nobody's: this node takes them.
        if (st != nullptr && (st->owner_node == node.node_id || st->owner_node == 0) &&
            st->owner_node_epoch != node.node_epoch) {
          reopen.push_back(stream);
        }
      }
    }
  });
  if (!reopen.empty()) {
    MINK_RETURN_IF_ERROR(storage_->OpenStreams(reopen));
    MINK_LOG_INFO("table", "took back {} bucket streams", reopen.size());
  }
  // A table's log expires after its TTL; a primary-key changelog only as far as a KV snapshot
  // covers it, so the state can always be rebuilt.
  storage_->SetRetentionPolicy([this](uint64_t stream_id) {
    storage::RetentionRule rule;
    meta_->Read([&](const State& s) {
      for (const auto& [id, t] : s.tables()) {
        bool found = std::find(t.streams.begin(), t.streams.end(), stream_id) != t.streams.end();
        for (const auto& [n, p] : t.partitions) {
          found = found || std::find(p.streams.begin(), p.streams.end(), stream_id) != p.streams.end();
        }
        if (!found) continue;
        auto d = TableDescriptor::FromJson(t.descriptor);
        if (!d.ok()) return;
        rule.ttl_ms = d->log_ttl_ms;
        if (d->has_primary_key()) {
          auto snap = s.kv_snapshots().find(stream_id);
          rule.max_trim_offset = snap == s.kv_snapshots().end() ? 0 : snap->second.offset;
        }
        return;
      }
    });
    return rule;
  });
  if (options_.kv_snapshot_interval.count() > 0) {
    snapshotter_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(stop_mutex_);
      while (!stopping_) {
        stop_cv_.wait_for(lock, options_.kv_snapshot_interval, [&] { return stopping_; });
        if (stopping_) break;
        lock.unlock();
        Status s = SnapshotAll();
        if (!s.ok()) MINK_LOG_WARN("table", "periodic KV snapshots failed: {}", s.ToString());
        lock.lock();
      }
    });
  }
  return Status::Ok();
}

Status TableStore::CreateDatabase(const std::string& name) {
  auto seq = meta_->Append(Command(metadata::CreateDatabase{name}));
  return seq.ok() ? Status::Ok() : seq.status();
}

Status TableStore::DropDatabase(const std::string& name, bool cascade) {
  std::vector<std::string> tables;
  meta_->Read([&](const State& s) {
    for (const auto& [id, t] : s.tables()) {
      if (t.database == name) tables.push_back(t.full_name());
    }
  });
  auto seq = meta_->Append(Command(metadata::DropDatabase{name, cascade}));
  return seq.ok() ? Status::Ok() : seq.status();
}

std::vector<std::string> TableStore::ListDatabases() const {
  return meta_->Read([](const State& s) {
    std::vector<std::string> out;
    for (const auto& [name, d] : s.databases()) out.push_back(name);
    return out;
  });
}

Result<std::vector<std::string>> TableStore::ListTables(const std::string& database) const {
  bool exists = true;
  auto tables = meta_->Read([&](const State& s) {
    std::vector<std::string> out;
    if (!database.empty() && !s.databases().count(database)) exists = false;
    for (const auto& [id, t] : s.tables()) {
      if (database.empty() || t.database == database) out.push_back(t.full_name());
    }
    std::sort(out.begin(), out.end());
    return out;
  });
  if (!exists) return NotFoundError("database " + database + " does not exist");
  return tables;
}

Result<std::shared_ptr<const TableStore::Table>> TableStore::FindTable(const std::string& name) const {
  std::string database, table;
  MINK_RETURN_IF_ERROR(SplitTableName(name, &database, &table));
  int64_t id = 0;
  std::string descriptor;
  bool db_exists = false;
  meta_->Read([&](const State& s) {
    db_exists = s.databases().count(database) > 0;
    const metadata::TableState* t = s.FindTable(database, table);
    if (t != nullptr) {
      id = t->table_id;
      descriptor = t->descriptor;
    }
  });
  if (!db_exists) return NotFoundError("database " + database + " does not exist");
  if (id == 0) return NotFoundError("table " + name + " does not exist");
  std::lock_guard<std::mutex> lock(mutex_);
  auto cached = tables_.find(id);
  if (cached != tables_.end() && cached->second->descriptor_json == descriptor) return cached->second;
  auto t = std::make_shared<Table>();
  t->id = id;
  t->name = name;
  t->descriptor_json = descriptor;
  MINK_ASSIGN_OR_RETURN(t->d, TableDescriptor::FromJson(descriptor));
  t->schema = ToArrowSchema(t->d.schema);
  for (const auto& c : t->d.schema.columns) t->types.push_back(c.type);
  t->pk = t->d.PrimaryKeyIndexes();
  t->partition = t->d.PartitionKeyIndexes();
  t->bucket_key = t->d.BucketKeyIndexes();
  for (int i : t->pk) t->pk_types.push_back(t->types[static_cast<size_t>(i)]);
  for (int i : t->partition) t->partition_types.push_back(t->types[static_cast<size_t>(i)]);
  for (int i : t->bucket_key) t->bucket_types.push_back(t->types[static_cast<size_t>(i)]);
  auto compression = t->d.options.find("table.log.arrow.compression.type");
  if (compression != t->d.options.end()) {
    if (compression->second == "none" || compression->second == "NONE") {
      t->codec = arrow::CompressionCodec::kNone;
    } else if (compression->second == "zstd" || compression->second == "ZSTD") {
      t->codec = arrow::CompressionCodec::kZstd;
    }
  }
  tables_[id] = t;
  return std::shared_ptr<const Table>(t);
}

Result<TableInfo> TableStore::DescribeTable(const std::string& name) const {
  MINK_ASSIGN_OR_RETURN(auto t, FindTable(name));
  TableInfo info{t->name, t->id, t->d, {}};
  meta_->Read([&](const State& s) {
    const metadata::TableState* ts = s.FindTable(t->id);
    if (ts == nullptr) return;
    for (const auto& [pname, p] : ts->partitions) info.partitions.emplace_back(pname, p.partition_id);
  });
  std::sort(info.partitions.begin(), info.partitions.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  return info;
}

Result<TableInfo> TableStore::CreateTable(const std::string& name, const TableSpec& spec) {
  std::string database, table;
  MINK_RETURN_IF_ERROR(SplitTableName(name, &database, &table));
  MINK_ASSIGN_OR_RETURN(TableDescriptor d, MakeDescriptor(spec));
  const std::string json = d.ToJson();
  const auto& node = storage_->node();
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    metadata::CreateTable c;
    c.database = database;
    c.name = table;
    c.table_id = s.next_table_id();
    c.descriptor = json;
    c.bucket_count = d.bucket_count;
    c.partitioned = d.partitioned();
    c.first_stream_id = s.next_stream_id();
    c.owner_node = node.node_id;
    c.owner_node_epoch = node.node_epoch;
    return Command(std::move(c));
  });
  if (!seq.ok()) return seq.status();
  std::vector<uint64_t> streams = meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(database, table);
    return t ? t->streams : std::vector<uint64_t>{};
  });
  storage_->AdoptOwned(streams);
  return DescribeTable(name);
}

Status TableStore::DropTable(const std::string& name) {
  std::string database, table;
  MINK_RETURN_IF_ERROR(SplitTableName(name, &database, &table));
  std::vector<uint64_t> streams;
  meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(database, table);
    if (t == nullptr) return;
    streams = t->streams;
    for (const auto& [n, p] : t->partitions) streams.insert(streams.end(), p.streams.begin(), p.streams.end());
  });
  auto seq = meta_->Append(Command(metadata::DropTable{database, table}));
  if (!seq.ok()) return seq.status();
  std::lock_guard<std::mutex> lock(mutex_);
  for (uint64_t s : streams) {
    storage_->CloseStream(s);
    buckets_.erase(s);
  }
  return Status::Ok();
}

Result<int64_t> TableStore::InitWriter() {
  int64_t id = 0;
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    id = s.next_writer_id();
    return Command(metadata::AllocateWriterId{id});
  });
  if (!seq.ok()) return seq.status();
  return id;
}

Result<TableStore::Bucket*> TableStore::GetBucket(const Table& table, uint64_t stream_id,
                                                   const std::string& label) {
  (void)table;
  std::lock_guard<std::mutex> lock(mutex_);
  auto& b = buckets_[stream_id];
  if (!b) {
    b = std::make_unique<Bucket>();
    b->stream_id = stream_id;
    b->label = label;
  }
  return b.get();
}

// Rebuilds a bucket's KV state (newest snapshot plus the changelog after it) and its writer
// states (from the batch headers). The caller holds bucket->mutex.
Status TableStore::LoadBucket(const Table& table, Bucket* bucket) {
  if (bucket->loaded) return Status::Ok();
  int64_t start = 0, end = 0;
  std::optional<metadata::KvSnapshotState> snapshot;
  meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(bucket->stream_id);
    if (st != nullptr) {
      start = st->start_offset;
      end = st->end_offset;
    }
    auto it = s.kv_snapshots().find(bucket->stream_id);
    if (it != s.kv_snapshots().end()) snapshot = it->second;
  });
  int64_t from = start;
  const bool keyed = table.d.has_primary_key();
  if (keyed && snapshot) {
    MINK_ASSIGN_OR_RETURN(std::string bytes, storage_->data_store()->Get(snapshot->key));
    int64_t covered = 0;
    MINK_ASSIGN_OR_RETURN(bucket->kv, KvState::Load(bytes, snapshot->key, &covered));
    from = std::max(start, covered);
    bucket->snapshot_offset = covered;
  } else if (keyed && start > 0) {
    return DataLossError("bucket " + bucket->label + " of " + table.name +
                         ": the changelog was trimmed to " + std::to_string(start) +
                         " and no KV snapshot covers it");
  } else if (!keyed) {
    from = std::max(start, end - options_.writer_state_replay_offsets);
  }
  std::optional<PayloadDecoder> decoder;
  if (keyed) {
    MINK_ASSIGN_OR_RETURN(auto d, PayloadDecoder::Make(table.schema));
    decoder.emplace(std::move(d));
  }
  int64_t at = from;
  while (at < end) {
    MINK_ASSIGN_OR_RETURN(storage::ReadResult r, storage_->Read(bucket->stream_id, at, 4 << 20));
    if (r.batches.empty()) break;
    for (const auto& b : r.batches) {
      if (b->writer_id >= 0) {
        int32_t last = table.d.sequence_per_record ? b->batch_sequence + b->record_count - 1 : -1;
        bucket->writers.Record(b->writer_id, b->writer_epoch,
                               WrittenBatch{b->batch_sequence, b->base_offset, b->end_offset(), last});
      }
      if (keyed && b->end_offset() > from) {
        MINK_ASSIGN_OR_RETURN(auto batch, decoder->Decode(b->payload));
        std::vector<Row> rows = BatchToRows(*batch, table.types);
        for (size_t i = 0; i < rows.size(); ++i) {
          if (b->base_offset + static_cast<int64_t>(i) < from) continue;
          auto type = static_cast<ChangeType>(i < b->change_types.size() ? b->change_types[i] : 1);
          if (type == ChangeType::kUpdateBefore) continue;
          std::vector<Value> key_values;
          for (int k : table.pk) key_values.push_back(rows[i][static_cast<size_t>(k)]);
          MINK_ASSIGN_OR_RETURN(std::string key, EncodeCompactedKey(key_values, table.pk_types));
          if (type == ChangeType::kDelete) {
            bucket->kv.Erase(key);
          } else {
            std::string value;
            EncodeRow(rows[i], table.types, &value);
            bucket->kv.Put(key, std::move(value));
          }
        }
      }
      at = b->end_offset();
    }
  }
  bucket->applied_offset = end;
  bucket->loaded = true;
  if (keyed) {
    MINK_LOG_INFO("table", "rebuilt {} {} : {} keys, snapshot at {}, replayed {}..{}", table.name,
                  bucket->label, bucket->kv.size(), bucket->snapshot_offset, from, end);
  }
  return Status::Ok();
}

Status TableStore::MaybeSnapshot(const Table& table, Bucket* bucket, bool force) {
  if (!table.d.has_primary_key() || !bucket->loaded) return Status::Ok();
  int64_t pending = bucket->applied_offset - bucket->snapshot_offset;
  if (pending <= 0 || (!force && pending < options_.kv_snapshot_records)) return Status::Ok();
  const auto& node = storage_->node();
  std::string key = "kv/" + std::to_string(bucket->stream_id) + "/" +
                    std::to_string(bucket->applied_offset) + "-n" + std::to_string(node.node_id) +
                    "e" + std::to_string(node.node_epoch) + "s" +
                    std::to_string(bucket->snapshot_seq++);
  std::string data = bucket->kv.Snapshot(bucket->applied_offset);
  MINK_RETURN_IF_ERROR(storage_->data_store()->Put(key, data));
  auto seq = meta_->Append(Command(metadata::CommitKvSnapshot{
      bucket->stream_id, key, storage_->data_bucket_id(), data.size(), bucket->applied_offset}));
  if (!seq.ok()) {
    (void)storage_->data_store()->Delete(key);
    return seq.status();
  }
  bucket->snapshot_offset = bucket->applied_offset;
  MINK_LOG_DEBUG("table", "KV snapshot of {} {} at offset {} ({} keys)", table.name, bucket->label,
                 bucket->applied_offset, bucket->kv.size());
  return Status::Ok();
}

Status TableStore::SnapshotAll() {
  std::vector<std::pair<int64_t, Bucket*>> all;
  std::map<uint64_t, int64_t> stream_table;
  meta_->Read([&](const State& s) {
    for (const auto& [id, t] : s.tables()) {
      for (uint64_t st : t.streams) stream_table[st] = id;
      for (const auto& [n, p] : t.partitions) {
        for (uint64_t st : p.streams) stream_table[st] = id;
      }
    }
  });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [stream, b] : buckets_) {
      auto it = stream_table.find(stream);
      if (it != stream_table.end()) all.emplace_back(it->second, b.get());
    }
  }
  for (auto& [table_id, bucket] : all) {
    std::string name = meta_->Read([&](const State& s) {
      const metadata::TableState* t = s.FindTable(table_id);
      return t ? t->full_name() : std::string();
    });
    if (name.empty()) continue;
    MINK_ASSIGN_OR_RETURN(auto table, FindTable(name));
    std::lock_guard<std::mutex> lock(bucket->mutex);
    MINK_RETURN_IF_ERROR(MaybeSnapshot(*table, bucket, true));
  }
  return Status::Ok();
}

Result<uint64_t> TableStore::BucketStream(const std::string& name, int32_t bucket) const {
  MINK_ASSIGN_OR_RETURN(auto table, FindTable(name));
  if (table->d.partitioned()) return FailedPreconditionError("table " + name + " is partitioned");
  if (bucket < 0 || bucket >= table->d.bucket_count) {
    return NotFoundError("table " + name + " has no bucket " + std::to_string(bucket));
  }
  uint64_t stream = 0;
  meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(table->id);
    if (t != nullptr && static_cast<size_t>(bucket) < t->streams.size()) {
      stream = t->streams[static_cast<size_t>(bucket)];
    }
  });
  if (stream == 0) return NotFoundError("table " + name + " does not exist");
  return stream;
}

Result<arrow::SchemaPtr> TableStore::TableSchema(const std::string& name) const {
  MINK_ASSIGN_OR_RETURN(auto table, FindTable(name));
  return table->schema;
}

Result<std::vector<BucketOffsets>> TableStore::Offsets(const std::string& name,
                                                       std::optional<int64_t> at_ms) {
  MINK_ASSIGN_OR_RETURN(auto table, FindTable(name));
  ReadRequest all;
  all.table = name;
  MINK_ASSIGN_OR_RETURN(auto targets, ReadTargets(*table, all));
  std::vector<BucketOffsets> out;
  for (const auto& t : targets) {
    BucketOffsets o;
    o.bucket = t.label;
    meta_->Read([&](const State& s) {
      const metadata::StreamState* st = s.FindStream(t.stream_id);
      if (st != nullptr) {
        o.start = st->start_offset;
        o.end = st->end_offset;
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
