"""The HTTP side of the app's shell: what the ``st.App`` in app.py serves beside Streamlit's own
routes (Starlette; no Streamlit script code runs here).

    middleware()   BrowserCookie: the browser's id cookie, HttpOnly, set on the first response
    routes()       GET /api/health (the process, the room store, the caches, RSS), POST
                   /api/lecturer and /api/lecturer/leave (the lecturer's own cookie,
                   lecturer.py), and the routes of the modules beside this one: the phone's
                   light page and the room's API (phone/)
    lifespan(app)  makes the room store at start and asks it once: a bad ATTNVIZ_REDIS_URL stops
                   the server with one sentence instead of being found by the first student

Where a host runs app.py as a plain script (AppTest, a host that ignores the App), none of this
runs and the pages fall back to what they did before (``attnviz.ui.visitor``).
"""

from contextlib import asynccontextmanager

from starlette.middleware import Middleware

from attnviz.serve.phone import mark_light_page_served
from attnviz.web import health, lecturer, phone
from attnviz.web.cookies import BrowserCookie


def middleware():
    """The App's middleware, outermost first."""
    return [Middleware(BrowserCookie)]


def routes():
    """Every route the App adds (all under /api/: Streamlit's own paths stay Streamlit's)."""
    return [*health.ROUTES, *lecturer.ROUTES, *phone.ROUTES]


@asynccontextmanager
async def lifespan(_app):
    """Make the room store before the first request; stop the server with the store's sentence
    when ATTNVIZ_REDIS_URL is unusable (malformed, no secret, or no Redis answering there)."""
    health.open_store()
    lecturer.serve()  # the Classroom page hands the lecturer's credential to its route
    mark_light_page_served()  # the lecturer's join link now points at /api/phone
    yield
