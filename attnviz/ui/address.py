"""The app's own address, for links a lecturer hands out: the Classroom's join link and QR
code, the Lecture deck's link.

    app_address(page)  ATTNVIZ_PUBLIC_URL (the address phones and students reach) if set, else
                       the address this browser used (st.context.url without its page, query
                       or trailing slash), e.g. "http://lecture-pc.example.edu:8501".
"""

import os

import streamlit as st

PUBLIC_URL_VARIABLE = "ATTNVIZ_PUBLIC_URL"  # the app's address as others reach it, if not
# the one the lecturer's browser used (e.g. http://localhost:8501 on the lecturer's laptop)
FALLBACK_ADDRESS = "http://localhost:8501"  # no browser address (a test run): Streamlit's own


def app_address(page):
    """The app's base address, without a trailing slash, as seen from ``page`` (its URL path,
    e.g. "Classroom"): ATTNVIZ_PUBLIC_URL, else the browser's address with ``/page`` cut off."""
    public = os.environ.get(PUBLIC_URL_VARIABLE, "").strip()
    if public:
        return public.rstrip("/")
    url = (st.context.url or "").split("?", 1)[0].rstrip("/")
    if url.endswith("/" + page):
        url = url[: -len(page) - 1]
    return url or FALLBACK_ADDRESS
