"""The docs are true: every module, file and public name README.md, NOTES.md, bench/*.md and
docs/ mention exists, and the config table names every config key.

What counts as a mention (in a backticked span or a fenced code block):

* a dotted module or attribute name starting ``asks.`` (``asks.contract``,
  ``asks.core.diagnostics.open_debug_log(path)``): imported and resolved attribute by attribute;
* a path into the tree (``tests/conftest.py``, ``widgets/``, ``.ci/run``,
  ``bench/results/peer-{a,b}.txt``, ``asks/locale/*/LC_MESSAGES/asks.po``), optionally
  ``path::name`` for a test or function in it: the file exists (a glob matches), the name is
  defined in it. Nothing outside the repository is named (``../…``, in a span or a link): a
  clone alone has every file its docs need;
* ``from asks import A, B`` and ``from asks.x import Y``: ``A`` and ``B`` are in
  ``asks.__all__``, ``asks.x`` has ``Y``;
* a public name with attributes (``AsksLayer.running``, ``Refusal.text``), and the objects the
  README's embedding section names (``host.…``, ``layer.…``, ``journal.…``, ``port.…``):
  resolved through the classes, a property or a method standing for what it returns.

A mention that is history on purpose (a file that was moved, in a before/after table) is listed
in :data:`HISTORICAL` with the reason. The README's embedding example runs under a real pty in
tests/test_docs_example.py.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import importlib
import inspect
import io
import re
import textwrap
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

import asks
import asks.contract
from asks.cli.args import build_parser
from asks.cli.hub import mcp_main
from asks.config import (
    _TABLES,  # the schema as data (one source: asks/config.py)
    load_config,
)
from asks.core.events import EventKind
from bench.run import BENCHMARKS

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted(
    {ROOT / "README.md", ROOT / "NOTES.md", *ROOT.glob("bench/*.md"), *ROOT.glob("docs/**/*.md")}
)

HISTORICAL: dict[str, str] = {
    "widgets/panel.py": "decision 0002's context: the one file the panel was before widgets/panel/",
    **dict.fromkeys(
        (
            "asks/store/index.py",
            "asks/store/indexer.py",
            "asks/store/lazy.py",
            "asks/store/snapshot.py",
            "asks/store/stamp.py",
            "tests/test_replay_index.py",
            "tests/test_snapshot.py",
            "tests/test_stamp.py",
        ),
        "decision 0009 and bench/HISTORY.md: the replay index, the projection snapshot and the "
        "stamp, before the resume checkpoint (decision 0027)",
    ),
}
NOT_PATHS: dict[str, str] = {
    "tools/list": "a JSON-RPC method of MCP, not the tools/ folder",
    "tools/call": "a JSON-RPC method of MCP, not the tools/ folder",
}

_FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_DOTTED = re.compile(r"(?<![\w./-])asks(?:\.[A-Za-z_]\w*)+")
_FROM_IMPORT = re.compile(r"^\s*from\s+(asks(?:\.\w+)*)\s+import\s+\(?([\w\s,]+)\)?", re.MULTILINE)
_EXTENSIONS = frozenset({"py", "md", "toml", "txt", "json", "po", "pot", "in", "cfg", "html"})
_TOP = frozenset(p.name for p in ROOT.iterdir())
_PATH = re.compile(r"(?<![\w$~/.{}*-])[\w.*{},-]+(?:/[\w.*{},-]*)+(?:::\w+)?")
_FILE = re.compile(r"^[\w.-]+\.(?:" + "|".join(sorted(_EXTENSIONS)) + r")$")
_NAMED = re.compile(r"^(?:await\s+)?([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*(?:\([^()]*\))?)+)")
_ATTR = re.compile(r"\.([A-Za-z_]\w*)(\([^()]*\))?")


@attrs.frozen
class Mention:
    """One thing a doc names: its text, and where (file:line)."""

    text: str
    where: str


def _spans(path: Path) -> Iterator[tuple[str, int, bool]]:
    """(text, line, in a code block) for every backticked span and every code block line."""
    document = path.read_text(encoding="utf-8")
    outside = document
    for block in _FENCE.finditer(document):
        first = document.count("\n", 0, block.start(2)) + 1
        for offset, line in enumerate(block.group(2).splitlines()):
            yield line, first + offset, True
        blank = re.sub(r"[^\n]", " ", block.group(0))
        outside = outside[: block.start()] + blank + outside[block.end() :]
    for number, line in enumerate(outside.splitlines(), start=1):
        for span in _SPAN.finditer(line):
            yield span.group(2).strip(), number, False


def mentions(pattern: re.Pattern[str], *, blocks: bool = True) -> list[Mention]:
    found = []
    for path in DOCS:
        for text, line, in_block in _spans(path):
            if in_block and not blocks:
                continue
            where = f"{path.relative_to(ROOT)}:{line}"
            found += [Mention(m.group(0), where) for m in pattern.finditer(text)]
    return found


# -- resolving names ----------------------------------------------------------------------------


def _resolve_dotted(name: str) -> object:
    """``asks.a.b.c``: import the longest module prefix, then getattr the rest."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            value = _member(value, attribute)
        return value
    raise AssertionError(f"no module {name}")


def _returned(function: Any) -> object:
    """What a function, method or property getter returns, from its annotation."""
    hints = typing.get_type_hints(function, localns=_public())
    result = hints.get("return")
    origin = typing.get_origin(result)
    if origin in (typing.Union, types.UnionType):  # X | None: the X
        result = next(a for a in typing.get_args(result) if a is not type(None))
    if typing.get_origin(result) is not None and not isinstance(result, type):
        result = typing.get_origin(result)
    return result


class _Unknown:
    """An instance attribute set in a method: present, of a type the check does not follow."""

    def __getattr__(self, name: str) -> _Unknown:
        return self


def _sets_attribute(owner: type, name: str) -> bool:
    """Whether a method of ``owner`` (or a base) assigns ``self.name``."""
    for klass in owner.__mro__:
        if klass.__module__ == "builtins":
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError):
            continue
        for node in ast.walk(tree):
            stored = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
            if stored and node.attr == name and _is_self(node.value):
                return True
    return False


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _member(owner: object, name: str) -> object:
    """``owner.name``; on a class, a property or an attrs field stands for its type."""
    if isinstance(owner, _Unknown):
        return owner
    if isinstance(owner, type):
        static = inspect.getattr_static(owner, name, None)
        if isinstance(static, property):
            return _returned(static.fget)
        fields = attrs.fields_dict(owner) if attrs.has(owner) else {}
        if name in fields:
            return typing.get_type_hints(owner, localns=_public()).get(name, object)
        slots = getattr(owner, "__annotations__", {})
        if static is None and name in slots:
            return typing.get_type_hints(owner, localns=_public())[name]
        if static is None and _sets_attribute(owner, name):
            return _Unknown()
    if not hasattr(owner, name):
        raise AssertionError(f"{getattr(owner, '__name__', owner)!r} has no attribute {name!r}")
    return getattr(owner, name)


def _called(value: object, arguments: str | None) -> object:
    """``value(arguments)`` for a mention: the keyword names must be parameters; a class stays
    the class (an instance of it), a function becomes what it returns."""
    if arguments is None:
        return value
    keywords = re.findall(r"(?<![\w.])([A-Za-z_]\w*)\s*=(?!=)", arguments)
    if keywords and callable(value):
        parameters = inspect.signature(value).parameters
        missing = [k for k in keywords if k not in parameters]
        assert not missing, f"{value!r} takes no {missing}"
    if isinstance(value, type):
        return value
    return _returned(value) if callable(value) else value


Called = list[tuple[object, str | None]]


def resolve_chain(start: object, chain: str, called: Called | None = None) -> object:
    """Follow ``.a.b(x).c`` from ``start``; the functions and properties met go to ``called``
    with the arguments the mention gives them."""
    value = start
    for attribute, arguments in _ATTR.findall(chain):
        member = _member(value, attribute)
        if isinstance(value, type) and called is not None:
            static = inspect.getattr_static(value, attribute, None)
            function = static.fget if isinstance(static, property) else member
            called.append((function, arguments or None))
        value = _called(member, arguments or None)
    return value


_BUILTIN_NAMES = frozenset(dir(builtins)) | {"None"}


def _used_annotations(function: object, arguments: str | None) -> list[object]:
    """The annotations a call as mentioned meets: its return, its parameters without a
    default, and the keywords it names."""
    annotations: dict[str, object] = getattr(function, "__annotations__", {})
    try:
        parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return list(annotations.values())
    named = set(re.findall(r"([A-Za-z_]\w*)\s*=", arguments or ""))
    used = {p.name for p in parameters.values() if p.default is p.empty} | named | {"return"}
    return [annotation for name, annotation in annotations.items() if name in used]


def unexported_annotation_names(function: object, arguments: str | None = None) -> set[str]:
    """Names in the annotations a call of ``function`` meets that an embedder cannot import
    from asks: defined in asks (or an alias of asks' types) and not in ``asks.__all__``;
    names of other libraries (``urwid.MainLoop``, ``Callable``) are fine."""
    function = inspect.unwrap(function)  # type: ignore[arg-type]
    namespace = getattr(function, "__globals__", {})
    found = set()
    for annotation in _used_annotations(function, arguments):
        for name in re.findall(r"(?<![.\w])[A-Za-z_]\w*", str(annotation)):
            if name in asks.__all__ or name in _BUILTIN_NAMES:
                continue
            value = namespace.get(name)
            module = getattr(value, "__module__", None) or ""
            if value is None or module.startswith("asks") or _is_alias_of_asks(value):
                found.add(name)
    return found


def _is_alias_of_asks(value: object) -> bool:
    return isinstance(value, types.UnionType) and any(
        a.__module__.startswith("asks") for a in typing.get_args(value)
    )


def _public() -> dict[str, object]:
    return {name: getattr(asks, name) for name in asks.__all__}


def _objects(where: str = "README.md") -> dict[str, object]:
    """The public classes (of ``asks`` and ``asks.contract``), and in the README the names its
    embedding section gives objects."""
    contract = {name: getattr(asks.contract, name) for name in asks.contract.__all__}
    public = {**contract, **_public()}
    named = {
        name: value
        for name, value in public.items()
        if not callable(value) or isinstance(value, type)
    }
    if not where.startswith("README.md"):
        return named
    return {
        "host": asks.QuestionHost,
        "layer": asks.AsksLayer,
        "journal": asks.Journal,
        "bridge": asks.WebBridge,
        "port": asks.AgentPort,
        **named,
    }


# -- the tests ----------------------------------------------------------------------------------


def test_every_asks_module_and_attribute_mentioned_exists() -> None:
    problems = []
    for mention in mentions(_DOTTED):
        try:
            _resolve_dotted(mention.text)
        except AssertionError as exc:
            problems.append(f"{mention.where}: `{mention.text}`: {exc}")
    assert not problems, "\n".join(problems)


def _path_problem(text: str) -> str | None:
    path, _, name = text.partition("::")
    path = path.rstrip("/") or path
    if path in HISTORICAL or path in NOT_PATHS:
        return None
    patterns = _expand_braces(path)
    matches = [m for p in patterns for m in (ROOT.glob(p) if "*" in p else [ROOT / p])]
    if not matches or not all(m.exists() for m in matches):
        return "no such file or folder"
    if name and not any(_defines(m, name) for m in matches if m.suffix == ".py"):
        return f"{name} is not defined there"
    return None


def _expand_braces(path: str) -> list[str]:
    found = re.search(r"\{([^{}]*)\}", path)
    if found is None:
        return [path]
    head, tail = path[: found.start()], path[found.end() :]
    return [x for part in found.group(1).split(",") for x in _expand_braces(head + part + tail)]


def _defines(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(n, defined) and n.name == name for n in ast.walk(tree))


def looks_like_a_path(text: str) -> bool:
    """A path into the tree: its first part is a top-level name of the repo (or ``..``), or it
    ends in a file extension the tree uses. URLs, absolute paths, ``~``, ``$VAR`` and
    ``<placeholder>`` paths are not."""
    if "://" in text or text.startswith(("/", "~", "$", "<")):
        return False
    first = text.split("/", 1)[0]
    suffix = text.partition("::")[0].rstrip("/").rsplit(".", 1)
    return first in _TOP or (len(suffix) == 2 and suffix[1] in _EXTENSIONS and "/" in text)


def test_every_path_mentioned_exists() -> None:
    problems = []
    for mention in mentions(_PATH, blocks=False):
        text = mention.text.rstrip(".,")
        if not looks_like_a_path(text):
            continue
        problem = _path_problem(text)
        if problem:
            problems.append(f"{mention.where}: `{text}`: {problem}")
    assert not problems, "\n".join(problems)


_UPWARD = re.compile(r"(?<![\w.])(?:\.\./)+[^\s`)\]]*")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_no_doc_points_outside_the_repository() -> None:
    """``../shared/DESIGN.md`` was the design: a plain clone did not have it. A ``../`` path
    in a span (read from the repository's root, as every path there) or a link (read from its
    doc's folder) stays inside the repository."""
    problems = []
    for path in DOCS:
        where = path.relative_to(ROOT)
        for text, line, _ in _spans(path):
            for found in _UPWARD.finditer(text):
                if not (ROOT / found.group(0)).resolve().is_relative_to(ROOT):
                    problems.append(f"{where}:{line}: `{found.group(0)}`")
        for number, line_text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for found in _LINK.finditer(line_text):
                if not (path.parent / found.group(1)).resolve().is_relative_to(ROOT):
                    problems.append(f"{where}:{number}: ({found.group(1)})")
    assert not problems, "\n".join(problems)


def test_every_historical_exception_is_still_mentioned_and_really_gone() -> None:
    texts = {m.text.rstrip(".,") for m in mentions(_PATH, blocks=False)}
    for path, reason in HISTORICAL.items():
        assert path in texts, f"{path} is no longer mentioned: drop it ({reason})"
        assert not (ROOT / path).exists(), f"{path} exists again: drop it from HISTORICAL"


def test_every_name_imported_from_asks_is_public() -> None:
    problems = []
    for mention in mentions(_FROM_IMPORT):
        found = _FROM_IMPORT.match(mention.text)
        assert found is not None
        module, names = found.group(1), [n for n in re.split(r"[\s,]+", found.group(2)) if n]
        for name in names:
            if module == "asks" and name not in asks.__all__:
                problems.append(f"{mention.where}: {name} is not in asks.__all__")
            elif not hasattr(importlib.import_module(module), name):
                problems.append(f"{mention.where}: {module} has no {name}")
    assert not problems, "\n".join(problems)


def named_mentions() -> Iterator[tuple[Mention, object, str]]:
    """(mention, the object it starts from, the attribute chain) for every mention of a
    public object's attributes."""
    for mention in mentions(_NAMED, blocks=False):
        found = _NAMED.match(mention.text)
        assert found is not None
        start = _objects(mention.where).get(found.group(1))
        if start is not None and not _FILE.match(mention.text):
            yield mention, start, found.group(2)


def test_every_public_object_and_attribute_mentioned_exists() -> None:
    problems = []
    for mention, start, chain in named_mentions():
        try:
            resolve_chain(start, chain)
        except AssertionError as exc:
            problems.append(f"{mention.where}: `{mention.text}`: {exc}")
    assert not problems, "\n".join(problems)


def test_what_the_readme_tells_an_embedder_to_call_is_typed_in_public_names() -> None:
    """``ask()`` returned ``ToolReply``, which ``asks`` did not export."""
    problems = []
    for mention, start, chain in named_mentions():
        if not mention.where.startswith("README.md"):
            continue
        called: Called = []
        resolve_chain(start, chain, called)
        for function, arguments in called:
            hidden = unexported_annotation_names(function, arguments)
            if hidden:
                name = getattr(function, "__qualname__", function)
                problems.append(f"{mention.where}: `{mention.text}`: {name} uses {sorted(hidden)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("asks/core/focus.py", True),
        ("asks/core/nothing.py", False),
        ("tests/test_docs.py::test_every_path_mentioned_exists", True),
        ("tests/test_docs.py::no_such_test", False),
        ("asks/locale/*/LC_MESSAGES/asks.po", True),
        ("bench/{run,nothing}.py", False),
        ("widgets/", True),
    ],
)
def test_the_path_check_can_fail(text: str, ok: bool) -> None:
    assert looks_like_a_path(text)
    assert (_path_problem(text) is None) is ok


@pytest.mark.parametrize(
    ("start", "chain", "ok"),
    [
        ("layer", ".status_text()", True),
        ("layer", ".status_txt()", False),
        ("host", ".panel_port.drafts.keep_chat(read, write)", True),
        ("host", ".panel_port.drafts.keep_chats(read, write)", False),
        ("AsksLayer", ".restore_drafts().notice", True),
        ("AsksLayer", ".restore_drafts().notices", False),
        ("DEFAULT_GUIDANCE", ".prompt_snippet", True),
        ("DEFAULT_GUIDANCE", ".snippet", False),
    ],
)
def test_the_name_check_can_fail(start: str, chain: str, ok: bool) -> None:
    try:
        resolve_chain(_objects()[start], chain)
    except AssertionError:
        assert not ok
    else:
        assert ok


@pytest.mark.parametrize(
    ("arguments", "ok"), [("signal_keys=False", True), ("signal=False", False)]
)
def test_the_keyword_check_can_fail(arguments: str, ok: bool) -> None:
    try:
        _called(asks.AsksScreen, arguments)
    except AssertionError:
        assert not ok
    else:
        assert ok


# -- the code's own docstrings and comments ------------------------------------------------------

_SOURCE_PATH = re.compile(
    r"(?<![\w$~/.{}*-])((?:asks|widgets|tests|bench|demos|tools)/[\w./-]+\.(?:py|toml|md|txt))"
)
SOURCES = sorted(
    p
    for folder in ("asks", "widgets", "demos", "bench", "tools", "tests")
    for p in (ROOT / folder).rglob("*.py")
    if not p.is_relative_to(ROOT / "asks" / "widgets")  # the link to widgets/
    and p != Path(__file__)  # its own examples of what is missing
)
_PLACEHOLDER = re.compile(r"/[A-Z]+\.")  # tests/scripts/NAME.toml


def test_every_path_the_code_mentions_exists() -> None:
    """cli.py said ``asks/scripted.py`` for years after the module moved."""
    problems = []
    for source in SOURCES:
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            for found in _SOURCE_PATH.finditer(line):
                if _PLACEHOLDER.search(found.group(1)):
                    continue
                if not (ROOT / found.group(1)).exists():
                    where = f"{source.relative_to(ROOT)}:{number}"
                    problems.append(f"{where}: {found.group(1)}: no such file")
    assert not problems, "\n".join(problems)


# -- the config table -----------------------------------------------------------------------------

_ROW = re.compile(r"^\| `\[(\w+)\] (\w+)` \|", re.MULTILINE)


def _readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : None if end < 0 else end]


def schema_keys() -> set[tuple[str, str]]:
    """Every (table, key) the config file accepts, hooks' event names as ``EVENT``."""
    events = {kind.value for kind in EventKind}
    keys = {(table, key) for table, rules in _TABLES.items() for key in rules}
    return {(t, "EVENT" if t == "hooks" and k in events else k) for t, k in keys}


def test_the_config_table_names_every_key_and_no_other() -> None:
    table = set(_ROW.findall(_readme_section("Configuration")))
    assert table == schema_keys()


def test_the_config_table_lists_every_hook_event() -> None:
    row = next(line for line in _readme_section("Configuration").splitlines() if "EVENT" in line)
    assert set(re.findall(r"`(\w+)`", row.split("|")[3])) >= {k.value for k in EventKind}


def test_the_config_example_reads_without_a_warning(tmp_path: Path) -> None:
    section = _readme_section("Configuration")
    [example] = [b.group(2) for b in _FENCE.finditer(section) if b.group(0).startswith("```toml")]
    path = tmp_path / "config.toml"
    path.write_text(example, encoding="utf-8")
    config, warnings = load_config(path, env={})
    assert warnings == []
    assert config.tools.command_timeout == 120


# -- what help() shows ---------------------------------------------------------------------------


def test_every_public_class_has_its_own_docstring() -> None:
    """``help(AsksLayer)`` once showed ``WidgetWrap``'s docstring; enums showed none."""
    missing = [
        name
        for name, value in _public().items()
        if isinstance(value, type) and not (vars(value).get("__doc__") or "").strip()
    ]
    assert missing == []


def test_the_benchmarks_table_names_every_benchmark_bench_run_runs() -> None:
    table = re.findall(r"^\| `(bench\.\w+)` \|", _readme_section("Benchmarks"), re.MULTILINE)
    assert table == [module.__name__ for module in BENCHMARKS]


def file_map_mentions() -> list[Mention]:
    """Bare file names in a table cell after a folder (`` `asks/cli/`: `args.py`, … ``), as
    paths under that folder; a cell without a folder (a "before" column) names none."""
    found = []
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if not line.startswith("|"):
                continue
            for cell in line.split("|"):
                folder = None
                for span in _SPAN.finditer(cell):
                    text = span.group(2).strip()
                    if text.endswith("/") and looks_like_a_path(text):
                        folder = text
                    elif folder is not None and _FILE.match(text):
                        where = f"{path.relative_to(ROOT)}:{number}"
                        found.append(Mention(folder + text, where))
    return found


def test_every_file_a_file_map_names_exists() -> None:
    mentions_ = file_map_mentions()
    assert len(mentions_) > 20  # the NOTES' file maps are read
    problems = [f"{m.where}: `{m.text}`: no such file" for m in mentions_ if _path_problem(m.text)]
    assert not problems, "\n".join(problems)


# -- the command line ----------------------------------------------------------------------------

_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-p)(?![\w-])")


def _options(parser: argparse.ArgumentParser) -> set[str]:
    found = {option for action in parser._actions for option in action.option_strings}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found |= _options(child)
    return found


def test_the_command_line_block_names_every_flag_of_asks() -> None:
    section = _readme_section("Using the REPL")
    block = section[section.index("Command line:") :]
    [text] = [b.group(2) for b in _FENCE.finditer(block)][:1]
    documented = set(_FLAG.findall(text))
    assert documented >= _options(build_parser()) - {"-h"}


def _mcp_options() -> set[str]:
    """The flags of ``asks mcp config`` and ``asks mcp token``, from their ``--help``."""
    found: set[str] = set()
    for command in ("config", "token"):
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown), pytest.raises(SystemExit):
            mcp_main([command, "--help"])
        found |= set(_FLAG.findall(shown.getvalue()))
    return found


def test_every_flag_an_asks_command_in_the_readme_uses_exists() -> None:
    known = _options(build_parser()) | _mcp_options()
    problems = []
    for mention in mentions(re.compile(r"^\s*(?:\S*/)?asks\s.*$")):
        command = mention.text.split("#")[0]
        problems += [f"{mention.where}: {flag}" for flag in set(_FLAG.findall(command)) - known]
    assert not problems, "\n".join(problems)


def test_every_public_method_and_property_of_a_public_class_has_a_docstring() -> None:
    """What ``help()`` shows an embedder: own members only (urwid's are urwid's)."""
    missing = []
    for name, value in _public().items():
        if not isinstance(value, type):
            continue
        for member_name, member in vars(value).items():
            function = member.fget if isinstance(member, property) else member
            function = getattr(function, "__func__", function)  # classmethod, staticmethod
            if member_name.startswith("_") or isinstance(function, type) or not callable(function):
                continue
            if not (function.__doc__ or "").strip():
                missing.append(f"{name}.{member_name}")
    assert missing == []


_ROLE = re.compile(r":(?:mod|class|func|meth|attr|data|exc|obj):`~?(asks(?:\.\w+)+)`")


def test_every_dotted_name_a_docstring_role_names_resolves() -> None:
    """``:class:`~asks.host.ports.AgentPort``` outlives a move unless something reads it."""
    problems, seen = [], 0
    for source in SOURCES:
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            for found in _ROLE.finditer(line):
                seen += 1
                try:
                    _resolve_dotted(found.group(1))
                except AssertionError as exc:
                    problems.append(f"{source.relative_to(ROOT)}:{number}: {exc}")
    assert seen > 100
    assert not problems, "\n".join(problems)


_LISTED = re.compile(r"`((?:host|layer|journal|port)(?:\.\w+)*)`\s+\(((?:[^()]|\([^()]*\))*)\)")


def test_the_methods_the_readme_lists_for_an_object_exist() -> None:
    """``host.agent_port`` (``ask``, ``withdraw``, …): each listed name is an attribute
    of what the object resolves to."""
    objects, problems, seen = _objects(), [], 0
    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    for found in _LISTED.finditer(text):
        head, _, chain = found.group(1).partition(".")
        owner = resolve_chain(objects[head], "." + chain if chain else "")
        for name in re.findall(r"`\.?([a-z_]\w*)(?:\([^`]*\))?`", found.group(2)):
            seen += 1
            if not hasattr(owner, name):
                problems.append(f"`{found.group(1)}` lists `{name}`, which it does not have")
    assert seen >= 10
    assert not problems, "\n".join(problems)
