"""Run a command with its standard input and output passed through and
recorded, byte for byte, for .ci/mcp's protocol check.

Usage: tap.py PREFIX COMMAND [ARGS...]

Every line this process reads goes to the command and is appended to
PREFIX.in; every line the command writes goes out and is appended to
PREFIX.out. A `{pid}` in PREFIX is this process's id (a proxy over HTTP
may start a server more than once). Standard error is the command's own.
Exits with its status.
"""

import os
import subprocess
import sys
import threading

prefix, command = sys.argv[1].replace("{pid}", str(os.getpid())), sys.argv[2:]
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def pump(source, sink, log_path):
    with open(log_path, "wb") as log:
        for line in iter(source.readline, b""):
            log.write(line)
            log.flush()
            try:
                sink.write(line)
                sink.flush()
            except (BrokenPipeError, ValueError):
                break
    try:
        sink.close()
    except (BrokenPipeError, ValueError):
        pass


into = threading.Thread(target=pump, args=(sys.stdin.buffer, child.stdin, prefix + ".in"))
into.daemon = True
into.start()
pump(child.stdout, sys.stdout.buffer, prefix + ".out")
sys.exit(child.wait())
