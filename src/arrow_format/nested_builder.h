#pragma once
// Builders for nested types, and MakeBuilder for any type.
//
//   ListBuilder:   Append() starts a list, then append its elements to value_builder().
//   MapBuilder:    Append() starts a map, then append each entry's key to key_builder() and
//                  its value to item_builder() (the two must end up the same length).
//   StructBuilder: Append() adds a valid row, then append one value to every field_builder(i).
// AppendNull() on any of them appends a null row and keeps the children consistent (nothing for
// list/map, one empty value per child for struct).

#include <memory>
#include <vector>

#include "arrow_format/builder.h"

namespace mink::arrow {

// The builder for `type`, with child builders for nested types.
Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(const DataTypePtr& type);

class ListBuilder final : public ArrayBuilder {
 public:
  ListBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> value_builder);

  void Append() {
    offsets_.Append(static_cast<int32_t>(values_->length()));
    validity_.AppendValid();
  }
  void AppendNull() override {
    offsets_.Append(static_cast<int32_t>(values_->length()));
    validity_.AppendNull();
  }
  void AppendEmptyValue() override { Append(); }
  void Reserve(int64_t additional) override;
  Result<ArrayDataPtr> Finish() override;

  ArrayBuilder* value_builder() const { return values_.get(); }
  template <typename B>
  B* value_builder_as() const {
    return static_cast<B*>(values_.get());
  }

 private:
  BufferBuilder offsets_;  // start offsets; Finish() adds the end
  std::unique_ptr<ArrayBuilder> values_;
};

class MapBuilder final : public ArrayBuilder {
 public:
  MapBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> key_builder,
             std::unique_ptr<ArrayBuilder> item_builder);

  void Append() {
    offsets_.Append(static_cast<int32_t>(keys_->length()));
    validity_.AppendValid();
  }
  void AppendNull() override {
    offsets_.Append(static_cast<int32_t>(keys_->length()));
    validity_.AppendNull();
  }
  void AppendEmptyValue() override { Append(); }
  void Reserve(int64_t additional) override;
  Result<ArrayDataPtr> Finish() override;

  ArrayBuilder* key_builder() const { return keys_.get(); }
  ArrayBuilder* item_builder() const { return items_.get(); }
  template <typename B>
  B* key_builder_as() const {
    return static_cast<B*>(keys_.get());
  }
  template <typename B>
  B* item_builder_as() const {
    return static_cast<B*>(items_.get());
  }

 private:
  BufferBuilder offsets_;
  std::unique_ptr<ArrayBuilder> keys_;
  std::unique_ptr<ArrayBuilder> items_;
};

class StructBuilder final : public ArrayBuilder {
 public:
  StructBuilder(DataTypePtr type, std::vector<std::unique_ptr<ArrayBuilder>> field_builders);

  void Append() { validity_.AppendValid(); }
  void AppendNull() override;
  void AppendEmptyValue() override;
  void Reserve(int64_t additional) override;
  Result<ArrayDataPtr> Finish() override;

  int num_fields() const { return static_cast<int>(fields_.size()); }
  ArrayBuilder* field_builder(int i) const { return fields_[static_cast<size_t>(i)].get(); }
  template <typename B>
  B* field_builder_as(int i) const {
    return static_cast<B*>(field_builder(i));
  }

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> fields_;
};

}  // namespace mink::arrow
