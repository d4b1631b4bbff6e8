"""postbag.pyz as people get it: a reproducible build, a polite refusal on old Pythons, and the
same program however it is installed, down to the reply command inside each envelope."""

import binascii
import functools
import glob
import hashlib
import importlib.util
import marshal
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile

import pytest
from fakes import path_with_python3, terminal_environment, tools_path
from helpers import ROOT, line

from postbag import __version__

BUILD = [sys.executable, os.path.join(ROOT, "scripts", "build_pyz.py")]
# Every source of the package, as its path under src/postbag (the rooms': claude/inbox.py).
PACKAGE_SOURCES = sorted(
    os.path.relpath(os.path.join(folder, name), os.path.join(ROOT, "src", "postbag"))
    for folder, _, names in os.walk(os.path.join(ROOT, "src", "postbag"))
    for name in names
    if name.endswith(".py")
)


TAG = sys.implementation.cache_tag


def _module_name(source):
    """The module `source` (a path under src/postbag) is: claude/__init__.py is postbag.claude."""
    return ("postbag." + source[:-3].replace(os.sep, ".")).removesuffix(".__init__")


def _compiled_code(data):
    """The modules in a compiled/TAG entry made by this Python: {name: (is_package, code)},
    whole (its CRC-32 is that of what follows it)."""
    assert data[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(data[4:8], "little") == binascii.crc32(data[8:])
    return marshal.loads(data[8:])


def _compiled_entry(modules):
    """A compiled/TAG entry of this Python's holding `modules`, as the build writes it."""
    payload = marshal.dumps(modules)
    return importlib.util.MAGIC_NUMBER + binascii.crc32(payload).to_bytes(4, "little") + payload


def build(out, **env):
    result = subprocess.run(
        [*BUILD, "--out", str(out)], env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    return out / "postbag.pyz", result.stdout


def test_two_builds_are_byte_identical_and_checksummed(built, tmp_path):
    first, said = built  # the run's own build, made earlier by another process
    second, _ = build(tmp_path / "b")
    data = first.read_bytes()
    assert data == second.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert (first.parent / "SHA256SUMS").read_text() == f"{digest}  postbag.pyz\n"
    assert f"{len(data):,} bytes" in said and digest in said
    checker = shutil.which("sha256sum") or shutil.which("shasum")  # shasum on macOS
    if checker is None:
        pytest.skip("neither sha256sum nor shasum is installed to check SHA256SUMS as README does")
    algorithm = [] if checker.endswith("sha256sum") else ["-a", "256"]
    check = subprocess.run([checker, *algorithm, "-c", "SHA256SUMS"], cwd=first.parent, capture_output=True)
    assert (check.returncode, check.stdout) == (0, b"postbag.pyz: OK\n")


def _said_versions(said):
    line = next(line for line in said.splitlines() if line.startswith("compiled for Python "))
    return line.removeprefix("compiled for Python ").split(", ")


def test_the_archive_holds_the_package_sources_and_their_compiled_code_with_fixed_metadata(tmp_path):
    pyz, said = build(tmp_path, SOURCE_DATE_EPOCH="1767225600")  # 2026-01-01T00:00:00Z
    data = pyz.read_bytes()
    assert data.startswith(b"#!/bin/sh\n")
    assert os.stat(pyz).st_mode & 0o111 == 0o111
    with zipfile.ZipFile(pyz) as archive:
        infos = archive.infolist()
        versions = _said_versions(said)
        assert "{}.{}".format(*sys.version_info[:2]) in versions  # the building Python, at least
        # First each Python's code, where the launcher looks for it, then the sources.
        compiled = [f"compiled/cpython-{v.replace('.', '')}" for v in versions]
        assert [i.filename for i in infos] == compiled + sorted(
            ["__main__.py"] + [f"postbag/{n}" for n in PACKAGE_SOURCES]
        )
        modules = _compiled_code(archive.read(f"compiled/{TAG}"))
        assert sorted(modules) == sorted(_module_name(n) for n in PACKAGE_SOURCES)
        assert [name for name, (is_package, _) in modules.items() if is_package] == [
            _module_name(n) for n in PACKAGE_SOURCES if n.endswith("__init__.py")
        ]
        # The sources deflated, the compiled code and the launcher's own file stored, which no
        # command then inflates.
        stored = {i.filename for i in infos if i.compress_type == zipfile.ZIP_STORED}
        assert stored == {*compiled, "postbag/launch.py"}
        assert {i.compress_type for i in infos} == {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
        for info in infos:
            assert info.date_time == (2026, 1, 1, 0, 0, 0)
            assert (info.create_system, info.external_attr >> 16) == (3, 0o100644)
        source = os.path.join(ROOT, "src", "postbag", "__main__.py")
        with open(source, "rb") as file:
            assert archive.read("__main__.py") == file.read()


def _imported(pyz, args, env):
    """The modules `postbag ARGS` imports, run as the archive's launcher runs it, its exit
    status, and the archives whose whole directory zipimport read on the way (None where
    that could not be told)."""
    with open(pyz, "rb") as file:
        data = file.read()
    launcher = data[: data.index(b"PK\x03\x04")].decode()
    command = launcher.partition("exec python3 ")[2].partition(" -c '")[0].split()
    code = launcher.partition(" -c '")[2].rpartition('\' "$0"')[0]
    directories = "zipimport._zip_directory_cache"  # the archives whose directory it has read
    told = f"import atexit, zipimport\natexit.register(lambda: print('read:', *{directories}, file=sys.stderr))\n"
    run_as_the_launcher = ["python3", "-X", "importtime", *command, "-c", told + code, pyz, *args]
    result = subprocess.run(run_as_the_launcher, env=env, capture_output=True, text=True)
    imported = [line.rpartition("|")[2].strip() for line in result.stderr.splitlines() if "import time:" in line]
    last = result.stderr.splitlines()[-1]
    return imported, result.returncode, last.split()[1:] if last.startswith("read:") else None


@pytest.mark.parametrize("args", [["--version"], ["open", "3"], ["close"], ["setup", "--dry-run"]])
def test_the_quickest_answers_read_only_stored_code_and_load_no_zlib(pyz, bin_dir, args):
    """--version, and a human's verb refused in a session, are answered from code the
    archive stores undeflated: run as a program, they import no zlib."""
    imported, status, directories_read = _imported(pyz, args, clean_env(bin_dir, CLAUDECODE="1"))
    assert "postbag" in imported and "zlib" not in imported, imported
    assert directories_read == [pyz]  # the archive's, once, by zipimport, which reads the launcher's file
    assert status == (0 if args == ["--version"] else 1)
    # A refusal loads the guard, the words, and the vendors' light packages: nothing of a room.
    ours = {name for name in imported if name.startswith("postbag")}
    assert ours <= {f"postbag{name}" for name in REFUSED_LOADS}, sorted(ours)


REFUSED_LOADS = ("", ".launch", ".guards", ".refusal", ".contract", ".escape", ".vendors", ".claude", ".codex")


# What none of an agent's everyday commands loads: each costs more at every start than the
# rest of a read (argparse, re and what it brings, the json package, whole modules where
# postbag takes their C halves, the archive's inflater), and a process of its own.
NEVER_LOADED = (
    "argparse",
    "re",
    "enum",
    "functools",
    "collections",
    "json",
    "socket",
    "threading",
    "shlex",
    "glob",
    "fnmatch",
    "datetime",
    "subprocess",
    "selectors",
    "zlib",
    "typing",
)
# And what of postbag each loads: a read or a join of one agent nothing of the other's room.
ROOM_MODULES = ("postbag.room", "postbag.receipts", "postbag.envelope", "postbag.processes")
# Each command, the session it runs in, and what of postbag it must not load: a read none of
# the rooms, a send or a join of one agent nothing of the other's.
OTHER_VERBS = ("postbag.verbs.send", "postbag.verbs.exchange")  # not join: a read names a join in its words
EVERYDAY = {
    ("read", "10"): (None, ("postbag.claude.", "postbag.codex.", *ROOM_MODULES, *OTHER_VERBS, "postbag.whole_file")),
    ("read", "--json"): (
        None,
        ("postbag.claude.", "postbag.codex.", *ROOM_MODULES, *OTHER_VERBS, "postbag.ledger_position"),
    ),
    ("send", "claude", "Reviewed."): ("codex", ("postbag.codex.",)),
    ("join", "claude"): ("claude", ("postbag.codex.",)),
    ("join", "codex"): ("codex", ("postbag.claude.",)),
}


@pytest.mark.parametrize("args", EVERYDAY, ids=" ".join)
def test_an_agents_everyday_command_loads_only_what_it_uses(pyz, bin_dir, tmp_path, inbox, codex, args):  # noqa: PLR0917
    """Each of an agent's everyday commands, run as the archive runs, loads none of what it
    does not use, beyond the interpreter's own start (docs/performance.md has the figures)."""
    inside, unused = EVERYDAY[args]
    at = "2026-09-08T10:02:11+02:00"
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text(
        line(n=1, at=at, kind="open", limit=12)
        + line(n=2, at=at, kind="join", peer="claude", **inbox.door())
        + line(n=3, at=at, kind="join", peer="codex", thread=codex.thread)
    )
    session = {"claude": inbox.session_env(), "codex": codex.session_env(), None: {}}[inside]
    env = clean_env(bin_dir, POSTBAG_LEDGER=str(ledger), POSTBAG_CODEX=codex.path, **session)
    imported, status, directories_read = _imported(pyz, args, env)
    assert (status, directories_read) == (0, [pyz])
    assert [name for name in imported if name in NEVER_LOADED] == []
    assert [name for name in imported if name.startswith(unused)] == []


def _rewritten(pyz, target, change):
    """A copy of `pyz` at `target`, its launcher kept, with `change(name, data)` applied to
    every entry (None drops it)."""
    with zipfile.ZipFile(pyz) as source, open(target, "wb") as file:
        file.write(pyz.read_bytes()[: source.infolist()[0].header_offset])
        with zipfile.ZipFile(file, "w") as copy:
            for info in source.infolist():
                data = change(info.filename, source.read(info))
                if data is not None:
                    copy.writestr(info, data)
    os.chmod(target, 0o755)
    return target


def test_the_compiled_code_is_what_runs_and_the_sources_stand_behind_it(built, tmp_path, bin_dir):
    pyz, _ = built
    broken = b"raise SystemExit('the source ran')\n"

    def break_sources(name, data):
        return broken if name in ("postbag/cli.py", "__main__.py") else data

    def without(module):
        def break_sources_and_drop(name, data):
            if name != f"compiled/{TAG}":
                return break_sources(name, data)
            modules = _compiled_code(data)
            del modules[module]
            return _compiled_entry(modules)

        return break_sources_and_drop

    def break_sources_and_drop_this_pythons_code(name, data):
        return None if name == f"compiled/{TAG}" else break_sources(name, data)

    env = clean_env(bin_dir, POSTBAG_LEDGER=str(tmp_path / "none.jsonl"))
    no_ledger = (0, f"postbag: there is no ledger at {env['POSTBAG_LEDGER']} yet\n")
    source_ran = (1, "the source ran\n")
    # Run as a program, the launcher starts the compiled entry point; `python3 postbag.pyz`
    # starts the archive's __main__.py, as Python does for every zipapp.
    for change, as_a_program, with_python3 in [
        (break_sources, no_ledger, source_ran),
        (without("postbag.cli"), source_ran, source_ran),
        (without("postbag.__main__"), source_ran, source_ran),
        (break_sources_and_drop_this_pythons_code, source_ran, source_ran),
    ]:
        copy = str(_rewritten(pyz, tmp_path / "copy.pyz", change))
        for way, expected in [([copy], as_a_program), (["python3", copy], with_python3)]:
            result = subprocess.run([*way, "read"], env=env, capture_output=True, text=True)
            assert (result.returncode, result.stderr) == expected, (change, way)


def test_the_launcher_takes_the_archive_as_the_program_and_runs_its_compiled_entry_point_else_the_source(
    built, tmp_path, monkeypatch, capsys
):
    """launch.start, in this process, as the archive's first lines call it (`python3 -c`,
    then the archive and its arguments): the archive is the program, and last on sys.path in
    place of the current directory; the entry point runs from the code compiled for this
    Python, and from the archive's __main__.py where there is none."""
    import types

    from postbag import launch

    pyz, _ = built
    sources_only = _rewritten(pyz, tmp_path / "sources.pyz", lambda name, data: None if "compiled/" in name else data)
    folders = [each for each in sys.path if each]
    # `python3 -c` puts the current directory first (under -P, which 3.11 brought, it does not).
    for archive, path_before in ((str(pyz), ["", *folders]), (str(sources_only), folders)):
        main = types.ModuleType("__main__")
        monkeypatch.setitem(sys.modules, "__main__", main)
        monkeypatch.setattr(sys, "argv", ["-c", archive, "--version"])
        monkeypatch.setattr(sys, "path", list(path_before))
        monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))  # the entry point puts its finder first
        with pytest.raises(SystemExit) as ended:
            launch.start()
        assert (ended.value.code, capsys.readouterr().out) == (0, f"postbag {__version__}\n")
        assert sys.argv == [archive, "--version"] and sys.path == [*folders, archive]
        assert main.__file__ == f"{archive}/__main__.py"
        if archive == str(pyz):
            assert "postbag.__main__" in main.__compiled__
        else:
            assert main.__compiled__ is None  # the source ran, and found no code compiled for this Python


def test_compiled_code_that_fails_its_check_never_runs_and_the_sources_serve(built, tmp_path, bin_dir):
    """What the launcher hands to marshal, which bad bytes can crash, it checks first: a
    compiled entry cut short (its zip checksums made again to match, as an altered archive
    has them), or with a bit flipped anywhere in it, fails that check, and the sources run."""
    pyz, _ = built
    env = clean_env(bin_dir, POSTBAG_LEDGER=str(tmp_path / "none.jsonl"))
    no_ledger = f"postbag: there is no ledger at {env['POSTBAG_LEDGER']} yet\n"

    def cut_short(name, data):
        return data[: len(data) // 2] if name == f"compiled/{TAG}" else data

    altered = str(_rewritten(pyz, tmp_path / "altered.pyz", cut_short))
    for way in ([altered], ["python3", altered]):
        result = subprocess.run([*way, "read"], env=env, capture_output=True, text=True)
        assert (result.returncode, result.stderr) == (0, no_ledger), way

    data = pyz.read_bytes()
    with zipfile.ZipFile(pyz) as archive:
        info = archive.getinfo(f"compiled/{TAG}")
    start = info.header_offset + 30 + len(info.filename)
    flipped = tmp_path / "flipped.pyz"
    for at in range(start, start + info.file_size, info.file_size // 24):  # its magic number, CRC and code alike
        damaged = bytearray(data)
        damaged[at] ^= 1 << (at % 8)
        flipped.write_bytes(bytes(damaged))
        flipped.chmod(0o755)
        result = subprocess.run([str(flipped), "read"], env=env, capture_output=True, text=True, timeout=60)
        assert (result.returncode, result.stderr) == (0, no_ledger), at


def test_a_bit_flipped_anywhere_past_the_first_lines_may_end_in_a_python_error_never_in_a_signal(
    built, tmp_path, bin_dir
):
    """SHA256SUMS and the attestation guard a download; what the launcher guards is marshal.
    A flip in the sources can make them another program, which Python runs or refuses as
    it would any: the process ends by its own exit, never killed by a signal."""
    pyz, _ = built
    data = pyz.read_bytes()
    start = data.index(b"PK\x03\x04")
    env = clean_env(bin_dir, POSTBAG_LEDGER=str(tmp_path / "none.jsonl"))
    copy = tmp_path / "flipped.pyz"
    for step in range(60):  # the same share of the archive's bytes, whatever its length
        at = start + (len(data) - start) * step // 60
        flipped = bytearray(data)
        flipped[at] ^= 1 << (step % 8)
        copy.write_bytes(bytes(flipped))
        copy.chmod(0o755)
        result = subprocess.run([str(copy), "read"], env=env, capture_output=True, text=True, timeout=60)
        assert result.returncode >= 0, (at, result)


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="ps's command line is read from /proc (Linux)")
def test_ps_shows_a_short_command_line(pyz, bin_dir, tmp_path):
    """What `ps` shows of a running postbag (here its MCP server, which waits for a client):
    the interpreter, its flags, a program of a few lines and the archive, under 300 bytes."""
    env = clean_env(bin_dir, POSTBAG_LEDGER=str(tmp_path / "ledger.jsonl"))
    server = subprocess.Popen([pyz, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        server.stdin.write(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
        server.stdin.flush()
        assert server.stdout.readline()  # it runs: what it answers is test_mcp.py's
        with open(f"/proc/{server.pid}/cmdline", "rb") as file:
            shown = file.read().replace(b"\0", b" ")
    finally:
        server.stdin.close()
        server.wait(30)
    assert shown.startswith(b"python3 -E -s -S -c ") and f" {pyz} mcp ".encode() in shown, shown
    assert len(shown) < 300 + len(pyz), len(shown)


def test_a_module_spec_is_made_by_importlib_where_the_import_systems_module_cannot_make_it():
    """The entry point makes each module's spec with the import system's own class, and with
    importlib.machinery's where that module is gone, holds no such class, or holds one that
    takes other arguments, as a new Python could bring."""
    import types
    from importlib.machinery import ModuleSpec

    from postbag import __main__ as entry

    class Changed:
        def __init__(self, name):  # takes no origin, nor is_package
            self.name = name

    for modules in (
        {},
        {"_frozen_importlib": object()},
        {"_frozen_importlib": types.SimpleNamespace(ModuleSpec=Changed)},
    ):
        spec = entry.module_spec("postbag.cli", None, "/a/postbag/cli.py", False, modules)
        assert isinstance(spec, ModuleSpec) and (spec.name, spec.origin) == ("postbag.cli", "/a/postbag/cli.py")
    made = entry.module_spec("postbag", None, "/a/postbag/__init__.py", True)
    assert isinstance(made, ModuleSpec) and made.submodule_search_locations == []


def test_the_magic_number_comes_from_importlib_where_the_import_systems_module_does_not_hold_it():
    """launch.magic_number reads the import system's own module, and falls back to the public
    importlib.util wherever that module is gone, or holds no such number (a future Python)."""
    from postbag import launch

    assert launch.magic_number() == importlib.util.MAGIC_NUMBER
    assert launch.magic_number({}) == importlib.util.MAGIC_NUMBER
    assert launch.magic_number({"_frozen_importlib_external": object()}) == importlib.util.MAGIC_NUMBER


def test_the_launcher_keeps_python_variables_and_the_current_directory_out(pyz, bin_dir, tmp_path):
    """An agent's shell may set PYTHONPATH or sit in a repository with a json.py: neither
    changes what the installed program runs."""
    decoy = tmp_path / "repository"
    (decoy / "postbag").mkdir(parents=True)
    for module in ("json.py", "argparse.py", "postbag/__init__.py", "postbag/cli.py"):
        (decoy / module).write_text("raise SystemExit('the decoy ran')\n")
    ledger = tmp_path / "ledger.jsonl"
    env = clean_env(bin_dir, POSTBAG_LEDGER=str(ledger), PYTHONPATH=str(decoy))
    for args in (["--version"], ["open", "--limit", "2"], ["read"]):
        result = subprocess.run([pyz, *args], env=env, cwd=decoy, capture_output=True, text=True)
        assert (result.returncode, "decoy" in result.stderr) == (0, False), (args, result.stderr)
    assert b'"kind": "open", "limit": 2' in ledger.read_bytes()


def test_without_python3_on_path_the_launcher_says_so(pyz, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = subprocess.run(["/bin/sh", "-c", f"PATH={empty}; exec {shlex.quote(pyz)} --version"], capture_output=True)
    assert (result.returncode, result.stdout) == (127, b"")
    assert result.stderr == b"postbag needs Python 3.10 or later: there is no python3 on PATH\n"


def test_timestamps_before_1980_are_clamped(tmp_path):
    # On the suite's PATH the build finds no Python but the running one to compile for:
    # what it stamps each entry with is the same whichever it finds.
    pyz, _ = build(tmp_path, SOURCE_DATE_EPOCH="0", PATH=tools_path())
    with zipfile.ZipFile(pyz) as archive:
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


@functools.cache  # asked by two parametrizations, each time the suite is collected
def old_pythons():
    """Interpreters older than 3.10 on this machine (pyenv's, or on PATH)."""
    found = glob.glob(os.path.expanduser("~/.pyenv/versions/*/bin/python"))
    root = os.environ.get("PYENV_ROOT")
    if root:
        found += glob.glob(os.path.join(root, "versions", "*", "bin", "python"))
    for name in ("python2.7", "python3.6", "python3.7", "python3.8", "python3.9"):
        path = shutil.which(name)
        if path:
            found.append(path)
    olds = {}
    for path in dict.fromkeys(found):  # each once, PYENV_ROOT being ~/.pyenv as often as not
        # Without `site`, which the version needs nothing of, and which costs some Pythons a tenth of a second.
        asked = "import sys; print('%d.%d' % sys.version_info[:2])"
        probe = subprocess.run([path, "-S", "-c", asked], capture_output=True)
        version = probe.stdout.decode().strip()
        if probe.returncode == 0 and tuple(map(int, version.split("."))) < (3, 10):
            olds[version] = path
    return sorted(olds.items())


@pytest.mark.parametrize(("version", "python"), old_pythons() or [pytest.param("none", "", marks=pytest.mark.skip)])
def test_an_old_python_is_refused_politely(pyz, version, python, tmp_path):
    path = path_with_python3(str(tmp_path / "old-bin"), python)
    env = terminal_environment(without=("PYTHON", "COVERAGE_"), PATH=path)
    # `python3.9 postbag.pyz`, and the program found on PATH whose python3 is a 3.9, or a 2.7
    ways = [[python, pyz], [pyz]]
    for way in ways:
        result = subprocess.run([*way, "--version"], env=env, capture_output=True, text=True)
        assert (result.returncode, result.stdout) == (1, ""), way
        assert result.stderr == f"postbag needs Python 3.10 or later (this is {version})\n", way


@pytest.mark.parametrize(
    ("version", "python"),
    [(v, p) for v, p in old_pythons() if v.startswith("3.")] or [pytest.param("none", "", marks=pytest.mark.skip)],
)
def test_the_demo_on_an_old_python_is_refused_politely(version, python):
    """Python 3 before 3.10 parses the demo far enough to be told, as postbag tells it."""
    result = subprocess.run([python, os.path.join(ROOT, "scripts", "demo.py")], capture_output=True, text=True)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"the demo needs Python 3.10 or later, as postbag does (this is {version})\n"


@pytest.fixture
def bin_dir(tmp_path):
    """A bin directory first on PATH, whose python3 is the interpreter under test."""
    directory = tmp_path / "bin"
    path_with_python3(str(directory))
    return directory


def clean_env(bin_dir, **extra):
    path = f"{bin_dir}{os.pathsep}{tools_path()}"
    return terminal_environment(without=("PYTHON", "COVERAGE_"), PATH=path, **extra)  # the zipapp runs on its own


def test_every_way_of_running_it_is_the_same_program(pyz, bin_dir, tmp_path):
    copied, linked = tmp_path / "copied" / "postbag", bin_dir / "postbag"
    copied.parent.mkdir()
    shutil.copy2(pyz, copied)
    os.symlink(pyz, linked)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ways = [[pyz], ["python3", "-I", pyz], [str(copied)], ["postbag"], [str(linked)]]
    env = clean_env(bin_dir, POSTBAG_LEDGER=str(tmp_path / "ledger.jsonl"))
    for way in ways:
        result = subprocess.run([*way, "--version"], env=env, cwd=elsewhere, capture_output=True, text=True)
        assert (result.returncode, result.stdout, result.stderr) == (0, f"postbag {__version__}\n", ""), way
        opened = subprocess.run([*way, "open", "--limit", "2"], env=env, cwd=elsewhere, capture_output=True, text=True)
        assert opened.stdout == "exchange open: 2 letters\n", (way, opened.stderr)


def reply_line(runner, bin_dir, tmp_path, codex, ledger):
    """The reply command line of the envelope codex gets when `runner` sends."""
    env = clean_env(bin_dir, POSTBAG_LEDGER=ledger, POSTBAG_CODEX=codex.path)
    subprocess.run([*runner, "join", "codex"], env={**env, "CODEX_SESSION_ID": codex.thread}, check=True)
    subprocess.run([*runner, "open"], env=env, check=True, capture_output=True)
    claude = {**env, "CLAUDE_CODE_MESSAGING_SOCKET": "/nonexistent", "CLAUDE_CODE_MESSAGING_TOKEN": "t"}
    subprocess.run([*runner, "send", "codex", "hi"], env=claude, check=True, capture_output=True)
    return codex.envelopes()[-1].splitlines()[1]


def test_the_reply_says_postbag_when_path_finds_this_program(pyz, bin_dir, tmp_path, codex):
    os.symlink(pyz, bin_dir / "postbag")
    ledger = str(tmp_path / "ledger.jsonl")
    line = reply_line(["postbag"], bin_dir, tmp_path, codex, ledger)
    assert line == f"POSTBAG_LEDGER={ledger} postbag send claude - <<'POSTBAG'"


def test_the_reply_names_the_programs_path_when_path_finds_another(pyz, bin_dir, tmp_path, codex):
    impostor = bin_dir / "postbag"
    impostor.write_text("#!/bin/sh\necho not this one\n")
    impostor.chmod(0o755)
    odd = tmp_path / "Agent's Tools"
    odd.mkdir()
    installed = odd / "postbag.pyz"
    shutil.copy2(pyz, installed)
    ledger = str(tmp_path / "ledger.jsonl")
    line = reply_line([str(installed)], bin_dir, tmp_path, codex, ledger)
    assert line == f"POSTBAG_LEDGER={ledger} '{tmp_path}/Agent'\"'\"'s Tools/postbag.pyz' send claude - <<'POSTBAG'"
    answered = subprocess.run(
        ["/bin/sh", "-c", line.replace("send claude - <<'POSTBAG'", "--version")],
        env=clean_env(bin_dir),
        capture_output=True,
        text=True,
    )
    assert answered.stdout == f"postbag {__version__}\n"


def test_a_pyz_without_its_executable_bit_is_named_with_its_interpreter(pyz, bin_dir, tmp_path, codex):
    plain = tmp_path / "postbag.pyz"
    shutil.copyfile(pyz, plain)
    plain.chmod(0o644)
    ledger = str(tmp_path / "ledger.jsonl")
    line = reply_line([sys.executable, str(plain)], bin_dir, tmp_path, codex, ledger)
    assert line == f"POSTBAG_LEDGER={ledger} {sys.executable} {plain} send claude - <<'POSTBAG'"


@pytest.fixture(scope="session")
def pip():
    """pip, as a person has it, in a virtual environment of this Python's own made once
    into .cache/ (pip's bundled copy, which venv installs, takes seconds to set up)."""
    import fcntl

    cache = os.path.join(ROOT, ".cache")
    venv = os.path.join(cache, f"pip-{TAG}")
    os.makedirs(cache, exist_ok=True)
    with open(f"{venv}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist's workers, and runs side by side, share one
        if not os.path.exists(os.path.join(venv, "made")):
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            open(os.path.join(venv, "made"), "w").close()
    return [os.path.join(venv, "bin", "python"), "-m", "pip"]


@pytest.mark.skipif(shutil.which("hatchling") is None, reason="building the wheel needs hatchling")
def test_the_wheel_installs_a_console_script_that_is_the_same_program(tmp_path, codex, pip):
    subprocess.run(["hatchling", "build", "-t", "wheel", "-d", str(tmp_path / "dist")], cwd=ROOT, check=True)
    [wheel] = glob.glob(str(tmp_path / "dist" / "postbag-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        assert {n.split("/")[0] for n in archive.namelist()} == {"postbag", f"postbag-{__version__}.dist-info"}
    venv = tmp_path / "venv"
    # A virtual environment as venv makes one, which pip then installs the wheel into.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    install = ["--python", str(venv / "bin" / "python"), "install", "-q", "--no-index", "--no-deps", wheel]
    subprocess.run([*pip, *install], check=True)
    env = clean_env(venv / "bin", POSTBAG_LEDGER=str(tmp_path / "ledger.jsonl"))
    for way in (["postbag"], [str(venv / "bin" / "python"), "-m", "postbag"]):
        result = subprocess.run([*way, "--version"], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert result.stdout == f"postbag {__version__}\n"
    ledger = str(tmp_path / "ledger.jsonl")
    line = reply_line(["postbag"], venv / "bin", tmp_path, codex, ledger)
    assert line == f"POSTBAG_LEDGER={ledger} postbag send claude - <<'POSTBAG'"


def test_the_archives_finder_loads_compiled_modules_and_declines_the_rest(built, tmp_path, monkeypatch):
    """The finder the zipapp's entry point installs, met in-process (coverage does not follow
    the zipapp's own runs)."""
    import zipimport

    from postbag import __main__ as entry
    from postbag import launch

    pyz, _ = built
    compiled = launch.compiled_code(zipimport.zipimporter(str(pyz)))
    finder = entry._CompiledCode(str(pyz), compiled)
    spec = finder.find_spec("postbag.words")
    assert spec.origin == f"{pyz}/postbag/words.py"
    module = importlib.util.module_from_spec(spec)
    finder.exec_module(module)
    assert module.one_line("a\nb") == "a\\x0ab"
    assert finder.find_spec("postbag").submodule_search_locations == [f"{pyz}/postbag"]
    room = finder.find_spec("postbag.codex")  # a room is a package, its door a module of it
    assert room.origin == f"{pyz}/postbag/codex/__init__.py"
    assert room.submodule_search_locations == [f"{pyz}/postbag/codex"]
    assert finder.find_spec("postbag.codex.queue").origin == f"{pyz}/postbag/codex/queue.py"
    assert finder.find_spec("postbag.codex.queue").submodule_search_locations is None
    absent = ("json", "postbag.absent", "postbag.a.b", "postbag.codex.absent")
    assert [finder.find_spec(name) for name in absent] == [None] * len(absent)

    # Code compiled by another Python, or none, is left to the sources.
    other = _rewritten(pyz, tmp_path / "other.pyz", lambda name, data: b"\0\0\0\0" + data[4:])
    assert launch.compiled_code(zipimport.zipimporter(str(other))) is None
    none = _rewritten(pyz, tmp_path / "none.pyz", lambda name, data: None if name.startswith("compiled/") else data)
    assert launch.compiled_code(zipimport.zipimporter(str(none))) is None

    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    entry._load_compiled_code()  # not inside an archive: nothing changes
    assert not any(isinstance(f, entry._CompiledCode) for f in sys.meta_path)
    monkeypatch.setitem(vars(entry), "__compiled__", compiled)
    entry._load_compiled_code()
    entry._load_compiled_code()
    assert sum(isinstance(f, entry._CompiledCode) for f in sys.meta_path) == 1


def test_the_docs_show_the_whole_launcher(pyz):
    with open(os.path.join(ROOT, "docs", "ledger.md")) as file:
        [shown] = re.findall(r"`head -n (\d+) postbag\.pyz`", file.read())
    with open(pyz, "rb") as file, zipfile.ZipFile(pyz) as archive:
        launcher = file.read(archive.infolist()[0].header_offset)
    assert launcher.count(b"\n") == int(shown)


@pytest.mark.skipif(shutil.which("hatchling") is None, reason="building the sdist needs hatchling")
def test_the_sdist_runs_its_own_tests(tmp_path):
    """What the sdist holds is enough to run its tests: pytest finds every option the
    suite's conftest uses, from the unpacked directory alone."""
    import tarfile

    subprocess.run(["hatchling", "build", "-t", "sdist", "-d", str(tmp_path / "dist")], cwd=ROOT, check=True)
    [sdist] = glob.glob(str(tmp_path / "dist" / "postbag-*.tar.gz"))
    with tarfile.open(sdist) as archive:
        unpack(archive, tmp_path / "unpacked")
    [unpacked] = glob.glob(str(tmp_path / "unpacked" / "postbag-*"))
    env = terminal_environment(without=("PYTHON", "COVERAGE_"))
    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--target", "src", "tests/test_envelope.py"]
    result = subprocess.run(run, cwd=unpacked, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert re.search(r"\b\d+ passed\b", result.stdout), result.stdout


def unpack(archive, folder):
    """The folders and files of the tar `archive` written under `folder`, by hand: tarfile's
    own extraction filter came in 3.10.12 and 3.11.4, and Debian 12's 3.11.2 lacks it."""
    for member in archive.getmembers():
        path = os.path.join(folder, member.name)
        assert os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep), member.name  # none leaves it
        if member.isdir():
            os.makedirs(path, exist_ok=True)
        elif member.isfile():
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as file:
                file.write(archive.extractfile(member).read())


def test_an_sdist_unpacks_on_a_python_whose_tarfile_has_no_filter(tmp_path, monkeypatch):
    """As on Debian 12's 3.11.2: its tarfile knows no data_filter, nor extractall's filter."""
    import io
    import tarfile

    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        for name, text in (("postbag-1/tests/test_x.py", b"def test_x(): pass\n"), ("postbag-1/README.md", b"hi")):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    data.seek(0)
    monkeypatch.delattr(tarfile, "data_filter", raising=False)
    with tarfile.open(fileobj=data) as archive:
        unpack(archive, tmp_path)
    assert (tmp_path / "postbag-1" / "tests" / "test_x.py").read_bytes() == b"def test_x(): pass\n"


def test_the_demo_and_the_benchmark_rebuild_after_the_build_script_changes(tmp_path):
    """ensure_built, which both run first, takes a newer build script (a new launcher, say)
    as a reason to build again, as it does a newer source."""
    tree = tmp_path / "tree"
    shutil.copytree(os.path.join(ROOT, "src"), tree / "src")
    shutil.copytree(os.path.join(ROOT, "scripts"), tree / "scripts")
    ensure = [sys.executable, "-c", "import build_pyz; print(build_pyz.ensure_built()[1])"]
    env = terminal_environment(without=("PYTHON", "COVERAGE_"), PYTHONPATH=str(tree / "scripts"))

    def built_now():
        result = subprocess.run(ensure, cwd=tree, env=env, capture_output=True, text=True, check=True)
        return result.stdout.strip() == "True"

    assert built_now() and not built_now()
    pyz = tree / "dist" / "postbag.pyz"
    later = os.path.getmtime(pyz) + 10
    os.utime(tree / "scripts" / "build_pyz.py", (later, later))
    assert built_now()


def test_every_list_of_the_supported_pythons_names_the_same_ones():
    """The build compiles for, the matrices test on, and the package declares, one list."""
    import ast

    with open(os.path.join(ROOT, "scripts", "build_pyz.py")) as file:
        tree = ast.parse(file.read())
    [versions] = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "VERSIONS"
    ]

    def text(*path):
        with open(os.path.join(ROOT, *path)) as file:
            return file.read()

    hatch = re.search(r"^python = \[(.*)\]$", text("hatch.toml"), re.M).group(1)
    assert tuple(re.findall(r'"(3\.\d+)"', hatch)) == versions
    classifiers = re.findall(r"Programming Language :: Python :: (3\.\d+)", text("pyproject.toml"))
    assert tuple(classifiers) == versions
    ci = text(".github", "workflows", "ci.yml")
    assert tuple(re.findall(r'"(3\.\d+)"', re.search(r"python: \[(.*)\]", ci).group(1))) == versions
    # The jobs that build the archive set up every version, so that it carries code compiled by each.
    for workflow in (ci, text(".github", "workflows", "release.yml")):
        listed = re.search(r"python-version: \|\n((?:\s+3\.\d+\n)+)", workflow).group(1).split()
        assert sorted(listed) == sorted(versions)
