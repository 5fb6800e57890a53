#include "bench_node.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace mink::bench {

Result<std::unique_ptr<BenchNode>> BenchNode::Start(const std::string& name) {
  std::unique_ptr<BenchNode> b(new BenchNode());
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/mink-" + name + "-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {
    return UnavailableError("mkdtemp " + dir + ": " + std::strerror(errno));
  }
  b->dir_ = dir;
  config::ServeConfig config;
  config.listen = "127.0.0.1:0";
  config.meta_url = "sqlite:" + dir + "/meta.db";
  config.storage_uri = "-2@file://" + dir + "/objects";
  MINK_ASSIGN_OR_RETURN(b->node_, node::Node::Start(config));
  return b;
}

BenchNode::~BenchNode() {
  if (node_) node_->Stop();
  node_.reset();
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

}  // namespace mink::bench
