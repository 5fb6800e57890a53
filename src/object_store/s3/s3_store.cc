#include "object_store/s3/s3_store.h"

namespace mink::object_store {

Result<std::shared_ptr<ObjectStore>> OpenS3Store(const StorageUri& uri) {
  return UnimplementedError("s3 store is being written: " + uri.ToString());
}

}  // namespace mink::object_store
