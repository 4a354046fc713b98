"""The README and docs/: the README stays short, and every file they link to exists."""

import re

from tests.helpers import ROOT

MAX_README_LINES = 180  # for the people who use the app; the rest is in docs/
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")  # [text](target) and ![alt](target)


def targets(path):
    return LINK.findall(path.read_text(encoding="utf-8"))


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines"


def test_every_link_of_the_readme_and_docs_leads_to_a_file():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in targets(page):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name} links to {target}, not there"


def test_the_readme_links_each_doc_once():
    linked = [t for t in targets(ROOT / "README.md") if t.startswith("docs/") and t.endswith(".md")]
    docs = sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
    assert sorted(linked) == docs
