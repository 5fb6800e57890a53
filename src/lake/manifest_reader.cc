#include "lake/manifest_reader.h"

#include <avro.h>

#include <cstdio>
#include <functional>
#include <memory>

namespace mink::lake {
namespace {

// An avro_value_t that is a record's field, with a null branch of a union taken as absent.
std::optional<avro_value_t> Field(avro_value_t* record, const char* name) {
  avro_value_t child;
  if (avro_value_get_by_name(record, name, &child, nullptr) != 0) return std::nullopt;
  while (avro_value_get_type(&child) == AVRO_UNION) {
    avro_value_t branch;
    if (avro_value_get_current_branch(&child, &branch) != 0) return std::nullopt;
    child = branch;
  }
  if (avro_value_get_type(&child) == AVRO_NULL) return std::nullopt;
  return child;
}

std::optional<int64_t> Integer(avro_value_t* record, const char* name) {
  auto v = Field(record, name);
  if (!v) return std::nullopt;
  if (avro_value_get_type(&*v) == AVRO_INT32) {
    int32_t i = 0;
    avro_value_get_int(&*v, &i);
    return i;
  }
  if (avro_value_get_type(&*v) == AVRO_INT64) {
    int64_t l = 0;
    avro_value_get_long(&*v, &l);
    return l;
  }
  return std::nullopt;
}

std::optional<std::string> String(avro_value_t* record, const char* name) {
  auto v = Field(record, name);
  if (!v || avro_value_get_type(&*v) != AVRO_STRING) return std::nullopt;
  const char* s = nullptr;
  size_t size = 0;
  avro_value_get_string(&*v, &s, &size);
  return std::string(s, size > 0 ? size - 1 : 0);  // the size counts the NUL
}

std::optional<table::Value> ValueOf(avro_value_t* v) {
  switch (avro_value_get_type(v)) {
    case AVRO_INT32: {
      int32_t i = 0;
      avro_value_get_int(v, &i);
      return table::Value::Int(i);
    }
    case AVRO_INT64: {
      int64_t l = 0;
      avro_value_get_long(v, &l);
      return table::Value::Int(l);
    }
    case AVRO_STRING: {
      const char* s = nullptr;
      size_t size = 0;
      avro_value_get_string(v, &s, &size);
      return table::Value::Bytes(std::string(s, size > 0 ? size - 1 : 0));
    }
    case AVRO_BOOLEAN: {
      int b = 0;
      avro_value_get_boolean(v, &b);
      return table::Value::Bool(b != 0);
    }
    default:
      return std::nullopt;
  }
}

// Calls `visit` with each record of the Avro container file in `bytes`.
Status ForEachRecord(std::string_view bytes, const std::string& what,
                     const std::function<Status(avro_value_t*)>& visit) {
  // avro-c reads containers from a FILE; the bytes are already in memory.
  FILE* file = fmemopen(const_cast<char*>(bytes.data()), bytes.size(), "rb");
  if (file == nullptr) return InternalError("fmemopen for " + what);
  avro_file_reader_t reader;
  if (avro_file_reader_fp(file, what.c_str(), 1, &reader) != 0) {
    return DataLossError(what + " is not an Avro container file: " + avro_strerror());
  }
  std::unique_ptr<std::remove_pointer_t<avro_file_reader_t>, int (*)(avro_file_reader_t)> close(
      reader, avro_file_reader_close);
  avro_schema_t schema = avro_file_reader_get_writer_schema(reader);
  avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
  if (iface == nullptr) return DataLossError(what + ": its schema: " + avro_strerror());
  avro_value_t value;
  avro_generic_value_new(iface, &value);
  Status status = Status::Ok();
  int rc = 0;
  while ((rc = avro_file_reader_read_value(reader, &value)) == 0) {
    status = visit(&value);
    if (!status.ok()) break;
  }
  avro_value_decref(&value);
  avro_value_iface_decref(iface);
  avro_schema_decref(schema);
  if (!status.ok()) return status;
  if (rc != EOF) return DataLossError(what + ": " + avro_strerror());
  return Status::Ok();
}

}  // namespace

Result<std::vector<ManifestListRecord>> ReadManifestList(std::string_view bytes, const std::string& what) {
  std::vector<ManifestListRecord> out;
  MINK_RETURN_IF_ERROR(ForEachRecord(bytes, what, [&](avro_value_t* r) -> Status {
    ManifestListRecord e;
    auto path = String(r, "manifest_path");
    auto length = Integer(r, "manifest_length");
    auto added = Integer(r, "added_snapshot_id");
    if (!path || !length || !added) {
      return DataLossError(what + ": an entry lacks manifest_path, manifest_length or added_snapshot_id");
    }
    e.manifest_path = *path;
    e.manifest_length = *length;
    e.added_snapshot_id = *added;
    e.partition_spec_id = static_cast<int32_t>(Integer(r, "partition_spec_id").value_or(0));
    e.content = static_cast<int32_t>(Integer(r, "content").value_or(0));
    e.sequence_number = Integer(r, "sequence_number").value_or(0);
    e.min_sequence_number = Integer(r, "min_sequence_number").value_or(0);
    // Iceberg's names, or the older ones some writers still use.
    auto count = [&](const char* name, const char* old_name) {
      return Integer(r, name).value_or(Integer(r, old_name).value_or(0));
    };
    e.added_files = static_cast<int32_t>(count("added_files_count", "added_data_files_count"));
    e.existing_files = static_cast<int32_t>(count("existing_files_count", "existing_data_files_count"));
    e.added_rows = count("added_rows_count", "added_rows_count");
    e.existing_rows = count("existing_rows_count", "existing_rows_count");
    out.push_back(std::move(e));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<ManifestRecord>> ReadManifest(std::string_view bytes, const std::string& what) {
  std::vector<ManifestRecord> out;
  MINK_RETURN_IF_ERROR(ForEachRecord(bytes, what, [&](avro_value_t* r) -> Status {
    ManifestRecord e;
    auto status = Integer(r, "status");
    auto file = Field(r, "data_file");
    if (!status || !file) return DataLossError(what + ": an entry lacks status or data_file");
    e.status = static_cast<int32_t>(*status);
    e.snapshot_id = Integer(r, "snapshot_id");
    e.sequence_number = Integer(r, "sequence_number");
    avro_value_t* f = &*file;
    auto path = String(f, "file_path");
    auto records = Integer(f, "record_count");
    if (!path || !records) return DataLossError(what + ": a data_file lacks file_path or record_count");
    e.file_path = *path;
    e.record_count = *records;
    e.content = static_cast<int32_t>(Integer(f, "content").value_or(0));
    e.file_format = String(f, "file_format").value_or("");
    e.file_size_in_bytes = Integer(f, "file_size_in_bytes").value_or(0);
    if (auto partition = Field(f, "partition")) {
      size_t n = 0;
      avro_value_get_size(&*partition, &n);
      for (size_t i = 0; i < n; ++i) {
        avro_value_t child;
        avro_value_get_by_index(&*partition, i, &child, nullptr);
        while (avro_value_get_type(&child) == AVRO_UNION) {
          avro_value_t branch;
          avro_value_get_current_branch(&child, &branch);
          child = branch;
        }
        e.partition.push_back(avro_value_get_type(&child) == AVRO_NULL ? std::nullopt : ValueOf(&child));
      }
    }
    if (auto ids = Field(f, "equality_ids")) {
      size_t n = 0;
      avro_value_get_size(&*ids, &n);
      for (size_t i = 0; i < n; ++i) {
        avro_value_t id;
        avro_value_get_by_index(&*ids, i, &id, nullptr);
        int32_t v = 0;
        avro_value_get_int(&id, &v);
        e.equality_ids.push_back(v);
      }
    }
    out.push_back(std::move(e));
    return Status::Ok();
  }));
  return out;
}

}  // namespace mink::lake
