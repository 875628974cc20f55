#!/usr/bin/env python3
"""Writes the agent transcript fixtures of this folder (run it from here).

Each fixture is written in the shape its agent writes, as README.md says
where that shape was read. The images are checkerboard PNGs made here, one
larger than every provider's processing size so that converting fits it.
"""
import base64, json, struct, zlib

def png(w, h, seed):
    rows = []
    for y in range(h):
        r = bytearray([0])
        for x in range(w):
            v = ((x // 40) + (y // 40) + seed) % 2
            r += bytes([200 if v else 30, (90 + 60 * seed) % 256, 40])
        rows.append(bytes(r))
    def chunk(t, d):
        c = struct.pack(">I", len(d)) + t + d
        return c + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    raw = zlib.compress(b"".join(rows), 9)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))
    return base64.b64encode(data).decode()

SHOT = png(2880, 1800, 1)     # a retina screenshot, fitted on the way (over 2000 px)
PASTED = png(320, 200, 2)     # the user's own
SMALL = png(64, 40, 3)

def write(path, lines):
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")

# ---- Claude Code (2.1.x) ----
def cc(kind, uuid, parent, extra, version="2.1.39", side=False, agent=None):
    line = {"parentUuid": parent, "isSidechain": side, "userType": "external",
            "cwd": "/home/dev/shop", "sessionId": "4b8e2c1a-7d3f-4e5a-9b6c-0d1e2f3a4b5c",
            "version": version, "gitBranch": "main"}
    if agent:
        line["agentId"] = agent
    line["type"] = kind
    line.update(extra)
    line["uuid"] = uuid
    line["timestamp"] = "2026-02-12T16:02:%02d.%03dZ" % (int(uuid[-2:], 16) % 60, int(uuid[-3:], 16) % 1000)
    return line

def answer(uuid, parent, block, mid="msg_01Shots", model="claude-sonnet-4-5-20250929", side=False):
    return cc("assistant", uuid, parent, side=side, extra={"message": {
        "model": model, "id": mid, "type": "message", "role": "assistant",
        "content": [block], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1500,
                  "cache_read_input_tokens": 11442, "output_tokens": 9,
                  "service_tier": "standard"}},
        "requestId": "req_011CY4TRHLYkp2wmETF8ujUf"}, version="2.0.14" if side else "2.1.39")

def result(uuid, parent, block, copy):
    return cc("user", uuid, parent, {"message": {"role": "user", "content": [block]},
                                     "toolUseResult": copy,
                                     "sourceToolAssistantUUID": parent})

u = ["00000000-0000-4000-8000-0000000000%02x" % i for i in range(64)]
session = [
    {"type": "file-history-snapshot", "messageId": u[1], "snapshot": {"messageId": u[1],
     "trackedFileBackups": {}, "timestamp": "2026-02-12T16:02:00.000Z"}, "isSnapshotUpdate": False},
    cc("user", u[1], None, {"message": {"role": "user", "content":
       "Take screenshots of the login page and of the signup page."},
       "thinkingMetadata": {"maxThinkingTokens": 31999}, "todos": [], "permissionMode": "default"}),
    answer(u[2], u[1], {"type": "thinking", "thinking": "Two pages: I can take both at once.",
                        "signature": "ErwECmMIDhgCKkBpZ3Vlc3Mgd2hhdCBpcyBoZXJl"}),
    answer(u[3], u[2], {"type": "text", "text": "Taking both screenshots."}),
    answer(u[4], u[3], {"type": "tool_use", "id": "toolu_01Login", "name": "mcp__browser__screenshot",
                        "input": {"url": "http://localhost:3000/login"}, "caller": {"type": "direct"}}),
    cc("progress", u[5], u[4], {"data": {"type": "hook_progress", "hookEvent": "PreToolUse"},
       "toolUseID": "toolu_01Login", "parentToolUseID": "toolu_01Login"}),
    answer(u[6], u[5], {"type": "tool_use", "id": "toolu_01Signup", "name": "mcp__browser__screenshot",
                        "input": {"url": "http://localhost:3000/signup"}, "caller": {"type": "direct"}}),
    result(u[7], u[4], {"tool_use_id": "toolu_01Login", "type": "tool_result", "content": [
        {"type": "text", "text": "Screenshot of http://localhost:3000/login (2880x1800)"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": SHOT}}]},
        [{"type": "text", "text": "Screenshot of http://localhost:3000/login (2880x1800)"},
         {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": SHOT}}]),
    result(u[8], u[6], {"type": "tool_result", "content": "Error: net::ERR_CONNECTION_REFUSED at http://localhost:3000/signup",
                        "is_error": True, "tool_use_id": "toolu_01Signup"},
           "Error: net::ERR_CONNECTION_REFUSED at http://localhost:3000/signup"),
    answer(u[9], u[8], {"type": "text", "text": "The login page rendered; the signup page refused the connection."},
           mid="msg_01Report"),
    cc("user", u[10], u[9], {"message": {"role": "user", "content": [
        {"type": "text", "text": "This is what I see on my phone [Image #1]"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PASTED}}]},
        "imagePasteIds": [1]}),
    cc("system", u[11], u[10], {"subtype": "api_error", "level": "error", "error": {"status": 529,
       "message": "529 overloaded"}, "retryInMs": 601, "retryAttempt": 1, "maxRetries": 10}),
    cc("assistant", u[12], u[11], {"message": {"id": "msg_synthetic_1", "type": "message", "role": "assistant",
       "model": "<synthetic>", "content": [{"type": "text", "text": "API Error: 529 Overloaded"}],
       "stop_reason": "stop_sequence", "stop_sequence": "", "usage": {"input_tokens": 0, "output_tokens": 0}},
       "isApiErrorMessage": True, "error": "server_error", "apiErrorStatus": 529}),
    answer(u[13], u[12], {"type": "text", "text": "On the phone the button wraps onto two lines."},
           mid="msg_01Phone"),
    {"type": "custom-title", "customTitle": "Login page screenshots", "sessionId": "4b8e2c1a-7d3f-4e5a-9b6c-0d1e2f3a4b5c"},
]
write("claude-code/session.jsonl", session)

# A compaction, a rewound prompt, a sub-agent's lines inline (1.0.x) and a summary.
older = [
    {"type": "summary", "summary": "Fixing the checkout test", "leafUuid": u[30]},
    cc("user", u[20], None, {"message": {"role": "user", "content": "Why does the checkout test fail?"}}, version="1.0.65"),
    answer(u[21], u[20], {"type": "text", "text": "It times out waiting for the payment frame."}, mid="msg_01Old"),
    cc("system", u[22], None, {"subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": False,
       "level": "info", "logicalParentUuid": u[21], "compactMetadata": {"trigger": "manual", "preTokens": 170251}},
       version="2.0.14"),
    cc("user", u[23], u[22], {"message": {"role": "user", "content":
       "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nThe checkout test times out waiting for the payment frame."},
       "isVisibleInTranscriptOnly": True, "isCompactSummary": True}, version="2.0.14"),
    cc("user", u[24], u[23], {"message": {"role": "user", "content": "Raise the timeout to 30 s."}}, version="2.0.14"),
    answer(u[25], u[24], {"type": "text", "text": "Raised to 30 s."}, mid="msg_01Rewound"),
    # The user rewound to before their prompt and asked again.
    cc("user", u[26], u[23], {"message": {"role": "user", "content": "Mock the payment frame instead."}}, version="2.0.14"),
    cc("user", u[40], None, {"message": {"role": "user", "content": "Find the payment frame's selector."}},
       version="2.0.14", side=True),
    answer(u[41], u[40], {"type": "text", "text": "It is iframe#pay."}, mid="msg_01Side", side=True),
    answer(u[27], u[26], {"type": "tool_use", "id": "toolu_01Mock", "name": "Edit",
                          "input": {"file_path": "test/checkout.test.ts", "old_string": "frame()", "new_string": "mockFrame()"}},
           mid="msg_01Mock"),
    result(u[28], u[27], {"tool_use_id": "toolu_01Mock", "type": "tool_result", "content": [
        {"type": "text", "text": "The file test/checkout.test.ts has been updated."}]},
        {"filePath": "test/checkout.test.ts", "oldString": "frame()", "newString": "mockFrame()"}),
    answer(u[29], u[28], {"type": "text", "text": "Mocked; the test passes."}, mid="msg_01Done"),
]
write("claude-code/compacted.jsonl", older)

# A sub-agent's own file (2.1.x: SESSION/subagents/agent-ID.jsonl).
agent = [
    cc("user", u[50], None, {"message": {"role": "user", "content": "Screenshot the cart page."}}, side=True, agent="a2898e3"),
    answer(u[51], u[50], {"type": "tool_use", "id": "toolu_01Cart", "name": "mcp__browser__screenshot",
                          "input": {"url": "http://localhost:3000/cart"}}, mid="msg_01Cart"),
    result(u[52], u[51], {"tool_use_id": "toolu_01Cart", "type": "tool_result", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": SMALL}}]},
        {"type": "image", "file": {"base64": SMALL, "type": "image/png", "originalSize": 120}}),
    answer(u[53], u[52], {"type": "text", "text": "The cart page is empty."}, mid="msg_01CartDone"),
]
for line in agent:
    line["isSidechain"] = True
    line["agentId"] = "a2898e3"
write("claude-code/agent-a2898e3.jsonl", agent)

# ---- Codex CLI (0.124, the {timestamp, type, payload} envelope) ----
def cx(kind, payload, t):
    return {"timestamp": "2026-04-20T17:03:%02d.%03dZ" % (t // 1000, t % 1000), "type": kind, "payload": payload}

def item(payload, t):
    return cx("response_item", payload, t)

codex = [
    cx("session_meta", {"id": "019db3c2-6a1e-7d20-9a4f-2b8c1f0e5d77", "timestamp": "2026-04-20T17:03:11.402Z",
       "cwd": "/home/dev/shop", "originator": "codex_cli_rs", "cli_version": "0.124.0", "source": "cli",
       "model_provider": "openai", "base_instructions": {"text": "You are Codex, based on GPT-5."},
       "git": {"commit_hash": "3f1c2a9d0b7e", "branch": "main"}}, 11482),
    item({"type": "message", "role": "developer", "content": [{"type": "input_text",
          "text": "<permissions instructions>\nApprovals: never.\n</permissions instructions>"}]}, 11520),
    cx("turn_context", {"turn_id": "019db3c2-7b00", "cwd": "/home/dev/shop", "approval_policy": "never",
       "sandbox_policy": {"type": "danger-full-access"}, "model": "gpt-5.4", "effort": "medium", "summary": "auto"}, 11530),
    cx("event_msg", {"type": "task_started", "turn_id": "019db3c2-7b00", "model_context_window": 258400}, 11540),
    item({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "<image name=[Image #1]>"},
        {"type": "input_image", "image_url": "data:image/png;base64," + PASTED, "detail": "high"},
        {"type": "input_text", "text": "</image>"},
        {"type": "input_text", "text": "[Image #1] the login button is cut off on my phone; take screenshots of login and signup"}]}, 11545),
    cx("event_msg", {"type": "user_message", "message": "[Image #1] the login button is cut off on my phone; take screenshots of login and signup",
       "images": [], "local_images": ["/tmp/codex-clipboard-1.png"], "text_elements": []}, 11546),
    item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Taking both screenshots**"}],
          "content": None, "encrypted_content": "gAAAAABoQ2xlYXJseSBub3QgcmVhbA=="}, 14002),
    item({"type": "function_call", "name": "mcp__browser__screenshot", "arguments": "{\"url\":\"http://localhost:3000/login\"}",
          "call_id": "call_Login"}, 15100),
    item({"type": "function_call", "name": "mcp__browser__screenshot", "arguments": "{\"url\":\"http://localhost:3000/signup\"}",
          "call_id": "call_Signup"}, 15101),
    item({"type": "function_call_output", "call_id": "call_Login", "output": [
        {"type": "input_text", "text": "Wall time: 0.8123 seconds\nOutput:"},
        {"type": "input_text", "text": "Screenshot of http://localhost:3000/login (2880x1800)"},
        {"type": "input_image", "image_url": "data:image/png;base64," + SHOT, "detail": "high"}]}, 16050),
    item({"type": "function_call_output", "call_id": "call_Signup",
          "output": "Wall time: 0.0100 seconds\nOutput:\nError: net::ERR_CONNECTION_REFUSED at http://localhost:3000/signup"}, 16060),
    item({"type": "custom_tool_call", "status": "completed", "call_id": "call_P4tch", "name": "apply_patch",
          "input": "*** Begin Patch\n*** Update File: src/login.css\n@@\n-.button { width: 120% }\n+.button { width: 100% }\n*** End Patch\n"}, 19000),
    item({"type": "custom_tool_call_output", "call_id": "call_P4tch",
          "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/login.css\n"}, 19200),
    item({"type": "ghost_snapshot", "ghost_commit": {"id": "a1b2c3", "parent": "9f8e7d",
          "preexisting_untracked_files": [], "preexisting_untracked_dirs": []}}, 19300),
    item({"type": "message", "role": "assistant", "content": [{"type": "output_text",
          "text": "The login button no longer overflows; the signup page refused the connection."}], "phase": "final_answer"}, 21000),
    cx("event_msg", {"type": "agent_message", "message": "The login button no longer overflows; the signup page refused the connection.",
       "phase": "final_answer"}, 21001),
    cx("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 48211, "cached_input_tokens": 40960,
       "output_tokens": 912, "reasoning_output_tokens": 512, "total_tokens": 49123}}, "rate_limits": None}, 21050),
    item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Show me the cart page too."}]}, 30000),
    item({"type": "function_call", "name": "view_image", "arguments": "{\"path\":\"shots/cart.png\"}", "call_id": "call_V1ew"}, 31000),
    item({"type": "function_call_output", "call_id": "call_V1ew", "output": [
        {"type": "input_image", "image_url": "data:image/png;base64," + SMALL, "detail": "high"}]}, 31050),
    item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The cart is empty."}]}, 32000),
    cx("event_msg", {"type": "task_complete", "turn_id": "019db3c2-7b00", "last_agent_message": "The cart is empty."}, 32060),
]
write("codex/rollout-2026-04-20T10-03-11-019db3c2-6a1e-7d20-9a4f-2b8c1f0e5d77.jsonl", codex)

compacted = [
    cx("session_meta", {"id": "019db3c9-0000-7000-8000-000000000001", "timestamp": "2026-04-20T18:00:00.000Z",
       "cwd": "/home/dev/shop", "originator": "codex_cli_rs", "cli_version": "0.124.0", "source": "cli",
       "model_provider": "openai", "base_instructions": None}, 1),
    item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Why does checkout fail?"}]}, 2),
    item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The payment frame times out."}]}, 3),
    cx("compacted", {"message": "", "replacement_history": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Why does checkout fail?"}]},
        {"type": "compaction", "encrypted_content": "gAAAAABpY29tcGFjdGVk"}]}, 4),
    cx("event_msg", {"type": "context_compacted"}, 5),
    item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Mock the frame."}]}, 6),
    item({"type": "local_shell_call", "call_id": "call_ls1", "status": "completed", "action": {"type": "exec",
          "command": ["npm", "test"], "timeout_ms": 10000, "working_directory": None, "env": None, "user": None}}, 7),
    item({"type": "function_call_output", "call_id": "call_ls1", "output": "Tests: 12 passed"}, 8),
]
write("codex/rollout-compacted.jsonl", compacted)

legacy = [
    {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-08-01T10:00:00.000Z", "instructions": None,
     "git": {"commit_hash": "abc", "branch": "main"}},
    {"record_type": "state"},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "List the files."}]},
    {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "call_1"},
    {"type": "function_call_output", "call_id": "call_1",
     "output": "{\"output\":\"a.txt\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "One file: a.txt."}]},
]
write("codex/rollout-2025-08-01-legacy.jsonl", legacy)

# ---- Gemini CLI (0.56 JSONL recording; 0.38 whole-file session; a checkpoint) ----
SID = "5b1d2c3e-8f4a-4b6c-9d7e-1a2b3c4d5e6f"
PH = "4f6e2b8a91c3d07e5a2b9c4d1e8f7a6b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f"
def gts(s):
    return "2026-08-21T09:14:%02d.000Z" % s
calls = [
    {"id": "browser_screenshot__1787303663871_0", "name": "browser_screenshot", "args": {"url": "http://localhost:3000/login"},
     "result": [{"functionResponse": {"id": "browser_screenshot__1787303663871_0", "name": "browser_screenshot",
                 "response": {"output": "Screenshot of http://localhost:3000/login (2880x1800)"}}},
                {"inlineData": {"data": SHOT, "mimeType": "image/png"}}],
     "status": "success", "timestamp": gts(24), "resultDisplay": "", "description": "login", "displayName": "Screenshot",
     "renderOutputAsMarkdown": True},
    {"id": "browser_screenshot__1787303663871_1", "name": "browser_screenshot", "args": {"url": "http://localhost:3000/signup"},
     "result": [{"functionResponse": {"id": "browser_screenshot__1787303663871_1", "name": "browser_screenshot",
                 "response": {"error": "net::ERR_CONNECTION_REFUSED at http://localhost:3000/signup"}}}],
     "status": "error", "timestamp": gts(24), "resultDisplay": "Connection refused.", "description": "signup",
     "displayName": "Screenshot", "renderOutputAsMarkdown": True},
]
answer1 = {"id": "b7c1e5d3-2a4f-4c6b-8e9d-0f1a3b5c7d9e", "timestamp": gts(23), "type": "gemini", "content": "Taking both screenshots.",
           "thoughts": [{"subject": "Two pages", "description": "I can take both at once.", "timestamp": gts(23)}],
           "tokens": None, "model": "gemini-3-pro-preview"}
answer1_tokens = dict(answer1, tokens={"input": 8123, "output": 41, "cached": 0, "thoughts": 112, "tool": 0, "total": 8276})
answer1_calls = dict(answer1_tokens, toolCalls=calls)
gemini = [
    {"sessionId": SID, "projectHash": PH, "startTime": gts(3), "lastUpdated": gts(3), "kind": "main"},
    {"$set": {"messages": [{"id": "a3f1c0d29e7b4b5c8d6e0f1a2b3c4d5e", "timestamp": gts(3), "type": "user",
              "content": [{"text": "<session_context>\nThis is the Gemini CLI. Today's date is Friday, August 21, 2026.\n</session_context>"}]}],
              "lastUpdated": gts(3)}},
    {"id": "0f8e2a4b-6c1d-4e3f-9a7b-2c5d8e1f4a6b", "timestamp": gts(20), "type": "user", "content": [
        {"text": "The login button is cut off on my phone: @images/clipboard-1787306520000.png Take screenshots of login and signup."},
        {"text": "\n--- Content from referenced files ---"},
        {"inlineData": {"data": PASTED, "mimeType": "image/png"}},
        {"text": "\n--- End of content ---"}],
     "displayContent": [{"text": "The login button is cut off on my phone: @images/clipboard-1787306520000.png Take screenshots of login and signup."}]},
    {"$set": {"lastUpdated": gts(20)}},
    answer1,
    {"$set": {"lastUpdated": gts(23)}},
    answer1_tokens,
    answer1_calls,
    {"id": "c9d2f6e4-3b5a-4d7c-9f0e-1a2b4c6d8e0f", "timestamp": gts(24), "type": "user",
     "content": [c["result"][0] for c in calls] + [calls[0]["result"][1]]},
    {"id": "d1e3a7f5-4c6b-4e8d-a01f-2b3c5d7e9f1a", "timestamp": gts(26), "type": "gemini",
     "content": [{"text": "The login page rendered; the signup page refused the connection.", "thoughtSignature": "CiQBVKhc7w2b3Yl4mU2lnbmF0dXJl"}],
     "thoughts": [], "tokens": None, "model": "gemini-3-pro-preview"},
    {"id": "e2f4b8a6-5d7c-4f9e-b12a-3c4d6e8f0a2b", "timestamp": gts(40), "type": "info", "content": "Switched model to gemini-3-flash-preview"},
    {"id": "f3a5c9b7-6e8d-4a0f-c23b-4d5e7f9a1b3c", "timestamp": gts(41), "type": "user", "content": [{"text": "/chat save login"}]},
    {"id": "0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d", "timestamp": gts(50), "type": "user", "content": [{"text": "And the cart page?"}]},
    {"id": "1b0c9d8e-7f6a-4b5c-9d3e-2f1a0b9c8d7e", "timestamp": gts(51), "type": "gemini", "content": "I can't reach the cart page either.",
     "thoughts": [], "tokens": None, "model": "gemini-3-flash-preview"},
    {"$rewindTo": "0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d"},
    {"id": "2c1d0e9f-8a7b-4c6d-ae4f-3a2b1c0d9e8f", "timestamp": gts(55), "type": "user", "content": [{"text": "Thanks, that is all."}]},
]
write("gemini-cli/session-2026-08-21T09-14-5b1d2c3e.jsonl", gemini)

legacy_session = {"sessionId": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", "projectHash": PH,
    "startTime": "2025-11-02T14:20:05.117Z", "lastUpdated": "2025-11-02T14:21:40.903Z", "messages": [
        {"id": "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2025-11-02T14:20:05.117Z", "type": "user",
         "content": "Show me the logo."},
        {"id": "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a", "timestamp": "2025-11-02T14:20:09.441Z", "type": "gemini",
         "content": "", "thoughts": [], "model": "gemini-2.5-pro",
         "tokens": {"input": 6011, "output": 18, "cached": 0, "thoughts": 0, "tool": 0, "total": 6029},
         "toolCalls": [{"id": "read_file_1762093209441_0", "name": "read_file", "args": {"file_path": "logo.png"},
             "result": [{"functionResponse": {"id": "read_file_1762093209441_0", "name": "read_file",
                         "response": {"output": "Binary content provided (1 item(s))."}}},
                        {"inlineData": {"data": SMALL, "mimeType": "image/png"}}],
             "status": "success", "timestamp": "2025-11-02T14:20:09.600Z", "resultDisplay": "", "displayName": "ReadFile",
             "description": "logo.png", "renderOutputAsMarkdown": True}]},
        {"id": "3e4f5a6b-7c8d-4e9f-0a1b-2c3d4e5f6a7b", "timestamp": "2025-11-02T14:20:12.000Z", "type": "gemini",
         "content": "A blue square.", "thoughts": [], "model": "gemini-2.5-pro", "tokens": None}]}
with open("gemini-cli/session-2025-11-02T14-20-9e8d7c6b.json", "w") as f:
    f.write(json.dumps(legacy_session, indent=2) + "\n")

checkpoint = {"history": [
    {"role": "user", "parts": [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}, {"text": "Show me the logo."}]},
    {"role": "model", "parts": [{"functionCall": {"id": "read_file__read_file_1787304000000_0", "name": "read_file",
        "args": {"file_path": "logo.png"}}, "thoughtSignature": "CiQBVKhc7w2b3Yl4m"}]},
    {"role": "user", "parts": [{"functionResponse": {"id": "read_file__read_file_1787304000000_0", "name": "read_file",
        "response": {"output": "Binary content provided (1 item(s))."},
        "parts": [{"inlineData": {"data": SMALL, "mimeType": "image/png"}}]}}]},
    {"role": "model", "parts": [{"text": "It's a blue square logo."}]}], "authType": "oauth-personal"}
with open("gemini-cli/checkpoint-logo.json", "w") as f:
    f.write(json.dumps(checkpoint, indent=2) + "\n")
