#pragma once
// PipelineRunner: runs on a node the pipelines of the streams and views this node is to run
// (docs/streaming-sql.md, Where pipelines run). A pipeline runs where bucket 0 of its output
// table is written, so pipelines are assigned as buckets are and follow them when a node fails
// or the cluster rebalances; a node alone runs every pipeline. One thread polls the catalog,
// opens the pipelines that should run here (again after an error, after a second), closes those
// that should not (dropped, replaced, moved), and runs an epoch of each in turn.
//
// Thread-safe: Start and Stop from the owner's thread; Stats from any.

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "stream/pipeline.h"

namespace mink::stream {

struct RunnerOptions {
  // The least time between two epochs of a pipeline that has input (they batch what arrives
  // meanwhile; each commits once to the metadata log).
  std::chrono::milliseconds epoch_interval{10};
  // The longest an idle runner waits for a metadata commit (input arrives as commits).
  std::chrono::milliseconds poll_interval{100};
  // How often the catalog and the bucket owners are read again.
  std::chrono::milliseconds reconcile_interval{200};
  std::chrono::milliseconds retry_after{1000};
};

class PipelineRunner {
 public:
  PipelineRunner(PipelineContext context, RunnerOptions options = {})
      : context_(std::move(context)), options_(options) {}
  ~PipelineRunner() { Stop(); }

  void Start();
  void Stop();

  // The pipelines running here and their counters.
  std::map<std::string, PipelineStats> Stats() const;

 private:
  struct Running {
    std::unique_ptr<Pipeline> pipeline;
    std::string version;  // the object's statement, creation time and sinks: a change reopens it
    std::chrono::steady_clock::time_point next_epoch;
  };

  void Loop();
  // Opens and closes pipelines as the catalog and the bucket owners say; the names to run.
  void Reconcile(std::chrono::steady_clock::time_point now);
  bool RunsHere(const std::string& name) const;

  const PipelineContext context_;
  const RunnerOptions options_;
  std::map<std::string, Running> running_;  // the runner thread's
  std::map<std::string, std::chrono::steady_clock::time_point> failed_;  // not before then
  mutable std::mutex mutex_;
  std::map<std::string, PipelineStats> stats_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mink::stream
