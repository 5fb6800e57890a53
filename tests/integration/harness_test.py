#!/usr/bin/python3
"""The Docker harness (harness/, docs/harness.md) without a container engine:

  - every combination of compose files the docs name validates with `docker-compose config`
    (compose.yml; + compose.cluster.yml; + compose.query.yml; both; compose.lite.yml), and
    MINK_IMAGE / MINK_QUERY_IMAGE select the images (else mink:local, mink-query:local, built from
    harness/Dockerfile's stages);
  - the stacks are what the quick start says: Flight :9123-:9125 and Kafka :9092-:9094 published
    and advertised as mink1-mink3 (localhost in the lite stack), PostgreSQL, an S3 server and an
    Iceberg REST catalog beside the one-node and cluster stacks, mink-query's Flight SQL on :9130;
  - every `mink serve` flag a compose file passes, and every MINK_* variable it sets, is one
    `mink serve --help` lists;
  - the Dockerfile's runtime stage installs, directly or through their dependencies, the Debian
    package of every shared library the two binaries load (ldd).

Usage: harness_test.py path/to/mink path/to/mink-query
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(yaml,) = minktest.require_modules("yaml")
minktest.require_tool("docker-compose", "docker-compose", "version")

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "harness")
COMBINATIONS = [
    ["compose.yml"],
    ["compose.yml", "compose.cluster.yml"],
    ["compose.yml", "compose.query.yml"],
    ["compose.yml", "compose.cluster.yml", "compose.query.yml"],
    ["compose.lite.yml"],
]


def config(files, env=None):
    args = ["docker-compose"]
    for f in files:
        args += ["-f", f]
    r = subprocess.run(args + ["config"], cwd=HARNESS, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, (yaml.safe_load(r.stdout) if r.returncode == 0 else r.stderr)


def flag_value(command, name):
    for arg in command:
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
    return None


def published(service):
    return sorted(int(p["published"]) for p in service.get("ports", []))


def main():
    minktest.hard_deadline(120)
    mink, mink_query = sys.argv[1], sys.argv[2]
    checks = minktest.Checks()
    help_text = subprocess.run([mink, "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
    flags = set(re.findall(r"--([a-z][a-z0-9-]*)", help_text))
    env_names = set(re.findall(r"MINK_[A-Z0-9_]+", help_text))

    stacks = {}
    for files in COMBINATIONS:
        rc, out = config(files)
        checks.ok(f"docker-compose config validates {' + '.join(files)}", rc == 0, str(out)[-400:])
        if rc == 0:
            stacks[tuple(files)] = out["services"]

    one = stacks.get(("compose.yml",), {})
    checks.expect("the one-node stack: PostgreSQL, the S3 server, its buckets, the Iceberg REST catalog, mink1",
                  ["buckets", "iceberg-rest", "mink1", "postgres", "rustfs"], sorted(one))
    cluster = stacks.get(("compose.yml", "compose.cluster.yml"), {})
    nodes = {name: s for name, s in cluster.items() if name.startswith("mink")}
    checks.expect("the cluster stack: three nodes, Flight and Kafka published on 9123-9125 and 9092-9094",
                  {"mink1": [8080, 9092, 9123], "mink2": [8081, 9093, 9124], "mink3": [8082, 9094, 9125]},
                  {name: published(s) for name, s in nodes.items()})
    checks.expect("each node advertises its own name and port",
                  {"mink1": ("grpc://mink1:9123", "mink1:9092"), "mink2": ("grpc://mink2:9124", "mink2:9093"),
                   "mink3": ("grpc://mink3:9125", "mink3:9094")},
                  {name: (flag_value(s["command"], "advertise"), flag_value(s["command"], "kafka-advertise"))
                   for name, s in nodes.items()})
    checks.expect("the cluster's nodes share one metadata database and one bucket",
                  1, len({(s["environment"]["MINK_META_URL"], s["environment"]["MINK_STORAGE_URI"])
                          for s in nodes.values()}))
    lite = stacks.get(("compose.lite.yml",), {})
    checks.ok("the lite stack is one node on SQLite and file://, advertised as localhost",
              list(lite) == ["mink"]
              and flag_value(lite["mink"]["command"], "meta-url", ).startswith("sqlite:")
              and "@file://" in flag_value(lite["mink"]["command"], "storage-uri")
              and flag_value(lite["mink"]["command"], "advertise") == "grpc://localhost:9123"
              and published(lite["mink"]) == [8080, 9092, 9123], repr(lite))
    query = stacks.get(("compose.yml", "compose.query.yml"), {}).get("query", {})
    checks.ok("compose.query.yml adds mink-query's Flight SQL on :9130 over mink1",
              published(query) == [9130] and query.get("environment", {}).get("MINK_BOOTSTRAP") == "grpc://mink1:9123",
              repr(query))

    # Images: built locally unless the variables name published ones.
    checks.expect("without MINK_IMAGE / MINK_QUERY_IMAGE the images are built from harness/Dockerfile",
                  {"mink1": ("mink:local", "mink"), "mink2": ("mink:local", "mink"),
                   "mink3": ("mink:local", "mink"), "query": ("mink-query:local", "mink-query")},
                  {name: (s.get("image"), s.get("build", {}).get("target"))
                   for name, s in stacks.get(tuple(COMBINATIONS[3]), {}).items() if "build" in s})
    rc, out = config(COMBINATIONS[3], {"MINK_IMAGE": "ghcr.io/example/mink:1.0",
                                       "MINK_QUERY_IMAGE": "ghcr.io/example/mink-query:1.0"})
    checks.expect("MINK_IMAGE and MINK_QUERY_IMAGE select the images",
                  {"mink1": "ghcr.io/example/mink:1.0", "mink2": "ghcr.io/example/mink:1.0",
                   "mink3": "ghcr.io/example/mink:1.0", "query": "ghcr.io/example/mink-query:1.0"},
                  {name: s.get("image") for name, s in (out["services"].items() if rc == 0 else [])
                   if name.startswith("mink") or name == "query"})

    # Every flag and variable the files give mink serve is one it has.
    unknown = []
    for files, services in stacks.items():
        for name, s in services.items():
            if s.get("build", {}).get("target") != "mink":
                continue
            command = s.get("command", [])
            for arg in command[1:]:
                flag = arg[2:].split("=", 1)[0]
                if flag not in flags:
                    unknown.append(f"{name}: {arg}")
            for var in s.get("environment", {}):
                if var.startswith("MINK_") and var not in env_names:
                    unknown.append(f"{name}: {var}")
    checks.expect("every flag and MINK_* variable in the compose files is one mink serve --help lists", [],
                  sorted(set(unknown)))

    # The runtime image has every library the binaries load.
    dockerfile = open(os.path.join(HARNESS, "Dockerfile")).read()
    runtime = dockerfile.split("AS runtime", 1)[1].split("FROM ", 1)[0]
    listed = set(re.findall(r"\b(lib[a-z0-9.+-]+|zlib1g|ca-certificates|curl)\b", runtime))
    closure = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
                              "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *sorted(listed)],
                             capture_output=True, text=True, timeout=60).stdout
    installed = listed | {line.strip() for line in closure.splitlines() if line and not line.startswith(" ")}
    needed, missing = set(), []
    for binary in (mink, mink_query):
        for line in subprocess.run(["ldd", binary], capture_output=True, text=True).stdout.splitlines():
            m = re.search(r"=> (\S+)", line)
            if not m or "duckdb" in m.group(1):
                continue
            path = os.path.realpath(m.group(1))
            for candidate in (path, "/usr" + path if not path.startswith("/usr") else path[4:]):
                r = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
                if r.returncode == 0:
                    needed.add(r.stdout.split(":", 1)[0])
                    break
    missing = sorted(p for p in needed if p not in installed)
    checks.ok("the runtime stage installs the package of every library mink and mink-query load",
              needed and not missing, f"missing {missing} of {sorted(needed)}")
    checks.finish()


if __name__ == "__main__":
    main()
