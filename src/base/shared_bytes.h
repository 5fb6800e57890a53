#pragma once
// Immutable bytes that share ownership of the block they live in. A batch read back from an
// object points into the fetched range instead of being copied out of it; bytes built in memory
// own their string.

#include <memory>
#include <string>
#include <string_view>

namespace mink {

class SharedBytes {
 public:
  SharedBytes() = default;
  explicit SharedBytes(std::string bytes) {
    auto owned = std::make_shared<const std::string>(std::move(bytes));
    view_ = *owned;
    owner_ = std::move(owned);
  }
  // `view` lies inside the block that `owner` keeps alive.
  SharedBytes(std::shared_ptr<const void> owner, std::string_view view)
      : owner_(std::move(owner)), view_(view) {}

  std::string_view view() const { return view_; }
  const char* data() const { return view_.data(); }
  size_t size() const { return view_.size(); }
  bool empty() const { return view_.empty(); }
  const std::shared_ptr<const void>& owner() const { return owner_; }

  friend bool operator==(const SharedBytes& a, std::string_view b) { return a.view_ == b; }

 private:
  std::shared_ptr<const void> owner_;
  std::string_view view_;
};

}  // namespace mink
