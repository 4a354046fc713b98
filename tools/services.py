"""Real services on loopback for the classroom's tests and benchmarks: Debian's redis-server and
nginx, each started on a free port in a temporary folder and stopped afterwards.

    with redis_server() as url:                     # "redis://127.0.0.1:PORT/0"
        ...
    with redis_server(recipe=True, folder=d) as url:  # deploy/redis.conf (persistence, a
        ...                                          # password), its files in d: restartable
    with nginx_proxy(["127.0.0.1:8601", "127.0.0.1:8602"]) as url:   # "http://127.0.0.1:PORT"
        ...
    nginx_recipe_config(folder, ports)   # the whole recipe as shipped, its files in folder
    with replicas_cluster() as cluster:    # Redis, two replicas of the app, nginx before them
        a, b, proxy = cluster.urls

nginx's configuration is deploy/nginx.conf's blocks, with the ports and paths of the test and
plain http (``nginx_config``), so the test runs the recipe that is shipped; redis-server can run
deploy/redis.conf (``recipe=True``).
"""

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import requests

from tools.browser import ROOT, free_port, stop, streamlit_server

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
DEPLOY_CONF = ROOT / "deploy" / "nginx.conf"
DEPLOY_REDIS_CONF = ROOT / "deploy" / "redis.conf"
TEST_REDIS_PASSWORD = "attnviz-test-password"  # the recipe's placeholder, replaced in tests


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
    if not os.access(command[0], os.X_OK):  # tests ask for needs_redis / needs_nginx first
        raise RuntimeError(f"{what} is not installed ({command[0]}): apt-get install {what}")
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(port, proc, what)
        yield
    finally:
        stop(proc)


@contextlib.contextmanager
def redis_server(port=None, recipe=False, folder=None):
    """Start redis-server on 127.0.0.1 (``port``, or a free one); yield its URL; stop it.

    Without ``recipe``: no persistence, no password, in a temporary folder. With it:
    deploy/redis.conf as shipped (append-only file, fsync every second, a password: the URL
    carries TEST_REDIS_PASSWORD), its files in ``folder`` (kept: start it again on the same
    folder and port to restart it)."""
    port = port or free_port()
    with contextlib.ExitStack() as stack:
        if folder is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="attnviz-redis-"))
        if recipe:  # the recipe's folder (made by systemd's StateDirectory) is the test's
            conf = Path(folder, "redis.conf")
            text = DEPLOY_REDIS_CONF.read_text()
            conf.write_text(text.replace("dir /var/lib/attnviz-redis", f"dir {folder}"))
            options = [str(conf), "--requirepass", TEST_REDIS_PASSWORD, "--supervised", "no"]
            url = f"redis://:{TEST_REDIS_PASSWORD}@127.0.0.1:{port}/0"
        else:
            options = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            options += ["--dir", str(folder)]
            url = f"redis://127.0.0.1:{port}/0"
        command = [REDIS_SERVER, *options, "--port", str(port), "--daemonize", "no"]
        stack.enter_context(_running(command, port, "redis-server"))
        yield url


def _cut(text, name, replacement=""):
    """``text`` with the lines from ``# {name}-begin`` to ``# {name}-end`` replaced."""
    start, end = text.index(f"# {name}-begin"), text.index(f"# {name}-end")
    return text[:start] + replacement + text[end + len(f"# {name}-end") :]


def recipe_paths(text, folder):
    """deploy/nginx.conf's ``text`` with its files in ``folder``: the logs, the certificate
    (``folder``/ssl/) and certbot's webroot (``folder``/acme)."""
    text = text.replace("/var/log/nginx/", f"{folder}/")
    text = text.replace("/etc/ssl/attnviz/", f"{folder}/ssl/")
    return text.replace("/var/www/attnviz-acme", f"{folder}/acme")


def main_config(site, folder):
    """An nginx.conf that runs ``site`` (server blocks and what they need) in ``folder``, in the
    foreground, as this user."""
    temp = f"{folder}/temp"
    return f"""
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
worker_rlimit_nofile 16384;
events {{ worker_connections 8192; }}  # a hall of light phones: a few connections each
http {{
  client_body_temp_path {temp}/body;
  proxy_temp_path {temp}/proxy;
  fastcgi_temp_path {temp}/fastcgi;
  uwsgi_temp_path {temp}/uwsgi;
  scgi_temp_path {temp}/scgi;
{site}
}}
"""


def nginx_config(upstreams, port, folder):
    """deploy/nginx.conf's http blocks, for the ``upstreams`` ("host:port") behind ``port``,
    wrapped in a configuration that runs in ``folder`` as this user: plain http on loopback
    (no redirect, no certificate), its logs in ``folder``."""
    recipe = DEPLOY_CONF.read_text()
    servers = "".join(f"    server {u};\n" for u in upstreams)
    recipe = _cut(recipe, "upstream-servers", "# replicas\n" + servers)
    recipe = _cut(_cut(recipe, "http-redirect"), "tls")
    recipe = recipe.replace("listen 443 ssl default_server;", f"listen 127.0.0.1:{port};")
    recipe = recipe.replace("listen [::]:443 ssl default_server;", "")
    return main_config(recipe_paths(recipe, folder), folder)


def nginx_recipe_config(folder, ports=None):
    """deploy/nginx.conf whole, as shipped (port 80's challenge and redirect, https with its
    certificate), its files in ``folder`` (``recipe_paths``); with ``ports`` (http, https) it
    listens there on loopback instead of 80 and 443, and its upstream is a port nobody
    answers on (``nginx -t`` binds no port: the shipped ports are kept for it)."""
    recipe = recipe_paths(DEPLOY_CONF.read_text(), folder)
    if ports is not None:
        http, https = ports
        recipe = _cut(recipe, "upstream-servers", f"    server 127.0.0.1:{free_port()};\n")
        recipe = recipe.replace("listen 80 default_server;", f"listen 127.0.0.1:{http};")
        recipe = recipe.replace("listen 443 ssl default_server;", f"listen 127.0.0.1:{https} ssl;")
        recipe = recipe.replace("listen [::]:80 default_server;", "")
        recipe = recipe.replace("listen [::]:443 ssl default_server;", "")
    return main_config(recipe, folder)


_nginx_folders = {}  # the URL of a running nginx_proxy -> its folder (config, logs, pid)


@contextlib.contextmanager
def nginx_proxy(upstreams, port=None):
    """Start nginx with deploy/nginx.conf in front of ``upstreams`` on ``port`` (or a free
    one); yield its URL; stop it. ``reload_nginx`` and ``nginx_access_log`` take the URL."""
    port = port or free_port()
    with tempfile.TemporaryDirectory(prefix="attnviz-nginx-") as folder:
        Path(folder).chmod(0o755)  # nginx's workers may run as another user (nobody)
        Path(folder, "temp").mkdir(mode=0o777)
        Path(folder, "temp").chmod(0o777)
        conf = Path(folder, "nginx.conf")
        conf.write_text(nginx_config(upstreams, port, folder))
        command = [NGINX, "-c", str(conf), "-p", folder, "-e", f"{folder}/error.log"]
        url = f"http://127.0.0.1:{port}"
        with _running(command, port, "nginx"):
            _nginx_folders[url] = folder
            try:
                yield url
            finally:
                _nginx_folders.pop(url, None)


def reload_nginx(url):
    """What `systemctl reload nginx` does: SIGHUP to the master (new workers; the old ones
    finish their connections, the WebSockets among them, then end)."""
    pid = int(Path(_nginx_folders[url], "nginx.pid").read_text())
    os.kill(pid, signal.SIGHUP)


def nginx_access_log(url):
    """The text of the access log of the nginx_proxy at ``url`` (the recipe's format)."""
    path = Path(_nginx_folders[url], "attnviz.access.log")
    return path.read_text() if path.exists() else ""


# Browsers asked per look in Cluster.wait_routed: with both replicas in nginx's rotation, all of
# them land on the other one with a chance of 2 ** -16
ROUTED_LOOKS = 16


class Cluster:
    """deploy/'s processes on loopback: redis-server with deploy/redis.conf (``redis_url``), two
    replicas of the app on ``ports`` and nginx with deploy/nginx.conf before them (``proxy``),
    each stopped and started again by name, as systemd's Restart=always would (the fault tests).
    The replicas get the Redis and, as the join link's address, nginx's URL."""

    def __init__(self, folder):
        self.folder, self.redis_port = folder, free_port()
        self.ports, self.proxy_port = (free_port(), free_port()), free_port()
        self.proxy = f"http://127.0.0.1:{self.proxy_port}"
        self.redis_url = None
        self.stacks = {}

    @property
    def urls(self):
        """(replica A's URL, replica B's URL, nginx's URL)."""
        return (*(f"http://127.0.0.1:{port}" for port in self.ports), self.proxy)

    def start(self, name, manager):
        self.stacks[name] = contextlib.ExitStack()
        return self.stacks[name].enter_context(manager)

    def stop(self, name):
        self.stacks.pop(name).close()

    def start_redis(self):
        self.redis_url = self.start("redis", redis_server(self.redis_port, True, self.folder))

    def start_replica(self, port):
        env = {"ATTNVIZ_REDIS_URL": self.redis_url, "ATTNVIZ_PUBLIC_URL": self.proxy}
        self.start(port, streamlit_server(port=port, env=env))
        if "nginx" in self.stacks:
            self.wait_routed(port)

    def wait_routed(self, port, timeout=60):
        """Wait until nginx sends browsers to the replica on ``port`` again. After a request to
        it failed, nginx leaves it out for fail_timeout (10 s): a page loaded in that time has
        its session on the other replica, and once this one is back, the same browser's next
        requests (an upload) reach this one, which has no such session."""
        deadline = time.monotonic() + timeout
        while True:
            for _ in range(ROUTED_LOOKS):  # browsers, each with a stickiness cookie of its own
                cookie = {"attnviz_replica": secrets.token_hex(16)}
                answer = requests.get(f"{self.proxy}/_stcore/health", cookies=cookie, timeout=10)
                if answer.headers.get("X-Attnviz-Replica") == f"127.0.0.1:{port}":
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"nginx sent no browser to port {port} within {timeout} s")
            time.sleep(0.2)  # a poll: it ends when nginx routes there

    def close(self):
        for name in list(self.stacks)[::-1]:
            self.stop(name)


@contextlib.contextmanager
def replicas_cluster():
    """A whole ``Cluster``, started; yield it; stop every process it still runs."""
    with tempfile.TemporaryDirectory(prefix="attnviz-cluster-") as folder:
        cluster = Cluster(folder)
        try:
            cluster.start_redis()
            for port in cluster.ports:
                cluster.start_replica(port)
            upstreams = [f"127.0.0.1:{port}" for port in cluster.ports]
            cluster.start("nginx", nginx_proxy(upstreams, cluster.proxy_port))
            yield cluster
        finally:
            cluster.close()
