#include "object_store/s3/s3_config.h"

#include <cstdlib>
#include <set>

#include "base/strings.h"

namespace mink::object_store {
namespace {

const std::set<std::string>& KnownOptions() {
  static const std::set<std::string> known = {
      "region",        "endpoint", "path-style", "prefix",       "access-key", "secret-key",
      "session-token", "max-keys", "part-size",  "max-attempts", "timeout-ms", "retry-initial-ms"};
  return known;
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// Option `name` if present, else environment variable `env` (if given), else "".
std::string Setting(const StorageUri& uri, const std::string& name, const char* env = nullptr) {
  auto it = uri.options.find(name);
  if (it != uri.options.end()) return it->second;
  return env ? Env(env) : "";
}

Result<int64_t> IntOption(const StorageUri& uri, const std::string& name, int64_t fallback,
                          int64_t min, int64_t max) {
  auto it = uri.options.find(name);
  if (it == uri.options.end()) return fallback;
  auto value = ParseInt64(it->second);
  if (!value.ok() || *value < min || *value > max) {
    return InvalidArgumentError("s3 option " + name + "=" + it->second + " is not an integer in [" +
                                std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return *value;
}

bool ValidBucketName(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return false;
  for (char c : bucket) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Whether `host_port` (host[:port], IPv6 in brackets) is an IP literal or localhost.
bool HostCannotHaveSubdomains(std::string_view host_port) {
  if (!host_port.empty() && host_port.front() == '[') return true;  // IPv6
  std::string_view host = host_port.substr(0, host_port.rfind(':'));
  if (host == "localhost") return true;
  return !host.empty() && host.find_first_not_of("0123456789.") == std::string_view::npos;
}

}  // namespace

Result<S3Config> S3Config::FromUri(const StorageUri& uri) {
  for (const auto& [name, value] : uri.options) {
    if (!KnownOptions().count(name)) {
      std::string known;
      for (const auto& k : KnownOptions()) known += (known.empty() ? "" : ", ") + k;
      return InvalidArgumentError("unknown s3 option '" + name + "' (known: " + known + ")");
    }
  }
  S3Config config;
  config.bucket = uri.location;
  if (!ValidBucketName(config.bucket)) {
    return InvalidArgumentError("s3 bucket name '" + config.bucket +
                                "' is not 3-63 characters of [a-z0-9.-_] (put a key prefix in the "
                                "prefix= option)");
  }

  std::string region = Setting(uri, "region", "AWS_REGION");
  if (!region.empty()) config.region = region;

  // The AWS SDKs' variables for another S3 server, so a URI written for AWS works unchanged.
  std::string endpoint = Setting(uri, "endpoint", "AWS_ENDPOINT_URL_S3");
  if (endpoint.empty()) endpoint = Env("AWS_ENDPOINT_URL");
  if (endpoint.empty()) endpoint = "https://s3." + config.region + ".amazonaws.com";
  size_t sep = endpoint.find("://");
  if (sep == std::string::npos) {
    return InvalidArgumentError("s3 endpoint '" + endpoint +
                                "' has no scheme (http:// or https://)");
  }
  config.scheme = endpoint.substr(0, sep);
  if (config.scheme != "http" && config.scheme != "https") {
    return InvalidArgumentError("s3 endpoint '" + endpoint + "' is not http:// or https://");
  }
  std::string rest = endpoint.substr(sep + 3);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find_first_of("/?#@") != std::string::npos) {
    return InvalidArgumentError("s3 endpoint '" + endpoint +
                                "' must be scheme://host[:port] without a path");
  }
  config.endpoint_host = rest;

  // A bucket cannot be a subdomain of an IP address or of localhost: path style is the only one
  // that reaches such an endpoint.
  config.path_style = HostCannotHaveSubdomains(config.endpoint_host);
  std::string path_style = Setting(uri, "path-style");
  if (!path_style.empty()) {
    auto parsed = ParseBool(path_style);
    if (!parsed.ok())
      return InvalidArgumentError("s3 option path-style=" + path_style + " is not a boolean");
    config.path_style = *parsed;
  }

  std::string prefix = Setting(uri, "prefix");
  while (!prefix.empty() && prefix.front() == '/') prefix.erase(0, 1);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty()) {
    Status valid = ValidateKey(prefix);
    if (!valid.ok()) return valid.WithContext("s3 option prefix");
    config.key_prefix = prefix + "/";
  }

  config.credentials.access_key = Setting(uri, "access-key", "AWS_ACCESS_KEY_ID");
  config.credentials.secret_key = Setting(uri, "secret-key", "AWS_SECRET_ACCESS_KEY");
  config.credentials.session_token = Setting(uri, "session-token", "AWS_SESSION_TOKEN");
  if (config.credentials.access_key.empty() || config.credentials.secret_key.empty()) {
    return InvalidArgumentError(
        "s3 store " + config.Describe() +
        " has no credentials: set the access-key and secret-key options or AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY");
  }

  MINK_ASSIGN_OR_RETURN(int64_t max_keys, IntOption(uri, "max-keys", 1000, 1, 1000));
  config.max_keys = static_cast<uint32_t>(max_keys);
  if (uri.options.count("part-size")) {
    auto size = ParseByteSize(uri.options.at("part-size"));
    if (!size.ok() || *size < kMinPartSize || *size > (5ull << 30)) {
      return InvalidArgumentError("s3 option part-size=" + uri.options.at("part-size") +
                                  " is not a size between 5MiB and 5GiB");
    }
    config.part_size = *size;
  }
  MINK_ASSIGN_OR_RETURN(int64_t attempts, IntOption(uri, "max-attempts", 6, 1, 100));
  config.max_attempts = static_cast<int>(attempts);
  MINK_ASSIGN_OR_RETURN(int64_t timeout, IntOption(uri, "timeout-ms", 30000, 1, 3600000));
  config.timeout = std::chrono::milliseconds(timeout);
  MINK_ASSIGN_OR_RETURN(int64_t initial, IntOption(uri, "retry-initial-ms", 100, 1, 60000));
  config.retry_initial = std::chrono::milliseconds(initial);
  config.retry_max = std::max(config.retry_max, config.retry_initial);
  return config;
}

std::string S3Config::Host() const {
  return path_style ? endpoint_host : bucket + "." + endpoint_host;
}

std::string S3Config::Path(std::string_view full_key) const {
  std::string path = path_style ? "/" + bucket : "";
  if (!full_key.empty() || !path_style) path += "/" + UriEncode(full_key, true);
  return path;
}

std::string S3Config::Url(std::string_view path, std::string_view query) const {
  std::string url = scheme + "://" + Host() + std::string(path);
  if (!query.empty()) url += "?" + std::string(query);
  return url;
}

std::string S3Config::Describe() const {
  return "s3://" + bucket + "/" + key_prefix + " (endpoint=" + scheme + "://" + endpoint_host +
         ", region=" + region + (path_style ? ", path-style" : "") + ")";
}

}  // namespace mink::object_store
