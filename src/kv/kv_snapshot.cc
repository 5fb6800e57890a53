#include "kv/kv_snapshot.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <system_error>

#include "base/bytes.h"
#include "base/random_id.h"
#include "codec/crc32c.h"

namespace mink::kv {
namespace fs = std::filesystem;

namespace {

void PutString(std::string* out, std::string_view s) {
  PutU32(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}

bool ReadString(ByteReader* r, std::string* out) {
  uint32_t n = 0;
  std::string_view bytes;
  if (!r->ReadU32(&n) || !r->ReadBytes(n, &bytes)) return false;
  out->assign(bytes);
  return true;
}

// A manifest names files inside one directory: a name with a path in it would write elsewhere.
bool PlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return UnavailableError("cannot read " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return UnavailableError("cannot read " + path);
  return std::move(bytes).str();
}

Status WriteWholeFile(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) return UnavailableError("cannot write " + path);
  return Status::Ok();
}

// Places `from` at `to` as a hard link (the same bytes, no copy), or a copy across file systems.
Status LinkOrCopy(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::create_hard_link(from, to, ec);
  if (!ec) return Status::Ok();
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) return UnavailableError("cannot place " + to + ": " + ec.message());
  return Status::Ok();
}

// Runs `work(i)` for i in [0, n) on the environment's transfer threads; the first error.
Status InParallel(KvEnvironment* env, size_t n, const std::function<Status(size_t)>& work) {
  std::vector<Status> results(n);
  std::vector<std::function<void()>> tasks;
  for (size_t i = 0; i < n; ++i) tasks.push_back([&, i] { results[i] = work(i); });
  RunTogether(env->transfers(), std::move(tasks));
  for (const Status& s : results) MINK_RETURN_IF_ERROR(s);
  return Status::Ok();
}

}  // namespace

bool IsManifest(std::string_view data) { return data.substr(0, 8) == kManifestMagic; }

std::string EncodeManifest(const SnapshotManifest& m) {
  std::string out(kManifestMagic);
  PutI64(&out, m.offset);
  PutI32(&out, m.schema_id);
  PutString(&out, m.writers);
  PutU32(&out, static_cast<uint32_t>(m.files.size()));
  for (const auto& [name, f] : m.files) {
    PutString(&out, name);
    PutString(&out, f.key);
    PutU64(&out, f.size);
    PutU32(&out, f.crc32c);
  }
  PutU32(&out, static_cast<uint32_t>(m.inline_files.size()));
  for (const auto& [name, bytes] : m.inline_files) {
    PutString(&out, name);
    PutString(&out, bytes);
  }
  PutU32(&out, codec::Crc32c(out));
  return out;
}

Result<SnapshotManifest> DecodeManifest(std::string_view data, const std::string& object_key) {
  auto corrupt = [&](const std::string& what) {
    return DataLossError("KV snapshot " + object_key + ": " + what);
  };
  if (!IsManifest(data) || data.size() < kManifestMagic.size() + 4) {
    return corrupt("not a snapshot manifest (bad magic or truncated)");
  }
  const std::string_view body = data.substr(0, data.size() - 4);
  if (codec::Crc32c(body) != LoadU32(data.data() + data.size() - 4)) return corrupt("checksum mismatch");
  ByteReader r(body.substr(kManifestMagic.size()));
  SnapshotManifest m;
  uint32_t files = 0, inlined = 0;
  if (!r.ReadI64(&m.offset) || !r.ReadI32(&m.schema_id) || !ReadString(&r, &m.writers) ||
      !r.ReadU32(&files)) {
    return corrupt("truncated header");
  }
  std::set<std::string> names;
  auto named = [&](const std::string& name) {
    return PlainFileName(name) && names.insert(name).second;
  };
  for (uint32_t i = 0; i < files; ++i) {
    std::string name;
    StoredFile f;
    if (!ReadString(&r, &name) || !ReadString(&r, &f.key) || !r.ReadU64(&f.size) ||
        !r.ReadU32(&f.crc32c)) {
      return corrupt("truncated file list");
    }
    if (!named(name)) return corrupt("bad or repeated file name '" + name + "'");
    m.files.emplace_back(std::move(name), std::move(f));
  }
  if (!r.ReadU32(&inlined)) return corrupt("truncated file list");
  for (uint32_t i = 0; i < inlined; ++i) {
    std::string name, bytes;
    if (!ReadString(&r, &name) || !ReadString(&r, &bytes)) return corrupt("truncated inline file");
    if (!named(name)) return corrupt("bad or repeated file name '" + name + "'");
    m.inline_files.emplace_back(std::move(name), std::move(bytes));
  }
  if (r.remaining() != 0) return corrupt("trailing bytes");
  return m;
}

Result<UploadedSnapshot> UploadCheckpoint(object_store::ObjectStore* objects, KvEnvironment* env,
                                          const KvStore& store, const Checkpoint& checkpoint,
                                          int64_t offset, int32_t schema_id, std::string writers) {
  UploadedSnapshot out;
  out.manifest.offset = offset;
  out.manifest.schema_id = schema_id;
  out.manifest.writers = std::move(writers);
  const std::map<std::string, StoredFile> stored = store.stored_files();
  const std::string prefix = "kv/" + std::to_string(store.stream_id()) + "/" + store.lineage() + "/";
  std::vector<std::string> to_upload;
  for (const std::string& name : checkpoint.files) {
    const std::string path = checkpoint.dir + "/" + name;
    if (name.size() > 4 && name.ends_with(".sst")) {
      std::error_code ec;
      const uint64_t size = fs::file_size(path, ec);
      if (ec) return UnavailableError("cannot read " + path + ": " + ec.message());
      auto known = stored.find(name);
      if (known != stored.end() && known->second.size == size) {
        out.manifest.files.emplace_back(name, known->second);
      } else {
        to_upload.push_back(name);
      }
      continue;
    }
    // CURRENT, MANIFEST-*, OPTIONS-* and empty logs: small, and different every time.
    MINK_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
    out.manifest.inline_files.emplace_back(name, std::move(bytes));
  }
  std::error_code ec;
  fs::create_directories(env->CachedFilesDir(store.stream_id()), ec);  // best effort: a cache
  std::vector<StoredFile> uploaded(to_upload.size());
  MINK_RETURN_IF_ERROR(InParallel(env, to_upload.size(), [&](size_t i) -> Status {
    const std::string path = checkpoint.dir + "/" + to_upload[i];
    MINK_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
    // A key of its own per upload: a file uploaded for a snapshot whose commit failed is an
    // orphan the sweep may be deleting, so it is never named again, only uploaded again.
    const std::string& name = to_upload[i];
    StoredFile f{prefix + name.substr(0, name.size() - 4) + "-" + RandomHex(4) + ".sst", bytes.size(),
                 codec::Crc32c(bytes)};
    MINK_RETURN_IF_ERROR(objects->Put(f.key, bytes));
    // Kept for the next restore on this machine (the SST never changes).
    (void)LinkOrCopy(path, env->CachedFilePath(store.stream_id(), f.key));
    uploaded[i] = std::move(f);
    return Status::Ok();
  }));
  for (size_t i = 0; i < to_upload.size(); ++i) {
    out.uploaded_bytes += uploaded[i].size;
    out.new_keys.push_back(uploaded[i].key);
    out.manifest.files.emplace_back(to_upload[i], std::move(uploaded[i]));
  }
  std::sort(out.manifest.files.begin(), out.manifest.files.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, f] : out.manifest.files) out.state_bytes += f.size;
  return out;
}

Result<std::shared_ptr<KvStore>> RestoreSnapshot(object_store::ObjectStore* objects,
                                                 KvEnvironment* env, uint64_t stream_id,
                                                 const SnapshotManifest& manifest,
                                                 RestoreStats* stats) {
  std::string lineage;
  const std::string dir = env->NewDirectory(stream_id, &lineage);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return UnavailableError("cannot create " + dir + ": " + ec.message());
  // The directory goes unless the store opens over it (then the store owns it).
  struct Cleanup {
    std::string dir;
    bool keep = false;
    ~Cleanup() {
      std::error_code ignored;
      if (!keep) fs::remove_all(dir, ignored);
    }
  } cleanup{dir};
  std::atomic<uint64_t> fetched_files{0}, fetched_bytes{0};
  fs::create_directories(env->CachedFilesDir(stream_id), ec);
  MINK_RETURN_IF_ERROR(InParallel(env, manifest.files.size(), [&](size_t i) -> Status {
    const auto& [name, f] = manifest.files[i];
    const std::string cached = env->CachedFilePath(stream_id, f.key);
    std::error_code size_ec;
    if (fs::file_size(cached, size_ec) != f.size || size_ec) {
      MINK_ASSIGN_OR_RETURN(std::string bytes, objects->Get(f.key));
      if (bytes.size() != f.size || codec::Crc32c(bytes) != f.crc32c) {
        return DataLossError("KV snapshot file " + f.key + " does not match its manifest (" +
                             std::to_string(bytes.size()) + " bytes, " + std::to_string(f.size) +
                             " expected, or a checksum mismatch)");
      }
      // Written aside and renamed: a reader never sees half a file under the cached name.
      const std::string partial = cached + ".part-" + RandomHex(4);
      MINK_RETURN_IF_ERROR(WriteWholeFile(partial, bytes));
      fs::rename(partial, cached, size_ec);
      if (size_ec) {
        fs::remove(partial, size_ec);
        return UnavailableError("cannot place " + cached);
      }
      fetched_files += 1;
      fetched_bytes += bytes.size();
    }
    return LinkOrCopy(cached, dir + "/" + name);
  }));
  for (const auto& [name, bytes] : manifest.inline_files) {
    MINK_RETURN_IF_ERROR(WriteWholeFile(dir + "/" + name, bytes));
  }
  std::map<std::string, StoredFile> stored(manifest.files.begin(), manifest.files.end());
  MINK_ASSIGN_OR_RETURN(auto store, env->OpenRestored(stream_id, dir, lineage, stored));
  cleanup.keep = true;
  if (stats != nullptr) {
    stats->files = manifest.files.size();
    stats->fetched_files = fetched_files;
    stats->fetched_bytes = fetched_bytes;
  }
  PruneCachedFiles(env, stream_id, manifest);
  return store;
}

void PruneCachedFiles(KvEnvironment* env, uint64_t stream_id, const SnapshotManifest& manifest) {
  std::set<std::string> live;
  for (const auto& [name, f] : manifest.files) live.insert(env->CachedFilePath(stream_id, f.key));
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(env->CachedFilesDir(stream_id), ec)) {
    const std::string file = entry.path().string();
    if (!live.count(file) && file.find(".part-") == std::string::npos) fs::remove(entry.path(), ec);
  }
}

}  // namespace mink::kv
