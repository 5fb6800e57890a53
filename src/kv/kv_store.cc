#include "kv/kv_store.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include "base/log.h"
#include "base/random_id.h"

namespace mink::kv {
namespace fs = std::filesystem;

namespace {

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  if (s.IsNoSpace() || s.IsIOError()) return UnavailableError(what + ": " + s.ToString());
  return InternalError(what + ": " + s.ToString());
}

// Nothing in a working copy is worth RocksDB's write-ahead log: the changelog is the log.
rocksdb::WriteOptions Unlogged() {
  rocksdb::WriteOptions w;
  w.disableWAL = true;
  return w;
}

// Working copies of processes that ended: every work/<id> whose <id>.lock nobody holds.
void RemoveAbandoned(const fs::path& work) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(work, ec)) {
    if (entry.path().extension() != ".lock") continue;
    auto lock = FileLock::TryAcquire(entry.path().string());
    if (!lock.ok()) continue;  // a live process's
    fs::path dir = entry.path();
    dir.replace_extension();
    fs::remove_all(dir, ec);
    fs::remove(entry.path(), ec);
  }
}

}  // namespace

Result<std::unique_ptr<KvEnvironment>> KvEnvironment::Open(const std::string& cache_dir,
                                                           uint64_t memory_bytes) {
  std::unique_ptr<KvEnvironment> env(new KvEnvironment());
  env->cache_dir_ = cache_dir;
  env->memory_bytes_ = memory_bytes;
  std::error_code ec;
  const fs::path work = fs::path(cache_dir) / "work";
  fs::create_directories(work, ec);
  fs::create_directories(fs::path(cache_dir) / "files", ec);
  if (ec) return InvalidArgumentError("the cache directory " + cache_dir + ": " + ec.message());
  RemoveAbandoned(work);
  const std::string id = std::to_string(getpid()) + "-" + RandomHex(4);
  MINK_ASSIGN_OR_RETURN(env->lock_, FileLock::TryAcquire((work / (id + ".lock")).string()));
  env->work_dir_ = (work / id).string();
  fs::create_directories(env->work_dir_, ec);
  if (ec) return InvalidArgumentError("the cache directory " + cache_dir + ": " + ec.message());
  // One budget: the memtables are charged to the block cache, which evicts blocks to make room.
  env->cache_ = rocksdb::NewLRUCache(static_cast<size_t>(memory_bytes));
  env->write_buffers_ =
      std::make_shared<rocksdb::WriteBufferManager>(static_cast<size_t>(memory_bytes / 2), env->cache_);
  return env;
}

KvEnvironment::~KvEnvironment() {
  std::error_code ec;
  if (!work_dir_.empty()) fs::remove_all(work_dir_, ec);
}

uint64_t KvEnvironment::MemoryUsage() const { return cache_->GetUsage(); }

std::string KvEnvironment::NewDirectory(uint64_t stream_id, std::string* lineage) {
  *lineage = RandomHex(8);
  return (fs::path(work_dir_) / (std::to_string(stream_id) + "-" + *lineage)).string();
}

std::string KvEnvironment::CachedFilesDir(uint64_t stream_id) const {
  return (fs::path(cache_dir_) / "files" / std::to_string(stream_id)).string();
}

std::string KvEnvironment::CachedFilePath(uint64_t stream_id, std::string_view key) const {
  // One file name per key: a key from a manifest never names a path outside the directory.
  std::string name(key);
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  return (fs::path(CachedFilesDir(stream_id)) / name).string();
}

Result<std::shared_ptr<KvStore>> KvEnvironment::Create(uint64_t stream_id) {
  std::string lineage;
  std::string dir = NewDirectory(stream_id, &lineage);
  return OpenAt(stream_id, std::move(dir), std::move(lineage), true, {});
}

Result<std::shared_ptr<KvStore>> KvEnvironment::OpenRestored(uint64_t stream_id,
                                                             const std::string& dir,
                                                             std::string lineage,
                                                             std::map<std::string, StoredFile> stored) {
  return OpenAt(stream_id, dir, std::move(lineage), false, std::move(stored));
}

Result<std::shared_ptr<KvStore>> KvEnvironment::OpenAt(uint64_t stream_id, std::string dir,
                                                       std::string lineage, bool create,
                                                       std::map<std::string, StoredFile> stored) {
  rocksdb::Options options;
  options.create_if_missing = create;
  options.error_if_exists = create;
  options.write_buffer_manager = write_buffers_;
  options.write_buffer_size = 16 << 20;
  options.max_write_buffer_number = 2;
  options.max_background_jobs = 2;
  // A snapshot copies the MANIFEST whole: a small one keeps snapshots small.
  options.max_manifest_file_size = 1 << 20;
  options.avoid_flush_during_shutdown = true;  // the copy is dropped anyway
  options.info_log_level = rocksdb::InfoLogLevel::ERROR_LEVEL;
  options.keep_log_file_num = 1;
  // A node holds many buckets, each with many SSTs: files past this are closed and reopened on
  // use, so working copies never run the process out of descriptors.
  options.max_open_files = 256;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache_;
  table.cache_index_and_filter_blocks = true;  // inside the budget too
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* db = nullptr;
  MINK_RETURN_IF_ERROR(FromRocks(rocksdb::DB::Open(options, dir, &db),
                                 "opening the working copy of stream " + std::to_string(stream_id)));
  std::shared_ptr<KvStore> store(new KvStore());
  store->stream_id_ = stream_id;
  store->lineage_ = std::move(lineage);
  store->dir_ = std::move(dir);
  store->db_.reset(db);
  store->stored_ = std::move(stored);
  return store;
}

KvStore::~KvStore() {
  db_.reset();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

Result<std::optional<std::string>> KvStore::Get(std::string_view key) const {
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(key.data(), key.size()), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  MINK_RETURN_IF_ERROR(FromRocks(s, "reading the working copy of stream " + std::to_string(stream_id_)));
  return std::optional<std::string>(std::move(value));
}

Result<std::vector<std::optional<std::string>>> KvStore::MultiGet(
    const std::vector<std::string>& keys) const {
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<std::string> values;
  std::vector<rocksdb::Status> statuses = db_->MultiGet(rocksdb::ReadOptions(), slices, &values);
  std::vector<std::optional<std::string>> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    MINK_RETURN_IF_ERROR(
        FromRocks(statuses[i], "reading the working copy of stream " + std::to_string(stream_id_)));
    out[i] = std::move(values[i]);
  }
  return out;
}

Status KvStore::Apply(const std::vector<KvChange>& changes) {
  rocksdb::WriteBatch batch;
  for (const auto& c : changes) {
    if (c.value) {
      batch.Put(c.key, *c.value);
    } else {
      batch.Delete(c.key);
    }
  }
  return FromRocks(db_->Write(Unlogged(), &batch),
                   "writing the working copy of stream " + std::to_string(stream_id_));
}

std::unique_ptr<KvCursor> KvStore::Scan(std::string_view from) const {
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  rocksdb::ReadOptions read;
  read.snapshot = snapshot;
  read.fill_cache = false;  // a scan of everything would evict what lookups use
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
  if (from.empty()) {
    it->SeekToFirst();
  } else {
    it->Seek(rocksdb::Slice(from.data(), from.size()));
  }
  return std::unique_ptr<KvCursor>(new KvCursor(shared_from_this(), snapshot, std::move(it)));
}

uint64_t KvStore::ApproximateKeys() const {
  uint64_t n = 0;
  db_->GetIntProperty("rocksdb.estimate-num-keys", &n);
  return n;
}

Result<std::unique_ptr<Checkpoint>> KvStore::MakeCheckpoint() {
  rocksdb::Checkpoint* raw = nullptr;
  MINK_RETURN_IF_ERROR(FromRocks(rocksdb::Checkpoint::Create(db_.get(), &raw), "a checkpoint"));
  std::unique_ptr<rocksdb::Checkpoint> maker(raw);
  auto checkpoint = std::make_unique<Checkpoint>();
  checkpoint->dir = dir_ + ".checkpoint-" + std::to_string(next_checkpoint_++);
  // log_size_for_flush 0: the memtables are flushed first, so the files hold every write.
  MINK_RETURN_IF_ERROR(FromRocks(maker->CreateCheckpoint(checkpoint->dir, 0),
                                 "a checkpoint of stream " + std::to_string(stream_id_)));
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(checkpoint->dir, ec)) {
    checkpoint->files.push_back(entry.path().filename().string());
  }
  if (ec) return UnavailableError("listing " + checkpoint->dir + ": " + ec.message());
  return checkpoint;
}

std::map<std::string, StoredFile> KvStore::stored_files() const {
  std::lock_guard<std::mutex> lock(stored_mutex_);
  return stored_;
}

void KvStore::set_stored_files(std::map<std::string, StoredFile> files) {
  std::lock_guard<std::mutex> lock(stored_mutex_);
  stored_ = std::move(files);
}

Checkpoint::~Checkpoint() {
  std::error_code ec;
  if (!dir.empty()) fs::remove_all(dir, ec);
}

KvCursor::KvCursor(std::shared_ptr<const KvStore> store, const rocksdb::Snapshot* snapshot,
                   std::unique_ptr<rocksdb::Iterator> it)
    : store_(std::move(store)), snapshot_(snapshot), it_(std::move(it)) {}

KvCursor::~KvCursor() {
  it_.reset();
  store_->db_->ReleaseSnapshot(snapshot_);
}

bool KvCursor::Valid() const { return it_->Valid(); }
void KvCursor::Next() { it_->Next(); }
std::string_view KvCursor::key() const { return {it_->key().data(), it_->key().size()}; }
std::string_view KvCursor::value() const { return {it_->value().data(), it_->value().size()}; }
Status KvCursor::status() const {
  return FromRocks(it_->status(), "scanning the working copy of stream " + std::to_string(store_->stream_id_));
}

}  // namespace mink::kv
