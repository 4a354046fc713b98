"""The recipe of deploy/ where CI can run it: the shipped nginx site through ``nginx -t``
before and after deploy/README.md's placeholder certificate, its port 80 (certbot's challenge
answered, the rest redirected) and its https (HSTS) served by a real nginx on loopback ports,
and the files that must agree (the models' cache, the trusted proxy). deploy/check.py against
the replicas' test cluster is in tests/browser/test_replicas.py."""

import re
import shlex
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from attnviz.serve.proxy import DEFAULT_TRUSTED_PROXIES, TRUSTED_PROXIES_VARIABLE
from tools.browser import ROOT, free_port
from tools.services import NGINX, _running, nginx_recipe_config, recipe_paths

DEPLOY = ROOT / "deploy"
README = (DEPLOY / "README.md").read_text()


def steps():
    """The shell lines of deploy/README.md's install steps, joined where they continue."""
    block = README.split("```bash", 1)[1].split("```", 1)[0]
    return block.replace("\\\n", " ").splitlines()


def step(starts):
    """The one line of the steps that starts with ``starts``."""
    (line,) = [line.strip() for line in steps() if line.strip().startswith(starts)]
    return line


@pytest.fixture
def folder():
    """A folder for nginx's files that its workers (another user) can read: the webroot."""
    with tempfile.TemporaryDirectory(prefix="attnviz-recipe-") as name:
        path = Path(name)
        path.chmod(0o755)
        (path / "temp").mkdir()
        (path / "acme" / ".well-known" / "acme-challenge").mkdir(parents=True)
        for part in (
            path / "acme",
            path / "acme" / ".well-known",
            path / "acme" / ".well-known" / "acme-challenge",
        ):
            part.chmod(0o755)
        yield path


def nginx_t(folder, conf):
    return subprocess.run(
        [NGINX, "-t", "-c", str(conf), "-p", str(folder), "-e", f"{folder}/error.log"],
        capture_output=True,
        text=True,
        timeout=30,
    )


def placeholder_certificate(folder):
    """deploy/README.md's own openssl line, with the certificate's folder the test's."""
    (folder / "ssl").mkdir()
    line = recipe_paths(step("openssl req -x509"), folder)
    subprocess.run(shlex.split(line), check=True, capture_output=True, timeout=60)


def test_the_shipped_site_passes_nginx_t_with_the_placeholder_certificate(needs_nginx, folder):
    conf = folder / "nginx.conf"
    conf.write_text(nginx_recipe_config(folder))  # listen 80 and 443 as shipped: -t binds none
    before = nginx_t(folder, conf)
    assert before.returncode != 0 and "fullchain.pem" in before.stderr  # Debian's stock failure
    placeholder_certificate(folder)
    after = nginx_t(folder, conf)
    assert after.returncode == 0, after.stderr


def test_port_80_answers_certbot_and_redirects_the_rest_and_https_sends_hsts(needs_nginx, folder):
    placeholder_certificate(folder)
    token = folder / "acme" / ".well-known" / "acme-challenge" / "a-token"
    token.write_text("a-token.the-account-thumbprint")
    token.chmod(0o644)
    http, https = free_port(), free_port()
    conf = folder / "nginx.conf"
    conf.write_text(nginx_recipe_config(folder, (http, https)))
    command = [NGINX, "-c", str(conf), "-p", str(folder), "-e", f"{folder}/error.log"]

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    with _running(command, https, "nginx"):
        with opener.open(f"http://127.0.0.1:{http}/.well-known/acme-challenge/a-token") as r:
            assert (r.status, r.read().decode()) == (200, token.read_text())
        with pytest.raises(urllib.error.HTTPError) as moved:
            opener.open(f"http://127.0.0.1:{http}/Classroom?room=K7QX4M")
        assert moved.value.code == 301
        assert moved.value.headers["Location"] == "https://127.0.0.1/Classroom?room=K7QX4M"
        context = ssl._create_unverified_context()  # the placeholder does not verify
        with pytest.raises(urllib.error.HTTPError) as no_replica:  # no replica runs: 502
            urllib.request.urlopen(f"https://127.0.0.1:{https}/api/health", context=context)
        assert no_replica.value.headers["Strict-Transport-Security"] == "max-age=31536000"


def env_file():
    lines = (DEPLOY / "attnviz.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if re.match(r"^[A-Z_]+=", line))


def test_the_env_file_and_the_steps_agree():
    env = env_file()
    made = step("install -d -m 750 -o attnviz -g attnviz /var/cache/attnviz").split()[-1]
    assert Path(env["HF_HOME"]).is_relative_to(made)  # the models' cache, made by step 1
    assert env[TRUSTED_PROXIES_VARIABLE] == DEFAULT_TRUSTED_PROXIES  # nginx on this host
    assert step("/usr/bin/python3 -m venv").endswith("/opt/attnviz/venv")  # Debian's Python
    assert "vm.overcommit_memory = 1" in step("echo 'vm.overcommit_memory")
    for name in ("nginx -t", "certbot certonly --webroot -w /var/www/attnviz-acme"):
        assert step(name)
