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
        if (d->lake_enabled) {
          // Never past what the lake has: the rest is read from the log.
          int64_t tiered = 0;
          if (auto lake = s.lake_tables().find(id); lake != s.lake_tables().end()) {
            auto offset = lake->second.offsets.find(stream_id);
            if (offset != lake->second.offsets.end()) tiered = offset->second;
          }
          rule.max_trim_offset = std::min(rule.max_trim_offset, tiered);
        }
        return;
      }
    });
    return rule;
  };
}

}  // namespace mink::table
