#include "metadata/commands.h"

#include <stdexcept>

#include "metadata/commands_json.h"

namespace mink::metadata {
namespace {

// The alternative of Command whose kind is `kind`, decoded from `j`; false for an unknown kind.
template <size_t I = 0>
bool DecodeAlternative(const std::string& kind, const json& j, Command* out) {
  if constexpr (I == std::variant_size_v<Command>) {
    return false;
  } else {
    using T = std::variant_alternative_t<I, Command>;
    if (kind == T::kKind) {
      T c;
      FromJson(j, &c);
      *out = std::move(c);
      return true;
    }
    return DecodeAlternative<I + 1>(kind, j, out);
  }
}

}  // namespace

std::string KindOf(const Command& command) {
  return std::visit([](const auto& c) { return std::string(c.kKind); }, command);
}

std::string EncodeBody(const Command& command) {
  return std::visit([](const auto& c) { return ToJson(c).dump(); }, command);
}

Result<Command> DecodeCommand(const std::string& kind, const std::string& body) {
  try {
    Command command;
    if (!DecodeAlternative(kind, json::parse(body), &command)) {
      return InvalidArgumentError("unknown metadata command kind '" + kind + "'");
    }
    return command;
  } catch (const std::exception& e) {
    return InvalidArgumentError("cannot decode metadata command " + kind + ": " + e.what());
  }
}

}  // namespace mink::metadata
