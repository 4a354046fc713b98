"""Browser tests: `streamlit run` and Chromium, driven by Playwright (marker ``browser``).

Fixtures are in conftest.py, the helpers in tools/browser.py. Every test marked ``browser``,
here or elsewhere, follows plugin.py: skipped with its reason when there is no Chromium, failed
instead under CI.
"""
