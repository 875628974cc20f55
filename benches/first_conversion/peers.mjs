// The Vercel AI SDK's and pi-ai's first call on a history of screenshot
// rounds, in a fresh Node process, against a mock on 127.0.0.1.
//
//   node peers.mjs LIBRARY PROVIDER SHOTS_DIR PORT MARKS_FILE
//
// LIBRARY: ai-sdk or pi-ai. PROVIDER: anthropic, openai-chat,
// openai-responses or gemini. Imports the library, builds the history
// from SHOTS_DIR/shot-NN.png the way an agent holds it in that library's
// own types (each round: an assistant `screenshot` call, its result with a
// line of text and the screenshot as base64), then makes one call; the
// request's arrival is what the mock records. Writes to MARKS_FILE, one a
// line, the wall-clock times (seconds) the history building started and
// ended: an agent already holds its history, so that time is not charged.
// The mock's answer need not parse: an error after the request is sent is
// not this script's business, and no call is retried.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [library, provider, shots, port, marks] = process.argv.slice(2);
const base = `http://127.0.0.1:${port}`;
const models = {
  anthropic: "claude-haiku-4-5",
  "openai-chat": "gpt-5.1",
  "openai-responses": "gpt-5.1",
  gemini: "gemini-3.1-pro-preview",
};
const model = models[provider];
if (!model || !["ai-sdk", "pi-ai"].includes(library)) {
  console.error(`unknown library or provider: ${library} ${provider}`);
  process.exit(2);
}
const files = readdirSync(shots).filter((f) => /^shot-\d+\.png$/.test(f)).sort();

async function aiSdk() {
  const { generateText } = await import("ai");
  let languageModel;
  if (provider === "anthropic") {
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    languageModel = createAnthropic({ baseURL: `${base}/v1`, apiKey: "mock" })(model);
  } else if (provider === "gemini") {
    const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
    languageModel = createGoogleGenerativeAI({ baseURL: `${base}/v1beta`, apiKey: "mock" })(model);
  } else {
    const { createOpenAI } = await import("@ai-sdk/openai");
    const openai = createOpenAI({ baseURL: `${base}/v1`, apiKey: "mock" });
    languageModel = provider === "openai-chat" ? openai.chat(model) : openai.responses(model);
  }
  const builtFrom = Date.now() / 1000;
  const messages = [{ role: "user", content: "Operate the desktop." }];
  files.forEach((file, n) => {
    const toolCallId = `call_${n}`;
    messages.push({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId, toolName: "screenshot", input: {} }],
    });
    const data = readFileSync(join(shots, file)).toString("base64");
    messages.push({
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId,
        toolName: "screenshot",
        output: {
          type: "content",
          value: [
            { type: "text", text: "Took a screenshot." },
            { type: "file", mediaType: "image/png", data: { type: "data", data } },
          ],
        },
      }],
    });
  });
  const builtTo = Date.now() / 1000;
  writeFileSync(marks, `${builtFrom}\n${builtTo}\n`);
  const { jsonSchema, tool } = await import("ai");
  await generateText({
    model: languageModel,
    system: "You operate a desktop.",
    messages,
    tools: {
      screenshot: tool({
        description: "Take a screenshot.",
        inputSchema: jsonSchema({ type: "object", properties: {} }),
      }),
    },
    maxOutputTokens: 64,
    maxRetries: 0,
  });
}

async function piAi() {
  const { builtinModels } = await import("@earendil-works/pi-ai/providers/all");
  const all = builtinModels();
  const ids = {
    anthropic: ["anthropic", model],
    "openai-chat": ["openai", model],
    "openai-responses": ["openai", model],
    gemini: ["google", model],
  };
  const [family, id] = ids[provider];
  const found = all.getModel(family, id);
  if (!found) throw new Error(`pi-ai has no ${family} ${id}`);
  const api = { "openai-chat": "openai-completions", "openai-responses": "openai-responses" }[provider];
  const paths = { anthropic: "", gemini: "/v1beta" };
  const chosen = { ...found, baseUrl: base + (paths[provider] ?? "/v1"), ...(api ? { api } : {}) };
  const builtFrom = Date.now() / 1000;
  const messages = [{ role: "user", content: "Operate the desktop.", timestamp: 0 }];
  files.forEach((file, n) => {
    const id = `call_${n}`;
    messages.push({
      role: "assistant",
      content: [{ type: "toolCall", id, name: "screenshot", arguments: {} }],
      api: chosen.api,
      provider: chosen.provider,
      model: chosen.id,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: 0,
    });
    const data = readFileSync(join(shots, file)).toString("base64");
    messages.push({
      role: "toolResult",
      toolCallId: id,
      toolName: "screenshot",
      content: [{ type: "text", text: "Took a screenshot." }, { type: "image", data, mimeType: "image/png" }],
      isError: false,
      timestamp: 0,
    });
  });
  const builtTo = Date.now() / 1000;
  writeFileSync(marks, `${builtFrom}\n${builtTo}\n`);
  await all.complete(chosen, {
    systemPrompt: "You operate a desktop.",
    messages,
    tools: [{ name: "screenshot", description: "Take a screenshot.", parameters: { type: "object", properties: {} } }],
  }, { apiKey: "mock", maxTokens: 64, maxRetries: 0 });
}

try {
  await (library === "ai-sdk" ? aiSdk() : piAi());
} catch (e) {
  // The mock's answer is not every API's; the request has been sent.
  if (process.env.PEERS_DEBUG) console.error(e);
}
process.exit(0);
