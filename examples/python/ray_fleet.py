"""A fleet of stored transcripts converted on Ray Data: a map over files,
no scheduler of our own. Each file becomes one row: its path, the request
body for the provider, and the error that stopped it (empty when none) —
nothing is dropped, a transcript that cannot be converted is a row with
its reason.

    python examples/python/ray_fleet.py SRC_DIR OUT_DIR [PROVIDER]
                                                  (pip install "ray[data]")

Writes OUT_DIR as Parquet. The same function runs on Spark with
`df.mapInPandas` (one pandas frame of paths and bytes in, one of rows
out) or on Daft with a UDF over `daft.from_glob_path(...)`; only the
reading and writing change.
"""

from __future__ import annotations

import sys
from typing import Any

import ray

import tool_carrier


def convert_batch(batch: dict[str, Any], provider: str) -> dict[str, list[Any]]:
    """One batch of files (Ray's `path` and `bytes` columns) converted."""
    bodies: list[bytes] = []
    errors: list[str] = []
    for data in batch["bytes"]:
        try:
            bodies.append(tool_carrier.convert(bytes(data), provider).body)
            errors.append("")
        except tool_carrier.ToolCarrierError as e:
            bodies.append(b"")
            errors.append(f"{type(e).__name__}: {e}")
    return {"path": list(batch["path"]), "body": bodies, "error": errors}


def main(src: str, out: str, provider: str = "anthropic") -> None:
    files = ray.data.read_binary_files(src, include_paths=True)
    rows = files.map_batches(convert_batch, fn_kwargs={"provider": provider}, batch_format="numpy")
    rows.write_parquet(out)


if __name__ == "__main__":
    main(*sys.argv[1:4])
