#!/usr/bin/env bash
# Records a transcript with the real Claude Code CLI, run headless against
# mock_api.py on 127.0.0.1 (no network, no account): the user pastes a
# mockup image and asks for screenshots; the model thinks, then reads
# two files in parallel, one a PNG that exists and one that does not.
#
#   record.sh CLAUDE_BINARY OUT.jsonl
#
# CLAUDE_BINARY is the native binary of the npm package
# @anthropic-ai/claude-code (node_modules/@anthropic-ai/claude-code-linux-x64/claude).
# Everything runs in a temporary folder: HOME, the project and the
# mock's log. Claude Code's own long texts in the lines no reader reads
# (its system prompt, tool and skill listings) are cut to a note of their
# length before the file is written out; conversation lines are kept
# byte for byte.
set -euo pipefail
claude="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'kill "$mock" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/proj/shots"

python3 - "$work" <<'PY'
import base64, json, struct, sys, zlib
work = sys.argv[1]
def png(w, h, seed):
    rows = b"".join(bytes([0]) + b"".join(bytes([200 if ((x // 16) + (y // 16) + seed) % 2 else 30, 90, 40])
                                          for x in range(w)) for y in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
open(work + "/proj/shots/dashboard.png", "wb").write(png(320, 200, 1))
pasted = base64.b64encode(png(160, 100, 2)).decode()
prompt = {"type": "user", "message": {"role": "user", "content": [
    {"type": "text", "text": "Here is the mockup. Take screenshots of the dashboard and compare."},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": pasted}}]}}
open(work + "/input.jsonl", "w").write(json.dumps(prompt) + "\n")
PY

python3 "$here/mock_api.py" "$work/port" "$work/proj" "$work/requests.jsonl" &
mock=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port="$(cat "$work/port")"

(cd "$work/proj" && env HOME="$work/home" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
  ANTHROPIC_API_KEY=sk-ant-recording CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
  DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
  timeout 120 "$claude" -p --input-format stream-json --output-format stream-json --verbose \
    --model claude-sonnet-4-6 --allowedTools Read < "$work/input.jsonl" > "$work/stdout.jsonl")

transcripts=("$work"/home/.claude/projects/*/*.jsonl)
[ "${#transcripts[@]}" -eq 1 ] || { echo "expected one transcript, found ${#transcripts[@]}" >&2; exit 1; }
python3 - "${transcripts[0]}" "$out" "$work" <<'PY'
import json, sys
src, out, work = sys.argv[1:4]
def cut(v):
    if isinstance(v, str):
        v = v.replace(work, "/work")
        return v if len(v) <= 400 else "(%d characters of Claude Code's own text left out)" % len(v)
    if isinstance(v, list):
        return [cut(x) for x in v]
    if isinstance(v, dict):
        return {k: cut(x) for k, x in v.items()}
    return v
with open(src) as f, open(out, "w") as o:
    for line in f:
        d = json.loads(line)
        if d.get("type") in ("user", "assistant"):
            o.write(line.replace(work, "/work"))
        else:
            o.write(json.dumps(cut(d), ensure_ascii=False, separators=(",", ":")) + "\n")
PY
echo "recorded $(wc -l < "$out") lines ($(grep -c '"type":"assistant"' "$out" || true) assistant) into $out" >&2
