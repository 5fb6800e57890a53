// libFuzzer target: the JSON a stranger sends a node's Flight port before any table is touched
// (request_json.h): a DoGet ticket, DoPut and DoExchange command descriptors, and the bodies of
// actions read as create-table and alter-table read them, and by the typed accessors every
// other action uses. Each must refuse or parse, never throw (gRPC would answer UNKNOWN, naming
// nothing), crash or hang.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "flight/service/request_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)mink::flight::ParseTicket(text);
  (void)mink::flight::WantsCompressed(text);
  (void)mink::flight::ParsePutCommand(text);
  (void)mink::flight::ParseLookupCommand(text);
  auto body = mink::flight::ParseJsonObject(text, "action body");
  if (!body.ok()) return 0;
  if (!body->is_object()) std::abort();
  (void)mink::flight::ParseTableSpec(*body, "action create-table");
  (void)mink::flight::ParseAlteration(*body, "action alter-table");
  const mink::flight::JsonFields fields(*body, "action");
  for (const char* name : {"name", "table", "database", "password", "principal", "resource", "operation", "sql"}) {
    (void)fields.String(name);
    (void)fields.Strings(name);
  }
  for (const char* name : {"cascade", "replace"}) (void)fields.Bool(name);
  (void)fields.Int("at", 0);
  (void)fields.Int32("bucket", 0);
  (void)fields.StringMap("options");
  return 0;
}
