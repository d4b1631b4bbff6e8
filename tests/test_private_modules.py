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
