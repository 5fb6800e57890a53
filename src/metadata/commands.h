#pragma once
// The commands of the metadata log, as typed values, one header per domain: nodes
// (node_commands.h), streams and objects (stream_commands.h), the catalog (catalog_commands.h),
// writers (writer_commands.h), KV snapshots (kv_commands.h), the lake (lake_commands.h) and
// the lake catalog's own namespaces and tables (lake_catalog_commands.h) and continuous SQL's
// objects (continuous_commands.h) and users (user_commands.h). Each command has a kind (its
// `kKind`) and a JSON body (the domains' *_commands.cc convert both ways); the state machine
// (state.h) validates and applies them. Commands are deterministic: everything that validation
// or application needs is in the command or in the state, never in the clock or the
// environment of the node applying it.

#include <string>
#include <variant>

#include "base/result.h"
#include "metadata/catalog_commands.h"
#include "metadata/continuous_commands.h"
#include "metadata/kv_commands.h"
#include "metadata/lake_catalog_commands.h"
#include "metadata/lake_commands.h"
#include "metadata/node_commands.h"
#include "metadata/stream_commands.h"
#include "metadata/user_commands.h"
#include "metadata/writer_commands.h"

namespace mink::metadata {

using Command = std::variant<RegisterNode, CreateStream, OpenStreams, CommitObjects,
                             ReplaceSegments, TrimStream, DeleteStream, ForgetObjects,
                             CreateDatabase, DropDatabase, CreateTable, DropTable, CreatePartition,
                             AlterTable, AllocateWriterId, CommitKvSnapshot, ElectCoordinator,
                             AssignStreams, ReleaseStreams, LeaveCluster, AllocateAutoIncrement,
                             CommitLakeSnapshot, CreateLakeNamespace, DropLakeNamespace,
                             UpdateLakeNamespace, CommitLakeCatalog, RenameLakeTable,
                             CreateContinuousObject, DropContinuousObject, CommitContinuousProgress,
                             CreateUser, DeleteUser, SetClusterSecret, GrantAcls, RevokeAcls>;

std::string KindOf(const Command& command);
std::string EncodeBody(const Command& command);
// InvalidArgument for an unknown kind or a body that does not match it.
Result<Command> DecodeCommand(const std::string& kind, const std::string& body);

}  // namespace mink::metadata
