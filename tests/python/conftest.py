# Shared by the tests of the Python module: the CLI of the same build (TILESCOPE_CLI, set by ctest) run
# on the same inputs, from the source tree as the CLI goldens are (tests/cli).
import json
import os
import subprocess

import pytest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("TILESCOPE_CLI", os.path.join(SOURCE, "build", "ci", "bin", "tilescope-cli"))


class CliRun:
    def __init__(self, completed):
        self.rc = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr

    @property
    def json(self):
        return json.loads(self.stdout)

    @property
    def error(self):
        # The CLI's message for bad input (exit 2): "tilescope-cli: <message>\n".
        assert self.rc == 2, f"expected exit 2, got {self.rc}: {self.stderr}"
        prefix = "tilescope-cli: "
        assert self.stderr.startswith(prefix), self.stderr
        return self.stderr[len(prefix):].rstrip("\n")


def run_cli(*args, stdin=None):
    completed = subprocess.run([CLI, *args], cwd=SOURCE, input=stdin, capture_output=True)
    completed.stdout = completed.stdout.decode("utf-8")
    completed.stderr = completed.stderr.decode("utf-8")
    return CliRun(completed)


@pytest.fixture(autouse=True)
def in_source_tree(monkeypatch):
    # Paths as the goldens give them (tests/data/..., resources/models/...), relative to the source.
    monkeypatch.chdir(SOURCE)


def data(*parts):
    return os.path.join("tests", "data", *parts)
