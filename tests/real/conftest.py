"""The real-client tier's setting: the namespace that holds only loopback, the stand-in
models, the throwaway homes, and a postbag whose codex door is the real codex inside the
namespace. Every test in this folder skips, with the reason, where the pair's clients or
a namespace cannot be had (tests/clients). A journey marked
`since(versions={"codex": "0.166.0"}, needs="waking a thread")` skips on an older pair,
saying so: the oldest pair runs every journey its versions can."""

import os

import clients
import pytest

REASON = clients.missing()


def pytest_collection_modifyitems(items):
    for item in items:
        if os.path.dirname(item.path) != os.path.dirname(__file__):
            continue
        since = item.get_closest_marker("since")
        why = REASON or (since and clients.too_old(**since.kwargs))
        if why:
            item.add_marker(pytest.mark.skip(reason=f"real clients: {why}"))


@pytest.fixture(scope="module")
def namespace():
    space = clients.Namespace()
    assert space.links() == ["lo"]  # nothing but loopback inside: no client can reach out
    yield space
    space.close()


@pytest.fixture
def model(namespace):
    """Claude's stand-in model."""
    stand_in = clients.ClaudeModel(namespace, clients.Agent())
    yield stand_in
    stand_in.close()


@pytest.fixture
def codex_model(namespace):
    stand_in = clients.CodexModel(namespace, clients.Agent("Found it: line 42 drops the error."))
    yield stand_in
    stand_in.close()


@pytest.fixture
def codex_home(tmp_path, namespace):
    return clients.CodexHome(str(tmp_path / "codex-home"), namespace)


@pytest.fixture
def real(postbag, codex_home, tmp_path):
    """The postbag runner with its codex door pointed at the real codex, in the namespace."""
    wrappers = tmp_path / "real-bin"
    wrappers.mkdir()
    postbag.env.update(codex_home.env, POSTBAG_CODEX=codex_home.wrapper(str(wrappers)))
    return postbag


@pytest.fixture
def claude(real, model, namespace, tmp_path):
    sessions = []

    def start(at_start=(), mcp=None, home=None, socket_dir=None, args=(), env=None, screen=False, **settings):  # noqa: PLR0917
        """A Claude session in a home of its own, or in `home`, as a restart starts it (on
        the socket in `socket_dir`, if given), started with `args` and `env` besides; with
        `screen`, in a terminal, as a person runs it."""
        session = (clients.ClaudeScreen if screen else clients.ClaudeSession)(
            home or str(tmp_path / f"claude-home-{len(sessions)}"),
            str(tmp_path / "work"),
            namespace,
            model,
            {**real.env, **(env or {})},
            settings=settings,
            at_start=at_start,
            mcp=mcp,
            socket_dir=socket_dir,
            args=args,
        )
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.remove()


@pytest.fixture
def codex_session(real, codex_home, codex_model, tmp_path):
    """Starts a real Codex session on a thread; `.workdir` is its workspace."""
    sessions = []

    def start(thread, **options):
        session = clients.CodexSession(codex_home, thread, codex_model, real.env, start.workdir, **options)
        sessions.append(session)
        return session

    start.workdir = str(tmp_path / "work")
    yield start
    for session in sessions:
        session.stop()
