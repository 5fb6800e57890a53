#pragma once
// The retention rule of each bucket stream, from its table (storage::RetentionPolicy): a
// table's log expires after its TTL (`table.log.ttl`, else `default_ttl_ms`: the node's
// --retention, 0 = forever); a primary-key table's changelog only as far as a KV snapshot covers
// it, so the KV state can always be rebuilt; a tiered table's log only as far as the lake has
// it.

#include "metadata/metadata_log.h"
#include "storage/stream_store.h"

namespace mink::table {

storage::RetentionPolicy TableRetentionPolicy(metadata::MetadataLog* meta, int64_t default_ttl_ms);

}  // namespace mink::table
