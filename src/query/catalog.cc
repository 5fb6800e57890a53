// The `mink` catalog: a read-only DuckDB catalog (StorageExtension) whose schemas are the
// cluster's databases and whose tables are its tables. Entries are fetched from the node when a
// query looks them up, once per transaction, so a table created or altered in the cluster is
// visible to the next query. Entries handed to DuckDB stay alive until the catalog is detached
// (a replaced entry is retired, not freed: a running query may still hold it).

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "duckdb/catalog/catalog.hpp"
#include "duckdb/catalog/catalog_entry/schema_catalog_entry.hpp"
#include "duckdb/catalog/catalog_entry/table_catalog_entry.hpp"
#include "duckdb/catalog/entry_lookup_info.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/client_context_state.hpp"
#include "duckdb/parser/constraints/not_null_constraint.hpp"
#include "duckdb/parser/constraints/unique_constraint.hpp"
#include "duckdb/parser/parsed_data/alter_table_info.hpp"
#include "duckdb/parser/parsed_data/create_schema_info.hpp"
#include "duckdb/parser/parsed_data/create_table_info.hpp"
#include "duckdb/storage/database_size.hpp"
#include "duckdb/storage/storage_extension.hpp"
#include "duckdb/storage/table_storage_info.hpp"
#include "duckdb/transaction/transaction.hpp"
#include "duckdb/transaction/transaction_manager.hpp"
#include "query/duckdb_internal.h"

namespace mink::query::internal {
namespace {

using duckdb::CatalogType;
using duckdb::ClientContext;
using duckdb::optional_ptr;

[[noreturn]] void ThrowReadOnly(const std::string& what) {
  throw duckdb::BinderException(
      "the mink catalog is read-only: %s (create and drop tables with the mink CLI)", what);
}

class MinkCatalog;
class MinkSchemaEntry;

// Whom a session reads as (ReadAs): the client it reaches the cluster through.
struct ReaderState : public duckdb::ClientContextState {
  explicit ReaderState(std::shared_ptr<client::Cluster> as) : cluster(std::move(as)) {}
  std::shared_ptr<client::Cluster> cluster;
};
constexpr char kReaderState[] = "mink_reader";

// Per-transaction view of the cluster: what this transaction already looked up, through the
// client of the session's reader (or the engine's).
class MinkTransaction : public duckdb::Transaction {
 public:
  MinkTransaction(duckdb::TransactionManager& manager, ClientContext& context, uint64_t sequence,
                  std::shared_ptr<client::Cluster> cluster)
      : duckdb::Transaction(manager, context), sequence_(sequence), cluster_(std::move(cluster)) {}

  uint64_t sequence() const { return sequence_; }
  client::Cluster& cluster() { return *cluster_; }
  const std::shared_ptr<client::Cluster>& cluster_ptr() const { return cluster_; }
  std::mutex mu;
  std::optional<std::vector<std::string>> databases;
  std::map<std::string, duckdb::TableCatalogEntry*> tables;  // db.table -> entry or null
  std::set<std::string> listed;                              // databases whose tables were listed

 private:
  uint64_t sequence_;
  std::shared_ptr<client::Cluster> cluster_;
};

MinkTransaction* TransactionOf(duckdb::CatalogTransaction transaction) {
  if (!transaction.transaction) return nullptr;
  return &transaction.transaction->Cast<MinkTransaction>();
}

class MinkTableEntry : public duckdb::TableCatalogEntry {
 public:
  MinkTableEntry(duckdb::Catalog& catalog, duckdb::SchemaCatalogEntry& schema,
                 duckdb::CreateTableInfo& info, std::shared_ptr<const client::TableMeta> meta,
                 std::shared_ptr<duckdb::ArrowTableSchema> arrow_table,
                 std::vector<duckdb::LogicalType> types, std::string shape)
      : duckdb::TableCatalogEntry(catalog, schema, info),
        meta_(std::move(meta)),
        arrow_table_(std::move(arrow_table)),
        types_(std::move(types)),
        shape_(std::move(shape)) {}

  const std::string& shape() const { return shape_; }

  duckdb::unique_ptr<duckdb::BaseStatistics> GetStatistics(ClientContext&,
                                                           duckdb::column_t) override {
    return nullptr;
  }

  duckdb::TableFunction GetScanFunction(
      ClientContext& context, duckdb::unique_ptr<duckdb::FunctionData>& bind_data) override;

  duckdb::TableStorageInfo GetStorageInfo(ClientContext&) override { return {}; }

 private:
  std::shared_ptr<const client::TableMeta> meta_;
  std::shared_ptr<duckdb::ArrowTableSchema> arrow_table_;
  std::vector<duckdb::LogicalType> types_;
  std::string shape_;
};

class MinkCatalog : public duckdb::Catalog {
 public:
  MinkCatalog(duckdb::AttachedDatabase& db, std::shared_ptr<client::Cluster> cluster,
              std::shared_ptr<ScanRecorder> recorder)
      : duckdb::Catalog(db), cluster_(std::move(cluster)), recorder_(std::move(recorder)) {}

  client::Cluster& cluster() { return *cluster_; }
  // The client a new transaction of `context` reads through: its session's reader, else ours.
  std::shared_ptr<client::Cluster> ClusterFor(ClientContext& context) const {
    auto reader = context.registered_state->Get<ReaderState>(kReaderState);
    return reader != nullptr ? reader->cluster : cluster_;
  }
  const std::shared_ptr<ScanRecorder>& recorder() const { return recorder_; }

  void Initialize(bool) override {}
  std::string GetCatalogType() override { return kStorageName; }

  duckdb::optional_idx GetCatalogVersion(ClientContext& context) override {
    // A new version per transaction: prepared statements re-bind on every execution, so they
    // see tables and partitions created since they were prepared.
    auto& transaction = duckdb::Transaction::Get(context, *this).Cast<MinkTransaction>();
    return duckdb::optional_idx(transaction.sequence());
  }

  optional_ptr<duckdb::CatalogEntry> CreateSchema(duckdb::CatalogTransaction,
                                                  duckdb::CreateSchemaInfo& info) override {
    ThrowReadOnly("CREATE SCHEMA " + info.schema);
  }

  optional_ptr<duckdb::SchemaCatalogEntry> LookupSchema(
      duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup,
      duckdb::OnEntryNotFound if_not_found) override;

  void ScanSchemas(ClientContext& context,
                   std::function<void(duckdb::SchemaCatalogEntry&)> callback) override;

  duckdb::PhysicalOperator& PlanCreateTableAs(ClientContext&, duckdb::PhysicalPlanGenerator&,
                                              duckdb::LogicalCreateTable&,
                                              duckdb::PhysicalOperator&) override {
    ThrowReadOnly("CREATE TABLE AS");
  }
  duckdb::PhysicalOperator& PlanInsert(ClientContext&, duckdb::PhysicalPlanGenerator&,
                                       duckdb::LogicalInsert&,
                                       optional_ptr<duckdb::PhysicalOperator>) override {
    ThrowReadOnly("INSERT (write with `mink write`)");
  }
  duckdb::PhysicalOperator& PlanDelete(ClientContext&, duckdb::PhysicalPlanGenerator&,
                                       duckdb::LogicalDelete&, duckdb::PhysicalOperator&) override {
    ThrowReadOnly("DELETE (delete with `mink write --delete`)");
  }
  duckdb::PhysicalOperator& PlanUpdate(ClientContext&, duckdb::PhysicalPlanGenerator&,
                                       duckdb::LogicalUpdate&, duckdb::PhysicalOperator&) override {
    ThrowReadOnly("UPDATE (upsert with `mink write`)");
  }

  duckdb::DatabaseSize GetDatabaseSize(ClientContext&) override { return {}; }
  bool InMemory() override { return false; }
  std::string GetDBPath() override { return cluster_->bootstrap(); }

  // The schema used after `USE mink`: the first database of the cluster, else "main".
  std::string GetDefaultSchema() const override;

  uint64_t NextTransactionSequence() { return ++transactions_; }

 private:
  void DropSchema(ClientContext&, duckdb::DropInfo&) override { ThrowReadOnly("DROP SCHEMA"); }

  MinkSchemaEntry& SchemaEntry(const std::string& name);
  std::vector<std::string> Databases(MinkTransaction* transaction);

  std::shared_ptr<client::Cluster> cluster_;
  std::shared_ptr<ScanRecorder> recorder_;
  std::atomic<uint64_t> transactions_{0};
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<MinkSchemaEntry>> schemas_;
};

duckdb::CreateSchemaInfo SchemaInfo(const std::string& name) {
  duckdb::CreateSchemaInfo info;
  info.schema = name;
  return info;
}

class MinkSchemaEntry : public duckdb::SchemaCatalogEntry {
 public:
  MinkSchemaEntry(MinkCatalog& catalog, duckdb::CreateSchemaInfo info)
      : duckdb::SchemaCatalogEntry(catalog, info), mink_(catalog) {}

  // The table as of this transaction (looked up once per transaction), or null.
  duckdb::TableCatalogEntry* GetTable(ClientContext& context, MinkTransaction* transaction,
                                      const std::string& table);

  void Scan(ClientContext& context, CatalogType type,
            const std::function<void(duckdb::CatalogEntry&)>& callback) override {
    if (type != CatalogType::TABLE_ENTRY) return;
    auto& transaction = duckdb::Transaction::Get(context, catalog).Cast<MinkTransaction>();
    auto names = ValueOrThrow(transaction.cluster().ListTables(name), "listing the tables of " + name);
    for (const auto& table : names) {
      auto* entry = GetTable(context, &transaction, table);
      if (entry != nullptr) callback(*entry);
    }
  }
  void Scan(CatalogType type, const std::function<void(duckdb::CatalogEntry&)>& callback) override {
    if (type != CatalogType::TABLE_ENTRY) return;
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [table, entry] : current_) callback(*entry);
  }

  optional_ptr<duckdb::CatalogEntry> LookupEntry(duckdb::CatalogTransaction transaction,
                                                 const duckdb::EntryLookupInfo& lookup) override {
    if (lookup.GetCatalogType() != CatalogType::TABLE_ENTRY &&
        lookup.GetCatalogType() != CatalogType::VIEW_ENTRY) {
      return nullptr;
    }
    if (!transaction.HasContext()) return nullptr;
    return GetTable(transaction.GetContext(), TransactionOf(transaction), lookup.GetEntryName());
  }

  optional_ptr<duckdb::CatalogEntry> CreateIndex(duckdb::CatalogTransaction,
                                                 duckdb::CreateIndexInfo&,
                                                 duckdb::TableCatalogEntry&) override {
    ThrowReadOnly("CREATE INDEX");
  }
  optional_ptr<duckdb::CatalogEntry> CreateFunction(duckdb::CatalogTransaction,
                                                    duckdb::CreateFunctionInfo&) override {
    ThrowReadOnly("CREATE FUNCTION");
  }
  optional_ptr<duckdb::CatalogEntry> CreateTable(duckdb::CatalogTransaction,
                                                 duckdb::BoundCreateTableInfo&) override {
    ThrowReadOnly("CREATE TABLE");
  }
  optional_ptr<duckdb::CatalogEntry> CreateView(duckdb::CatalogTransaction,
                                                duckdb::CreateViewInfo&) override {
    ThrowReadOnly("CREATE VIEW");
  }
  optional_ptr<duckdb::CatalogEntry> CreateSequence(duckdb::CatalogTransaction,
                                                    duckdb::CreateSequenceInfo&) override {
    ThrowReadOnly("CREATE SEQUENCE");
  }
  optional_ptr<duckdb::CatalogEntry> CreateTableFunction(duckdb::CatalogTransaction,
                                                         duckdb::CreateTableFunctionInfo&) override {
    ThrowReadOnly("CREATE FUNCTION");
  }
  optional_ptr<duckdb::CatalogEntry> CreateCopyFunction(duckdb::CatalogTransaction,
                                                        duckdb::CreateCopyFunctionInfo&) override {
    ThrowReadOnly("CREATE FUNCTION");
  }
  optional_ptr<duckdb::CatalogEntry> CreatePragmaFunction(
      duckdb::CatalogTransaction, duckdb::CreatePragmaFunctionInfo&) override {
    ThrowReadOnly("CREATE FUNCTION");
  }
  optional_ptr<duckdb::CatalogEntry> CreateCollation(duckdb::CatalogTransaction,
                                                     duckdb::CreateCollationInfo&) override {
    ThrowReadOnly("CREATE COLLATION");
  }
  optional_ptr<duckdb::CatalogEntry> CreateType(duckdb::CatalogTransaction,
                                                duckdb::CreateTypeInfo&) override {
    ThrowReadOnly("CREATE TYPE");
  }
  void DropEntry(ClientContext&, duckdb::DropInfo&) override {
    ThrowReadOnly("DROP (drop tables with `mink table drop`)");
  }
  // ALTER TABLE: ADD COLUMN, DROP COLUMN, RENAME COLUMN, ALTER COLUMN TYPE and ALTER COLUMN
  // DROP NOT NULL become the node's alter-table action (docs/query.md).
  void Alter(duckdb::CatalogTransaction transaction, duckdb::AlterInfo& info) override;

 private:
  MinkCatalog& mink_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<MinkTableEntry>> current_;
  std::vector<std::unique_ptr<MinkTableEntry>> retired_;
};

// A DuckDB column type as Mink writes it; throws for types Mink tables do not have.
std::string MinkTypeOf(const duckdb::LogicalType& type) {
  using duckdb::LogicalTypeId;
  switch (type.id()) {
    case LogicalTypeId::BOOLEAN: return "BOOLEAN";
    case LogicalTypeId::TINYINT: return "TINYINT";
    case LogicalTypeId::SMALLINT: return "SMALLINT";
    case LogicalTypeId::INTEGER: return "INT";
    case LogicalTypeId::BIGINT: return "BIGINT";
    case LogicalTypeId::FLOAT: return "FLOAT";
    case LogicalTypeId::DOUBLE: return "DOUBLE";
    case LogicalTypeId::DECIMAL:
      return "DECIMAL(" + std::to_string(duckdb::DecimalType::GetWidth(type)) + "," +
             std::to_string(duckdb::DecimalType::GetScale(type)) + ")";
    case LogicalTypeId::VARCHAR: return "STRING";
    case LogicalTypeId::BLOB: return "BYTES";
    case LogicalTypeId::DATE: return "DATE";
    case LogicalTypeId::TIME: return "TIME(6)";
    case LogicalTypeId::TIMESTAMP_SEC: return "TIMESTAMP(0)";
    case LogicalTypeId::TIMESTAMP_MS: return "TIMESTAMP(3)";
    case LogicalTypeId::TIMESTAMP: return "TIMESTAMP(6)";
    case LogicalTypeId::TIMESTAMP_NS: return "TIMESTAMP(9)";
    case LogicalTypeId::TIMESTAMP_TZ: return "TIMESTAMP_LTZ(6)";
    case LogicalTypeId::LIST: return "ARRAY<" + MinkTypeOf(duckdb::ListType::GetChildType(type)) + ">";
    case LogicalTypeId::MAP:
      return "MAP<" + MinkTypeOf(duckdb::MapType::KeyType(type)) + ", " +
             MinkTypeOf(duckdb::MapType::ValueType(type)) + ">";
    case LogicalTypeId::STRUCT: {
      std::string fields;
      for (const auto& [name, child] : duckdb::StructType::GetChildTypes(type)) {
        fields += (fields.empty() ? "" : ", ") + name + " " + MinkTypeOf(child);
      }
      return "ROW<" + fields + ">";
    }
    default:
      throw duckdb::NotImplementedException("mink: a column of type %s is not supported",
                                            type.ToString());
  }
}

void MinkSchemaEntry::Alter(duckdb::CatalogTransaction transaction, duckdb::AlterInfo& info) {
  using duckdb::AlterTableType;
  if (info.type != duckdb::AlterType::ALTER_TABLE) ThrowReadOnly("ALTER of anything but a table");
  auto& alter = info.Cast<duckdb::AlterTableInfo>();
  const std::string table = name + "." + alter.name;
  MinkTransaction* current = TransactionOf(transaction);
  client::Cluster& cluster = current != nullptr ? current->cluster() : mink_.cluster();
  auto meta = ValueOrThrow(cluster.DescribeTable(name, alter.name), "describing " + table);
  if (meta == nullptr) throw duckdb::CatalogException("mink: table %s does not exist", table);
  const auto& d = meta->description;
  auto column_of = [&](const std::string& column) -> const client::ColumnSpec* {
    const int i = d.Find(column);
    return i < 0 ? nullptr : &d.columns[static_cast<size_t>(i)];
  };
  nlohmann::json body = {{"table", table}};
  switch (alter.alter_table_type) {
    case AlterTableType::ADD_COLUMN: {
      auto& add = alter.Cast<duckdb::AddColumnInfo>();
      if (add.if_column_not_exists && column_of(add.new_column.Name()) != nullptr) return;
      if (add.new_column.HasDefaultValue()) {
        throw duckdb::NotImplementedException(
            "mink: an added column has no default: rows written before read it as NULL");
      }
      body["add_columns"] = {{{"column", add.new_column.Name() + " " +
                                             MinkTypeOf(add.new_column.Type())}}};
      break;
    }
    case AlterTableType::REMOVE_COLUMN: {
      auto& remove = alter.Cast<duckdb::RemoveColumnInfo>();
      if (remove.if_column_exists && column_of(remove.removed_column) == nullptr) return;
      body["drop_columns"] = {remove.removed_column};
      break;
    }
    case AlterTableType::RENAME_COLUMN: {
      auto& rename = alter.Cast<duckdb::RenameColumnInfo>();
      body["rename_columns"] = {{{"from", rename.old_name}, {"to", rename.new_name}}};
      break;
    }
    case AlterTableType::ALTER_COLUMN_TYPE: {
      // The values are widened as Mink does; a USING expression is not applied.
      auto& change = alter.Cast<duckdb::ChangeColumnTypeInfo>();
      const client::ColumnSpec* column = column_of(change.column_name);
      body["modify_columns"] = {change.column_name + " " + MinkTypeOf(change.target_type) +
                                (column != nullptr && column->not_null ? " NOT NULL" : "")};
      break;
    }
    case AlterTableType::DROP_NOT_NULL: {
      auto& drop = alter.Cast<duckdb::DropNotNullInfo>();
      const client::ColumnSpec* column = column_of(drop.column_name);
      if (column == nullptr) {
        throw duckdb::CatalogException("mink: no column %s in %s", drop.column_name, table);
      }
      body["modify_columns"] = {drop.column_name + " " + column->type_text};
      break;
    }
    case AlterTableType::SET_NOT_NULL:
      throw duckdb::NotImplementedException(
          "mink: a column cannot become NOT NULL: rows written before may hold nulls");
    default:
      throw duckdb::NotImplementedException(
          "mink: ALTER TABLE supports ADD COLUMN, DROP COLUMN, RENAME COLUMN, ALTER COLUMN ... "
          "TYPE and ALTER COLUMN ... DROP NOT NULL (options: mink table alter --set)");
  }
  Status altered = cluster.AlterTable(body);
  if (!altered.ok()) {
    throw duckdb::InvalidInputException("mink: altering %s: %s", table, altered.message());
  }
  // The next lookup (this statement's transaction included) describes the table again.
  if (auto* t = TransactionOf(transaction)) {
    std::lock_guard<std::mutex> lock(t->mu);
    t->tables.erase(table);
  }
}

// Everything about a table that its catalog entry depends on (not its partitions, which the
// scan reads at bind time).
std::string Shape(const client::TableMeta& meta) {
  const auto& d = meta.description;
  std::string s;
  for (const auto& c : d.columns) s += c.name + " " + c.type_text + (c.not_null ? " NN," : ",");
  auto list = [&s](const std::vector<std::string>& names) {
    s += "|";
    for (const auto& n : names) s += n + ",";
  };
  list(d.primary_key);
  list(d.partition_keys);
  list(d.bucket_keys);
  s += "|" + std::to_string(d.bucket_count) + "|" + d.bucket_function + "|" +
       std::to_string(d.schema_id);
  return s;
}

duckdb::TableCatalogEntry* MinkSchemaEntry::GetTable(ClientContext& context,
                                                      MinkTransaction* transaction,
                                                      const std::string& table) {
  const std::string key = name + "." + table;
  if (transaction != nullptr) {
    std::lock_guard<std::mutex> lock(transaction->mu);
    auto it = transaction->tables.find(key);
    if (it != transaction->tables.end()) return it->second;
  }
  client::Cluster& cluster = transaction != nullptr ? transaction->cluster() : mink_.cluster();
  auto meta = ValueOrThrow(cluster.DescribeTable(name, table), "describing " + key);
  duckdb::TableCatalogEntry* result = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = current_.find(table);
    if (meta == nullptr) {
      if (it != current_.end()) {
        retired_.push_back(std::move(it->second));
        current_.erase(it);
      }
    } else {
      std::string shape = Shape(*meta);
      if (it != current_.end() && it->second->shape() == shape) {
        result = it->second.get();
      } else {
        auto& config = duckdb::DBConfig::GetConfig(context);
        auto arrow_table = MakeArrowTableSchema(config, *meta->schema);
        std::vector<duckdb::LogicalType> types = arrow_table->GetTypes();
        duckdb::CreateTableInfo info(*this, table);
        const auto& d = meta->description;
        for (size_t i = 0; i < d.columns.size(); ++i) {
          info.columns.AddColumn(duckdb::ColumnDefinition(d.columns[i].name, types[i]));
          if (d.columns[i].not_null) {
            info.constraints.push_back(
                duckdb::make_uniq<duckdb::NotNullConstraint>(duckdb::LogicalIndex(i)));
          }
        }
        if (!d.primary_key.empty()) {
          info.constraints.push_back(
              duckdb::make_uniq<duckdb::UniqueConstraint>(
              duckdb::vector<std::string>(d.primary_key.begin(), d.primary_key.end()), true));
        }
        auto entry = std::make_unique<MinkTableEntry>(catalog, *this, info, meta,
                                                      std::move(arrow_table), std::move(types),
                                                      std::move(shape));
        result = entry.get();
        if (it != current_.end()) {
          retired_.push_back(std::move(it->second));
          it->second = std::move(entry);
        } else {
          current_.emplace(table, std::move(entry));
        }
      }
    }
  }
  if (transaction != nullptr) {
    std::lock_guard<std::mutex> lock(transaction->mu);
    transaction->tables[key] = result;
  }
  return result;
}

duckdb::TableFunction MinkTableEntry::GetScanFunction(
    ClientContext& context, duckdb::unique_ptr<duckdb::FunctionData>& bind_data) {
  auto& mink = catalog.Cast<MinkCatalog>();
  auto& transaction = duckdb::Transaction::Get(context, catalog).Cast<MinkTransaction>();
  bind_data = MakeScanBindData(context, transaction.cluster_ptr(), mink.recorder(), meta_, arrow_table_,
                               types_);
  return MakeScanFunction();
}

std::vector<std::string> MinkCatalog::Databases(MinkTransaction* transaction) {
  if (transaction != nullptr) {
    std::lock_guard<std::mutex> lock(transaction->mu);
    if (transaction->databases) return *transaction->databases;
  }
  client::Cluster& cluster = transaction != nullptr ? transaction->cluster() : *cluster_;
  auto names = ValueOrThrow(cluster.ListDatabases(), "listing databases");
  if (transaction != nullptr) {
    std::lock_guard<std::mutex> lock(transaction->mu);
    transaction->databases = names;
  }
  return names;
}

MinkSchemaEntry& MinkCatalog::SchemaEntry(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& entry = schemas_[name];
  if (!entry) entry = std::make_unique<MinkSchemaEntry>(*this, SchemaInfo(name));
  return *entry;
}

optional_ptr<duckdb::SchemaCatalogEntry> MinkCatalog::LookupSchema(
    duckdb::CatalogTransaction transaction, const duckdb::EntryLookupInfo& lookup,
    duckdb::OnEntryNotFound if_not_found) {
  const std::string& name = lookup.GetEntryName();
  auto databases = Databases(TransactionOf(transaction));
  if (std::find(databases.begin(), databases.end(), name) == databases.end()) {
    if (if_not_found == duckdb::OnEntryNotFound::THROW_EXCEPTION) {
      throw duckdb::CatalogException("database \"%s\" does not exist in the mink cluster at %s",
                                     name, cluster_->bootstrap());
    }
    return nullptr;
  }
  return &SchemaEntry(name);
}

void MinkCatalog::ScanSchemas(ClientContext& context,
                              std::function<void(duckdb::SchemaCatalogEntry&)> callback) {
  auto& transaction = duckdb::Transaction::Get(context, *this).Cast<MinkTransaction>();
  for (const auto& name : Databases(&transaction)) callback(SchemaEntry(name));
}

std::string MinkCatalog::GetDefaultSchema() const {
  auto databases = cluster_->ListDatabases();
  if (databases.ok() && !databases->empty()) return databases->front();
  return "main";
}

class MinkTransactionManager : public duckdb::TransactionManager {
 public:
  MinkTransactionManager(duckdb::AttachedDatabase& db, MinkCatalog& catalog)
      : duckdb::TransactionManager(db), catalog_(catalog) {}

  duckdb::Transaction& StartTransaction(ClientContext& context) override {
    auto transaction = std::make_unique<MinkTransaction>(*this, context, catalog_.NextTransactionSequence(),
                                                         catalog_.ClusterFor(context));
    auto& result = *transaction;
    std::lock_guard<std::mutex> lock(mu_);
    transactions_[&result] = std::move(transaction);
    return result;
  }
  duckdb::ErrorData CommitTransaction(ClientContext&, duckdb::Transaction& transaction) override {
    Remove(transaction);
    return duckdb::ErrorData();
  }
  void RollbackTransaction(duckdb::Transaction& transaction) override { Remove(transaction); }
  void Checkpoint(ClientContext&, bool) override {}

 private:
  void Remove(duckdb::Transaction& transaction) {
    std::lock_guard<std::mutex> lock(mu_);
    transactions_.erase(&transaction);
  }

  MinkCatalog& catalog_;
  std::mutex mu_;
  std::map<duckdb::Transaction*, std::unique_ptr<MinkTransaction>> transactions_;
};

struct MinkStorageInfo : public duckdb::StorageExtensionInfo {
  std::shared_ptr<client::Cluster> cluster;
  std::shared_ptr<ScanRecorder> recorder;
};

duckdb::unique_ptr<duckdb::Catalog> Attach(optional_ptr<duckdb::StorageExtensionInfo> info,
                                           ClientContext&, duckdb::AttachedDatabase& db,
                                           const std::string&, duckdb::AttachInfo&,
                                           duckdb::AttachOptions&) {
  auto& mink = static_cast<MinkStorageInfo&>(*info);
  return duckdb::make_uniq<MinkCatalog>(db, mink.cluster, mink.recorder);
}

duckdb::unique_ptr<duckdb::TransactionManager> CreateTransactionManager(
    optional_ptr<duckdb::StorageExtensionInfo>, duckdb::AttachedDatabase& db,
    duckdb::Catalog& catalog) {
  return duckdb::make_uniq<MinkTransactionManager>(db, catalog.Cast<MinkCatalog>());
}

}  // namespace

void ReadAs(ClientContext& context, std::shared_ptr<client::Cluster> as) {
  context.registered_state->Insert(kReaderState, duckdb::make_shared_ptr<ReaderState>(std::move(as)));
}

void RegisterMinkStorage(duckdb::DBConfig& config, std::shared_ptr<client::Cluster> cluster,
                         std::shared_ptr<ScanRecorder> recorder) {
  config.AddExtensionOption(kColumnStatisticsSetting,
                            "plan scans of mink log tables with the nodes' column min/max",
                            duckdb::LogicalType::BOOLEAN, duckdb::Value::BOOLEAN(true));
  config.AddExtensionOption(kCompressedScanSetting,
                            "read mink log tables' batches compressed as stored (LZ4 or ZSTD)",
                            duckdb::LogicalType::BOOLEAN, duckdb::Value::BOOLEAN(true));
  auto storage = duckdb::make_uniq<duckdb::StorageExtension>();
  storage->attach = Attach;
  storage->create_transaction_manager = CreateTransactionManager;
  auto info = duckdb::make_shared_ptr<MinkStorageInfo>();
  info->cluster = std::move(cluster);
  info->recorder = std::move(recorder);
  storage->storage_info = std::move(info);
  config.storage_extensions[kStorageName] = std::move(storage);
}

}  // namespace mink::query::internal
