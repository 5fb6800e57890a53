#pragma once
// Which buckets this node serves. A bucket is served by the node that owns its stream (the
// storage layer fences every other writer); who that should be is an assignment's decision,
// not the table layer's:
//
//   - BucketAssignment says which node a new bucket goes to and which existing bucket streams
//     this node is to serve, from the committed metadata.
//   - BucketOwnership applies it to the storage layer: it opens the streams assigned to this
//     node (at epoch + 1, fencing an earlier owner), starts writing new buckets created for it,
//     and stops writing dropped ones.
//
// SingleNodeAssignment is a node alone: it serves every bucket. A cluster's assignment (a
// coordinator spreading buckets over live nodes) implements the same interface.
//
// Thread-safe.

#include <cstdint>
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
