"""The real Claude Code and Codex CLIs, run offline: pinned and installed from npm
(pins.py), each inside a network namespace that holds only loopback (namespace.py),
driven by stand-in models on loopback (standins.py), in throwaway homes (sessions.py)."""

from clients.namespace import Namespace
from clients.pins import (
    PAIR,
    PINS,
    claude_binary,
    codex_binary,
    install,
    installed_version,
    missing,
    sdk_directory,
    too_old,
)
from clients.sessions import ClaudeScreen, ClaudeSession, CodexHome, CodexSession, Pair
from clients.standins import Agent, ClaudeModel, CodexModel, ToolCall, claude_news, codex_news, reply_to

__all__ = [
    "PAIR",
    "PINS",
    "Agent",
    "ClaudeModel",
    "ClaudeScreen",
    "ClaudeSession",
    "CodexHome",
    "CodexModel",
    "CodexSession",
    "Namespace",
    "Pair",
    "ToolCall",
    "claude_binary",
    "claude_news",
    "codex_binary",
    "codex_news",
    "install",
    "installed_version",
    "missing",
    "reply_to",
    "sdk_directory",
    "too_old",
]
