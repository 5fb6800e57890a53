#include "base/memory.h"

#include <malloc.h>

namespace mink {

void RetainLargeAllocations() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest allowed value on 64-bit
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

}  // namespace mink
