#pragma once
// CPU priority of the calling thread, for background work (metadata snapshots) that must not
// take CPU time from threads that acknowledge writes when cores are scarce.

namespace mink {

// Lowers the calling thread's scheduling priority to nice 10 (Linux schedules threads one by
// one, so only this thread is affected). Best effort: failure is ignored.
void LowerThreadPriority();

}  // namespace mink
