#pragma once
// For the .cc files of the message structs only: each message's fields are listed ONCE, in a
// template over the IO type (Reader or Writer) and the message's constness:
//
//   template <class IO, class M>
//   void HeartbeatRequestFields(IO& io, M& m) {
//     io.String("group_id", m.group_id);
//     if (io.version() >= 3) io.NullableString("group_instance_id", m.group_instance_id);
//     io.Tags();
//   }
//   MINK_KAFKA_DEFINE_CODEC(HeartbeatRequest, HeartbeatRequestFields)
//
// Reader methods take non-const references and fill them; Writer methods take const references.
// Nested arrays take a lambda over the element: `[&](auto& e) { ... }`.

#include "kafka/protocol/message.h"

#define MINK_KAFKA_DEFINE_CODEC(Type, Fields)                                    \
  ::mink::Status Type::Decode(::mink::kafka::Reader& reader) {                  \
    Fields(reader, *this);                                                       \
    return reader.status();                                                      \
  }                                                                              \
  ::mink::Status Type::Encode(::mink::kafka::Writer& writer) const {            \
    Fields(writer, *this);                                                       \
    return writer.status();                                                      \
  }

namespace mink::kafka::internal {

// Int32 elements of an array: `io.Array("replicas", v, Int32Element(io))`.
template <class IO>
auto Int32Element(IO& io) {
  return [&io](auto& v) { io.Int32(nullptr, v); };
}
template <class IO>
auto StringElement(IO& io) {
  return [&io](auto& v) { io.String(nullptr, v); };
}
template <class IO>
auto Int64Element(IO& io) {
  return [&io](auto& v) { io.Int64(nullptr, v); };
}

}  // namespace mink::kafka::internal
