"""What macOS does differently, checked on any system: where codex lives, the shorter
socket path limit, and the full flush that fsync alone does not give."""

import os
import stat
import uuid

import pytest
from fakes import FakeInbox

from postbag import doors, ledger
from postbag.refusal import Refusal


def executable(path):
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(stat.S_IRWXU)
    return str(path)


def test_codex_is_found_in_the_chatgpt_app_before_path(tmp_path, monkeypatch):
    app = executable(tmp_path / "ChatGPT-codex")
    on_path = tmp_path / "bin"
    on_path.mkdir()
    executable(on_path / "codex")
    monkeypatch.setattr(doors, "APP_CODEX", app)
    assert doors.find_codex({"PATH": str(on_path)}) == app
    named = executable(tmp_path / "named-codex")
    assert doors.find_codex({"PATH": str(on_path), "POSTBAG_CODEX": named}) == named
    monkeypatch.setattr(doors, "APP_CODEX", str(tmp_path / "no-such-app"))
    assert doors.find_codex({"PATH": str(on_path)}) == str(on_path / "codex")
    with pytest.raises(Refusal, match=r"^no codex on PATH; set POSTBAG_CODEX$"):
        doors.find_codex({"PATH": str(tmp_path / "empty")})


def test_a_socket_path_past_the_macos_limit_is_reached_from_its_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(doors, "SOCKET_PATH_MAX", 103)  # macOS: sun_path holds 104 bytes
    directory = tmp_path / ("d" * max(1, 105 - len(str(tmp_path)) - len("/inbox.sock") - 1))
    directory.mkdir()
    path = str(directory / "inbox.sock")
    assert 103 < len(path) <= 107  # too long for macOS, still fine for Linux
    inbox = FakeInbox(path, f"tok-{uuid.uuid4().hex}")
    here = os.getcwd()
    try:
        doors.knock("claude", {"socket": path, "token": inbox.token}, "Letter 1 from codex via postbag.", {})
        assert inbox.envelopes(1) == ["Letter 1 from codex via postbag."]
    finally:
        inbox.close()
    assert os.getcwd() == here  # the working directory was only borrowed


def test_appends_use_the_full_flush_where_the_system_has_one(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(ledger.fcntl, "F_FULLFSYNC", 51, raising=False)
    monkeypatch.setattr(ledger.fcntl, "fcntl", lambda fd, command: calls.append(command))
    monkeypatch.setattr(ledger.os, "fsync", lambda fd: calls.append("fsync"))
    with ledger.Ledger(str(tmp_path / "ledger.jsonl"), write=True, create=True) as bag:
        bag.append("open", limit=3)
    assert calls == [51]


def test_a_file_system_without_the_full_flush_falls_back_to_fsync(tmp_path, monkeypatch):
    calls = []

    def refuse(fd, command):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(ledger.fcntl, "F_FULLFSYNC", 51, raising=False)
    monkeypatch.setattr(ledger.fcntl, "fcntl", refuse)
    monkeypatch.setattr(ledger.os, "fsync", lambda fd: calls.append("fsync"))
    with ledger.Ledger(str(tmp_path / "ledger.jsonl"), write=True, create=True) as bag:
        bag.append("open", limit=3)
    assert calls == ["fsync"]
