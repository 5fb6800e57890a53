#pragma once
// Process-wide allocator settings for servers.

namespace mink {

// glibc serves allocations above its mmap threshold (128 KiB at first) with fresh mmaps and
// gives freed heap tops back to the kernel, so every large per-request buffer (a Fetch response,
// a read run of a segment) pays page faults and zeroed pages on first touch: a third of a
// node's CPU under a consume load. This keeps buffers up to 32 MiB in the heap and freed memory
// up to 512 MiB for reuse. Call once, early in main(), before threads start.
void RetainLargeAllocations();

}  // namespace mink
