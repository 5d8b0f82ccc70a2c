"""A clone stands on its own: no file points outside the repository, and every cited source is in it (issue 9).

It carries only files the project wrote (issue 18): no copy of a fetched data file.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "docs" / "sources.md"

# What a file must not mention: the folder that sat beside the repository on the build machine, that machine's
# absolute paths, and the reference table that lived there (now docs/sources.md).
FORBIDDEN = ("../shared", "/work/", "FIGURES.md")
# Files that name the forbidden strings to explain this rule.
EXPLAINS_THE_RULE = {"tests/test_self_contained.py"}
# Files that say where the optional real data files are (tests marked `data` read them there and are skipped where
# the folder is absent, so a clone still stands on its own): they may name that folder, and nothing else forbidden.
NAMES_THE_SHARED_DATA = {
    "tests/conftest.py": ("../shared",),
    "pyproject.toml": ("../shared",),
    "src/rackcost/cli/validation.py": ("../shared",),  # rackcost validation's default --data
}
# Never part of a clone: the virtual environment, git's own files and caches.
NOT_IN_A_CLONE = {".venv", ".git", "__pycache__", ".pytest_cache", ".ruff_cache", "build", "dist"}
CITATION = re.compile(r"docs/sources\.md §(\d+)(?:-(\d+))?")
# What a reader of the docs, the code or the dashboard cannot follow: the design notes that lived beside the
# repository and the numbers of the tracker's issues. Those files cite the project's own docs or an original source.
CITES_OUTSIDE = re.compile(r"DESIGN\.md|\bissues?[ -]#?\d", re.IGNORECASE)
READ_BY_USERS = ("docs/", "src/", "app/", "README.md", "CHANGELOG.md")


def _tracked_files(root: Path) -> list[str]:
    """Relative paths (with ``/``) of the files of the repository at ``root``.

    The files git tracks or would add when git and a clone are there, else every file outside the caches.
    """
    if shutil.which("git") and (root / ".git").exists():
        command = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
        listed = subprocess.run(command, cwd=root, capture_output=True, check=True).stdout
        return [p for p in listed.decode("utf-8").split("\0") if p and (root / p).is_file()]
    return [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and not NOT_IN_A_CLONE.intersection(p.relative_to(root).parts)
        and not any(part.endswith(".egg-info") for part in p.relative_to(root).parts)
    ]


def _mentions(root: Path, files: list[str]) -> list[tuple[str, str]]:
    """``(file, forbidden string)`` for every file outside EXPLAINS_THE_RULE that mentions one."""
    found = []
    for name in files:
        if name in EXPLAINS_THE_RULE:
            continue
        data = (root / name).read_bytes()
        allowed = NAMES_THE_SHARED_DATA.get(name, ())
        found += [(name, s) for s in FORBIDDEN if s not in allowed and s.encode("utf-8") in data]
    return found


def _outside_citations(root: Path, files: list[str]) -> list[str]:
    """``file:line`` of every line of the docs, the source, the dashboard, the README or the changelog that cites
    DESIGN.md or an issue number."""
    found = []
    for name in files:
        if not name.startswith(READ_BY_USERS):
            continue
        try:
            lines = (root / name).read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:  # a screenshot or another binary file: nothing a reader follows
            continue
        found += [f"{name}:{i}" for i, line in enumerate(lines, 1) if CITES_OUTSIDE.search(line)]
    return found


def _sections(text: str) -> set[int]:
    """Numbers of the ``## N. Title`` sections of a markdown document."""
    return {int(n) for n in re.findall(r"^## (\d+)\. ", text, re.M)}


def _cited_sections(text: str) -> set[int]:
    """Section numbers cited as ``docs/sources.md §N`` or ``§N-M`` (a range cites every section in it)."""
    cited = set()
    for first, last in CITATION.findall(text):
        cited |= set(range(int(first), int(last or first) + 1))
    return cited


def test_no_tracked_file_points_outside_the_repository():
    files = _tracked_files(ROOT)
    assert "README.md" in files and "docs/sources.md" in files, "the file list is not the repository's"
    assert _mentions(ROOT, files) == []


def test_the_check_finds_a_mention_and_skips_the_caches(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("run rackcost import inferencex ../shared/data/x.json\n", encoding="utf-8")
    (tmp_path / "b.yaml").write_text("# from /work/shared/reference/FIGURES.md\n", encoding="utf-8")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "c.py").write_text("'../shared'\n", encoding="utf-8")
    (tmp_path / "clean.md").write_text("docs/sources.md §4\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text("'../shared/data' '/work/x'\n", encoding="utf-8")
    files = _tracked_files(tmp_path)  # no .git here: the walk
    assert sorted(files) == ["b.yaml", "clean.md", "docs/a.md", "tests/conftest.py"]
    assert sorted(_mentions(tmp_path, files)) == [
        ("b.yaml", "/work/"),
        ("b.yaml", "FIGURES.md"),
        ("docs/a.md", "../shared"),
        ("tests/conftest.py", "/work/"),  # it may name the shared data folder, not the build machine's paths
    ]


def test_docs_source_and_dashboard_cite_neither_design_notes_nor_issue_numbers():
    files = _tracked_files(ROOT)
    assert "docs/model.md" in files and "src/rackcost/__init__.py" in files, "the file list is not the repository's"
    assert _outside_citations(ROOT, files) == []


def test_the_citation_check_reads_every_form_and_only_the_files_users_read(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("## Step 5 (DESIGN.md step 5)\nfine\nsee Issue 21, item 4\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("the issue-23 scenarios; issues 21 and 23; issue #7\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("# issue 9\n", encoding="utf-8")  # not read by users
    (docs / "b.md").write_text("an issue with 3 systems; tissue 5; the issue was silent\n", encoding="utf-8")
    files = _tracked_files(tmp_path)
    assert sorted(_outside_citations(tmp_path, files)) == ["README.md:1", "docs/a.md:1", "docs/a.md:3"]


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_cited_section_exists_in_docs_sources(path: Path):
    cited = _cited_sections(path.read_text(encoding="utf-8"))
    assert cited, f"{path.name} cites no section of docs/sources.md"
    assert cited <= _sections(SOURCES.read_text(encoding="utf-8")), f"{path.name} cites a missing section"


def test_citations_and_sections_are_read_as_written():
    assert _sections("## 1. Seed\n## 10. Ten\n### 3. sub\ntext ## 4. no\n") == {1, 10}
    assert _cited_sections("docs/sources.md §2 and (docs/sources.md §1-3, V) but not FIGURES.md §9") == {1, 2, 3}


def test_docs_sources_keeps_the_nine_sections_of_the_reference_table():
    assert _sections(SOURCES.read_text(encoding="utf-8")) == set(range(1, 10))


def _sha1(path: Path) -> str:
    return hashlib.sha1(path.read_bytes(), usedforsecurity=False).hexdigest()


def _copies(root: Path, files: list[str], data: Path) -> list[tuple[str, str]]:
    """``(tracked file, data file)`` pairs with equal bytes; the data folders' READMEs are not data."""
    fetched = {}
    for path in sorted(data.rglob("*")):
        if path.is_file() and path.name != "README.md":
            fetched.setdefault(_sha1(path), path.relative_to(data).as_posix())
    return [(name, fetched[h]) for name in files if (h := _sha1(root / name)) in fetched]


@pytest.mark.data
def test_the_repository_carries_no_copy_of_a_fetched_data_file(shared_data: Path):
    files = _tracked_files(ROOT)
    assert "README.md" in files and "tests/data/importers/other_schema.json" in files, "not the repository's files"
    assert _copies(ROOT, files, shared_data) == []


def test_the_copy_check_finds_a_copy_by_content(tmp_path: Path):
    data, repo = tmp_path / "data", tmp_path / "repo"
    (data / "x").mkdir(parents=True)
    (repo / "tests").mkdir(parents=True)
    (data / "x" / "run.json").write_bytes(b'{"conc": 4}')
    (data / "x" / "README.md").write_bytes(b"# notes\n")
    (repo / "tests" / "renamed.json").write_bytes(b'{"conc": 4}')  # a copy under another name
    (repo / "tests" / "edited.json").write_bytes(b'{"conc": 8}')
    (repo / "README.md").write_bytes(b"# notes\n")  # equal to a README of the data: not a data file
    files = _tracked_files(repo)
    assert _copies(repo, files, data) == [("tests/renamed.json", "x/run.json")]
