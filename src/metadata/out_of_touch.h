#pragma once
// The words every layer uses to refuse work on a node that is out of touch with the metadata
// database for a session timeout (cluster::DatabaseTouch fences it): the same message whether a
// metadata append, a stream append or a table write is refused.

#include <string>

namespace mink::metadata {

inline std::string OutOfTouchMessage(const std::string& node) {
  return "node " + node + " is fenced: it has not reached the metadata database for a session timeout";
}

}  // namespace mink::metadata
