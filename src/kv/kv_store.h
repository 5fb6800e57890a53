#pragma once
// The working copy of a primary-key bucket's state in RocksDB: key bytes -> encoded row. Never
// durable and never the only copy: it is rebuilt from the bucket's newest KV snapshot in the
// object store plus the changelog after it, so RocksDB's own write-ahead log is off and deleting
// the cache directory loses nothing.
//
// KvEnvironment is the node's share of it: one cache directory, one memory budget (a block
// cache that also holds the memtables, through a write-buffer manager) for every bucket. Each
// KvStore is one RocksDB instance in a directory of its own under the environment's working
// directory, removed when the store is dropped.
//
// Thread-safe (RocksDB is); the writer of a bucket orders its Apply calls.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_lock.h"
#include "base/result.h"
#include "base/thread_pool.h"

namespace rocksdb {
class Cache;
class DB;
class Iterator;
class Snapshot;
class WriteBufferManager;
}  // namespace rocksdb

namespace mink::kv {

// A file of a snapshot as the object store holds it.
struct StoredFile {
  std::string key;  // the object's key
  uint64_t size = 0;
  uint32_t crc32c = 0;
};

class KvStore;

class KvEnvironment {
 public:
  // `cache_dir` holds the working copies (work/) and the snapshot files fetched or uploaded
  // (files/<stream>/), created if missing; `memory_bytes` bounds the block cache and the memtables of
  // every store together. Working copies left by processes that ended are removed.
  static Result<std::unique_ptr<KvEnvironment>> Open(const std::string& cache_dir,
                                                     uint64_t memory_bytes);
  ~KvEnvironment();

  // A new, empty store for stream `stream_id`.
  Result<std::shared_ptr<KvStore>> Create(uint64_t stream_id);
  // A store opened over `dir` (a directory NewDirectory made, with `lineage`, and filled with
  // a RocksDB checkpoint's files).
  Result<std::shared_ptr<KvStore>> OpenRestored(uint64_t stream_id, const std::string& dir,
                                                std::string lineage,
                                                std::map<std::string, StoredFile> stored);
  // A fresh directory for a store of `stream_id`, and the new store's lineage id.
  std::string NewDirectory(uint64_t stream_id, std::string* lineage);
  // The directory where the snapshot files of `stream_id` are kept once fetched or uploaded.
  std::string CachedFilesDir(uint64_t stream_id) const;
  // Where the snapshot file with object key `key` of `stream_id` is kept.
  std::string CachedFilePath(uint64_t stream_id, std::string_view key) const;
  // Moves snapshot files to and from the object store, several at once.
  ThreadPool* transfers() { return &transfers_; }
  const std::string& cache_dir() const { return cache_dir_; }
  uint64_t memory_bytes() const { return memory_bytes_; }
  // Bytes the block cache and memtables of every store use now.
  uint64_t MemoryUsage() const;

 private:
  KvEnvironment() = default;
  Result<std::shared_ptr<KvStore>> OpenAt(uint64_t stream_id, std::string dir, std::string lineage,
                                          bool create, std::map<std::string, StoredFile> stored);

  std::string cache_dir_;
  std::string work_dir_;  // this process's working copies
  uint64_t memory_bytes_ = 0;
  std::unique_ptr<FileLock> lock_;  // held while this process uses work_dir_
  std::shared_ptr<rocksdb::Cache> cache_;
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers_;
  ThreadPool transfers_{8, "kv-transfer"};
};

// One change of a write: a new value for the key, or none (deleted).
struct KvChange {
  std::string key;
  std::optional<std::string> value;
};

// A consistent view of a store in key order, valid while it lives (it keeps the store open).
class KvCursor {
 public:
  ~KvCursor();
  bool Valid() const;
  void Next();
  std::string_view key() const;
  std::string_view value() const;
  // Not ok when the iteration stopped on an error rather than at the end.
  Status status() const;

 private:
  friend class KvStore;
  KvCursor(std::shared_ptr<const KvStore> store, const rocksdb::Snapshot* snapshot,
           std::unique_ptr<rocksdb::Iterator> it);
  std::shared_ptr<const KvStore> store_;
  const rocksdb::Snapshot* snapshot_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

// A checkpoint: the store's files at one moment, hard links in a directory of their own.
struct Checkpoint {
  std::string dir;
  std::vector<std::string> files;  // names in dir
  ~Checkpoint();  // removes dir
};

class KvStore : public std::enable_shared_from_this<KvStore> {
 public:
  ~KvStore();  // closes the database and removes its directory

  // The value of `key`, or nullopt.
  Result<std::optional<std::string>> Get(std::string_view key) const;
  // The values of `keys`, in order, in one multi-get.
  Result<std::vector<std::optional<std::string>>> MultiGet(const std::vector<std::string>& keys) const;
  // Applies the changes atomically.
  Status Apply(const std::vector<KvChange>& changes);
  // Every entry from `from` on (all of them when empty), in key order, from a consistent view.
  std::unique_ptr<KvCursor> Scan(std::string_view from = {}) const;
  // RocksDB's estimate of the keys held (exact when nothing was overwritten or deleted since the
  // last compaction).
  uint64_t ApproximateKeys() const;

  // Flushes the memtables and hard-links the live files into a new directory.
  Result<std::unique_ptr<Checkpoint>> MakeCheckpoint();

  // The snapshot files already in the object store, by local file name: a checkpoint's file of
  // the same name and size is not uploaded again. Only files of a snapshot whose commit was
  // confirmed are here (an unconfirmed one's objects may be swept as never committed).
  std::map<std::string, StoredFile> stored_files() const;
  void set_stored_files(std::map<std::string, StoredFile> files);

  uint64_t stream_id() const { return stream_id_; }
  // A random id of this store's line of files: its new files' object keys carry it, so two
  // nodes that restored the same snapshot never write the same key.
  const std::string& lineage() const { return lineage_; }
  const std::string& dir() const { return dir_; }

 private:
  friend class KvEnvironment;
  friend class KvCursor;
  KvStore() = default;

  uint64_t stream_id_ = 0;
  std::string lineage_;
  std::string dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::atomic<uint64_t> next_checkpoint_{0};
  mutable std::mutex stored_mutex_;
  std::map<std::string, StoredFile> stored_;
};

}  // namespace mink::kv
