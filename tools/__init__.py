"""Helpers shared by the tests, the benchmarks and the scripts (never imported by attnviz).

``tools.browser``: a real ``streamlit run`` server and Chromium driven by Playwright.
"""
