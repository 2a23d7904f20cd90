"""Shared fixtures: the datasets beside the checkout, the litnav command for `--json` comparisons."""

import json
import os
import pathlib
import subprocess

import pytest

SHARED = pathlib.Path(os.environ.get("LITNAV_SHARED", pathlib.Path(__file__).resolve().parents[4] / "../shared")).resolve()


@pytest.fixture(scope="session")
def datasets() -> pathlib.Path:
    path = SHARED / "datasets"
    assert (path / "litbench" / "corpus.jsonl").is_file(), f"the shared datasets are missing at {path}"
    return path


@pytest.fixture(scope="session")
def peers() -> pathlib.Path:
    return SHARED / "peers"


@pytest.fixture(scope="session")
def cli():
    """Run the litnav command and parse its JSON output."""
    binary = os.environ.get("LITNAV_BIN")
    assert binary and os.path.isfile(binary), "LITNAV_BIN must name the litnav binary (the Rust test driver sets it)"

    def run(*args: str):
        done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"litnav {' '.join(args)} failed: {done.stderr}"
        return json.loads(done.stdout)

    return run
