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


CITED_PATH = re.compile(r"`((?:\.\./|\./)?[\w./-]+\.(?:md|py|sh|txt|toml|json|csv|pdf|png))`")


def test_the_docs_cite_only_files_of_the_repository():
    """A path in backticks that starts with ../ or names a file in docs/ is a file the reader can
    open (review 5, W4: docs/peer_instruction.md cited ../shared/reviews/peers-4.md, which is
    outside the repository)."""
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for cited in CITED_PATH.findall(page.read_text(encoding="utf-8")):
            if cited.startswith("../"):
                assert (page.parent / cited).resolve().is_relative_to(ROOT), (page.name, cited)
                assert (page.parent / cited).exists(), (page.name, cited)


def test_the_readmes_pages_table_follows_the_menu():
    """The README's table of pages lists them as the app's menu does (review 5, I12)."""
    from attnviz.links.course import PAGES

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("## The pages", 1)[1].split("\n\n", 2)[1]
    named = [
        re.match(r"\| \[?([^\]|(]+?)\]?(?:\(| \|)", row)[1].strip().replace(" ", "_")
        for row in table.splitlines()[2:]
    ]
    assert named == [page.path or "Home" for page in PAGES]
