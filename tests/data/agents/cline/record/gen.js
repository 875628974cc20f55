// Generates illustrative api_conversation_history.json fixtures by building the
// objects the same way (same literal member order) as the cited source code.
const fs = require("fs")
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
const DATA_URL = `data:image/png;base64,${PNG}`
// formatImagesIntoBlocks (cline responses.ts / roo responses.ts)
const img = (dataUrl) => {
  const [rest, base64] = dataUrl.split(",")
  const mimeType = rest.split(":")[1].split(";")[0]
  return { type: "image", source: { type: "base64", media_type: mimeType, data: base64 } }
}
const BROWSER_TEXT = (logs) =>
  `The browser action has been executed. The console logs and screenshot have been captured for your analysis.\n\nConsole logs:\n${logs || "(No new logs)"}\n\n(REMEMBER: if you need to proceed to using non-\`browser_action\` tools or launch a new browser, you MUST first close this browser. For example, if after analyzing the logs and screenshot you need to edit a file, you must first close the browser before you can use the write_to_file tool.)`
const CLOSE_TEXT = `The browser has been closed. You may now proceed to using other tools.`

// ---------------------------------------------------------------- Cline XML era (v3.17.0)
{
  const env1 = "<environment_details>\n# VSCode Visible Files\n(No visible files)\n\n# VSCode Open Tabs\n(No open tabs)\n\n# Current Time\n5/22/2025, 11:00:00 AM (America/Los_Angeles, UTC-7:00)\n\n# Current Working Directory (/home/user/site) Files\nindex.html\n\n# Context Window Usage\n0 / 200K tokens used (0%)\n\n# Current Mode\nACT MODE\n</environment_details>"
  const env2 = "<environment_details>\n# VSCode Visible Files\n(No visible files)\n\n# VSCode Open Tabs\n(No open tabs)\n\n# Current Time\n5/22/2025, 11:00:12 AM (America/Los_Angeles, UTC-7:00)\n\n# Context Window Usage\n11,412 / 200K tokens used (6%)\n\n# Current Mode\nACT MODE\n</environment_details>"
  const env3 = env2.replace("11:00:12", "11:00:20").replace("11,412", "13,907").replace("(6%)", "(7%)")
  const h = []
  h.push({ role: "user", content: [{ type: "text", text: "<task>\nOpen http://localhost:3000 and tell me the page title.\n</task>" }, { type: "text", text: env1 }] })
  h.push({ role: "assistant", content: [{ type: "text", text: "<thinking>\nThe user wants the title of the page served at localhost:3000. I'll launch the browser there.\n</thinking>\n\n<browser_action>\n<action>launch</action>\n<url>http://localhost:3000</url>\n</browser_action>" }] })
  // pushToolResult (array content): header text block, then ...content (text + image); then environment_details
  h.push({ role: "user", content: [
    { type: "text", text: "[browser_action for 'launch'] Result:" },
    { type: "text", text: BROWSER_TEXT("") },
    img(DATA_URL),
    { type: "text", text: env2 },
  ] })
  h.push({ role: "assistant", content: [{ type: "text", text: "<thinking>\nThe screenshot shows the heading \"Demo\". I have what I need, so I'll close the browser.\n</thinking>\n\n<browser_action>\n<action>close</action>\n</browser_action>" }] })
  // pushToolResult (string content): header text block + result text block
  h.push({ role: "user", content: [
    { type: "text", text: "[browser_action for 'close'] Result:" },
    { type: "text", text: CLOSE_TEXT },
    { type: "text", text: env3 },
  ] })
  h.push({ role: "assistant", content: [{ type: "text", text: "<attempt_completion>\n<result>\nThe page at http://localhost:3000 has the title \"Demo\".\n</result>\n</attempt_completion>" }] })
  fs.writeFileSync(__dirname + "/cline-xml.json", JSON.stringify(h))
}

// ---------------------------------------------------------------- Cline native era (v3.89.2, Bedrock Claude)
{
  const env = (time, usage) => `<environment_details>\n# Visual Studio Code Visible Files\n(No visible files)\n\n# Visual Studio Code Open Tabs\n(No open tabs)\n\n# Current Time\n6/10/2026, 9:15:${time} AM (Europe/Berlin, UTC+2:00)` +
    (usage ? `\n\n# Context Window Usage\n${usage}` : `\n\n# Current Working Directory (/home/user/site) Files\nindex.html`) + `\n\n# Current Mode\nACT MODE\n</environment_details>`
  const modelInfo = { modelId: "anthropic.claude-sonnet-4-20250514-v1:0", providerId: "bedrock", mode: "act" }
  const metrics = (p, c, cw, cr, cost) => ({ tokens: { prompt: p, completion: c, cached: (cw ?? 0) + (cr ?? 0) }, cost })
  // StreamResponseHandler.getCurrentReasoning (Bedrock: no reasoning id -> call_id undefined, dropped)
  const thinking = (t, sig) => ({ type: "thinking", thinking: t, signature: sig, summary: [], call_id: undefined })
  // ToolUseHandler.getFinalizedToolUse + getAllFinalizedToolUses spread
  const toolUse = (id, name, input, summary) => ({ ...{ type: "tool_use", id, name, input, signature: undefined, call_id: id }, reasoning_details: summary })
  // ToolResultUtils.createToolResultBlock
  const toolResult = (id, call_id, content) => ({ type: "tool_result", tool_use_id: id, call_id: call_id, content })
  const h = []
  let ts = 1781075700000
  h.push({ role: "user", content: [{ type: "text", text: "<task>\nOpen http://localhost:3000 and tell me the page title.\n</task>" }, { type: "text", text: env("00", null) }], ts: ts })
  const t1 = thinking("The user wants the page title. I'll launch the browser at localhost:3000.", "EqQBCkYIBhgCKkAVp7dGq0m4bN3m0fQ7sQe9uJ2mC1dL0xA5rV8kT6yW3zH4nP2oS9gE1cB7aF0jR5tU8iY6lK3qX2wM1vZ4CgwSDEMO==")
  const tu1 = toolUse("tooluse_kZJMlvQmRJ6eAYJGOwA3Qg", "browser_action", { action: "launch", url: "http://localhost:3000" }, t1.summary)
  h.push({ role: "assistant", content: [t1, tu1], modelInfo, id: undefined, metrics: metrics(9841, 96, 0, 9815, 0.0048), ts: ts += 6000 })
  h.push({ role: "user", content: [
    toolResult("tooluse_kZJMlvQmRJ6eAYJGOwA3Qg", "tooluse_kZJMlvQmRJ6eAYJGOwA3Qg", [{ type: "text", text: BROWSER_TEXT("") }, img(DATA_URL)]),
    { type: "text", text: env("08", "10,032 / 200K tokens used (5%)") },
  ], ts: ts += 2500 })
  const t2 = thinking("The screenshot shows a heading \"Demo\". Close the browser before finishing.", "ErcBCkYIBhgCKkDx1mQ3bV7nK0pL5sR9tW2yZ4cF6hJ8aD1gE3iM5oN7qS0uX2vB4wC6yA8kT1rP3lH5jG7fD9sEgxtRUNDT0RFRA==")
  // assistant text block literal (task/index.ts): type, text, reasoning_details, signature, call_id (assistantMessageId starts as "")
  const text2 = { type: "text", text: "The page heading reads \"Demo\". Closing the browser now.", reasoning_details: t2.summary, signature: undefined, call_id: "" }
  const tu2 = toolUse("tooluse_Q2m9y0WJTzqgGx8wYc1bNw", "browser_action", { action: "close" }, undefined)
  h.push({ role: "assistant", content: [t2, text2, tu2], modelInfo, id: undefined, metrics: metrics(10987, 118, 1155, 9815, 0.0096), ts: ts += 5200 })
  // string tool result -> `${description} Result:\n${resultText}`
  h.push({ role: "user", content: [
    toolResult("tooluse_Q2m9y0WJTzqgGx8wYc1bNw", "tooluse_Q2m9y0WJTzqgGx8wYc1bNw", `[browser_action for 'close'] Result:\n${CLOSE_TEXT}`),
    { type: "text", text: env("17", "11,105 / 200K tokens used (6%)") },
  ], ts: ts += 900 })
  const tu3 = toolUse("tooluse_8f3KcV1dQ0y7mZ2xW5aHbg", "attempt_completion", { result: "The page at http://localhost:3000 has the title \"Demo\"." }, [])
  h.push({ role: "assistant", content: [tu3], modelInfo, id: undefined, metrics: metrics(11190, 64, 0, 11105, 0.0043), ts: ts += 3100 })
  fs.writeFileSync(__dirname + "/cline-native.json", JSON.stringify(h))
}

// ---------------------------------------------------------------- Roo Code (v3.52.1 HEAD)
{
  const reminder = "You have not created a todo list yet. Create one with `update_todo_list` if your task is complicated or involves multiple steps."
  const env = (iso, files) => `<environment_details>\n${(`\n\n# VSCode Visible Files\n\n\n# VSCode Open Tabs\n\n\n# Current Time\nCurrent time in ISO 8601 UTC format: ${iso}\nUser time zone: Europe/Berlin, UTC+2:00\n\n# Current Cost\n$0.00\n\n# Current Mode\n<slug>code</slug>\n<name>💻 Code</name>\n<model>claude-sonnet-4-5</model>` + (files ? `\n\n# Current Workspace Directory (/home/user/site) Files\nassets/\nassets/dot.png\nindex.html` : "")).trim()}\n${reminder}\n</environment_details>`
  const T = "7d1c0f4e-8a52-4b7e-9a3d-2f6b1e0c9a11" // truncationId
  const C = "c3a9e2b4-5f61-4d8a-b0e7-91f2d6a4c852" // condenseId
  let ts = 1781075700000
  let h = []
  h.push({ role: "user", content: [{ type: "text", text: "<user_message>\nCheck that the favicon in assets/dot.png is referenced by index.html\n</user_message>" }, { type: "text", text: env("2026-06-10T07:15:00.000Z", true) }], ts: ts })
  // assistant (Anthropic provider: reasoning stored as generic reasoning block; no getResponseId -> no id)
  const a1 = { ...{ role: "assistant", content: [{ type: "text", text: "I'll look at the image first." }, { type: "tool_use", id: "toolu_01HkV9yq2Jx4ZcWm8RbTnA3s", name: "read_file", input: { path: "assets/dot.png" } }] }, ...{}, ts: ts += 4000 }
  a1.content = [{ type: "reasoning", text: "Start by reading the image file, then index.html.", summary: [] }, ...a1.content]
  h.push(a1)
  // native tool_result (string content) + image blocks pushed after it, then environment_details
  h.push({ ...{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01HkV9yq2Jx4ZcWm8RbTnA3s", content: "File: assets/dot.png\nNote: Image file (0 KB)" }, img(DATA_URL), { type: "text", text: env("2026-06-10T07:15:05.000Z", false) }] }, ts: ts += 1000 })
  const a2 = { role: "assistant", content: [{ type: "reasoning", text: "It's a 1x1 PNG. Now read index.html.", summary: [] }, { type: "text", text: "Now the HTML." }, { type: "tool_use", id: "toolu_01Pq7Lr3Ws5Xy2Ab9Cd4Ef6G", name: "read_file", input: { path: "index.html" } }], ts: ts += 3500 }
  h.push(a2)
  h.push({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01Pq7Lr3Ws5Xy2Ab9Cd4Ef6G", content: "File: index.html\n1 | <!doctype html>\n2 | <link rel=\"icon\" href=\"assets/dot.png\">\n3 | <title>Demo</title>" }, { type: "text", text: env("2026-06-10T07:15:09.000Z", false) }], ts: ts += 800 })
  // truncateConversation(messages, 0.5): 5 visible -> hide 2 (indices 1,2), marker before index 3
  {
    const visible = h.map((_, i) => i)
    const n = Math.floor((visible.length - 1) * 0.5); const toRemove = n - (n % 2)
    const idx = new Set(visible.slice(1, toRemove + 1))
    const tagged = h.map((m, i) => idx.has(i) ? { ...m, truncationParent: T } : m)
    const firstKept = visible[toRemove + 1]
    const marker = { role: "user", content: `[Sliding window truncation: ${toRemove} messages hidden to reduce context]`, ts: h[firstKept].ts - 1, isTruncationMarker: true, truncationId: T }
    h = [...tagged.slice(0, firstKept), marker, ...tagged.slice(firstKept)]
  }
  // condense (automatic): tag all with condenseParent, append summary (user) with env details block
  {
    const lastTs = h[h.length - 1].ts
    const summary = { role: "user", content: [{ type: "text", text: "## Conversation Summary\n1. The user asked to verify that index.html references assets/dot.png as favicon.\n2. assets/dot.png is a 1x1 PNG; index.html line 2 contains <link rel=\"icon\" href=\"assets/dot.png\">." }, { type: "text", text: env("2026-06-10T07:15:30.000Z", false) }], ts: lastTs + 1, isSummary: true, condenseId: C }
    h = h.map((m) => m.condenseParent ? m : { ...m, condenseParent: C })
    h.push(summary)
    ts = lastTs + 1
  }
  // assistant from OpenAI Native (Responses API) with encrypted reasoning and no plain reasoning text
  const a3 = { ...{ role: "assistant", content: [{ type: "text", text: "The favicon is referenced correctly." }, { type: "tool_use", id: "call_Xq3Vb7Nz1Lm9Pk2Rt5Wy8Ad4", name: "attempt_completion", input: { result: "index.html references assets/dot.png as its favicon (line 2)." } }] }, ...{ id: "resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9" }, ts: ts += 7000 }
  a3.content = [{ type: "reasoning", summary: [], encrypted_content: "gAAAAABoExampleEncryptedReasoningPayload_Q1VTVE9NX0RBVEFfTk9UX1JFQUw=", ...{ id: "rs_0a1b2c3d4e5f60718293a4b5c6d7e8fa" } }, ...a3.content]
  h.push(a3)
  fs.writeFileSync(__dirname + "/roo.json", JSON.stringify(h))
}
