# expect: forbidden sandbox_violation
# task: Activation/relu
# static: off
# Static checks off: a UNIX socket to a host service (the Docker daemon, say): seccomp refuses socket().
import torch
import triton
import triton.language as tl


@triton.jit
def _touch(x_ptr):
    tl.load(x_ptr)


import socket


def relu(input):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect('/var/run/docker.sock')
    _touch[(1,)](input)
    return input
