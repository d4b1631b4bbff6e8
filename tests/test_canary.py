"""The weekly canary's plan, from what npm says it has published: the tier on each newest
build this machine can run that postbag does not claim, and every build said, by name."""

import clients
from clients import canary

from postbag.claude.room import PROVEN as CLAUDE
from postbag.codex.room import PROVEN as CODEX

OWN = "@anthropic-ai/claude-code-linux-x64"


def plan_for(monkeypatch, found):
    """The canary's plan where npm says `found` ({package: version}) and this machine's build is OWN."""
    monkeypatch.setattr(canary, "published", lambda package: (found.get(package), "2026-12-10"))
    monkeypatch.setattr(canary, "platform_build", lambda: OWN)
    return canary.plan()


def test_a_build_ahead_of_its_wrapper_is_run_and_one_for_another_machine_is_named(monkeypatch):
    found = {
        "@anthropic-ai/claude-code": CLAUDE[1],  # the wrapper, behind
        OWN: "2.1.400",
        "@anthropic-ai/claude-code-darwin-arm64": "2.1.401",
        "@openai/codex": CODEX[1],
    }
    lines, pairs = plan_for(monkeypatch, found)
    assert pairs == [
        (f"claude@2.1.400,codex@{CODEX[1]}", f"Claude Code 2.1.400 ({OWN}, this machine's build) is not claimed")
    ]
    assert f"claimed: Claude Code {CLAUDE[0]} to {CLAUDE[1]}, Codex {CODEX[0]} to {CODEX[1]}" in lines
    assert "not claimed, and not this machine's to run: Claude Code darwin-arm64 2.1.401" in lines
    assert any(line.split() == [OWN, "2.1.400", "2026-12-10"] for line in lines)
    assert clients.pins.pair_of(pairs[0][0]) == {"claude": "2.1.400", "codex": CODEX[1]}  # the tier takes it


def test_a_new_codex_is_run_beside_the_newest_claude_claimed_and_nothing_new_runs_nothing(monkeypatch):
    found = {"@anthropic-ai/claude-code": CLAUDE[1], OWN: CLAUDE[1], "@openai/codex": "0.999.0"}
    _, pairs = plan_for(monkeypatch, found)
    assert pairs == [(f"claude@{CLAUDE[1]},codex@0.999.0", "Codex 0.999.0 is not claimed")]
    lines, pairs = plan_for(monkeypatch, {**found, "@openai/codex": CODEX[1]})
    assert pairs == [] and lines[-1] == "to run: nothing; each newest build this machine can run is claimed"
