"""attnviz's shell: ``streamlit run app.py``.

`streamlit run app.py` finds the ``st.App`` below and serves it (uvicorn imports this file as a
module): Streamlit's pages, plus the routes and middleware of ``attnviz.web`` (the browser's
HttpOnly id cookie, /api/health, the room store opened at start). Every session runs this file
as its script (``__name__ == "__main__"``), as AppTest and a host that ignores the App do: the
pages come from one table (``attnviz.links.course``), the frame around them is drawn once here,
and the page's own script (``app_pages/<path>.py``) holds its lesson only.
"""

import streamlit as st

if __name__ != "__main__":  # imported by uvicorn: the App that serves the pages
    from attnviz.web import lifespan, middleware, routes

    app = st.App(__file__, routes=routes(), middleware=middleware(), lifespan=lifespan)
else:  # a session's script run: the shell around the page it shows
    from attnviz.ui.frame import draw_frame, navigation

    page = navigation()  # st.navigation over the table of pages, its own menu hidden
    draw_frame(page)  # set_page_config, the sidebar, link sync, CSS, warnings, the menu
    page.run()  # the page's script: its lesson
