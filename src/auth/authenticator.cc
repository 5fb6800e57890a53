#include "auth/authenticator.h"

#include "auth/access_control.h"
#include "auth/scram.h"

namespace mink::auth {
namespace {

constexpr int64_t kRememberMs = 60'000;

}  // namespace

Result<std::string> Authenticator::Check(std::string_view authorization) const {
  if (authorization.empty()) {
    return PermissionDeniedError("authentication required: send an authorization header (MINK_USER and "
                                 "MINK_PASSWORD, or MINK_TOKEN)");
  }
  const int64_t now = clock_->NowMillis();
  if (authorization.substr(0, 7) == "Bearer ") {
    // A token outlives nothing: once its user is deleted it is refused (nodes are no users).
    MINK_ASSIGN_OR_RETURN(std::string user, signer_.Verify(authorization.substr(7), now));
    if (!IsNodePrincipal(user) && !users_->Exists(user)) return PermissionDeniedError("invalid or expired token");
    return user;
  }
  if (authorization.substr(0, 6) != "Basic ") {
    return PermissionDeniedError("an authorization header is Basic <user:password> or Bearer <token>");
  }
  const std::string key = scram::Hash(kScramSha256, authorization);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = checked_.find(key);
    if (it != checked_.end() && it->second.second > now) return it->second.first;
  }
  std::string decoded;
  if (!scram::FromBase64(authorization.substr(6), &decoded)) return PermissionDeniedError("Basic credentials are base64");
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos) return PermissionDeniedError("Basic credentials are user:password");
  const std::string user = decoded.substr(0, colon);
  MINK_RETURN_IF_ERROR(users_->CheckPassword(user, decoded.substr(colon + 1)));
  std::lock_guard<std::mutex> lock(mutex_);
  if (checked_.size() >= 10'000) {
    // Expired headers go first; only a flood of distinct live ones empties the whole cache.
    std::erase_if(checked_, [now](const auto& entry) { return entry.second.second <= now; });
    if (checked_.size() >= 10'000) checked_.clear();
  }
  checked_[key] = {user, now + kRememberMs};
  return user;
}

std::string Authenticator::IssueToken(const std::string& user) const { return IssueToken(user, token_lifetime_); }

std::string Authenticator::IssueToken(const std::string& user, std::chrono::milliseconds lifetime) const {
  return signer_.Issue(user, clock_->NowMillis() + lifetime.count());
}

}  // namespace mink::auth
