"""A network namespace holding only loopback, where every real client runs: nothing a
client tries can leave the machine."""

import ctypes
import os
import subprocess
import sys

CLONE_NEWNET = 0x40000000

_HOLDER = r"""
import ctypes, fcntl, socket, struct, sys
if ctypes.CDLL(None, use_errno=True).unshare(0x40000000):
    sys.exit("unshare failed")
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    fcntl.ioctl(s, 0x8914, struct.pack("16sh14x", b"lo", 1))  # SIOCSIFFLAGS: lo up
print("ready", flush=True)
sys.stdin.read()
"""


class Namespace:
    """A network namespace holding only loopback, kept alive by a small process. Clients
    run inside it through nsenter; a thread of ours enters it before it listens."""

    def __init__(self):
        self._holder = subprocess.Popen(
            [sys.executable, "-c", _HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        if self._holder.stdout.readline().strip() != "ready":
            raise RuntimeError("the network namespace could not be made")
        self.path = f"/proc/{self._holder.pid}/ns/net"

    def inside(self, argv):
        return ["nsenter", f"--net={self.path}", "--", *argv]

    def enter_this_thread(self):
        fd = os.open(self.path, os.O_RDONLY)
        try:
            if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "setns")
        finally:
            os.close(fd)

    def links(self):
        """The network interfaces inside: the proof that only loopback is there."""
        shown = subprocess.run(self.inside(["ip", "-o", "link"]), capture_output=True, text=True, check=True)
        return [line.split(":")[1].strip() for line in shown.stdout.splitlines()]

    def close(self):
        self._holder.stdin.close()
        self._holder.wait()
