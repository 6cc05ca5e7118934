# expect: forbidden sandbox_violation
# task: Activation/gelu
# Static checks off: opening a socket is refused by the audit hook in the candidate process.
import socket


def gelu(input, approximate="none"):
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    return input
