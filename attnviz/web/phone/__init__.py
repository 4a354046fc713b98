"""The phone as a light client of the room (#44): a plain HTML page with a small script of ours
(page.py, static/) and the room's API (api.py), both served by the App's routes. The page shows
what the Streamlit phone shows (attnviz/serve/phone.py makes it, once per room state), at a
fraction of the server's work: a phone is a few HTTP requests, not a Streamlit session.

Where a host serves the script without the App (AppTest, a host that ignores it), none of this
runs: the join link points at the Streamlit page, as before (the lecturer's page says which).
"""

from attnviz.web.phone import api, page

ROUTES = [*page.ROUTES, *api.ROUTES]
