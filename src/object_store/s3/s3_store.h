#pragma once
// s3:// — AWS S3 and S3-compatible servers over libcurl with Signature V4.

#include <memory>

#include "base/result.h"
#include "object_store/object_store.h"
#include "object_store/storage_uri.h"

namespace mink::object_store {

Result<std::shared_ptr<ObjectStore>> OpenS3Store(const StorageUri& uri);

}  // namespace mink::object_store
