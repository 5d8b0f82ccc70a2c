"""Files in and out, safely: CSV that a spreadsheet cannot execute, writes that leave the old file or the new one and
never a part, outputs that replace an existing file (or an input) only when asked, and reads of regular files
within a size. A leaf: every command, the report, the sweeps and the dashboard write and read through it.

- :func:`csv_text` is the one CSV writer of the project. A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab
  or a carriage return is a formula to Excel, LibreOffice and Google Sheets (CSV injection, OWASP); such a text
  cell, the header included, is written with a ``'`` in front, which a spreadsheet shows as text. Numbers are
  written as numbers (a negative margin stays ``-5.0``). :func:`neutralise_frame` does the same for a DataFrame.
- :func:`check_output` refuses an output that exists (without ``force``), that is one of the command's inputs (even
  with ``force``: it would destroy what the command reads), a folder, or a path in a missing or read-only folder.
- :func:`write_atomically`, :func:`atomic_path` and :func:`write_folder_atomically` write through a temporary file
  (or folder) beside the target, ``fsync`` and ``rename``; on any exception, Ctrl-C included, the temporary is
  removed and the old file is left as it was.
- :func:`read_regular_file` reads only a regular file (never a FIFO, which would block, or a device such as
  ``/dev/zero``, which never ends), with its size checked before reading and the read itself bounded; within
  :func:`confined_reads` (a sweep loading its scenario), only a file that resolves under the given folder.
- :func:`describe_value` says what kind of value a file gave (text, a negative number, NaN, ...) without quoting
  it: a message about a file's content names the line and column and the kind, never the content itself (a file
  read on someone else's say-so, such as a sweep's, must not leak through an error message).
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import secrets
import shutil
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "FORCE_WORDS",
    "FORMULA_PREFIXES",
    "InputFileError",
    "OutputPathError",
    "atomic_path",
    "check_output",
    "confined_reads",
    "csv_text",
    "describe_value",
    "finite_number",
    "neutralise",
    "neutralise_frame",
    "read_regular_file",
    "same_file",
    "writable",
    "write_atomically",
    "write_folder_atomically",
]

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection")."""


FORCE_WORDS = "force=True"
"""How a message tells the caller to replace an existing output: the Python argument (the CLI says ``--force``
instead, :func:`rackcost.cli.common.cli_words`)."""


class OutputPathError(ValueError):
    """An output path that must not be written: it exists (without ``force``), it is an input, a folder, or its
    folder is missing or read-only. The message names the path and what to do."""


class InputFileError(ValueError):
    """A file that must not be read: missing, not a regular file, or over the size limit. The message names it.

    ``too_big_bytes`` is the file's size (at least the limit + 1) when it was refused for its size, else None.
    """

    def __init__(self, message: str, too_big_bytes: int | None = None) -> None:
        super().__init__(message)
        self.too_big_bytes = too_big_bytes


# ---- CSV --------------------------------------------------------------------------------------------------------


def neutralise(value: Any) -> Any:
    """A cell as a spreadsheet may safely read it: a text that begins like a formula gets a ``'`` in front.

    Numbers (and booleans, None) are returned as they are, so a negative number stays a number.

    Examples
    --------
    >>> neutralise("=cmd|' /C calc'!A0"), neutralise("@SUM(1+1)"), neutralise("+ $723.05/h")
    ("'=cmd|' /C calc'!A0", "'@SUM(1+1)", "'+ $723.05/h")
    >>> neutralise("GB300 NVL72"), neutralise(-5.0), neutralise(None)
    ('GB300 NVL72', -5.0, None)
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def _cell(value: Any) -> Any:
    """A record's value as a CSV cell: a float written as Python writes it (``inf``/``nan`` never reach here:
    the tables refuse them), text neutralised."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"a CSV cell is not finite ({value}); this is a bug in rackcost")
    return neutralise(value)


def csv_text(rows: Sequence[Mapping[str, Any]], fieldnames: Iterable[str] | None = None) -> str:
    """CSV text of records, the first record's keys (or ``fieldnames``) as the header; '' for no records.

    Every text cell and every header is passed through :func:`neutralise`.

    Examples
    --------
    >>> print(csv_text([{"system": "=HYPERLINK(1)", "usd": -1.5}]), end="")
    system,usd
    '=HYPERLINK(1),-1.5
    """
    names = list(fieldnames) if fieldnames is not None else (list(rows[0]) if rows else [])
    if not names:
        return ""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # the csv module quotes a field with a newline but not one with a carriage return (it is not in the line
    # terminator): a row with one is written fully quoted, so that a reader cannot split the field
    quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for cells in (
        [neutralise(n) for n in names],
        *([_cell(r.get(n)) if r.get(n) is not None else "" for n in names] for r in rows),
    ):
        carriage = any(isinstance(c, str) and "\r" in c for c in cells)
        (quoted if carriage else writer).writerow(cells)
    return out.getvalue()


def neutralise_frame(frame: Any) -> Any:
    """A pandas DataFrame with its header and every text or categorical cell passed through :func:`neutralise` (a
    copy only where something changes; numeric columns are never touched). Duck-typed, so that this leaf module
    never imports pandas."""
    renamed = {c: neutralise(c) for c in frame.columns if isinstance(c, str) and neutralise(c) != c}
    out = frame.rename(columns=renamed) if renamed else frame
    for name in out.columns:
        column = out[name]
        if str(column.dtype) == "category":
            categories = list(column.cat.categories)
            safe = [neutralise(c) for c in categories]
            if safe != categories:
                out = out.copy() if out is frame else out
                out[name] = column.cat.rename_categories(safe)
        elif column.dtype == object:
            safe_column = column.map(neutralise)
            if not safe_column.equals(column):
                out = out.copy() if out is frame else out
                out[name] = safe_column
    return out


# ---- outputs ----------------------------------------------------------------------------------------------------


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same existing file (a link or another spelling of it included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output(
    path: str | os.PathLike[str], force: bool = False, inputs: Iterable[str | os.PathLike[str] | None] = ()
) -> Path:
    """The output path, refused where writing it would lose or break something.

    Parameters
    ----------
    path
        Where the command will write.
    force
        Replace an existing file.
    inputs
        The files the command reads (its scenario, sweep, trace): never replaced, even with ``force``.

    Raises
    ------
    OutputPathError
        The path is an input, a folder, exists (without ``force``), or its folder is missing or not writable.
    """
    out = Path(path)
    for given in inputs:
        if given is not None and same_file(out, given):
            raise OutputPathError(f"{out}: is the input file {given}; write the output to another path")
    if out.is_dir():
        raise OutputPathError(f"{out}: is a folder, expected a file to write")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise OutputPathError(f"{out}: the folder {folder} does not exist")
    if not writable(folder):
        raise OutputPathError(f"{out}: the folder {folder} is not writable")
    if (out.exists() or out.is_symlink()) and not force:
        raise OutputPathError(f"{out}: exists; use {FORCE_WORDS} to replace it")
    return out


def writable(folder: str | os.PathLike[str]) -> bool:
    """Whether this process may create files in ``folder`` (``os.access``; root may write anywhere)."""
    return os.access(folder, os.W_OK | os.X_OK)


def _temporary(near: Path) -> Path:
    return near.with_name(f".{near.name}.{secrets.token_hex(4)}.partial")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block ends without an exception,
    removed when it raises (Ctrl-C included). The file gets the usual permissions (0666 less the umask).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with atomic_path(folder / "t.csv") as part:
    ...     _ = part.write_text("a\\n")
    >>> sorted(p.name for p in folder.iterdir())
    ['t.csv']
    """
    target = Path(path)
    temporary = _temporary(target)
    try:
        yield temporary
        if temporary.exists():
            with open(temporary, "rb+") as f:
                os.fsync(f.fileno())
            mode = 0o666 & ~_umask()
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text is UTF-8) to ``path`` through :func:`atomic_path`: never a partial file."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as temporary:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()


def write_folder_atomically(folder: str | os.PathLike[str], files: Mapping[str, bytes]) -> None:
    """Write ``files`` (relative paths, all inside ``folder``: only their names are used) into a new folder, then
    swap it in for ``folder`` (an old one is removed after); on any exception the old folder is left as it was."""
    target = Path(folder)
    temporary = _temporary(target)
    old = _temporary(target)
    try:
        temporary.mkdir()
        for relative, data in files.items():
            (temporary / Path(relative).name).write_bytes(data)
        if target.exists():
            target.rename(old)
        temporary.rename(target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        if old.exists() and not target.exists():
            old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)


# ---- inputs -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Confinement:
    """The folder the files read inside a :func:`confined_reads` block must lie under, and the files read."""

    root: Path
    where: str
    hint: str
    read: list[Path] = field(default_factory=list)


_CONFINED: ContextVar[tuple[_Confinement, ...]] = ContextVar("rackcost_confined_reads", default=())


@contextlib.contextmanager
def confined_reads(root: str | os.PathLike[str], where: str, hint: str) -> Iterator[list[Path]]:
    """Within the block, :func:`read_regular_file` reads only files under ``root``, after ``..`` and symlinks are
    resolved; any other is refused before it is looked at (so neither its content nor its existence shows).

    One place for every file a scenario imports (a demand profile's CSV, and whatever file reference comes next):
    a sweep loads its scenario inside this block, so no field of the scenario can read past the sweep's folder.
    Blocks nest; a file must then lie under every block's folder.

    Parameters
    ----------
    root
        The folder the files must lie under.
    where
        What the folder is, for the message (``"the sweep's folder"``).
    hint
        What to do to read such a file anyway, for the message.

    Yields
    ------
    list of Path
        The files read within the block (resolved), filled as they are read: the caller's inputs.

    Examples
    --------
    >>> with confined_reads("/tmp", "the sweep's folder", "allow it") as read:
    ...     read_regular_file("/etc/hostname", 100)
    Traceback (most recent call last):
    ...
    rackcost.files.InputFileError: /etc/hostname: lies outside the sweep's folder /tmp; allow it
    """
    confinement = _Confinement(Path(root).resolve(), where, hint)
    token = _CONFINED.set((*_CONFINED.get(), confinement))
    try:
        yield confinement.read
    finally:
        _CONFINED.reset(token)


def _check_confined(name: str) -> None:
    """Refuse ``name`` when it lies outside the folder of a :func:`confined_reads` block; else note it read."""
    blocks = _CONFINED.get()
    if not blocks:
        return
    real = Path(name).resolve()  # symlinks and .. resolved, as far as the path exists (a relative name: the cwd)
    for block in blocks:
        if not real.is_relative_to(block.root):
            raise InputFileError(f"{name}: lies outside {block.where} {block.root}; {block.hint}")
    for block in blocks:
        block.read.append(real)


def finite_number(cell: str) -> float | None:
    """A file's cell as a finite number, or None (empty, not a number, NaN or infinite).

    Examples
    --------
    >>> [finite_number(c) for c in ("1.5", " 2 ", "", "x", "nan", "inf")]
    [1.5, 2.0, None, None, None, None]
    """
    try:
        value = float(cell)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def describe_value(value: Any) -> str:
    """The kind of a value a file gave, for a message that must not quote the file: never the value itself.

    Examples
    --------
    >>> [describe_value(v) for v in ("", " x1 ", "nan", "-3", "1e999")]
    ['nothing (empty)', 'text, not a number', 'NaN', 'a negative number', 'an infinite number']
    >>> [describe_value(v) for v in ("0", "2.5", True, [1], 4)]
    ['zero', 'a fraction', 'true or false', 'a list', 'a whole number']
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return "nothing (empty)"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return "text, not a number" if isinstance(value, str) else f"a {type(value).__name__}"
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "an infinite number"
    if x < 0:
        return "a negative number"
    if x == 0:
        return "zero"
    return "a whole number" if x.is_integer() else "a fraction"


def read_regular_file(path: str | os.PathLike[str], limit_bytes: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit_bytes``.

    The size is checked before reading, and the read stops one byte past the limit, so a file that grows while it
    is read is refused too. FIFOs, sockets and devices are refused before they are opened (a FIFO would block the
    open, ``/dev/zero`` would never end).

    Raises
    ------
    InputFileError
        Missing, a folder, not a regular file, too big, unreadable, or outside the folder of a
        :func:`confined_reads` block (the message names the file).

    Examples
    --------
    >>> read_regular_file("/dev/zero", 10)
    Traceback (most recent call last):
    ...
    rackcost.files.InputFileError: /dev/zero: is not a regular file (a device, FIFO or socket); expected a file
    """
    name = os.fspath(path)
    if "\x00" in name:  # the OS cannot name such a file; os.stat and Path.resolve raise ValueError, not OSError
        raise InputFileError(f"{name.replace(chr(0), '?')}: is not a file name (it holds a NUL character)")
    _check_confined(name)
    try:
        info = os.stat(name)
    except FileNotFoundError:
        raise InputFileError(f"{name}: no such file") from None
    except OSError as exc:
        raise InputFileError(f"{name}: cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(f"{name}: is a directory, expected a {what}")
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(f"{name}: is not a regular file (a device, FIFO or socket); expected a {what}")
    if info.st_size > limit_bytes:
        raise InputFileError(
            f"{name}: is {info.st_size:,} bytes; a {what} may be at most {limit_bytes:,}", info.st_size
        )
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # replaced between the stat and the open
                raise InputFileError(f"{name}: is not a regular file; expected a {what}")
            # the size the stat gave and one byte more: ``f.read(limit_bytes + 1)`` allocated the whole limit first
            # (a 500 MB buffer to read a 600-byte trace)
            want = min(limit_bytes, info.st_size) + 1
            data = f.read(want)
            if len(data) == want and want <= limit_bytes:  # it grew since the stat: on to one byte past the limit
                data += f.read(limit_bytes + 1 - want)
    except OSError as exc:
        raise InputFileError(f"{name}: cannot be read: {exc.strerror or exc}") from None
    if len(data) > limit_bytes:
        raise InputFileError(
            f"{name}: is over {limit_bytes:,} bytes; a {what} may be at most {limit_bytes:,}", len(data)
        )
    return data
