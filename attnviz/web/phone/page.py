"""The light phone page and its files: plain HTML, CSS and a small script of ours (static/), and
Plotly.js from the installed ``plotly`` package (no CDN).

    GET /api/phone?room=CODE           the page (the join form without a room)
    GET /api/phone/{name}?v=DIGEST     phone.css, phone.js: kept a year (the digest names them)
    GET /api/phone/plotly.min.js?v=    the installed package's Plotly.js, gzipped once, kept a year

Each file is read (and Plotly.js compressed) once per process; the page names every file by a
digest of its bytes, so a new release is fetched at once and an old one never again.
"""

import functools
import gzip
import hashlib
from pathlib import Path

import plotly
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

STATIC = Path(__file__).parent / "static"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
FILES = {"phone.css": "text/css", "phone.js": "text/javascript"}
YEAR = "public, max-age=31536000, immutable"


@functools.cache
def asset(name):
    """(the bytes of static file ``name``, their digest)."""
    data = (STATIC / name).read_bytes()
    return data, hashlib.blake2b(data, digest_size=6).hexdigest()


@functools.cache
def plotly_js():
    """(Plotly.js as installed, gzipped at level 9, its digest, its size unzipped): once per
    process, about a second of CPU for 4.8 MB."""
    data = PLOTLY_JS.read_bytes()
    digest = hashlib.blake2b(data, digest_size=6).hexdigest()
    return gzip.compress(data, 9, mtime=0), digest, len(data)


@functools.cache
def page_html():
    """The page, with every file named by its digest."""
    html = (STATIC / "phone.html").read_text(encoding="utf-8")
    for name in FILES:
        html = html.replace(f"{{{name}}}", f"/api/phone/{name}?v={asset(name)[1]}")
    return html.replace("{plotly.min.js}", f"/api/phone/plotly.min.js?v={plotly.__version__}")


async def page(_request):
    return HTMLResponse(
        page_html(),
        headers={
            "Cache-Control": "no-cache",
            "Content-Security-Policy": (
                "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
                "frame-ancestors 'none'"
            ),
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
        },
    )


async def static_file(request):
    name = request.path_params["name"]
    if name not in FILES:
        return Response("Not found", status_code=404)
    data, _ = asset(name)
    return Response(data, media_type=FILES[name], headers={"Cache-Control": YEAR})


async def plotly_file(request):
    zipped, _, _ = plotly_js()
    headers = {"Cache-Control": YEAR, "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers["Content-Encoding"] = "gzip"
        return Response(zipped, media_type="text/javascript", headers=headers)
    return Response(PLOTLY_JS.read_bytes(), media_type="text/javascript", headers=headers)


ROUTES = [
    Route("/api/phone", page, methods=["GET"]),
    Route("/api/phone/plotly.min.js", plotly_file, methods=["GET"]),
    Route("/api/phone/{name}", static_file, methods=["GET"]),
]
