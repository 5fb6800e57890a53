#include "flight/protocol/wire.h"

#include <grpcpp/support/slice.h>

#include <utility>

namespace mink::flight::wire {
namespace {

// Bodies up to this size are copied into the first slice: one allocation and one small copy
// cost less than a second slice with its own refcount and destroy callback.
constexpr size_t kInlineBodyLimit = 16 * 1024;

// Protobuf wire type of length-delimited fields (bytes, strings, messages).
constexpr uint32_t kLengthDelimited = 2;

void PutVarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void PutFieldHeader(std::string* out, uint32_t field_number, size_t length) {
  PutVarint(out, (static_cast<uint64_t>(field_number) << 3) | kLengthDelimited);
  PutVarint(out, length);
}

void PutBytesField(std::string* out, uint32_t field_number, std::string_view bytes) {
  if (bytes.empty()) return;  // proto3: a default value is not written
  PutFieldHeader(out, field_number, bytes.size());
  out->append(bytes);
}

void DeleteString(void* owned) { delete static_cast<std::string*>(owned); }

}  // namespace

void ToProto(const FlightDescriptor& in, pb::FlightDescriptor* out) {
  switch (in.type) {
    case FlightDescriptor::Type::kPath:
      out->set_type(pb::FlightDescriptor::PATH);
      break;
    case FlightDescriptor::Type::kCmd:
      out->set_type(pb::FlightDescriptor::CMD);
      break;
    case FlightDescriptor::Type::kUnknown:
      out->set_type(pb::FlightDescriptor::UNKNOWN);
      break;
  }
  out->set_cmd(in.cmd);
  out->mutable_path()->Assign(in.path.begin(), in.path.end());
}

FlightDescriptor FromProto(const pb::FlightDescriptor& in) {
  FlightDescriptor out;
  switch (in.type()) {
    case pb::FlightDescriptor::PATH:
      out.type = FlightDescriptor::Type::kPath;
      break;
    case pb::FlightDescriptor::CMD:
      out.type = FlightDescriptor::Type::kCmd;
      break;
    default:  // proto3 enums are open: an unknown number reads as kUnknown
      out.type = FlightDescriptor::Type::kUnknown;
      break;
  }
  out.cmd = in.cmd();
  out.path.assign(in.path().begin(), in.path().end());
  return out;
}

void ToProto(const FlightEndpoint& in, pb::FlightEndpoint* out) {
  out->mutable_ticket()->set_ticket(in.ticket);
  for (const auto& uri : in.locations) out->add_location()->set_uri(uri);
  out->set_app_metadata(in.app_metadata);
}

FlightEndpoint FromProto(const pb::FlightEndpoint& in) {
  FlightEndpoint out;
  out.ticket = in.ticket().ticket();
  for (const auto& location : in.location()) out.locations.push_back(location.uri());
  out.app_metadata = in.app_metadata();
  return out;
}

void ToProto(const FlightInfo& in, pb::FlightInfo* out) {
  out->set_schema(in.schema);
  ToProto(in.descriptor, out->mutable_flight_descriptor());
  for (const auto& endpoint : in.endpoints) ToProto(endpoint, out->add_endpoint());
  out->set_total_records(in.total_records);
  out->set_total_bytes(in.total_bytes);
  out->set_ordered(in.ordered);
  out->set_app_metadata(in.app_metadata);
}

FlightInfo FromProto(const pb::FlightInfo& in) {
  FlightInfo out;
  out.schema = in.schema();
  out.descriptor = FromProto(in.flight_descriptor());
  for (const auto& endpoint : in.endpoint()) out.endpoints.push_back(FromProto(endpoint));
  out.total_records = in.total_records();
  out.total_bytes = in.total_bytes();
  out.ordered = in.ordered();
  out.app_metadata = in.app_metadata();
  return out;
}

void ToProto(const Action& in, pb::Action* out) {
  out->set_type(in.type);
  out->set_body(in.body);
}

Action FromProto(const pb::Action& in) { return Action{in.type(), in.body()}; }

ActionType FromProto(const pb::ActionType& in) { return ActionType{in.type(), in.description()}; }

FlightData FromProto(pb::FlightData&& in) {
  FlightData out;
  if (in.has_flight_descriptor()) out.descriptor = FromProto(in.flight_descriptor());
  // Protobuf owns heap strings (no arena here): moving them out steals the buffers.
  out.data_header = std::move(*in.mutable_data_header());
  out.app_metadata = std::move(*in.mutable_app_metadata());
  out.body = std::move(*in.mutable_data_body());
  return out;
}

void ToProto(FlightData&& in, pb::FlightData* out) {
  if (in.descriptor) ToProto(*in.descriptor, out->mutable_flight_descriptor());
  out->set_data_header(std::move(in.data_header));
  out->set_app_metadata(std::move(in.app_metadata));
  out->set_data_body(std::move(in.body));
}

grpc::ByteBuffer EncodeFlightData(FlightData&& data) {
  std::string head;
  head.reserve(32 + data.data_header.size() + data.app_metadata.size() +
               (data.body.size() <= kInlineBodyLimit ? data.body.size() : 0));
  // Field order as protobuf writes it: 1, 2, 3, then 1000 (the body, last on purpose).
  if (data.descriptor) {
    pb::FlightDescriptor descriptor;
    ToProto(*data.descriptor, &descriptor);
    std::string bytes = descriptor.SerializeAsString();
    PutFieldHeader(&head, pb::FlightData::kFlightDescriptorFieldNumber, bytes.size());
    head += bytes;
  }
  PutBytesField(&head, pb::FlightData::kDataHeaderFieldNumber, data.data_header);
  PutBytesField(&head, pb::FlightData::kAppMetadataFieldNumber, data.app_metadata);
  if (data.body.size() <= kInlineBodyLimit) {
    PutBytesField(&head, pb::FlightData::kDataBodyFieldNumber, data.body);
    grpc::Slice slice(head);
    return grpc::ByteBuffer(&slice, 1);
  }
  PutFieldHeader(&head, pb::FlightData::kDataBodyFieldNumber, data.body.size());
  auto* owned = new std::string(std::move(data.body));
  grpc::Slice slices[2] = {grpc::Slice(head),
                           grpc::Slice(owned->data(), owned->size(), &DeleteString, owned)};
  return grpc::ByteBuffer(slices, 2);
}

}  // namespace mink::flight::wire
