#pragma once
// Storage URIs: `<bucket-id>@<scheme>://<location>[?k=v&...]`, e.g. `-2@file://./data/objects` or
// `-2@s3://bucket?region=us-east-1&endpoint=http://127.0.0.1:9000&path-style=true`. The bucket id
// is recorded with every object so stores can be added or moved later.

#include <map>
#include <memory>
#include <string>

#include "base/result.h"
#include "object_store/object_store.h"

namespace mink::object_store {

struct StorageUri {
  int32_t bucket_id = 0;
  std::string scheme;    // "file", "s3", "mem"
  std::string location;  // file: a path; s3: the bucket name; mem: a name
  std::map<std::string, std::string> options;  // the query string, decoded

  static Result<StorageUri> Parse(std::string_view text);
  // The canonical text form (options sorted), without credentials.
  std::string ToString() const;
  // The same location with bucket id minus one: the default WAL store of a data store.
  StorageUri WalDefault() const;
};

// Opens the backend the URI names. mem:// stores with the same location share their objects
// within the process (tests use this to simulate a restart).
Result<std::shared_ptr<ObjectStore>> OpenObjectStore(const StorageUri& uri);

}  // namespace mink::object_store
