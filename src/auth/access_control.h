#pragma once
// AccessControl: what an authenticated user may do (docs/operations.md, Access control), from
// the access control lists in the metadata log (metadata::AclEntry) and the super users.
//
// A request needs an operation on a resource: describe (see that it exists), read, write or
// admin (create, drop, alter, grant). A grant allows its operation and the ones it includes
// (admin: all; read and write: describe) on its resource and everything inside it: the cluster
// holds every database and group, a database its tables. A "*" name is every resource of its
// type; a "*" principal every user. Nothing is allowed without a grant, except to
//   - super users (--auth-super-users, and the bootstrap user) and nodes (principal
//     "node:<id>"), who may do anything. No anonymous caller gets here.
// Thread-safe (it reads the metadata state).

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "metadata/metadata_log.h"

namespace mink::auth {

enum class Operation { kDescribe, kRead, kWrite, kAdmin };

std::string_view OperationName(Operation op);  // "describe", "read", ...

struct Resource {
  enum class Type { kCluster, kDatabase, kTable, kGroup };
  Type type = Type::kCluster;
  std::string name;  // "" for the cluster, "<db>", "<db>.<table>", a group's id

  static Resource Cluster() { return {Type::kCluster, ""}; }
  static Resource Database(std::string db) { return {Type::kDatabase, std::move(db)}; }
  static Resource Table(std::string qualified) { return {Type::kTable, std::move(qualified)}; }
  static Resource Group(std::string id) { return {Type::kGroup, std::move(id)}; }
  // As an AclEntry names it: "cluster", "database:<db>", "table:<db>.<table>", "group:<id>".
  std::string ToString() const;
};

// The principal of node `id`'s own calls to other nodes, and whether a principal is a node's.
std::string NodePrincipal(int32_t node_id);
bool IsNodePrincipal(std::string_view principal);

class AccessControl {
 public:
  AccessControl(metadata::MetadataLog* meta, std::set<std::string> super_users)
      : meta_(meta), super_users_(std::move(super_users)) {}

  bool Allowed(std::string_view user, const Resource& resource, Operation op) const;
  // OK, or PermissionDenied "user bob may not write table kafka.orders".
  Status Check(std::string_view user, const Resource& resource, Operation op) const;
  // Super users, nodes and the anonymous first caller.
  bool IsSuper(std::string_view user) const;

  // The grants, and changing them (metadata GrantAcls / RevokeAcls; already granted or not
  // granted entries are no error).
  std::vector<metadata::AclEntry> Entries() const;
  Status Grant(std::vector<metadata::AclEntry> entries) const;
  Status Revoke(std::vector<metadata::AclEntry> entries) const;

 private:
  metadata::MetadataLog* const meta_;
  const std::set<std::string> super_users_;
};

// Whether `entry` allows `op` on `resource` (whoever its principal is).
bool Covers(const metadata::AclEntry& entry, const Resource& resource, Operation op);

}  // namespace mink::auth
