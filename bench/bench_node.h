#pragma once
// BenchNode: a node started in the load driver's own process on a new directory (SQLite
// metadata, file:// store, Flight on a free loopback port), stopped and removed when it goes.

#include <memory>
#include <string>

#include "base/result.h"
#include "node/node.h"

namespace mink::bench {

class BenchNode {
 public:
  // The directory is `$TMPDIR/mink-<name>-XXXXXX` (/tmp without TMPDIR).
  static Result<std::unique_ptr<BenchNode>> Start(const std::string& name);
  ~BenchNode();

  node::Node& node() { return *node_; }
  table::TableStore* tables() { return node_->tables(); }
  // host:port of its Flight listener.
  std::string address() const { return "127.0.0.1:" + std::to_string(node_->flight_port()); }

 private:
  BenchNode() = default;
  std::string dir_;
  std::unique_ptr<node::Node> node_;
};

}  // namespace mink::bench
