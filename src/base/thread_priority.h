#pragma once
// Attributes of the calling thread: its CPU priority, for background work (metadata snapshots)
// that must not take CPU time from threads that acknowledge writes when cores are scarce, and its
// name, shown by top -H, perf and gdb.

namespace mink {

// Lowers the calling thread's scheduling priority to nice 10 (Linux schedules threads one by
// one, so only this thread is affected). Best effort: failure is ignored.
void LowerThreadPriority();

// Names the calling thread (at most 15 characters are kept). Best effort.
void NameThisThread(const char* name);

}  // namespace mink
