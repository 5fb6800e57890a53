#pragma once
// Which buckets this node serves. A bucket is served by the node that owns its stream (the
// storage layer fences every other writer); who that should be is an assignment's decision,
// not the table layer's:
//
//   - BucketAssignment says which node a new bucket goes to and which existing bucket streams
//     this node is to serve, from the committed metadata.
//   - BucketOwnership applies it to the storage layer: it opens the streams assigned to this
//     node (at epoch + 1, fencing an earlier owner), starts writing new buckets created for it,
//     releases the ones assigned elsewhere (after their appends settled), and stops writing
//     dropped ones.
//
// SingleNodeAssignment is a node alone: it serves every bucket. CoordinatedAssignment is a
// node of a cluster: a coordinator assigns each bucket stream to a node in the metadata log
// (streams.assign), and every node follows what the log says.
//
// Thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "base/result.h"
#include "metadata/metadata_log.h"
#include "storage/stream_store.h"

namespace mink::table {

class BucketAssignment {
 public:
  virtual ~BucketAssignment() = default;
  // The node a bucket created now goes to, recorded in the command that creates it (a table,
  // or a partition on its first write).
  virtual storage::NodeIdentity OwnerOfNewBuckets() const = 0;
  // Of the bucket streams of `state`, those this node is to open now because it serves them
  // and does not write them yet.
  virtual std::vector<uint64_t> StreamsToTake(const metadata::State& state) const = 0;
  // Those this node process owns but is to give up (assigned to another node).
  virtual std::vector<uint64_t> StreamsToRelease(const metadata::State& /*state*/) const {
    return {};
  }
  // Whether new buckets wait for an owner other than the creating node (a coordinator's).
  virtual bool new_buckets_wait_for_owners() const { return false; }
};

// A node alone serves every bucket: new buckets are its own, and at a start it takes back the
// streams it owned before (an earlier process of the same node id) and those nobody owns.
class SingleNodeAssignment final : public BucketAssignment {
 public:
  explicit SingleNodeAssignment(storage::NodeIdentity node) : node_(node) {}
  storage::NodeIdentity OwnerOfNewBuckets() const override { return node_; }
  std::vector<uint64_t> StreamsToTake(const metadata::State& state) const override;

 private:
  const storage::NodeIdentity node_;
};

// A node of a cluster: new buckets are created without an owner for the coordinator to
// assign; this node opens the streams assigned to it once they have no owner (released by the
// previous one, or taken over from a dead one) or are its own from an earlier process, and
// releases those assigned to another node.
class CoordinatedAssignment final : public BucketAssignment {
 public:
  explicit CoordinatedAssignment(storage::NodeIdentity node) : node_(node) {}
  storage::NodeIdentity OwnerOfNewBuckets() const override { return {}; }
  std::vector<uint64_t> StreamsToTake(const metadata::State& state) const override;
  std::vector<uint64_t> StreamsToRelease(const metadata::State& state) const override;
  bool new_buckets_wait_for_owners() const override { return true; }

 private:
  const storage::NodeIdentity node_;
};

// Every bucket stream of every table in `state`.
std::vector<uint64_t> AllBucketStreams(const metadata::State& state);

class BucketOwnership {
 public:
  BucketOwnership(metadata::MetadataLog* meta, storage::StreamStore* storage,
                  const BucketAssignment* assignment)
      : meta_(meta), storage_(storage), assignment_(assignment) {}

  const BucketAssignment& assignment() const { return *assignment_; }
  // Opens the streams the assignment gives this node (one metadata command); how many.
  Result<size_t> TakeAssigned();
  // What the assignment says this node is to do now.
  struct Moves {
    std::vector<uint64_t> take;
    std::vector<uint64_t> release;
    std::vector<uint64_t> lost;  // written here, but another node took them over meanwhile
    bool empty() const { return take.empty() && release.empty() && lost.empty(); }
  };
  Moves Pending() const;
  // Stops writing `moves.lost`, releases `moves.release` (each after its appends settled,
  // waiting at most `drain_timeout`), then opens `moves.take`.
  // `drained` as StreamStore::ReleaseStreams.
  Status Apply(const Moves& moves, std::chrono::milliseconds drain_timeout,
               const std::function<void()>& drained = {});
  // Waits until each of `streams` has an owner, at most `timeout`; whether they all have.
  bool AwaitOwners(const std::vector<uint64_t>& streams, std::chrono::milliseconds timeout) const;
  // Starts writing the streams of buckets just created for this node.
  void AdoptNew(const std::vector<uint64_t>& streams) { storage_->AdoptOwned(streams); }
  // Stops writing the streams of dropped buckets.
  void Release(const std::vector<uint64_t>& streams);
  // How many buckets each node process owns now (by node id; owners fenced by a newer process
  // of their node id do not count).
  std::map<int32_t, int64_t> BucketsPerNode() const;

 private:
  metadata::MetadataLog* const meta_;
  storage::StreamStore* const storage_;
  const BucketAssignment* const assignment_;
};

}  // namespace mink::table
