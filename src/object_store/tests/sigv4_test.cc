// The SigV4 signer against the examples AWS publishes: "Examples of how to derive a signing key
// for Signature Version 4" (IAM docs) and the S3 examples in "Signature Calculations for the
// Authorization Header: Transferring Payload in a Single Chunk". s3rver does not check
// signatures, so these vectors are what proves the signer right.

#include "object_store/s3/sigv4.h"

#include <gtest/gtest.h>

#include "base/strings.h"

namespace mink::object_store {
namespace {

constexpr char kEmptySha256[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kS3ExampleDate[] = "20130524T000000Z";

SigV4Signer S3ExampleSigner() {
  // The S3 examples' secret differs from the IAM one by a '/' where the IAM one has '+'.
  return SigV4Signer({"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""},
                     "us-east-1", "s3");
}

TEST(SigV4, DerivesTheDocumentedSigningKey) {
  std::string key =
      DeriveSigningKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam");
  EXPECT_EQ(HexEncode(key), "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

TEST(SigV4, SignsTheS3GetObjectExample) {
  HttpHeaders headers = {{"Host", "examplebucket.s3.amazonaws.com"}, {"Range", "bytes=0-9"}};
  SigV4Signature sig =
      S3ExampleSigner().Sign("GET", "/test.txt", "", kEmptySha256, kS3ExampleDate, &headers);
  EXPECT_EQ(
      sig.canonical_request,
      "GET\n"
      "/test.txt\n"
      "\n"
      "host:examplebucket.s3.amazonaws.com\n"
      "range:bytes=0-9\n"
      "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
      "x-amz-date:20130524T000000Z\n"
      "\n"
      "host;range;x-amz-content-sha256;x-amz-date\n"
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sig.string_to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(sig.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(sig.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  // The headers the signer added are the ones that must go on the wire.
  EXPECT_EQ(headers.size(), 4u);
}

TEST(SigV4, SignsTheS3PutObjectExample) {
  std::string payload_hash = Sha256Hex("Welcome to Amazon S3.");
  EXPECT_EQ(payload_hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  std::string path = "/" + UriEncode("test$file.text", true);
  EXPECT_EQ(path, "/test%24file.text");
  HttpHeaders headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                         {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                         {"x-amz-storage-class", "REDUCED_REDUNDANCY"}};
  SigV4Signature sig =
      S3ExampleSigner().Sign("PUT", path, "", payload_hash, kS3ExampleDate, &headers);
  EXPECT_EQ(
      sig.canonical_request,
      "PUT\n"
      "/test%24file.text\n"
      "\n"
      "date:Fri, 24 May 2013 00:00:00 GMT\n"
      "host:examplebucket.s3.amazonaws.com\n"
      "x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
      "x-amz-date:20130524T000000Z\n"
      "x-amz-storage-class:REDUCED_REDUNDANCY\n"
      "\n"
      "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
      "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  EXPECT_EQ(sig.string_to_sign,
            "AWS4-HMAC-SHA256\n"
            "20130524T000000Z\n"
            "20130524/us-east-1/s3/aws4_request\n"
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(sig.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4, SignsTheS3ListObjectsExample) {
  std::string query = CanonicalQueryString({{"prefix", "J"}, {"max-keys", "2"}});
  EXPECT_EQ(query, "max-keys=2&prefix=J");
  HttpHeaders headers = {{"Host", "examplebucket.s3.amazonaws.com"}};
  SigV4Signature sig =
      S3ExampleSigner().Sign("GET", "/", query, kEmptySha256, kS3ExampleDate, &headers);
  EXPECT_EQ(
      sig.canonical_request,
      "GET\n"
      "/\n"
      "max-keys=2&prefix=J\n"
      "host:examplebucket.s3.amazonaws.com\n"
      "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
      "x-amz-date:20130524T000000Z\n"
      "\n"
      "host;x-amz-content-sha256;x-amz-date\n"
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sig.string_to_sign.substr(sig.string_to_sign.rfind('\n') + 1),
            "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7");
  EXPECT_EQ(sig.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, UriEncodeKeepsOnlyUnreservedBytes) {
  EXPECT_EQ(UriEncode("A-z_0.9~", false), "A-z_0.9~");
  EXPECT_EQ(UriEncode("a b+c", false), "a%20b%2Bc");
  EXPECT_EQ(UriEncode("a/b=c", true), "a/b%3Dc");
  EXPECT_EQ(UriEncode("a/b=c", false), "a%2Fb%3Dc");
  EXPECT_EQ(UriEncode("\xc3\xa9*", false), "%C3%A9%2A");
}

TEST(SigV4, CanonicalQuerySortsByEncodedNameThenValue) {
  EXPECT_EQ(CanonicalQueryString({{"uploads", ""}}), "uploads=");
  EXPECT_EQ(CanonicalQueryString({{"uploadId", "x/y"}, {"partNumber", "2"}}),
            "partNumber=2&uploadId=x%2Fy");
  EXPECT_EQ(
      CanonicalQueryString({{"b", "2"}, {"a", "z"}, {"a", "y"}, {"continuation-token", "1+/="}}),
      "a=y&a=z&b=2&continuation-token=1%2B%2F%3D");
}

TEST(SigV4, HeaderValuesAreTrimmedAndRepeatedNamesJoined) {
  HttpHeaders headers = {
      {"Host", "h"}, {"X-Amz-Meta-A", "  one   two "}, {"x-amz-meta-a", "three"}};
  SigV4Signature sig =
      S3ExampleSigner().Sign("GET", "/", "", kEmptySha256, kS3ExampleDate, &headers);
  EXPECT_NE(sig.canonical_request.find("\nx-amz-meta-a:one two,three\n"), std::string::npos)
      << sig.canonical_request;
  EXPECT_EQ(sig.signed_headers, "host;x-amz-content-sha256;x-amz-date;x-amz-meta-a");
}

TEST(SigV4, SessionTokenIsSentAndSigned) {
  SigV4Signer signer({"AKID", "SECRET", "TOKEN"}, "eu-west-1", "s3");
  HttpHeaders headers = {{"host", "b.s3.eu-west-1.amazonaws.com"}};
  SigV4Signature sig = signer.Sign("GET", "/k", "", kEmptySha256, kS3ExampleDate, &headers);
  EXPECT_EQ(sig.signed_headers, "host;x-amz-content-sha256;x-amz-date;x-amz-security-token");
  EXPECT_NE(std::find(headers.begin(), headers.end(),
                      std::pair<std::string, std::string>("x-amz-security-token", "TOKEN")),
            headers.end());
  EXPECT_EQ(sig.authorization.find("SECRET"), std::string::npos);
  EXPECT_NE(sig.authorization.find("Credential=AKID/20130524/eu-west-1/s3/aws4_request"),
            std::string::npos);
}

TEST(SigV4, FormatsAmzDateInUtc) {
  auto time = std::chrono::system_clock::from_time_t(1369353600);  // 2013-05-24 00:00:00 UTC
  EXPECT_EQ(FormatAmzDate(time), "20130524T000000Z");
  EXPECT_EQ(FormatAmzDate(time + std::chrono::seconds(86399)), "20130524T235959Z");
}

}  // namespace
}  // namespace mink::object_store
