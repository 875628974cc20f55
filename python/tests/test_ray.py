"""The Ray Data example over a thousand generated transcripts on a local
Ray instance. `.ci/python` runs it in a virtualenv of its own
(python/requirements-ray.txt: installing Ray took 35 s and this test 11 s
on the CI machine); elsewhere it is opt-in (TOOL_CARRIER_RAY=1), as it
starts a Ray cluster."""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import pathlib

import pytest

import tool_carrier as tc

if os.environ.get("TOOL_CARRIER_RAY") != "1":
    pytest.skip("opt-in: TOOL_CARRIER_RAY=1 with ray[data] installed", allow_module_level=True)
ray = pytest.importorskip("ray", reason="ray[data] is not installed")

REPO = pathlib.Path(__file__).resolve().parents[2]


def transcripts(folder: pathlib.Path, n: int) -> dict[str, bytes]:
    """`n` histories, each a round with a screenshot as a data: URL; every
    tenth has a broken record."""
    png = base64.b64encode((REPO / "examples/shots/editor.png").read_bytes()).decode()
    written = {}
    for i in range(n):
        envelope = {"tool_call_id": "c1", "content": f"Shot {i}.",
                    "attachments": [{"kind": "image", "target": f"data:image/png;base64,{png}"}]}
        call = {"content": None, "tool_calls": [{"id": "c1", "name": "screenshot", "arguments": "{}"}]}
        records = [{"role": "user", "content": f"Task {i}."},
                   {"role": "assistant", "content": json.dumps(call)},
                   {"role": "tool", "content": json.dumps(envelope)}]
        if i % 10 == 9:
            records.append({"role": "user"})
        text = "".join(json.dumps(r) + "\n" for r in records).encode()
        path = folder / f"t{i:04}.jsonl"
        path.write_bytes(text)
        written[str(path)] = text
    return written


def test_a_thousand_transcripts_convert_on_ray_data(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    written = transcripts(src, 1000)
    spec = importlib.util.spec_from_file_location("ray_fleet", REPO / "examples/python/ray_fleet.py")
    assert spec and spec.loader
    fleet = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fleet)
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    try:
        fleet.main(str(src), str(out), "openai-chat")
        rows = ray.data.read_parquet(str(out)).take_all()
    finally:
        ray.shutdown()
    assert len(rows) == 1000
    failed = [r for r in rows if r["error"]]
    assert len(failed) == 100 and all(r["error"].startswith("ReadError") for r in failed)
    for row in rows[:50]:
        if not row["error"]:
            assert row["body"] == tc.convert(written[row["path"]], "openai-chat").body
