"""attnviz's shell: ``streamlit run app.py``. Every run of every page runs this script first: the
pages come from one table (``attnviz.links.course``), the frame around them is drawn once here,
and the page's own script (``app_pages/<path>.py``) holds its lesson only."""

import streamlit as st  # noqa: F401  (the st.App below)

if __name__ == "__main__":  # Streamlit runs this file as every session's script
    from attnviz.ui.frame import draw_frame, navigation

    page = navigation()  # st.navigation over the table of pages, its own menu hidden
    draw_frame(page)  # set_page_config, the sidebar, link sync, CSS, warnings, the menu
    page.run()  # the page's script: its lesson
