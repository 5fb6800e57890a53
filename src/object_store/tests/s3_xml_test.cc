// The XML helper of the S3 backend on the documents S3 sends, and on malformed ones: a bad
// response is a Status, never a crash.

#include "object_store/s3/s3_xml.h"

#include <gtest/gtest.h>

namespace mink::object_store {
namespace {

constexpr char kListPage[] = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>
  <IsTruncated>true</IsTruncated>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
  <Contents>
    <Key>p/a&amp;b</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified>
    <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><Size>434234</Size>
    <StorageClass>STANDARD</StorageClass>
  </Contents>
  <Contents>
    <Key>p/c</Key><LastModified>2024-01-02T03:04:05.678Z</LastModified>
    <ETag>"x"</ETag><Size>0</Size><Owner><ID>id</ID></Owner>
  </Contents>
</ListBucketResult>)";

TEST(S3Xml, ParsesAListObjectsV2Page) {
  auto page = ParseListObjectsV2(kListPage);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "p/a&b");
  EXPECT_EQ(page->objects[0].size, 434234u);
  EXPECT_EQ(page->objects[0].last_modified_ms, 1255369830000);
  EXPECT_EQ(page->objects[1].key, "p/c");
  EXPECT_EQ(page->objects[1].size, 0u);
  EXPECT_EQ(page->objects[1].last_modified_ms % 1000, 678);
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

TEST(S3Xml, AnEmptyLastPageHasNoObjects) {
  auto page = ParseListObjectsV2(
      "<ListBucketResult><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated>"
      "<Prefix/></ListBucketResult>");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(page->objects.empty());
  EXPECT_FALSE(page->truncated);
}

TEST(S3Xml, MalformedListsAreDataLoss) {
  EXPECT_EQ(ParseListObjectsV2("<html>nope</html>").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(ParseListObjectsV2("<ListBucketResult><Contents><Key>k</Key></Contents>"
                               "</ListBucketResult>")
                .status()
                .code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(ParseListObjectsV2("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size>"
                               "<LastModified>2009-10-12T17:50:30Z</LastModified></Contents>"
                               "</ListBucketResult>")
                .status()
                .code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated>"
                               "</ListBucketResult>")
                .status()
                .code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(ParseListObjectsV2("<ListBucketResult><Contents><Key>unterminated").status().code(),
            StatusCode::kDataLoss);
}

TEST(S3Xml, ParsesErrorsAndUploadIds) {
  auto error = ParseS3Error(
      "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The resource you requested "
      "does not exist</Message><Resource>/b/k</Resource><RequestId>4442587FB7D0A2F9</RequestId>"
      "</Error>");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "NoSuchKey");
  EXPECT_EQ(error->message, "The resource you requested does not exist");
  EXPECT_EQ(error->request_id, "4442587FB7D0A2F9");
  EXPECT_FALSE(ParseS3Error("").has_value());
  EXPECT_FALSE(ParseS3Error("<CompleteMultipartUploadResult/>").has_value());

  auto id = ParseUploadId(
      "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>VXBsb2FkIElE"
      "</UploadId></InitiateMultipartUploadResult>");
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, "VXBsb2FkIElE");
  EXPECT_FALSE(ParseUploadId("<InitiateMultipartUploadResult/>").ok());
}

TEST(S3Xml, UnescapesEntitiesAndRejectsUnknownOnes) {
  EXPECT_EQ(*XmlUnescape("&lt;a&gt; &amp; &quot;&apos; &#65;&#x42;&#xe9;"), "<a> & \"' AB\xc3\xa9");
  EXPECT_FALSE(XmlUnescape("&nbsp;").ok());
  EXPECT_FALSE(XmlUnescape("&#xFFFFFFFFFF;").ok());
  EXPECT_FALSE(XmlUnescape("& alone").ok());
  EXPECT_EQ(XmlEscape("\"e\"<&>"), "\"e\"&lt;&amp;&gt;");
}

TEST(S3Xml, ElementsMatchWholeTagNames) {
  auto keys = XmlElements("<KeyCount>3</KeyCount><Key>a</Key><Key attr=\"1\">b</Key><Key/>", "Key");
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0], "a");
  EXPECT_EQ(keys[1], "b");
  EXPECT_EQ(keys[2], "");
}

TEST(S3Xml, ParsesIso8601Times) {
  EXPECT_EQ(*ParseIso8601Millis("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*ParseIso8601Millis("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_EQ(*ParseIso8601Millis("2009-10-12T17:50:30.000Z"), 1255369830000);
  EXPECT_FALSE(ParseIso8601Millis("yesterday").ok());
  EXPECT_FALSE(ParseIso8601Millis("2009-10-12T17:50:30+02:00").ok());
}

TEST(S3Xml, CompleteMultipartBodyListsPartsInOrder) {
  EXPECT_EQ(CompleteMultipartUploadXml({"\"a\"", "\"b\""}),
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"a\"</ETag></Part>"
            "<Part><PartNumber>2</PartNumber><ETag>\"b\"</ETag></Part></CompleteMultipartUpload>");
}

}  // namespace
}  // namespace mink::object_store
