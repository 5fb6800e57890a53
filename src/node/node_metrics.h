#pragma once
// The state a node reports when /metrics is scraped (docs/operations.md lists each metric):
// the metadata log's position and lag, the buckets it owns (offsets, what its commits appended,
// KV snapshot sizes, how far the lake is behind), the consumer groups' lag on the partitions it
// owns, its storage caches and maintenance, and the cluster's live nodes. Series of a bucket are
// reported by the node that owns it, so a cluster reports each once.

#include <cstdint>
#include <vector>

#include "cluster/membership.h"
#include "metadata/group_offset_store.h"
#include "metadata/metadata_log.h"
#include "metrics/metrics.h"
#include "storage/stream_store.h"
#include "table/table_store.h"

namespace mink::node {

struct MetricSources {
  int32_t node_id = 0;
  metadata::MetadataLog* meta = nullptr;
  storage::StreamStore* storage = nullptr;
  const cluster::Membership* membership = nullptr;
  metadata::GroupOffsetStore* group_offsets = nullptr;  // null without a Kafka listener
  const table::TableStore* tables = nullptr;
};

std::vector<metrics::Family> GatherNodeMetrics(const MetricSources& sources);

}  // namespace mink::node
