#include "metadata/database_clock.h"

namespace mink::metadata {

Status DatabaseClock::Refresh(LogStore* store) {
  const int64_t before = SystemClock::Get()->NowMillis();
  MINK_ASSIGN_OR_RETURN(int64_t server, store->DatabaseNowMillis());
  const int64_t after = SystemClock::Get()->NowMillis();
  offset_ms_.store(server - (before + after) / 2, std::memory_order_relaxed);
  return Status::Ok();
}

}  // namespace mink::metadata
