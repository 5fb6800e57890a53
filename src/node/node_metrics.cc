#include "node/node_metrics.h"

#include <map>
#include <string>
#include <utility>

#include "base/log.h"

namespace mink::node {
namespace {

using metrics::Family;
using metrics::Labels;
using metrics::Sample;

Family Gauge(std::string name, std::string help) { return Family{std::move(name), std::move(help), Family::Type::kGauge, {}}; }
Family Counter(std::string name, std::string help) {
  return Family{std::move(name), std::move(help), Family::Type::kCounter, {}};
}

// "shop.orders/p1/b0" -> {table shop.orders, bucket p1/b0}.
Labels BucketLabels(const std::string& stream_name) {
  const size_t slash = stream_name.find('/');
  if (slash == std::string::npos) return {{"table", stream_name}, {"bucket", ""}};
  return {{"table", stream_name.substr(0, slash)}, {"bucket", stream_name.substr(slash + 1)}};
}

}  // namespace

std::vector<Family> GatherNodeMetrics(const MetricSources& s) {
  std::vector<Family> out;
  const int64_t applied = s.meta->applied_seq();
  auto last = s.meta->store()->LastSeq();
  Family position = Gauge("mink_metadata_applied_seq", "The last metadata command this node has applied.");
  position.samples.push_back({{}, static_cast<double>(applied)});
  out.push_back(std::move(position));
  if (last.ok()) {
    Family log_end = Gauge("mink_metadata_last_seq", "The last command in the metadata log.");
    log_end.samples.push_back({{}, static_cast<double>(*last)});
    out.push_back(std::move(log_end));
    Family lag = Gauge("mink_metadata_lag_commands", "Metadata commands in the log this node has not applied yet.");
    lag.samples.push_back({{}, static_cast<double>(std::max<int64_t>(0, *last - applied))});
    out.push_back(std::move(lag));
  }

  // The buckets this node process owns.
  const auto totals = s.storage->append_totals();
  Family owned = Gauge("mink_table_buckets_owned", "Bucket streams this node owns and writes.");
  Family records = Counter("mink_table_appended_records_total",
                           "Records this node's commits appended to a bucket (acknowledged writes).");
  Family bytes = Counter("mink_table_appended_bytes_total", "Stored bytes this node's commits appended to a bucket.");
  Family end = Gauge("mink_table_end_offset", "A bucket's end offset (the high watermark).");
  Family start = Gauge("mink_table_start_offset", "A bucket's first readable offset.");
  Family kv = Gauge("mink_kv_snapshot_bytes", "Size of a primary-key bucket's newest KV snapshot.");
  Family tiering = Gauge("mink_lake_tiering_lag_records", "Records of a tiered bucket not yet in the lake.");
  std::map<std::string, std::pair<Labels, int64_t>> partitions;  // "kafka.<topic>/b<n>" -> labels, end
  const storage::NodeIdentity me = s.storage->node();
  s.meta->Read([&](const metadata::State& st) {
    int64_t count = 0;
    std::map<uint64_t, int64_t> tiered;
    for (const auto& [table_id, lake] : st.lake_tables()) {
      for (const auto& [stream, offset] : lake.offsets) tiered[stream] = offset;
    }
    for (const auto& [id, stream] : st.streams()) {
      if (stream.owner_node != me.node_id || stream.owner_node_epoch != me.node_epoch) continue;
      ++count;
      const Labels labels = BucketLabels(stream.name);
      end.samples.push_back({labels, static_cast<double>(stream.end_offset)});
      start.samples.push_back({labels, static_cast<double>(stream.start_offset)});
      auto t = totals.find(id);
      records.samples.push_back({labels, t == totals.end() ? 0.0 : static_cast<double>(t->second.records)});
      bytes.samples.push_back({labels, t == totals.end() ? 0.0 : static_cast<double>(t->second.bytes)});
      auto snapshot = st.kv_snapshots().find(id);
      if (snapshot != st.kv_snapshots().end()) kv.samples.push_back({labels, static_cast<double>(snapshot->second.size)});
      auto lake = tiered.find(id);
      if (lake != tiered.end()) {
        tiering.samples.push_back({labels, static_cast<double>(std::max<int64_t>(0, stream.end_offset - lake->second))});
      }
      partitions[stream.name] = {labels, stream.end_offset};
    }
    owned.samples.push_back({{}, static_cast<double>(count)});
  });
  for (Family* f : {&owned, &records, &bytes, &end, &start, &kv, &tiering}) out.push_back(std::move(*f));

  // Consumer groups' lag on the partitions this node owns: end offset minus committed offset.
  if (s.group_offsets != nullptr) {
    Family lag = Gauge("mink_kafka_consumer_group_lag",
                       "Records between a consumer group's committed offset and the partition's end.");
    auto groups = s.group_offsets->ListOffsetGroups();
    if (groups.ok()) {
      for (const std::string& group : *groups) {
        auto offsets = s.group_offsets->ListGroupOffsets(group);
        if (!offsets.ok()) continue;
        for (const auto& o : *offsets) {
          auto p = partitions.find("kafka." + o.topic + "/b" + std::to_string(o.partition));
          if (p == partitions.end() || o.offset < 0) continue;
          lag.samples.push_back({{{"group", group}, {"topic", o.topic}, {"partition", std::to_string(o.partition)}},
                                 static_cast<double>(std::max<int64_t>(0, p->second.second - o.offset))});
        }
      }
    } else {
      MINK_LOG_DEBUG("metrics", "consumer groups: {}", groups.status().ToString());
    }
    out.push_back(std::move(lag));
  }

  // Storage: the read caches and maintenance.
  const storage::ReadStats reads = s.storage->read_stats();
  Family hits = Counter("mink_storage_cache_hits_total", "Stream reads served from a cache, by cache.");
  hits.samples.push_back({{{"cache", "tail"}}, static_cast<double>(reads.tail_hits)});
  hits.samples.push_back({{{"cache", "block"}}, static_cast<double>(reads.cache_hits)});
  Family misses = Counter("mink_storage_cache_misses_total",
                          "Stream reads the block cache did not hold (each a ranged object read).");
  misses.samples.push_back({{{"cache", "block"}}, static_cast<double>(reads.object_reads)});
  Family read_bytes = Counter("mink_storage_object_read_bytes_total", "Bytes of stream objects read on cache misses.");
  read_bytes.samples.push_back({{}, static_cast<double>(reads.object_bytes)});
  const storage::MaintenanceStats m = s.storage->maintenance_stats();
  Family compactions = Counter("mink_storage_compactions_total", "Compactions committed.");
  compactions.samples.push_back({{}, static_cast<double>(m.compactions)});
  Family deleted = Counter("mink_storage_deleted_objects_total",
                           "Objects deleted: unreferenced after the grace period, or orphans never committed.");
  deleted.samples.push_back({{{"reason", "unreferenced"}}, static_cast<double>(m.objects_deleted)});
  deleted.samples.push_back({{{"reason", "orphan"}}, static_cast<double>(m.orphans_deleted)});
  Family trims = Counter("mink_storage_trims_total", "Retention trims committed.");
  trims.samples.push_back({{}, static_cast<double>(m.trims)});
  for (Family* f : {&hits, &misses, &read_bytes, &compactions, &deleted, &trims}) out.push_back(std::move(*f));

  // The working copies of primary-key buckets (--cache-dir, --kv-memory).
  if (s.tables != nullptr) {
    const table::KvStats kv_stats = s.tables->kv_stats();
    Family kv_memory = Gauge("mink_kv_memory_bytes",
                             "Memory the working copies of primary-key buckets use (block cache and memtables).");
    kv_memory.samples.push_back({{}, static_cast<double>(kv_stats.memory_bytes)});
    Family kv_limit = Gauge("mink_kv_memory_limit_bytes", "Their budget (--kv-memory).");
    kv_limit.samples.push_back({{}, static_cast<double>(kv_stats.memory_limit_bytes)});
    Family kv_moved = Counter("mink_kv_snapshot_file_bytes_total",
                              "SST bytes KV snapshots uploaded, and restores fetched (the rest came from the cache directory).");
    kv_moved.samples.push_back({{{"direction", "uploaded"}}, static_cast<double>(kv_stats.uploaded_bytes)});
    kv_moved.samples.push_back({{{"direction", "fetched"}}, static_cast<double>(kv_stats.fetched_bytes)});
    for (Family* f : {&kv_memory, &kv_limit, &kv_moved}) out.push_back(std::move(*f));
  }

  if (s.membership != nullptr) {
    auto members = s.membership->Members();
    if (members.ok()) {
      Family live = Gauge("mink_cluster_nodes_live", "Nodes whose heartbeat is within the session timeout.");
      double n = 0;
      for (const auto& m2 : *members) n += m2.live ? 1 : 0;
      live.samples.push_back({{}, n});
      out.push_back(std::move(live));
    }
  }
  for (auto& f : metrics::ProcessFamilies()) out.push_back(std::move(f));
  return out;
}

}  // namespace mink::node
