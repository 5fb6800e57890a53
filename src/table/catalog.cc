#include "table/catalog.h"

#include <algorithm>
#include <cctype>

#include "base/log.h"
#include "table/arrow_rows.h"

namespace mink::table {

using metadata::Command;
using metadata::State;

std::string BucketLabel(int64_t partition_id, int32_t bucket) {
  std::string b = "b" + std::to_string(bucket);
  return partition_id > 0 ? "p" + std::to_string(partition_id) + "/" + b : b;
}

Status SplitTableName(const std::string& name, std::string* database, std::string* table) {
  size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) {
    return InvalidArgumentError("table name '" + name + "' must be <database>.<table>");
  }
  *database = name.substr(0, dot);
  *table = name.substr(dot + 1);
  return Status::Ok();
}

namespace {

// How long creating buckets waits for a coordinator to give them owners (its next round, and
// the assigned node opening them; a coordinator that just died is replaced within a session
// timeout).
constexpr std::chrono::milliseconds kOwnerWait{15'000};

// The Arrow IPC body compression a table's options ask for (LZ4 by default).
arrow::CompressionCodec CodecOf(const TableDescriptor& d) {
  auto option = d.options.find("table.log.arrow.compression.type");
  if (option == d.options.end()) return arrow::CompressionCodec::kLz4Frame;
  std::string codec = option->second;
  std::transform(codec.begin(), codec.end(), codec.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (codec == "none") return arrow::CompressionCodec::kNone;
  if (codec == "zstd") return arrow::CompressionCodec::kZstd;
  return arrow::CompressionCodec::kLz4Frame;
}

}  // namespace

Status Catalog::CreateDatabase(const std::string& name) {
  auto seq = meta_->Append(Command(metadata::CreateDatabase{name}));
  return seq.ok() ? Status::Ok() : seq.status();
}

Status Catalog::DropDatabase(const std::string& name, bool cascade) {
  auto seq = meta_->Append(Command(metadata::DropDatabase{name, cascade}));
  return seq.ok() ? Status::Ok() : seq.status();
}

std::vector<std::string> Catalog::ListDatabases() const {
  return meta_->Read([](const State& s) {
    std::vector<std::string> out;
    for (const auto& [name, d] : s.databases()) out.push_back(name);
    return out;
  });
}

Result<std::vector<std::string>> Catalog::ListTables(const std::string& database) const {
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

Result<std::shared_ptr<const ResolvedTable>> Catalog::Find(const std::string& name) const {
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
  MINK_ASSIGN_OR_RETURN(TableDescriptor d, TableDescriptor::FromJson(descriptor));
  auto t = Resolve(id, name, descriptor, std::move(d));
  tables_[id] = t;
  return t;
}

std::shared_ptr<const ResolvedTable> Resolve(int64_t id, const std::string& name, std::string descriptor_json,
                                             TableDescriptor d) {
  auto t = std::make_shared<ResolvedTable>();
  t->id = id;
  t->name = name;
  t->descriptor_json = std::move(descriptor_json);
  t->d = std::move(d);
  t->schema = ToArrowSchema(t->d.schema);
  for (const auto& c : t->d.schema.columns) t->types.push_back(c.type);
  t->pk = t->d.PrimaryKeyIndexes();
  t->partition = t->d.PartitionKeyIndexes();
  t->bucket_key = t->d.BucketKeyIndexes();
  for (int i : t->pk) t->pk_types.push_back(t->types[static_cast<size_t>(i)]);
  for (int i : t->partition) t->partition_types.push_back(t->types[static_cast<size_t>(i)]);
  for (int i : t->bucket_key) t->bucket_types.push_back(t->types[static_cast<size_t>(i)]);
  t->codec = CodecOf(t->d);
  return t;
}

Result<TableInfo> Catalog::DescribeTable(const std::string& name) const {
  MINK_ASSIGN_OR_RETURN(auto t, Find(name));
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

Result<TableInfo> Catalog::CreateTable(const std::string& name, const TableSpec& spec,
                                       const std::optional<metadata::LakeAttach>& attach) {
  std::string database, table;
  MINK_RETURN_IF_ERROR(SplitTableName(name, &database, &table));
  MINK_ASSIGN_OR_RETURN(TableDescriptor d, MakeDescriptor(spec));
  const std::string json = d.ToJson();
  const storage::NodeIdentity owner = ownership_->assignment().OwnerOfNewBuckets();
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    metadata::CreateTable c;
    c.database = database;
    c.name = table;
    c.table_id = s.next_table_id();
    c.descriptor = json;
    c.bucket_count = d.bucket_count;
    c.partitioned = d.partitioned();
    c.first_stream_id = s.next_stream_id();
    c.owner_node = owner.node_id;
    c.owner_node_epoch = owner.node_epoch;
    c.lake_attach = attach;
    return Command(std::move(c));
  });
  if (!seq.ok()) return seq.status();
  std::vector<uint64_t> streams = meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(database, table);
    if (t == nullptr) return std::vector<uint64_t>{};
    std::vector<uint64_t> out = t->streams;  // and the partitions an attach created
    for (const auto& [n, p] : t->partitions) out.insert(out.end(), p.streams.begin(), p.streams.end());
    return out;
  });
  ownership_->AdoptNew(streams);
  if (ownership_->assignment().new_buckets_wait_for_owners() &&
      !ownership_->AwaitOwners(streams, kOwnerWait)) {
    MINK_LOG_WARN("table", "{}: not every bucket has an owner after {} ms", name, kOwnerWait.count());
  }
  return DescribeTable(name);
}

Result<TableInfo> Catalog::AlterTable(const std::string& name, const TableAlteration& change) {
  std::string database, table;
  MINK_RETURN_IF_ERROR(SplitTableName(name, &database, &table));
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    const metadata::TableState* t = s.FindTable(database, table);
    if (t == nullptr) {
      if (!s.databases().count(database)) {
        return NotFoundError("database " + database + " does not exist");
      }
      return NotFoundError("table " + name + " does not exist");
    }
    // Kafka topics are the tables of the kafka database: their columns are Kafka's record
    // (docs/kafka.md); their options may change.
    if (database == "kafka" && change.changes_columns()) {
      return InvalidArgumentError("the columns of " + name +
                                  " are a Kafka topic's record and cannot change; only its "
                                  "options can (--set, --reset)");
    }
    MINK_ASSIGN_OR_RETURN(TableDescriptor d, TableDescriptor::FromJson(t->descriptor));
    MINK_ASSIGN_OR_RETURN(TableDescriptor altered, AlterDescriptor(d, change, name));
    return Command(metadata::AlterTable{t->table_id, altered.ToJson()});
  });
  if (!seq.ok()) return seq.status();
  return DescribeTable(name);
}

Result<std::vector<uint64_t>> Catalog::DropTable(const std::string& name) {
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
  ownership_->Release(streams);
  return streams;
}

Result<int64_t> Catalog::AllocateWriterId() {
  int64_t id = 0;
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    id = s.next_writer_id();
    return Command(metadata::AllocateWriterId{id});
  });
  if (!seq.ok()) return seq.status();
  return id;
}

Result<uint64_t> Catalog::EnsurePartition(const ResolvedTable& table, const std::string& partition,
                                          int32_t bucket, std::string* label) {
  auto lookup = [&](const State& s, uint64_t* stream) {
    const metadata::TableState* t = s.FindTable(table.id);
    if (t == nullptr) return false;
    if (!t->partitioned) {
      *stream = t->streams[static_cast<size_t>(bucket)];
      *label = BucketLabel(0, bucket);
      return true;
    }
    auto p = t->partitions.find(partition);
    if (p == t->partitions.end()) return false;
    *stream = p->second.streams[static_cast<size_t>(bucket)];
    *label = BucketLabel(p->second.partition_id, bucket);
    return true;
  };
  uint64_t stream = 0;
  if (meta_->Read([&](const State& s) { return lookup(s, &stream); })) return stream;
  // Created on first write, its buckets owned as the assignment says.
  const storage::NodeIdentity owner = ownership_->assignment().OwnerOfNewBuckets();
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    const metadata::TableState* t = s.FindTable(table.id);
    if (t == nullptr) return NotFoundError("table " + table.name + " does not exist");
    if (t->partitions.count(partition)) return AlreadyExistsError("created meanwhile");
    return Command(metadata::CreatePartition{table.id, partition, t->next_partition_id,
                                             s.next_stream_id(), owner.node_id, owner.node_epoch});
  });
  if (!seq.ok() && seq.status().code() != StatusCode::kAlreadyExists) return seq.status();
  std::vector<uint64_t> streams = meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(table.id);
    auto p = t ? t->partitions.find(partition) : decltype(t->partitions.end()){};
    return (t && p != t->partitions.end()) ? p->second.streams : std::vector<uint64_t>{};
  });
  ownership_->AdoptNew(streams);
  if (ownership_->assignment().new_buckets_wait_for_owners() &&
      !ownership_->AwaitOwners(streams, kOwnerWait)) {
    return UnavailableError("partition " + partition + " of " + table.name +
                            ": no node took its buckets within " +
                            std::to_string(kOwnerWait.count()) + " ms");
  }
  if (meta_->Read([&](const State& s) { return lookup(s, &stream); })) return stream;
  return NotFoundError("partition " + partition + " of " + table.name + " disappeared");
}

Result<uint64_t> Catalog::BucketStream(const std::string& name, int32_t bucket) const {
  MINK_ASSIGN_OR_RETURN(auto table, Find(name));
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

std::vector<TableBucket> Catalog::AllBuckets(const ResolvedTable& table) const {
  std::vector<TableBucket> out;
  meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(table.id);
    if (t == nullptr) return;
    auto add = [&](const std::string& partition, int64_t partition_id,
                   const std::vector<uint64_t>& streams) {
      for (size_t b = 0; b < streams.size(); ++b) {
        out.push_back(TableBucket{partition, partition_id, static_cast<int32_t>(b),
                                  BucketLabel(partition_id, static_cast<int32_t>(b)), streams[b]});
      }
    };
    if (!t->partitioned) {
      add("", 0, t->streams);
      return;
    }
    std::vector<const metadata::PartitionState*> partitions;
    for (const auto& [name, p] : t->partitions) partitions.push_back(&p);
    std::sort(partitions.begin(), partitions.end(),
              [](auto* a, auto* b) { return a->partition_id < b->partition_id; });
    for (auto* p : partitions) add(p->name, p->partition_id, p->streams);
  });
  return out;
}

Result<std::vector<BucketRef>> Catalog::Buckets(const ResolvedTable& table,
                                                const std::optional<std::string>& partition,
                                                const std::optional<int32_t>& bucket) const {
  std::vector<BucketRef> buckets;
  bool partition_found = !partition.has_value();
  meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(table.id);
    if (t == nullptr) return;
    auto add = [&](const std::vector<uint64_t>& streams, int64_t partition_id) {
      for (size_t b = 0; b < streams.size(); ++b) {
        if (bucket && *bucket != static_cast<int32_t>(b)) continue;
        buckets.push_back(BucketRef{BucketLabel(partition_id, static_cast<int32_t>(b)), streams[b]});
      }
    };
    if (!t->partitioned) {
      add(t->streams, 0);
      return;
    }
    std::vector<const metadata::PartitionState*> partitions;
    for (const auto& [name, p] : t->partitions) {
      if (partition && *partition != name) continue;
      partition_found = true;
      partitions.push_back(&p);
    }
    std::sort(partitions.begin(), partitions.end(),
              [](auto* a, auto* b) { return a->partition_id < b->partition_id; });
    for (auto* p : partitions) add(p->streams, p->partition_id);
  });
  if (partition && !table.d.partitioned()) {
    return InvalidArgumentError("table " + table.name + " is not partitioned");
  }
  if (!partition_found) {
    return NotFoundError("partition '" + *partition + "' of " + table.name + " does not exist");
  }
  if (bucket && (*bucket < 0 || *bucket >= table.d.bucket_count)) {
    return InvalidArgumentError("table " + table.name + " has buckets 0.." +
                                std::to_string(table.d.bucket_count - 1));
  }
  return buckets;
}

std::map<uint64_t, int64_t> Catalog::StreamTables() const {
  return meta_->Read([](const State& s) {
    std::map<uint64_t, int64_t> out;
    for (const auto& [id, t] : s.tables()) {
      for (uint64_t st : t.streams) out[st] = id;
      for (const auto& [n, p] : t.partitions) {
        for (uint64_t st : p.streams) out[st] = id;
      }
    }
    return out;
  });
}

std::string Catalog::TableName(int64_t table_id) const {
  return meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(table_id);
    return t ? t->full_name() : std::string();
  });
}

}  // namespace mink::table
