#pragma once
// Keys of the kv tests: fixed width, so their byte order is their numeric order.

#include <cstdio>
#include <string>

namespace mink::kv {

inline std::string TestKey(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%08d", i);
  return buf;
}

}  // namespace mink::kv
