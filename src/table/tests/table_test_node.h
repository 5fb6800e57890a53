#pragma once
// Helpers of the table layer's tests: a node (a metadata log on a temporary SQLite file and a
// stream store over an in-memory object store), the table layer's rooms wired as TableStore
// wires them (for tests that drive one room and use the others to set up and to look at what
// was stored), batches built from rows, and reads rendered as text lines.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "metadata/metadata_log.h"
#include "object_store/memory_store.h"
#include "storage/stream_store.h"
#include "table/arrow_rows.h"
#include "table/row_router.h"
#include "table/table_store.h"
#include "test_env.h"

namespace mink::table::testing {

struct NodeOptions {
  TableOptions tables;
  const Clock* clock = nullptr;  // the metadata log's (and so the batches' commit times)
  std::chrono::milliseconds upload_deadline{std::chrono::seconds(30)};
  int32_t node_id = 1;
  // Builds and starts a TableStore (with this assignment; null: SingleNodeAssignment). Off for
  // tests that wire the rooms themselves (Rooms).
  bool table_store = true;
  const BucketAssignment* assignment = nullptr;
};

// One node over shared metadata and objects: start another on the same URL and store to see
// the same cluster (a restart, or a second node).
struct TestNode {
  std::unique_ptr<metadata::MetadataLog> meta;
  std::unique_ptr<storage::StreamStore> storage;
  std::unique_ptr<TableStore> tables;  // declared last: stopped first

  static std::unique_ptr<TestNode> Start(const std::string& meta_url,
                                         std::shared_ptr<object_store::ObjectStore> objects,
                                         const NodeOptions& options = {}) {
    auto n = std::make_unique<TestNode>();
    metadata::MetadataOptions mo;
    mo.node_label = "node-" + std::to_string(options.node_id);
    if (options.clock != nullptr) mo.clock = options.clock;
    auto meta = metadata::MetadataLog::Open(meta_url, mo);
    EXPECT_TRUE(meta.ok()) << meta.status();
    if (!meta.ok()) return nullptr;
    n->meta = std::move(*meta);
    auto id = storage::StreamStore::RegisterNode(n->meta.get(), options.node_id);
    EXPECT_TRUE(id.ok()) << id.status();
    storage::StorageOptions so;
    so.wal_flush_interval = std::chrono::milliseconds(2);
    so.upload_deadline = options.upload_deadline;
    auto store = storage::StreamStore::Open(so, n->meta.get(),
                                            storage::StoreSet{objects, -2, objects, -3}, *id,
                                            /*maintenance=*/false);
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return nullptr;
    n->storage = std::move(*store);
    if (options.table_store) {
      n->tables = std::make_unique<TableStore>(n->meta.get(), n->storage.get(), options.tables,
                                               options.assignment);
      Status started = n->tables->Start();
      EXPECT_TRUE(started.ok()) << started;
    }
    return n;
  }
};

// "sqlite:<a new temporary directory>/meta.db"
inline std::string TempMetaUrl(const std::string& name) {
  return "sqlite:" + testing_env::MakeTempDir(name) + "/meta.db";
}

// A batch of the given columns ("name TYPE [NOT NULL]"), one Row per row.
inline arrow::RecordBatchPtr BatchOf(const std::vector<std::string>& columns,
                                     const std::vector<Row>& rows) {
  TableSchema schema;
  std::vector<LogicalType> types;
  for (const auto& text : columns) {
    auto c = ParseColumn(text);
    EXPECT_TRUE(c.ok()) << c.status();
    types.push_back(c->type);
    schema.columns.push_back(*c);
  }
  std::vector<const Row*> pointers;
  for (const auto& r : rows) pointers.push_back(&r);
  auto batch = RowsToBatch(pointers, ToArrowSchema(schema), types);
  EXPECT_TRUE(batch.ok()) << batch.status();
  return batch.ok() ? *batch : nullptr;
}

// A batch of a table's full schema.
inline arrow::RecordBatchPtr TableBatch(const TableDescriptor& d, const std::vector<Row>& rows) {
  std::vector<LogicalType> types;
  for (const auto& c : d.schema.columns) types.push_back(c.type);
  std::vector<const Row*> pointers;
  for (const auto& r : rows) pointers.push_back(&r);
  auto batch = RowsToBatch(pointers, ToArrowSchema(d.schema), types);
  EXPECT_TRUE(batch.ok()) << batch.status();
  return batch.ok() ? *batch : nullptr;
}

// The logical type an Arrow type carries, for rendering.
inline LogicalType RenderedType(const arrow::DataType& t) {
  const char* text = "STRING";
  std::string decimal;
  switch (t.id()) {
    case arrow::TypeId::kBool:
      text = "BOOLEAN";
      break;
    case arrow::TypeId::kInt8:
      text = "TINYINT";
      break;
    case arrow::TypeId::kInt16:
      text = "SMALLINT";
      break;
    case arrow::TypeId::kInt32:
      text = "INT";
      break;
    case arrow::TypeId::kInt64:
      text = "BIGINT";
      break;
    case arrow::TypeId::kFloat64:
      text = "DOUBLE";
      break;
    case arrow::TypeId::kDate32:
      text = "DATE";
      break;
    case arrow::TypeId::kTimestamp:
      text = "TIMESTAMP_LTZ(3)";
      break;
    case arrow::TypeId::kBinary:
      text = "BYTES";
      break;
    case arrow::TypeId::kDecimal128:
      decimal = "DECIMAL(" + std::to_string(t.precision()) + "," + std::to_string(t.scale()) + ")";
      text = decimal.c_str();
      break;
    default:
      break;
  }
  return *ParseType(text);
}

// The rows of a batch as "v1,v2,..." (null as "null", decimals as their unscaled integer).
inline std::vector<std::string> Lines(const arrow::RecordBatch& batch) {
  std::vector<LogicalType> types;
  for (const auto& f : batch.schema()->fields()) types.push_back(RenderedType(*f.type()));
  std::vector<std::string> lines;
  for (const auto& row : BatchToRows(batch, types)) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const Value& v = row[i];
      if (i > 0) line += ",";
      switch (v.kind()) {
        case Value::Kind::kNull:
          line += "null";
          break;
        case Value::Kind::kBool:
          line += v.bool_value() ? "true" : "false";
          break;
        case Value::Kind::kInt:
          line += std::to_string(v.int_value());
          break;
        case Value::Kind::kDouble:
          line += std::to_string(v.double_value());
          break;
        case Value::Kind::kDecimal:
          line += std::to_string(static_cast<int64_t>(v.decimal_value()));
          break;
        default:
          line += v.bytes();
          break;
      }
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

// A read (TableStore or TableReader) as text lines; the read must succeed.
template <typename Reader>
std::vector<std::string> ReadLines(Reader& reader, const ReadRequest& request) {
  std::vector<std::string> lines;
  Status s = reader.Read(request, [&](const arrow::RecordBatchPtr& b) {
    for (auto& line : Lines(*b)) lines.push_back(std::move(line));
    return true;
  });
  EXPECT_TRUE(s.ok()) << s;
  return lines;
}

// The rooms of one node's table layer, wired as TableStore wires them (on a node started
// without a TableStore).
struct Rooms {
  explicit Rooms(TestNode* node, TableOptions options = {},
                 const BucketAssignment* assignment = nullptr)
      : single_node(node->storage->node()),
        ownership(node->meta.get(), node->storage.get(),
                  assignment != nullptr ? assignment : &single_node),
        catalog(node->meta.get(), &ownership),
        buckets(node->meta.get(), node->storage.get(), options.kv_snapshot_records,
                options.writer_state_replay_offsets),
        log_writer(&catalog, &buckets, node->storage.get()),
        pk_writer(node->meta.get(), node->storage.get(), &catalog, &buckets,
                  options.kv_snapshot_records),
        reader(node->meta.get(), node->storage.get(), &catalog, &buckets,
               options.snapshot_batch_rows),
        stats(node->meta.get(), node->storage.get(), &catalog),
        bucket_log(node->meta.get(), node->storage.get(), &catalog) {}

  // Routes the rows and hands them to the writer of the table's kind, as TableStore::Write.
  Result<WriteResult> Write(const WriteRequest& request,
                            const std::vector<arrow::RecordBatchPtr>& batches) {
    MINK_ASSIGN_OR_RETURN(auto table, catalog.Find(request.table));
    MINK_ASSIGN_OR_RETURN(RoutedWrite routed, RouteRows(*table, request, batches, &sticky));
    if (routed.rows.empty()) return WriteResult{};
    if (table->d.has_primary_key()) {
      return pk_writer.Write(*table, request, routed.targets, routed.rows);
    }
    return log_writer.Write(*table, request, routed.rows);
  }
  // Write of full-schema rows; the write must succeed.
  WriteResult MustWrite(const std::string& table, const std::vector<Row>& rows) {
    auto r = Write({table}, {Batch(table, rows)});
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : WriteResult{};
  }
  // A batch of the table's full schema.
  arrow::RecordBatchPtr Batch(const std::string& table, const std::vector<Row>& rows) {
    auto info = catalog.DescribeTable(table);
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? TableBatch(info->descriptor, rows) : nullptr;
  }
  std::vector<std::string> Read(const ReadRequest& request) { return ReadLines(reader, request); }

  SingleNodeAssignment single_node;
  BucketOwnership ownership;
  Catalog catalog;
  BucketStates buckets;
  LogWriter log_writer;
  PrimaryKeyWriter pk_writer;
  TableReader reader;
  ColumnStatsCache stats;
  BucketLog bucket_log;
  std::atomic<uint64_t> sticky{0};
};

// A node without a TableStore and its rooms, with a database "shop".
class RoomsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_url_ = TempMetaUrl("table-rooms");
    objects_ = std::make_shared<object_store::MemoryStore>();
    StartNode();
    ASSERT_TRUE(rooms_->catalog.CreateDatabase("shop").ok());
  }
  void TearDown() override { StopNode(); }

  void StartNode(NodeOptions options = {}) {
    options.table_store = false;
    node_ = TestNode::Start(meta_url_, objects_, options);
    ASSERT_NE(node_, nullptr);
    rooms_ = std::make_unique<Rooms>(node_.get(), options.tables);
    // As TableStore::Start: take back the buckets of an earlier process of this node.
    auto taken = rooms_->ownership.TakeAssigned();
    ASSERT_TRUE(taken.ok()) << taken.status();
  }
  void StopNode() {
    rooms_.reset();
    if (node_) node_->storage->Stop();
    node_.reset();
  }
  // Creates the table; it must be created.
  TableInfo MustCreate(const std::string& name, const TableSpec& spec) {
    auto info = rooms_->catalog.CreateTable(name, spec);
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? *info : TableInfo{};
  }
  // The metadata's record of a stream (a copy; stream_id 0 when there is none).
  metadata::StreamState StreamOf(uint64_t stream) const {
    return node_->meta->Read([&](const metadata::State& s) {
      const metadata::StreamState* st = s.FindStream(stream);
      return st != nullptr ? *st : metadata::StreamState{};
    });
  }

  std::string meta_url_;
  std::shared_ptr<object_store::MemoryStore> objects_;
  std::unique_ptr<TestNode> node_;
  std::unique_ptr<Rooms> rooms_;  // after node_: destroyed first
};

}  // namespace mink::table::testing
