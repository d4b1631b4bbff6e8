"""The stand-in models themselves, on the requests the real clients send, recorded from real
runs (tests/clients/recorded): an agent that answers every letter once, wherever it
stands in a request, and does what the person asks, whatever else the request holds."""

import json
import os

import clients
import pytest

with open(os.path.join(os.path.dirname(clients.__file__), "recorded", "requests.json")) as file:
    RECORDED = json.load(file)["requests"]


@pytest.mark.parametrize("request_", RECORDED, ids=[r["shape"] for r in RECORDED])
def test_a_stand_in_decides_as_an_agent_would_on_each_recorded_request(request_):
    news = clients.claude_news if request_["client"] == "claude" else clients.codex_news
    decided = clients.Agent("the answer").decide(news(request_["body"])[0])
    expected = request_["decides"]
    if expected is None:
        assert decided is None  # a result of its own, or a last letter: the turn ends in words
    elif "tool" in expected:
        assert isinstance(decided, clients.ToolCall) and decided.tool == expected["tool"]
        assert decided.arguments.get("text", "the answer") == expected.get("text", "the answer")
    else:
        command, _, rest = decided.partition("\n")
        assert command.endswith(expected["command"]) and rest == "the answer\nPOSTBAG"


def test_a_letter_is_answered_once_though_a_later_request_shows_it_again():
    [letter] = [r for r in RECORDED if r["shape"] == "claude: a letter that names the door's send tool"]
    agent = clients.Agent("the answer")
    texts = clients.claude_news(letter["body"])[0]
    assert isinstance(agent.decide(texts), clients.ToolCall)
    assert agent.decide(texts) is None


def test_the_tiers_skip_reason_names_every_client_and_tool_that_is_missing(monkeypatch):
    from clients import pins

    codex, claude = ("@".join(pins.PINS[peer]) for peer in ("codex", "claude"))
    monkeypatch.setattr(pins, "installed_version", lambda name: None)
    monkeypatch.setattr(pins.shutil, "which", lambda tool: None if tool in ("npm", "nsenter") else f"/bin/{tool}")
    assert pins.missing() == (
        f"npm is not installed; {codex} and {claude} are not installed (python3 tests/clients install, with npm); "
        "there is no network namespace to keep the clients local (it needs Linux, root and nsenter)"
    )
    monkeypatch.setattr(pins, "installed_version", lambda name: dict(pins.PINS.values()).get(name, "0.0.1"))
    monkeypatch.setattr(pins.shutil, "which", lambda tool: f"/bin/{tool}")
    monkeypatch.setattr(pins.os, "geteuid", lambda: 0)
    monkeypatch.setattr(pins.sys, "platform", "linux")
    assert pins.missing() is None
    monkeypatch.setattr(pins, "installed_version", lambda name: pins.PINS["codex"][1] if "codex" in name else None)
    assert pins.missing() == f"{claude} is not installed (python3 tests/clients install, with npm)"
