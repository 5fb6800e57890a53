#include "kafka/protocol/acls.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

// DescribeAcls' request and each DeleteAcls filter are the same seven fields.
template <class IO, class F>
void AclFilterFields(IO& io, F& f) {
  io.Int8("resource_type_filter", f.resource_type_filter);
  io.NullableString("resource_name_filter", f.resource_name_filter);
  if (io.version() >= 1) io.Int8("pattern_type_filter", f.pattern_type_filter);
  io.NullableString("principal_filter", f.principal_filter);
  io.NullableString("host_filter", f.host_filter);
  io.Int8("operation", f.operation);
  io.Int8("permission_type", f.permission_type);
}

template <class IO, class M>
void DescribeRequestFields(IO& io, M& m) {
  AclFilterFields(io, m);
  io.Tags();
}

template <class IO, class M>
void DescribeResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Int16("error_code", m.error_code);
  io.NullableString("error_message", m.error_message);
  io.Array("resources", m.resources, [&](auto& r) {
    io.Int8("resource_type", r.resource_type);
    io.String("resource_name", r.resource_name);
    if (io.version() >= 1) io.Int8("pattern_type", r.pattern_type);
    io.Array("acls", r.acls, [&](auto& a) {
      io.String("principal", a.principal);
      io.String("host", a.host);
      io.Int8("operation", a.operation);
      io.Int8("permission_type", a.permission_type);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void CreateRequestFields(IO& io, M& m) {
  io.Array("creations", m.creations, [&](auto& c) {
    io.Int8("resource_type", c.resource_type);
    io.String("resource_name", c.resource_name);
    if (io.version() >= 1) io.Int8("resource_pattern_type", c.resource_pattern_type);
    io.String("principal", c.principal);
    io.String("host", c.host);
    io.Int8("operation", c.operation);
    io.Int8("permission_type", c.permission_type);
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void CreateResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("results", m.results, [&](auto& r) {
    io.Int16("error_code", r.error_code);
    io.NullableString("error_message", r.error_message);
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void DeleteRequestFields(IO& io, M& m) {
  io.Array("filters", m.filters, [&](auto& f) {
    AclFilterFields(io, f);
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void DeleteResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("filter_results", m.filter_results, [&](auto& r) {
    io.Int16("error_code", r.error_code);
    io.NullableString("error_message", r.error_message);
    io.Array("matching_acls", r.matching_acls, [&](auto& a) {
      io.Int16("error_code", a.error_code);
      io.NullableString("error_message", a.error_message);
      io.Int8("resource_type", a.resource_type);
      io.String("resource_name", a.resource_name);
      if (io.version() >= 1) io.Int8("pattern_type", a.pattern_type);
      io.String("principal", a.principal);
      io.String("host", a.host);
      io.Int8("operation", a.operation);
      io.Int8("permission_type", a.permission_type);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(DescribeAclsRequest, DescribeRequestFields)
MINK_KAFKA_DEFINE_CODEC(DescribeAclsResponse, DescribeResponseFields)
MINK_KAFKA_DEFINE_CODEC(CreateAclsRequest, CreateRequestFields)
MINK_KAFKA_DEFINE_CODEC(CreateAclsResponse, CreateResponseFields)
MINK_KAFKA_DEFINE_CODEC(DeleteAclsRequest, DeleteRequestFields)
MINK_KAFKA_DEFINE_CODEC(DeleteAclsResponse, DeleteResponseFields)

DescribeAclsResponse ErrorResponse(const DescribeAclsRequest&, int16_t, ErrorCode code) {
  DescribeAclsResponse r;
  r.error_code = ToWire(code);
  return r;
}

CreateAclsResponse ErrorResponse(const CreateAclsRequest& request, int16_t, ErrorCode code) {
  CreateAclsResponse::Result result;
  result.error_code = ToWire(code);
  CreateAclsResponse r;
  r.results.assign(request.creations.size(), result);
  return r;
}

DeleteAclsResponse ErrorResponse(const DeleteAclsRequest& request, int16_t, ErrorCode code) {
  DeleteAclsResponse::FilterResult result;
  result.error_code = ToWire(code);
  DeleteAclsResponse r;
  r.filter_results.assign(request.filters.size(), result);
  return r;
}

}  // namespace mink::kafka
