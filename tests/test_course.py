"""The table of pages (attnviz.links.course) and the scripts in app_pages/: one script a row, one
row a script, Home first, the course before the lecturer's tools. No Streamlit."""

from attnviz.links.course import COURSE, HOME, LECTURERS, PAGES, classroom_sidebar
from tests.helpers import ROOT


def test_every_row_has_its_script_and_every_script_its_row():
    scripts = sorted(path.name for path in (ROOT / "app_pages").glob("*.py"))
    assert sorted(page.script for page in PAGES) == scripts
    assert len({page.path for page in PAGES}) == len(PAGES)


def test_home_first_then_the_course_then_the_lecturers_tools():
    sections = [page.section for page in PAGES]
    assert sections[0] == HOME and PAGES[0].path == ""
    assert sections == sorted(sections, key=[HOME, COURSE, LECTURERS].index)


def test_a_page_with_an_intro_has_its_heading_and_goal():
    for page in PAGES:
        uses_intro = "with intro(" in (ROOT / "app_pages" / page.script).read_text(encoding="utf-8")
        assert uses_intro == (page.heading is not None and page.goal is not None), page.path


def test_the_classrooms_sidebar_follows_its_link():
    phone_note, phone_uses = classroom_sidebar({"room": ["K7QX4M"]})
    lecturer_note, lecturer_uses = classroom_sidebar({"room": ["K7QX4M"], "key": ["secret"]})
    assert phone_uses == () and "phone" in phone_note
    assert lecturer_uses is None and "lecturer" in lecturer_note
    assert classroom_sidebar({})[1] is None  # no room yet: the lecturer's settings
