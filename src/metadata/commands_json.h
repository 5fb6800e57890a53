#pragma once
// The JSON bodies of the metadata commands, one ToJson/FromJson pair per command, defined in
// its domain's *_commands.cc. Private to the metadata library (nlohmann's json stays out of
// its public headers). FromJson throws nlohmann's exceptions on a body that does not match;
// DecodeCommand (commands.cc) turns them into a Status.

#include <nlohmann/json.hpp>

#include "metadata/commands.h"

namespace mink::metadata {

using nlohmann::json;

json ToJson(const RegisterNode& c);
void FromJson(const json& j, RegisterNode* c);
json ToJson(const ElectCoordinator& c);
void FromJson(const json& j, ElectCoordinator* c);

json ToJson(const CreateStream& c);
void FromJson(const json& j, CreateStream* c);
json ToJson(const OpenStreams& c);
void FromJson(const json& j, OpenStreams* c);
json ToJson(const CommitObjects& c);
void FromJson(const json& j, CommitObjects* c);
json ToJson(const ReplaceSegments& c);
void FromJson(const json& j, ReplaceSegments* c);
json ToJson(const TrimStream& c);
void FromJson(const json& j, TrimStream* c);
json ToJson(const DeleteStream& c);
void FromJson(const json& j, DeleteStream* c);
json ToJson(const AssignStreams& c);
void FromJson(const json& j, AssignStreams* c);
json ToJson(const LeaveCluster& c);
void FromJson(const json& j, LeaveCluster* c);
json ToJson(const ReleaseStreams& c);
void FromJson(const json& j, ReleaseStreams* c);
json ToJson(const ForgetObjects& c);
void FromJson(const json& j, ForgetObjects* c);

json ToJson(const CreateDatabase& c);
void FromJson(const json& j, CreateDatabase* c);
json ToJson(const DropDatabase& c);
void FromJson(const json& j, DropDatabase* c);
json ToJson(const CreateTable& c);
void FromJson(const json& j, CreateTable* c);
json ToJson(const DropTable& c);
void FromJson(const json& j, DropTable* c);
json ToJson(const CreatePartition& c);
void FromJson(const json& j, CreatePartition* c);
json ToJson(const AlterTable& c);
void FromJson(const json& j, AlterTable* c);
json ToJson(const AllocateAutoIncrement& c);
void FromJson(const json& j, AllocateAutoIncrement* c);

json ToJson(const AllocateWriterId& c);
void FromJson(const json& j, AllocateWriterId* c);

json ToJson(const CommitKvSnapshot& c);
void FromJson(const json& j, CommitKvSnapshot* c);

json ToJson(const CreateUser& c);
void FromJson(const json& j, CreateUser* c);
json ToJson(const DeleteUser& c);
void FromJson(const json& j, DeleteUser* c);
json ToJson(const SetClusterSecret& c);
void FromJson(const json& j, SetClusterSecret* c);
json ToJson(const GrantAcls& c);
void FromJson(const json& j, GrantAcls* c);
json ToJson(const RevokeAcls& c);
void FromJson(const json& j, RevokeAcls* c);
// An entry as [principal, resource, operation] (commands and snapshots).
json ToJson(const AclEntry& e);
AclEntry AclEntryFromJson(const json& j);
// A user's credentials as user.create's body holds them (state snapshots too).
json UserCredentialsJson(const std::vector<ScramCredential>& credentials);

json ToJson(const LakeFile& f);
void FromJson(const json& j, LakeFile* f);
json ToJson(const LakeManifest& m);
void FromJson(const json& j, LakeManifest* m);
json ToJson(const LakeSnapshot& s);
void FromJson(const json& j, LakeSnapshot* s);
json ToJson(const CommitLakeSnapshot& c);
void FromJson(const json& j, CommitLakeSnapshot* c);

json ToJson(const CreateLakeNamespace& c);
void FromJson(const json& j, CreateLakeNamespace* c);
json ToJson(const DropLakeNamespace& c);
void FromJson(const json& j, DropLakeNamespace* c);
json ToJson(const UpdateLakeNamespace& c);
void FromJson(const json& j, UpdateLakeNamespace* c);
json ToJson(const CommitLakeCatalog& c);
void FromJson(const json& j, CommitLakeCatalog* c);
json ToJson(const RenameLakeTable& c);
void FromJson(const json& j, RenameLakeTable* c);

json ToJson(const CreateContinuousObject& c);
void FromJson(const json& j, CreateContinuousObject* c);
json ToJson(const DropContinuousObject& c);
void FromJson(const json& j, DropContinuousObject* c);
json ToJson(const CommitContinuousProgress& c);
void FromJson(const json& j, CommitContinuousProgress* c);

}  // namespace mink::metadata
