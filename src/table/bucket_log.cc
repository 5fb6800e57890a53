#include "table/bucket_log.h"

namespace mink::table {

std::optional<BucketLog::Range> BucketLog::OffsetRange(uint64_t stream) const {
  std::optional<Range> range;
  meta_->Read([&](const metadata::State& s) {
    if (const metadata::StreamState* st = s.FindStream(stream)) {
      range = Range{st->start_offset, st->end_offset, st->epoch};
    }
  });
  return range;
}

}  // namespace mink::table
