#pragma once
// The seed examples' statements (tests/streaming/*.sql), read from the source tree.

#include <fstream>
#include <sstream>
#include <string>

namespace mink::stream::testing {

inline std::string SeedSql(const std::string& name) {
  std::ifstream in(std::string(MINK_SOURCE_DIR) + "/tests/streaming/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace mink::stream::testing
