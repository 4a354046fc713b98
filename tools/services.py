"""Real services on loopback for the classroom's tests and benchmarks: Debian's redis-server and
nginx, each started on a free port in a temporary folder and stopped afterwards.

    with redis_server() as url:                     # "redis://127.0.0.1:PORT/0"
        ...
    with nginx_proxy(["127.0.0.1:8601", "127.0.0.1:8602"]) as url:   # "http://127.0.0.1:PORT"
        ...

nginx's configuration is deploy/nginx.conf's ``upstream`` and ``server`` blocks, with the
ports and paths of the test (``nginx_config``), so the test runs the recipe that is shipped.
"""

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tools.browser import ROOT, free_port, stop

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
DEPLOY_CONF = ROOT / "deploy" / "nginx.conf"


def _wait_for_port(port, proc, what, timeout=20):
    deadline = time.monotonic() + timeout
    while True:  # a bounded poll: the service says nothing when it is ready
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start on port {port}")
        time.sleep(0.05)


@contextlib.contextmanager
def _running(command, port, what):
    """Run ``command`` (its output discarded) while the ``with`` block runs, from the moment
    ``what`` answers on ``port``; stop it afterwards."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(port, proc, what)
        yield
    finally:
        stop(proc)


@contextlib.contextmanager
def redis_server(port=None):
    """Start redis-server on 127.0.0.1 (``port``, or a free one), without persistence; yield
    its URL; stop it."""
    port = port or free_port()
    with tempfile.TemporaryDirectory(prefix="attnviz-redis-") as folder:
        options = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", folder]
        command = [REDIS_SERVER, "--port", str(port), *options, "--daemonize", "no"]
        with _running(command, port, "redis-server"):
            yield f"redis://127.0.0.1:{port}/0"


def nginx_config(upstreams, port, folder):
    """deploy/nginx.conf's http blocks, for the ``upstreams`` ("host:port") behind ``port``,
    wrapped in a configuration that runs in ``folder`` as this user."""
    recipe = DEPLOY_CONF.read_text()
    servers = "".join(f"    server {u};\n" for u in upstreams)
    start, end = recipe.index("# upstream-servers-begin"), recipe.index("# upstream-servers-end")
    recipe = recipe[:start] + "# replicas\n" + servers + recipe[end:]
    recipe = recipe.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = f"{folder}/temp"
    return f"""
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {temp}/body;
  proxy_temp_path {temp}/proxy;
  fastcgi_temp_path {temp}/fastcgi;
  uwsgi_temp_path {temp}/uwsgi;
  scgi_temp_path {temp}/scgi;
{recipe}
}}
"""


@contextlib.contextmanager
def nginx_proxy(upstreams):
    """Start nginx with deploy/nginx.conf in front of ``upstreams``; yield its URL; stop it."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="attnviz-nginx-") as folder:
        Path(folder).chmod(0o755)  # nginx's workers may run as another user (nobody)
        Path(folder, "temp").mkdir(mode=0o777)
        Path(folder, "temp").chmod(0o777)
        conf = Path(folder, "nginx.conf")
        conf.write_text(nginx_config(upstreams, port, folder))
        command = [NGINX, "-c", str(conf), "-p", folder, "-e", f"{folder}/error.log"]
        with _running(command, port, "nginx"):
            yield f"http://127.0.0.1:{port}"
