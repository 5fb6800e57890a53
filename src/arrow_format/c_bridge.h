#pragma once
// Export to and import from the Arrow C data interface (c_data_interface.h).
//
// Export shares memory: the exported ArrowArray holds a reference to the arrays' buffers until
// the consumer calls its release callback (from any thread). A record batch is exported as a
// non-nullable struct array with one child per column, with a struct ArrowSchema ("+s").
//
// Import views the producer's buffers: the imported ArrowArray is moved into an owner the Mink
// buffers share, whose release callback runs when the last of them goes (from any thread).
// Where the offsets do not allow a view (bits not starting on a byte, string or list offsets
// not starting at 0) the data is copied into new Mink buffers, normalised to offset 0. Import
// takes ownership in every case: the structs are released (or moved) whether the import
// succeeds or fails. Unsupported formats are Unimplemented.

#include "arrow_format/array_data.h"
#include "arrow_format/c_data_interface.h"
#include "arrow_format/record_batch.h"
#include "arrow_format/type.h"
#include "base/result.h"

namespace mink::arrow {

// The format string of a type ("l", "tsm:UTC", "d:10,2", "+l", ...).
std::string CDataFormat(const DataType& type);

Status ExportField(const Field& field, ArrowSchema* out);
Status ExportSchema(const Schema& schema, ArrowSchema* out);
Status ExportArray(const ArrayDataPtr& array, ArrowArray* out);
// `out_schema` may be null.
Status ExportRecordBatch(const RecordBatchPtr& batch, ArrowArray* out, ArrowSchema* out_schema);

Result<Field> ImportField(ArrowSchema* schema);
// A struct schema ("+s") as a Schema of its children.
Result<SchemaPtr> ImportSchema(ArrowSchema* schema);
Result<ArrayDataPtr> ImportArray(ArrowArray* array, const DataTypePtr& type);
Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema);

}  // namespace mink::arrow
