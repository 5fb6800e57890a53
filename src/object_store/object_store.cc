#include "object_store/object_store.h"

namespace mink::object_store {

Status ValidateKey(std::string_view key) {
  if (key.empty()) return InvalidArgumentError("object key is empty");
  if (key.size() > 1024) return InvalidArgumentError("object key is longer than 1024 bytes");
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) end = key.size();
    std::string_view segment = key.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") {
      return InvalidArgumentError("object key '" + std::string(key) +
                                  "' has an empty, '.' or '..' segment");
    }
    for (char c : segment) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '=' || c == '-';
      if (!ok) {
        return InvalidArgumentError("object key '" + std::string(key) +
                                    "' has a character outside [A-Za-z0-9._=-/]");
      }
    }
    start = end + 1;
  }
  return Status::Ok();
}

}  // namespace mink::object_store
