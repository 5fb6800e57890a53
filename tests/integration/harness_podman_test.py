#!/usr/bin/python3
"""The Docker harness for real (docs/harness.md): the image built by harness/Dockerfile and the
lite stack started by docker-compose, on Debian's podman (no registry is reachable here):

  - a Debian 12 base image made by debootstrap from Debian's packages and imported into podman
    as debian:12 / debian:12-slim (once; later runs reuse it);
  - `podman build -f harness/Dockerfile --target mink --build-arg MINK_BINARIES=prebuilt` with this
    tree's binaries (the build stage, which compiles everything, is skipped): the runtime stage
    installs the shared libraries from Debian's packages;
  - docker-compose 1.29 (through podman's Docker API) brings compose.lite.yml up; its node turns
    /ready, the mink CLI on the host creates, writes and reads a table through the published
    Flight port, kcat produces and consumes through the published Kafka port (advertised as
    localhost), /metrics counts the requests; `down -v` removes it all.

Usage: harness_podman_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3, root)
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for tool in ("podman", "debootstrap", "docker-compose", "kcat", "runc", "iptables"):
    if shutil.which(tool) is None:
        minktest.unavailable(f"{tool} is not installed (scripts/setup installs it)")
if os.geteuid() != 0:
    minktest.unavailable("podman's bridge networks need root here")
PORTS = (9123, 9092, 8080)  # what compose.lite.yml publishes
for port in PORTS:
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            minktest.unavailable(f"port {port}, which the lite stack publishes, is taken on this machine")


def run(cmd, env=None, timeout=300, cwd=None):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def base_image(env, work):
    """debian:12 and debian:12-slim from debootstrap, unless podman has them already."""
    if run(["podman", "image", "exists", "docker.io/library/debian:12-slim"], env).returncode == 0:
        return "reused"
    rootfs = os.path.join(work, "rootfs")
    r = run(["debootstrap", "--variant=minbase", "bookworm", rootfs, "http://deb.debian.org/debian"], timeout=600)
    if r.returncode != 0:
        raise RuntimeError("debootstrap: " + r.stdout[-2000:] + r.stderr[-2000:])
    tar = subprocess.Popen(["tar", "-C", rootfs, "-c", "."], stdout=subprocess.PIPE)
    imported = subprocess.run(["podman", "import", "-", "docker.io/library/debian:12-slim"], stdin=tar.stdout,
                              env=env, capture_output=True, text=True, timeout=300)
    tar.wait()
    if imported.returncode != 0:
        raise RuntimeError("podman import: " + imported.stderr)
    run(["podman", "tag", "docker.io/library/debian:12-slim", "docker.io/library/debian:12"], env)
    shutil.rmtree(rootfs, ignore_errors=True)
    return "made"


def http_get(url):
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=3) as r:
            return r.status, r.read().decode()
    except OSError as e:
        return None, str(e)


def main():
    minktest.hard_deadline(560)
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} path/to/mink path/to/mink-query", file=sys.stderr)
        sys.exit(2)
    mink, mink_query = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    checks = minktest.Checks()
    work = tempfile.mkdtemp(prefix="mink-podman.", dir=os.environ.get("TMPDIR"))
    # This machine's limits and cgroups: runc (crun refuses hybrid cgroups) and rlimits within
    # the hard limits podman may set.
    conf = os.path.join(work, "containers.conf")
    with open(conf, "w") as f:
        f.write('[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n'
                '[engine]\nruntime = "runc"\n')
    env = dict(os.environ, CONTAINERS_CONF=conf)
    sock = os.path.join(work, "podman.sock")
    compose_env = dict(env, DOCKER_HOST=f"unix://{sock}", MINK_IMAGE="localhost/mink:harness-test")
    project = f"minktest{os.getpid()}"
    compose = ["docker-compose", "-p", project, "-f", os.path.join(ROOT, "harness", "compose.lite.yml")]
    service = None
    try:
        how = base_image(env, work)
        r = run(["podman", "run", "--rm", "docker.io/library/debian:12-slim", "cat", "/etc/debian_version"], env)
        checks.ok(f"a Debian 12 base image from debootstrap ({how})", r.stdout.startswith("12."), r.stdout + r.stderr)
        ctx = os.path.join(work, "ctx")
        for d in ("build/bin", "third_party/duckdb/lib", "harness"):
            os.makedirs(os.path.join(ctx, d))
        shutil.copy(mink, os.path.join(ctx, "build/bin/mink"))
        shutil.copy(mink_query, os.path.join(ctx, "build/bin/mink-query"))
        shutil.copy(os.path.join(ROOT, "third_party/duckdb/lib/libduckdb.so"), os.path.join(ctx, "third_party/duckdb/lib"))
        shutil.copy(os.path.join(ROOT, "harness/Dockerfile"), os.path.join(ctx, "harness"))
        r = run(["podman", "build", "--pull=never", "-f", "harness/Dockerfile", "--build-arg", "MINK_BINARIES=prebuilt",
                 "--target", "mink", "-t", "localhost/mink:harness-test", "."], env, timeout=600, cwd=ctx)
        checks.ok("harness/Dockerfile builds the mink image (runtime libraries from Debian's packages)",
                  r.returncode == 0, (r.stdout + r.stderr)[-3000:])
        if r.returncode != 0:
            return
        r = run(["podman", "run", "--rm", "localhost/mink:harness-test", "serve", "--help"], env)
        checks.ok("the image's mink runs: every library it loads is in the image", r.returncode == 0,
                  r.stdout + r.stderr)

        service = subprocess.Popen(["podman", "system", "service", "--time=0", f"unix://{sock}"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        minktest.wait_until(15, lambda: os.path.exists(sock))
        r = run(compose + ["up", "-d"], compose_env, timeout=180)
        checks.expect("docker-compose brings the lite stack up", 0, r.returncode)
        if r.returncode != 0:
            print(r.stdout + r.stderr)
            return
        ready = minktest.wait_until(60, lambda: http_get("http://127.0.0.1:8080/ready")[0] == 200)
        checks.ok("its node turns ready on the published HTTP port", ready, str(http_get("http://127.0.0.1:8080/ready")))

        cli = dict(os.environ, MINK_BOOTSTRAP="grpc://localhost:9123")
        for args in (["db", "create", "harness"], ["table", "create", "harness.t", "-C", "id BIGINT NOT NULL",
                                                   "-C", "name STRING"]):
            r = subprocess.run([mink, *args], env=cli, capture_output=True, text=True, timeout=60)
            checks.expect(f"mink {' '.join(args[:2])} through the published Flight port", (0, ""), (r.returncode, r.stderr))
        rows = [{"id": i, "name": f"n{i}"} for i in range(1, 6)]
        r = subprocess.run([mink, "write", "harness.t"], env=cli, input="".join(json.dumps(x) + "\n" for x in rows),
                           capture_output=True, text=True, timeout=60)
        checks.expect("mink write", 0, r.returncode)
        r = subprocess.run([mink, "read", "harness.t"], env=cli, capture_output=True, text=True, timeout=60)
        checks.expect("mink read gives back the rows written", rows, [json.loads(x) for x in r.stdout.splitlines()])

        produced = subprocess.run(["kcat", "-b", "localhost:9092", "-P", "-t", "hello"], input="one\ntwo\nthree\n",
                                  capture_output=True, text=True, timeout=60)
        consumed = subprocess.run(["kcat", "-b", "localhost:9092", "-C", "-t", "hello", "-o", "beginning", "-e", "-q"],
                                  capture_output=True, text=True, timeout=60)
        checks.expect("kcat produces and consumes through the published Kafka port (advertised localhost)",
                      (0, ["one", "two", "three"]), (produced.returncode, consumed.stdout.split()))
        status, metrics = http_get("http://127.0.0.1:8080/metrics")
        checks.ok("/metrics counts the Kafka requests", status == 200 and 'mink_kafka_requests_total{api="Produce"}'
                  in metrics, metrics[:300])
    except Exception as e:  # noqa: BLE001 - every error is a failure with its trace
        import traceback
        traceback.print_exc()
        checks.fail(f"harness: {type(e).__name__}: {e}")
    finally:
        if service is not None:
            r = run(compose + ["down", "-v"], compose_env, timeout=120)
            checks.expect("docker-compose down -v removes the stack", 0, r.returncode)
            service.terminate()
            service.wait(timeout=30)
        run(["podman", "rmi", "-f", "localhost/mink:harness-test"], env)
        shutil.rmtree(work, ignore_errors=True)
        checks.finish()


if __name__ == "__main__":
    main()
