#include "base/thread_priority.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace mink {

void LowerThreadPriority() {
  constexpr int kBackgroundNice = 10;
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kBackgroundNice);
}

void NameThisThread(const char* name) {
  char truncated[16] = {};
  for (size_t i = 0; i + 1 < sizeof(truncated) && name[i] != '\0'; ++i) truncated[i] = name[i];
  (void)pthread_setname_np(pthread_self(), truncated);
}

}  // namespace mink
