#include "table/retention.h"

#include <algorithm>

#include "table/descriptor.h"

namespace mink::table {

storage::RetentionPolicy TableRetentionPolicy(metadata::MetadataLog* meta, int64_t default_ttl_ms) {
  return [meta, default_ttl_ms](uint64_t stream_id) {
    storage::RetentionRule rule;
    meta->Read([&](const metadata::State& s) {
      for (const auto& [id, t] : s.tables()) {
        bool found = std::find(t.streams.begin(), t.streams.end(), stream_id) != t.streams.end();
        for (const auto& [n, p] : t.partitions) {
          found = found || std::find(p.streams.begin(), p.streams.end(), stream_id) != p.streams.end();
        }
        if (!found) continue;
        auto d = TableDescriptor::FromJson(t.descriptor);
        if (!d.ok()) return;
        rule.ttl_ms = d->LogTtlMs(default_ttl_ms);
        if (d->has_primary_key()) {
          auto snap = s.kv_snapshots().find(stream_id);
          rule.max_trim_offset = snap == s.kv_snapshots().end() ? 0 : snap->second.offset;
        }
        return;
      }
    });
    return rule;
  };
}

}  // namespace mink::table
