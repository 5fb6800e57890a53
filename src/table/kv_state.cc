#include "table/kv_state.h"

#include <algorithm>
#include <vector>

#include "base/bytes.h"
#include "codec/crc32c.h"
#include "table/row_codec.h"

namespace mink::table {
namespace {

constexpr char kMagic[] = "MKKV0003";            // with the bucket's writers
constexpr char kMagicWithoutWriters[] = "MKKV0002";
constexpr char kMagicWithoutSchema[] = "MKKV0001";

}  // namespace

void KvState::Put(const std::string& key, std::string value) {
  auto [it, inserted] = map_.try_emplace(key);
  if (!inserted) bytes_ -= it->first.size() + it->second.size();
  bytes_ += key.size() + value.size();
  it->second = std::move(value);
}

void KvState::Erase(const std::string& key) {
  auto it = map_.find(key);
  if (it == map_.end()) return;
  bytes_ -= it->first.size() + it->second.size();
  map_.erase(it);
}

std::string KvState::Snapshot(int64_t offset, int32_t schema_id, std::string_view writers) const {
  std::vector<const std::pair<const std::string, std::string>*> sorted;
  sorted.reserve(map_.size());
  for (const auto& e : map_) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::string out(kMagic, 8);
  out.reserve(bytes_ + 10 * map_.size() + 32);
  PutI64(&out, offset);
  PutU64(&out, map_.size());
  PutU32(&out, static_cast<uint32_t>(schema_id));
  PutU32(&out, static_cast<uint32_t>(writers.size()));
  for (const auto* e : sorted) {
    PutVarint64(&out, e->first.size());
    out += e->first;
    PutVarint64(&out, e->second.size());
    out += e->second;
  }
  out += writers;
  PutU32(&out, codec::Crc32c(out));
  return out;
}

Result<KvState> KvState::Load(std::string_view data, const std::string& object_key,
                              int64_t* offset, int32_t* schema_id, std::string* writers) {
  auto corrupt = [&](const std::string& what) {
    return DataLossError("KV snapshot " + object_key + ": " + what);
  };
  const std::string_view magic = data.substr(0, 8);
  const bool with_writers = magic == std::string_view(kMagic, 8);
  const bool with_schema = with_writers || magic == std::string_view(kMagicWithoutWriters, 8);
  const size_t header_size = with_schema ? 32 : 24;
  if (data.size() < header_size + 4 ||
      (!with_schema && magic != std::string_view(kMagicWithoutSchema, 8))) {
    return corrupt("not a KV snapshot (bad magic or truncated)");
  }
  uint32_t crc = LoadU32(data.data() + data.size() - 4);
  if (codec::Crc32c(data.substr(0, data.size() - 4)) != crc) return corrupt("checksum mismatch");
  ByteReader header(data.substr(8, header_size - 8));
  uint64_t count = 0;
  header.ReadI64(offset);
  header.ReadU64(&count);
  *schema_id = 0;
  uint32_t writers_size = 0;
  if (with_schema) {
    uint32_t id = 0;
    header.ReadU32(&id);
    *schema_id = static_cast<int32_t>(id);
    if (with_writers) header.ReadU32(&writers_size);
  }
  std::string_view body = data.substr(header_size, data.size() - header_size - 4);
  if (writers_size > body.size()) return corrupt("truncated writers");
  writers->assign(body.substr(body.size() - writers_size));
  body.remove_suffix(writers_size);
  KvState state;
  std::string previous;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t klen, vlen;
    if (!GetVarint64(&body, &klen) || klen > body.size()) return corrupt("truncated entry");
    std::string key(body.substr(0, klen));
    body.remove_prefix(klen);
    if (!GetVarint64(&body, &vlen) || vlen > body.size()) return corrupt("truncated entry");
    if (i > 0 && key <= previous) return corrupt("keys out of order");
    state.Put(key, std::string(body.substr(0, vlen)));
    body.remove_prefix(vlen);
    previous = std::move(key);
  }
  if (!body.empty()) return corrupt("trailing bytes");
  return state;
}

}  // namespace mink::table
