#include "base/thread_priority.h"

#include <sys/resource.h>
#include <unistd.h>

namespace mink {

void LowerThreadPriority() {
  constexpr int kBackgroundNice = 10;
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kBackgroundNice);
}

}  // namespace mink
