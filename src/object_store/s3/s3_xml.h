#pragma once
// Just enough XML for the few S3 responses we read (ListObjectsV2, InitiateMultipartUpload,
// CompleteMultipartUpload, Error) and the one body we send (CompleteMultipartUpload). S3's XML is
// flat and regular: elements are found by tag name, with no DTDs, CDATA or prefixes to handle.
// The input is untrusted, so malformed text yields a Status, never a crash.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "object_store/object_store.h"

namespace mink::object_store {

// The raw inner text of every <tag>...</tag> (or <tag/>) in document order.
std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag);
// The decoded text of the first <tag> element, or nullopt when there is none.
std::optional<std::string> XmlFirstText(std::string_view xml, std::string_view tag);

// Escapes text content (&, <, >). Quotes stay literal: ETags are quoted strings, and some S3
// servers compare them without decoding entities.
std::string XmlEscape(std::string_view text);
// Decodes the five named entities and numeric references (&#NN; &#xNN;).
Result<std::string> XmlUnescape(std::string_view text);

// "2009-10-12T17:50:30.000Z" to milliseconds since the Unix epoch.
Result<int64_t> ParseIso8601Millis(std::string_view text);

struct ListObjectsPage {
  std::vector<ObjectInfo> objects;  // keys as S3 returned them (with any store prefix)
  bool truncated = false;
  std::string next_token;  // NextContinuationToken, when truncated
};
Result<ListObjectsPage> ParseListObjectsV2(std::string_view xml);

// The UploadId of an InitiateMultipartUploadResult.
Result<std::string> ParseUploadId(std::string_view xml);

struct S3ErrorBody {
  std::string code;  // "NoSuchKey", "SlowDown", ...
  std::string message;
  std::string request_id;
};
// The <Error> document S3 returns with a failure (and sometimes with a 200 to a
// CompleteMultipartUpload); nullopt when `xml` is not one.
std::optional<S3ErrorBody> ParseS3Error(std::string_view xml);

// <CompleteMultipartUpload> listing parts 1..n with their ETags, in order.
std::string CompleteMultipartUploadXml(const std::vector<std::string>& etags);

}  // namespace mink::object_store
