"""The compose topology without Docker: Debian's nginx in front of N local app processes on one database.

    STUDY_DATABASE_URL=postgresql+psycopg://... STUDY_ADMIN_PASSWORD=... python -m deploy.cluster --replicas 2

starts N ``streamlit run app/main.py`` processes on free local ports, writes ``deploy/nginx.conf`` with those ports
(only the lines marked ``paperlab:`` change) into a temporary prefix, runs nginx in the foreground of
its own process group, prints the URL and stops everything on Ctrl-C. ``tests/deploy/test_scale_out.py``
uses the same functions. nginx must be installed (``apt-get install -y nginx``; ``.ci/run`` does it).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from app.server import free_port, start_server, stop_server, wait_healthy

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "nginx.conf"


def local_config(app_ports: list[int], listen_port: int, debug_headers: bool = False) -> str:
    """``deploy/nginx.conf`` with its app servers on ``127.0.0.1:<port>`` and nginx on ``listen_port``.

    ``debug_headers`` adds an ``X-Paperlab-Upstream`` response header naming the process that answered
    (tests use it to find which process a route key lands on; never in production)."""
    if not app_ports:
        raise ValueError("app_ports: empty; allowed one port or more")
    text = CONFIG.read_text()
    server_lines = re.findall(r"^\s*server \S+ .*# paperlab: app server\n", text, flags=re.M)
    if not server_lines:
        raise ValueError("deploy/nginx.conf: no line marked '# paperlab: app server'")
    template = server_lines[0]
    servers = "".join(re.sub(r"server \S+", f"server 127.0.0.1:{port}", template, count=1) for port in app_ports)
    text = text.replace("".join(server_lines), servers)
    text, listens = re.subn(r"listen \d+;(\s*# paperlab: listen)", rf"listen 127.0.0.1:{listen_port};\1", text)
    if listens != 1:
        raise ValueError("deploy/nginx.conf: no 'listen' line marked '# paperlab: listen'")
    if debug_headers:
        text = text.replace("proxy_pass http://paperlab;",
                            "proxy_pass http://paperlab;\n            add_header X-Paperlab-Upstream $upstream_addr always;")
    return text


@dataclass
class Cluster:
    """A running nginx and its app processes (see :func:`start_cluster`)."""

    url: str
    app_ports: list[int]
    apps: list[subprocess.Popen]
    nginx: subprocess.Popen
    prefix: Path
    stopped: set[int] = field(default_factory=set)

    def upstream_of(self, route: str) -> int:
        """The app port that nginx sends a browser with cookie ``paperlab_route=<route>`` to."""
        request = urllib.request.Request(f"{self.url}/_stcore/health", headers={"Cookie": f"paperlab_route={route}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.headers["X-Paperlab-Upstream"].split(",")[-1].strip().rsplit(":", 1)[1])

    def kill_app(self, port: int) -> None:
        """Stop the app process on ``port`` at once (SIGKILL: no clean shutdown, as in a crash)."""
        proc = self.apps[self.app_ports.index(port)]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        self.stopped.add(port)

    def stop(self) -> None:
        for proc in self.apps:
            stop_server(proc)
        if self.nginx.poll() is None:
            os.killpg(self.nginx.pid, signal.SIGTERM)
            self.nginx.wait(10)
        shutil.rmtree(self.prefix, ignore_errors=True)


def start_cluster(replicas: int, env: dict | None = None, debug_headers: bool = False,
                  nginx: str | None = None) -> Cluster:
    """Start ``replicas`` app processes (environment ``env`` on top of this one's) and nginx in front.

    Returns once every process answers ``/_stcore/health`` directly and through nginx."""
    if not isinstance(replicas, int) or not 1 <= replicas <= 16:
        raise ValueError(f"replicas: {replicas!r}; allowed integers in [1, 16]")
    binary = nginx or shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(binary).exists():
        raise FileNotFoundError("nginx: not installed; apt-get install -y nginx (.ci/run does this)")
    prefix = Path(tempfile.mkdtemp(prefix="paperlab-nginx-"))
    ports = [free_port() for _ in range(replicas)]
    # nginx is the apps' only client: the admin back-off reads the visitor's address from its X-Forwarded-For
    env = {"STUDY_TRUSTED_PROXIES": "127.0.0.1", **(env or {})}
    apps = [start_server(port, prefix / f"app-{port}.log", env=env) for port in ports]
    listen = free_port()
    (prefix / "nginx.conf").write_text(local_config(ports, listen, debug_headers))
    with open(prefix / "nginx.log", "wb") as log:
        proxy = subprocess.Popen(
            [binary, "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
             "-g", f"daemon off; pid {prefix / 'nginx.pid'}; error_log {prefix / 'error.log'} warn;"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    cluster = Cluster(f"http://127.0.0.1:{listen}", ports, apps, proxy, prefix)
    try:
        for port, proc in zip(ports, apps):
            wait_healthy(f"http://127.0.0.1:{port}", proc, timeout=120)
        wait_healthy(cluster.url, proxy, timeout=30)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=2)
    args = parser.parse_args()
    if not os.environ.get("STUDY_DATABASE_URL", "").startswith("postgresql"):
        print("STUDY_DATABASE_URL is not a PostgreSQL URL: replicas on separate SQLite files would not share a study.")
    cluster = start_cluster(args.replicas)
    print(f"Paperlab at {cluster.url} ({args.replicas} processes on ports {cluster.app_ports}); Ctrl-C stops it.")
    try:
        while all(p.poll() is None for p in [cluster.nginx, *cluster.apps]):
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
