"""The private modules of the standard library postbag reads for speed (docs/performance.md
lists each), each with the public module behind it: taken away, or holding less than
postbag uses, the public one serves alike. The accelerator of json is held to it in
test_json_values.py, the import system's magic number in test_pyz.py."""

from helpers import run_on_the_tree as run_without


def test_without_signal_s_c_module_the_signal_module_holds_signals_back():
    probe = """
import signal, sys, types
sys.modules["_signal"] = types.ModuleType("_signal")  # a private module holding nothing postbag uses
from postbag import signals
assert signals._c is signal
with signals.Held():
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
assert signal.SIGTERM in blocked and signal.pthread_sigmask(signal.SIG_BLOCK, []) == set()
with signals.FileSizeAsError():
    assert signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN
print("ok")
"""
    assert run_without(probe) == "ok\n"


def test_without_socket_s_c_module_a_knock_writes_through_the_socket_module(tmp_path):
    probe = f"""
import socket, sys
sys.modules["_socket"] = None  # taken away: importing it fails
from postbag.claude import inbox
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind({str(tmp_path / "in.sock")!r})
listener.listen(1)
made = inbox._stream_socket()
assert isinstance(made, socket.socket)
made.connect({str(tmp_path / "in.sock")!r})
made.sendall(b"letter")
assert listener.accept()[0].recv(6) == b"letter"
print("ok")
"""
    assert run_without(probe) == "ok\n"


SIGNAL_ALIKE = """
import signal, sys, types
from postbag import signals
assert signals._c is signal, signals._c
with signals.Held():
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
assert signal.SIGTERM in blocked and signal.pthread_sigmask(signal.SIG_BLOCK, []) == set()
print("ok")
"""


def test_a_signal_c_module_whose_mask_call_changed_leaves_signal_to_serve():
    changed = """
import _signal, signal, sys, types  # signal first: a Python's own signal.py matches its own C module
fake = types.ModuleType("_signal")
fake.__dict__.update({name: getattr(_signal, name) for name in dir(_signal) if not name.startswith("__")})
fake.pthread_sigmask = lambda how: set()  # a Python whose call takes other arguments
sys.modules["_signal"] = fake
"""
    assert run_without(changed + SIGNAL_ALIKE) == "ok\n"


SOCKET_ALIKE = """
import socket
from postbag.claude import inbox
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind({path!r})
listener.listen(1)
made = inbox._stream_socket()
assert isinstance(made, socket.socket), type(made)
made.connect({path!r})
made.sendall(b"letter")
assert listener.accept()[0].recv(6) == b"letter"
print("ok")
"""


def test_a_socket_c_module_that_lost_a_name_or_whose_call_changed_leaves_socket_to_serve(tmp_path):
    for number, change in enumerate(("del fake.AF_UNIX", "fake.socket = lambda: None")):
        made = f"""
import _socket, socket, sys, types
fake = types.ModuleType("_socket")
fake.__dict__.update({{name: getattr(_socket, name) for name in dir(_socket) if not name.startswith("__")}})
{change}
sys.modules["_socket"] = fake
"""
        assert run_without(made + SOCKET_ALIKE.format(path=str(tmp_path / f"in{number}.sock"))) == "ok\n", change
