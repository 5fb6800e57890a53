#pragma once
// The metadata state machine: what every node knows after applying the command log up to
// `applied_seq`. Validation and application are deterministic, so every node that applies the
// same commands reaches the same state (its Serialize() output is identical byte for byte).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "metadata/commands.h"

namespace mink::metadata {

struct NodeState {
  int32_t node_id = 0;
  int64_t node_epoch = 0;  // the newest registered process of this node
  bool leaving = false;    // that process is shutting down (LeaveCluster)
};

// The last elected coordinator (ElectCoordinator); node_id 0 before any.
struct CoordinatorState {
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  int64_t lease_epoch = 0;
};

// Where one run of a stream's offsets lives.
struct Segment {
  int64_t start_offset = 0;
  int64_t end_offset = 0;
  std::string object_key;
  int32_t bucket_id = 0;
  uint64_t position = 0;
  uint64_t length = 0;
  int64_t max_timestamp_ms = 0;                       // newest commit time
  int64_t max_record_time_ms = kUnknownRecordTime;  // SegmentEntry::max_record_time_ms
};

struct StreamState {
  uint64_t stream_id = 0;
  std::string name;
  int64_t epoch = 0;            // 0 until first opened
  int32_t owner_node = 0;       // 0 = no owner
  int64_t owner_node_epoch = 0;
  int32_t assigned_node = 0;    // who the coordinator gave it to (AssignStreams); 0 = nobody yet
  int64_t start_offset = 0;     // first readable offset (moves with trimming)
  int64_t end_offset = 0;       // one past the last committed offset (the high watermark)
  std::map<int64_t, Segment> segments;  // by start offset; contiguous up to end_offset

  // The segment holding `offset`, or nullptr.
  const Segment* Find(int64_t offset) const;
};

struct ObjectState {
  std::string key;
  int32_t bucket_id = 0;
  uint64_t size = 0;
  int64_t references = 0;  // segments pointing into the object
  int64_t committed_ms = 0;
};

struct DatabaseState {
  std::string name;
  int64_t created_ms = 0;
};

struct PartitionState {
  int64_t partition_id = 0;
  std::string name;
  std::vector<uint64_t> streams;  // one per bucket
};

struct TableState {
  int64_t table_id = 0;
  std::string database;
  std::string name;
  std::string descriptor;  // JSON owned by the table layer
  int32_t bucket_count = 1;
  bool partitioned = false;
  std::vector<uint64_t> streams;                    // unpartitioned: one per bucket
  std::map<std::string, PartitionState> partitions;  // partitioned: by partition name
  int64_t next_partition_id = 1;
  int64_t next_auto_increment = 1;  // the first value of the next auto-increment range
  int64_t created_ms = 0;

  std::string full_name() const { return database + "." + name; }
};

// A tiered table's lake (the built-in catalog): its Iceberg table and current snapshot, the
// files and manifests that snapshot has, and how far each bucket stream was tiered.
struct LakeTableState {
  std::string table_uuid;
  std::string location;
  std::string metadata_location;
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  int64_t last_updated_ms = 0;
  std::vector<LakeSnapshot> snapshots;
  std::vector<std::pair<std::string, int64_t>> metadata_log;  // earlier metadata files, when
  std::vector<LakeManifest> manifests;
  std::vector<LakeFile> files;
  std::map<uint64_t, int64_t> offsets;  // bucket stream -> tiered below this offset
};

// A namespace of the lake catalog: one created through the Iceberg REST API, or the properties
// given there to a Mink database (every database is a namespace of the catalog).
struct LakeNamespaceState {
  std::map<std::string, std::string> properties;
};

// A catalog object of continuous SQL (continuous_commands.h).
struct ContinuousObjectState {
  std::string kind;  // source, stream, view, sink
  std::string statement;
  std::string definition;
  std::vector<std::string> inputs;
  int64_t created_ms = 0;
  int64_t epoch = 0;     // a pipeline's last committed epoch (0: none yet)
  std::string progress;  // and where it continues (CommitContinuousProgress)
};

// A user (user_commands.h).
struct UserState {
  std::vector<ScramCredential> credentials;
  int64_t created_ms = 0;
};

// A table of the lake catalog that Mink does not tier: its current metadata file.
struct LakeCatalogTableState {
  std::string metadata_location;
  std::string previous_location;  // "" for none
};

using LakeTableName = std::pair<NamespaceName, std::string>;

// The outcome of a request with an Idempotency-Key, kept kIdempotencyLifetimeMs from time_ms.
struct IdempotentRecord {
  int32_t status = 0;
  std::string body;
  int64_t time_ms = 0;
};

struct KvSnapshotState {
  std::string key;
  int32_t bucket_id = 0;
  uint64_t size = 0;  // of the object `key` and every file
  int64_t offset = 0;
  std::vector<KvSnapshotFile> files;  // shared with other snapshots of the stream
};

class State {
 public:
  static constexpr int32_t kMaxBuckets = 4096;      // of a table or partition
  static constexpr size_t kMaxPartitions = 1000;    // of a table
  int64_t applied_seq() const { return applied_seq_; }
  // The seq of the last applied command that may change which node serves which bucket (any
  // but the data path's commits, trims, snapshots and allocations); not kept in snapshots, so
  // it may move without a change after a reload. The cluster follows placement only when it
  // moved (node::ClusterFollower).
  int64_t placement_seq() const { return placement_seq_; }
  const std::map<int32_t, NodeState>& nodes() const { return nodes_; }
  const std::map<uint64_t, StreamState>& streams() const { return streams_; }
  const std::map<std::string, ObjectState>& objects() const { return objects_; }
  // Objects without references, with the time they lost their last one.
  const std::map<std::string, int64_t>& unreferenced() const { return unreferenced_; }
  uint64_t next_stream_id() const { return next_stream_id_; }

  const StreamState* FindStream(uint64_t id) const;
  const CoordinatorState& coordinator() const { return coordinator_; }
  int64_t NodeEpoch(int32_t node_id) const;

  const std::map<std::string, DatabaseState>& databases() const { return databases_; }
  const std::map<int64_t, TableState>& tables() const { return tables_; }
  const TableState* FindTable(const std::string& database, const std::string& name) const;
  const TableState* FindTable(int64_t table_id) const;
  int64_t next_table_id() const { return next_table_id_; }
  int64_t next_writer_id() const { return next_writer_id_; }
  const std::map<uint64_t, KvSnapshotState>& kv_snapshots() const { return kv_snapshots_; }
  // Tiered tables' lakes, by table id.
  const std::map<int64_t, LakeTableState>& lake_tables() const { return lake_tables_; }
  // The lake catalog's own namespaces and tables, and the outcomes kept for retries.
  const std::map<NamespaceName, LakeNamespaceState>& lake_namespaces() const {
    return lake_namespaces_;
  }
  const std::map<std::string, ContinuousObjectState>& continuous() const { return continuous_; }
  const std::map<std::string, UserState>& users() const { return users_; }
  const std::set<AclEntry>& acls() const { return acls_; }
  const std::map<LakeTableName, LakeCatalogTableState>& lake_catalog_tables() const {
    return lake_catalog_tables_;
  }
  const std::map<std::string, IdempotentRecord>& idempotent_outcomes() const {
    return idempotent_outcomes_;
  }
  // Whether `name` is a namespace of the lake catalog: a Mink database or one of its own.
  bool LakeNamespaceExists(const NamespaceName& name) const;
  // The Mink table that `space`.`name` names in the lake catalog, or nullptr.
  const TableState* MinkTableOf(const NamespaceName& space, const std::string& name) const;

  // Checks `command` against this state; the error explains the refusal. Fencing and
  // conflicts are Aborted, malformed commands InvalidArgument, missing things NotFound.
  Status Validate(const Command& command) const;
  // Applies a validated command recorded at `seq` and `time_ms`.
  void Apply(const Command& command, int64_t seq, int64_t time_ms);
  // Skips a command that failed validation (it stays in the log but changes nothing).
  void Skip(int64_t seq) { applied_seq_ = seq; }

  // A canonical JSON text of the whole state; loading it gives an equal state.
  std::string Serialize() const;
  static Result<State> Deserialize(const std::string& text);

 private:
  // Each command's validation and application, in the file of its domain: state_nodes.cc,
  // state_streams.cc, state_catalog.cc, state_writers.cc, state_kv.cc. Validate and Apply
  // (state.cc) dispatch to them; Serialize and Deserialize are in state_json.cc.
  Status CheckCommand(const RegisterNode& c) const;
  void ApplyCommand(const RegisterNode& c, int64_t time_ms);
  Status CheckCommand(const ElectCoordinator& c) const;
  void ApplyCommand(const ElectCoordinator& c, int64_t time_ms);
  Status CheckCommand(const LeaveCluster& c) const;
  void ApplyCommand(const LeaveCluster& c, int64_t time_ms);
  Status CheckCommand(const CreateStream& c) const;
  void ApplyCommand(const CreateStream& c, int64_t time_ms);
  Status CheckCommand(const OpenStreams& c) const;
  void ApplyCommand(const OpenStreams& c, int64_t time_ms);
  Status CheckCommand(const CommitObjects& c) const;
  void ApplyCommand(const CommitObjects& c, int64_t time_ms);
  Status CheckCommand(const ReplaceSegments& c) const;
  void ApplyCommand(const ReplaceSegments& c, int64_t time_ms);
  Status CheckCommand(const TrimStream& c) const;
  void ApplyCommand(const TrimStream& c, int64_t time_ms);
  Status CheckCommand(const DeleteStream& c) const;
  void ApplyCommand(const DeleteStream& c, int64_t time_ms);
  Status CheckCommand(const ForgetObjects& c) const;
  void ApplyCommand(const ForgetObjects& c, int64_t time_ms);
  Status CheckCommand(const AssignStreams& c) const;
  void ApplyCommand(const AssignStreams& c, int64_t time_ms);
  Status CheckCommand(const ReleaseStreams& c) const;
  void ApplyCommand(const ReleaseStreams& c, int64_t time_ms);
  Status CheckCommand(const CreateDatabase& c) const;
  void ApplyCommand(const CreateDatabase& c, int64_t time_ms);
  Status CheckCommand(const DropDatabase& c) const;
  void ApplyCommand(const DropDatabase& c, int64_t time_ms);
  Status CheckCommand(const CreateTable& c) const;
  void ApplyCommand(const CreateTable& c, int64_t time_ms);
  Status CheckCommand(const DropTable& c) const;
  void ApplyCommand(const DropTable& c, int64_t time_ms);
  Status CheckCommand(const CreatePartition& c) const;
  void ApplyCommand(const CreatePartition& c, int64_t time_ms);
  Status CheckCommand(const AlterTable& c) const;
  void ApplyCommand(const AlterTable& c, int64_t time_ms);
  Status CheckCommand(const AllocateAutoIncrement& c) const;
  void ApplyCommand(const AllocateAutoIncrement& c, int64_t time_ms);
  Status CheckCommand(const CommitLakeSnapshot& c) const;
  void ApplyCommand(const CommitLakeSnapshot& c, int64_t time_ms);
  Status CheckCommand(const CreateLakeNamespace& c) const;
  void ApplyCommand(const CreateLakeNamespace& c, int64_t time_ms);
  Status CheckCommand(const DropLakeNamespace& c) const;
  void ApplyCommand(const DropLakeNamespace& c, int64_t time_ms);
  Status CheckCommand(const UpdateLakeNamespace& c) const;
  void ApplyCommand(const UpdateLakeNamespace& c, int64_t time_ms);
  Status CheckCommand(const CommitLakeCatalog& c) const;
  void ApplyCommand(const CommitLakeCatalog& c, int64_t time_ms);
  // table.create's lake_attach (state_lake_catalog.cc).
  Status CheckLakeAttach(const CreateTable& c) const;
  void ApplyLakeAttach(const CreateTable& c, int64_t time_ms);
  Status CheckCommand(const RenameLakeTable& c) const;
  void ApplyCommand(const RenameLakeTable& c, int64_t time_ms);
  // Continuous SQL's objects (state_continuous.cc).
  Status CheckCommand(const CreateContinuousObject& c) const;
  void ApplyCommand(const CreateContinuousObject& c, int64_t time_ms);
  Status CheckCommand(const DropContinuousObject& c) const;
  void ApplyCommand(const DropContinuousObject& c, int64_t time_ms);
  Status CheckCommand(const CommitContinuousProgress& c) const;
  void ApplyCommand(const CommitContinuousProgress& c, int64_t time_ms);
  // Users (state_users.cc).
  Status CheckCommand(const CreateUser& c) const;
  void ApplyCommand(const CreateUser& c, int64_t time_ms);
  Status CheckCommand(const DeleteUser& c) const;
  void ApplyCommand(const DeleteUser& c, int64_t time_ms);
  Status CheckCommand(const SetClusterSecret& c) const;
  void ApplyCommand(const SetClusterSecret& c, int64_t time_ms);
  Status CheckCommand(const GrantAcls& c) const;
  void ApplyCommand(const GrantAcls& c, int64_t time_ms);
  Status CheckCommand(const RevokeAcls& c) const;
  void ApplyCommand(const RevokeAcls& c, int64_t time_ms);
  // The lake catalog (state_lake_catalog.cc): a key not yet used; keeping an outcome.
  Status CheckOutcome(const IdempotentOutcome& outcome) const;
  void KeepOutcome(const IdempotentOutcome& outcome, int64_t time_ms);
  Status CheckCommand(const AllocateWriterId& c) const;
  void ApplyCommand(const AllocateWriterId& c, int64_t time_ms);
  Status CheckCommand(const CommitKvSnapshot& c) const;
  void ApplyCommand(const CommitKvSnapshot& c, int64_t time_ms);

  // Streams and objects (state_streams.cc).
  Status CheckOwner(int32_t node, int64_t node_epoch) const;
  Status CheckNewObject(const ObjectEntry& object) const;
  void AddObject(const ObjectEntry& object, int64_t time_ms);
  void Unreference(const std::string& key, int64_t time_ms);
  // Drops a KV snapshot's references: its object and each of its files.
  void ReleaseKvSnapshot(const KvSnapshotState& snapshot, int64_t time_ms);
  // Creates `count` streams from `first`, open and owned at epoch 1 (owner 0 = unowned).
  std::vector<uint64_t> AddStreams(uint64_t first, int32_t count, const std::string& prefix,
                                   int32_t owner, int64_t owner_epoch);
  void RemoveStream(uint64_t stream_id, int64_t time_ms);
  // The catalog (state_catalog.cc).
  void RemoveTable(int64_t table_id, int64_t time_ms);

  int64_t applied_seq_ = 0;
  int64_t placement_seq_ = 0;
  uint64_t next_stream_id_ = 1;
  std::map<int32_t, NodeState> nodes_;
  CoordinatorState coordinator_;
  std::map<uint64_t, StreamState> streams_;
  std::map<std::string, ObjectState> objects_;
  std::map<std::string, int64_t> unreferenced_;
  std::map<std::string, DatabaseState> databases_;
  std::map<int64_t, TableState> tables_;
  int64_t next_table_id_ = 1;
  int64_t next_writer_id_ = 1;
  std::map<uint64_t, KvSnapshotState> kv_snapshots_;
  std::map<int64_t, LakeTableState> lake_tables_;
  std::map<NamespaceName, LakeNamespaceState> lake_namespaces_;
  std::map<LakeTableName, LakeCatalogTableState> lake_catalog_tables_;
  std::map<std::string, IdempotentRecord> idempotent_outcomes_;
  std::map<std::string, ContinuousObjectState> continuous_;
  std::map<std::string, UserState> users_;
  std::set<AclEntry> acls_;
};

}  // namespace mink::metadata
