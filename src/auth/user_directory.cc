#include "auth/user_directory.h"

#include "auth/scram.h"

namespace mink::auth {

std::optional<metadata::ScramCredential> UserDirectory::Credential(std::string_view user,
                                                                   std::string_view mechanism) const {
  return meta_->Read([&](const metadata::State& st) -> std::optional<metadata::ScramCredential> {
    auto it = st.users().find(std::string(user));
    if (it == st.users().end()) return std::nullopt;
    for (const auto& c : it->second.credentials) {
      if (c.mechanism == mechanism) return c;
    }
    return std::nullopt;
  });
}

Status UserDirectory::CheckPassword(std::string_view user, std::string_view password) const {
  // SHA-256's credential costs half of SHA-512's to derive; either proves the password.
  auto credential = Credential(user, kScramSha256);
  if (!credential) credential = Credential(user, kScramSha512);
  if (!credential || !Matches(*credential, password)) {
    return PermissionDeniedError("invalid user name or password");
  }
  return Status::Ok();
}

Status UserDirectory::EnsureBootstrapUser(const std::string& user, const std::string& password) const {
  MINK_RETURN_IF_ERROR(metadata::CheckUserName(user));
  if (password.empty() || password.size() > 1024) {
    return InvalidArgumentError("the bootstrap user's password has 1 to 1024 bytes");
  }
  if (Exists(user)) return Status::Ok();
  MINK_ASSIGN_OR_RETURN(auto credentials, MakeCredentials(password));
  auto created = meta_->Append(metadata::Command(metadata::CreateUser{user, std::move(credentials), false}));
  if (!created.ok() && created.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
  return created.status();
}

}  // namespace mink::auth
