// Records a real AI SDK (npm `ai`) conversation with the library's own mock model.
// Usage:  node record.mjs OUTDIR
// Deps:   npm install --prefix DIR ai@7.0.173 zod@4.6.7, then run from DIR (deps resolve from cwd)
// Writes: OUTDIR/model-messages.json  ModelMessage[] from generateText (inputs + result.responseMessages)
//         OUTDIR/ui-messages.json     UIMessage[] from streamText + toUIMessageStream({ onEnd })
//         OUTDIR/ui-messages-approval-responded.json  UIMessage[] after the user denied (before turn 2)
//         OUTDIR/ui-converted.json    convertToModelMessages(ui-messages, { tools })
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// resolve deps from the current working directory (where `npm install --prefix .` put them)
const requireFromCwd = createRequire(join(process.cwd(), 'noop.js'));
const load = id => import(pathToFileURL(requireFromCwd.resolve(id)).href);
const { convertToModelMessages, generateText, isStepCount, streamText, tool, toUIMessageStream } = await load('ai');
const { convertArrayToReadableStream, MockLanguageModelV4, mockId } = await load('ai/test');
const { z } = await load('zod');

const OUT = process.argv[2] ?? '.';
mkdirSync(OUT, { recursive: true });
const save = (name, value) => writeFileSync(join(OUT, name), JSON.stringify(value, null, 2) + '\n');

// 1x1 RGBA PNG and a minimal one-page PDF (valid xref), both base64.
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PDF_B64 = 'JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoKPDwgL1R5cGUgL1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUgL1BhZ2UgL1BhcmVudCAyIDAgUiAvTWVkaWFCb3ggWzAgMCA3MiA3Ml0gPj4KZW5kb2JqCnhyZWYKMCA0CjAwMDAwMDAwMDAgNjU1MzUgZiAKMDAwMDAwMDAwOSAwMDAwMCBuIAowMDAwMDAwMDU4IDAwMDAwIG4gCjAwMDAwMDAxMTUgMDAwMDAgbiAKdHJhaWxlcgo8PCAvU2l6ZSA0IC9Sb290IDEgMCBSID4+CnN0YXJ0eHJlZgoxODQKJSVFT0YK';
const SYSTEM = 'You are a helpful assistant.';
const USER_TEXT = 'What is in this image and this PDF? Also check the weather in Berlin.';

// ---- tools: json / content (toModelOutput) / text / thrown error / approval-gated ----
const tools = {
  getWeather: tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, tempC: 21, conditions: 'sunny' }), // -> output.type 'json'
  }),
  takeScreenshot: tool({
    inputSchema: z.object({ url: z.string() }),
    execute: async ({ url }) => ({ url, png: PNG_B64 }),
    toModelOutput: ({ output }) => ({                                        // -> output.type 'content'
      type: 'content',
      value: [
        { type: 'text', text: `Screenshot of ${output.url}` },
        { type: 'file', mediaType: 'image/png', filename: 'shot.png', data: { type: 'data', data: output.png } },
        { type: 'image-data', mediaType: 'image/png', data: output.png }, // deprecated spelling, still accepted
      ],
    }),
  }),
  getTime: tool({ inputSchema: z.object({}), execute: async () => '2025-01-01T12:00:00Z' }), // -> 'text'
  flakyLookup: tool({
    inputSchema: z.object({ query: z.string() }),
    execute: async () => { throw new Error('upstream timeout'); },           // -> 'error-text'
  }),
  deleteFile: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => 'deleted' }),
};
const toolApproval = { deleteFile: 'user-approval' };                       // denied below -> 'execution-denied'

// ---- scripted model output, one entry per model call (step) ----
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 } };
const finish = unified => ({ unified, raw: unified });
const call = (toolCallId, toolName, input, extra = {}) =>
  ({ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input), ...extra });
const STEPS = [
  { finishReason: finish('tool-calls'), content: [
    // @ai-sdk/anthropic stores thinking signatures as providerMetadata.anthropic.signature
    { type: 'reasoning', text: 'The user wants image, PDF and weather info.',
      providerMetadata: { anthropic: { signature: 'EqQBCkYIBxgCKkDsig==' } } },
    { type: 'text', text: 'Let me look at the weather and take a screenshot.' },
    call('call_1', 'getWeather', { city: 'Berlin' }),
    call('call_2', 'takeScreenshot', { url: 'https://example.com' }),
  ] },
  { finishReason: finish('tool-calls'), content: [
    { type: 'text', text: 'A few more lookups.' },
    call('call_3', 'getTime', {}),
    call('call_4', 'flakyLookup', { query: 'pdf metadata' }),
    call('call_5', 'deleteFile', { path: '/tmp/tiny.pdf' }),
    // provider-executed (dynamic, e.g. MCP) tool whose result is an error -> assistant-side 'error-json'
    call('srv_1', 'web_search', { q: 'tiny pdf' }, { providerExecuted: true, dynamic: true }),
    { type: 'tool-result', toolCallId: 'srv_1', toolName: 'web_search', dynamic: true,
      isError: true, result: { code: 'rate_limited', retryAfter: 30 } },
  ] },
  { finishReason: finish('stop'), content: [
    { type: 'source', sourceType: 'url', id: 'src_1', url: 'https://example.com/weather', title: 'Weather' },
    { type: 'text', text: 'It is sunny in Berlin (21°C). I did not delete the file.' },
    { type: 'file', mediaType: 'image/png', data: { type: 'data', data: Buffer.from(PNG_B64, 'base64') } },
  ] },
].map(step => ({ ...step, usage, warnings: [] }));

// Same steps as a stream (for streamText / UI messages).
function toStream({ content, finishReason }) {
  const parts = [{ type: 'stream-start', warnings: [] }];
  content.forEach((p, i) => {
    const id = `b${i}`;
    if (p.type === 'text' || p.type === 'reasoning') {
      parts.push({ type: `${p.type}-start`, id }, { type: `${p.type}-delta`, id, delta: p.text },
        { type: `${p.type}-end`, id, providerMetadata: p.providerMetadata });
    } else parts.push(p);
  });
  parts.push({ type: 'finish', finishReason, usage });
  return { stream: convertArrayToReadableStream(parts) };
}

const common = () => ({
  tools, toolApproval, stopWhen: isStepCount(5), allowSystemInMessages: true,
  _internal: { generateId: mockId({ prefix: 'approval' }) },
});
const deny = approvalId =>
  ({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: false, reason: 'User declined' }] });

// ---- ModelMessage[] via generateText (two turns: the 2nd carries the user's denial) ----
{
  const model = new MockLanguageModelV4({ doGenerate: STEPS });
  const g = common();
  const input = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: [
      { type: 'text', text: USER_TEXT },
      { type: 'image', image: PNG_B64, mediaType: 'image/png' },
      { type: 'file', mediaType: 'application/pdf', filename: 'tiny.pdf', data: { type: 'data', data: PDF_B64 } },
    ] },
  ];
  const r1 = await generateText({ model, ...g, messages: input });
  const request = r1.responseMessages.at(-2).content.find(p => p.type === 'tool-approval-request');
  const history = [...input, ...r1.responseMessages, deny(request.approvalId)];
  const r2 = await generateText({ model, ...g, messages: history });
  save('model-messages.json', [...history, ...r2.responseMessages]);
}

// ---- UIMessage[] via streamText + toUIMessageStream (documented persistence path: onEnd) ----
{
  const model = new MockLanguageModelV4({ doStream: STEPS.map(toStream) });
  const g = common();
  const msgId = mockId({ prefix: 'msg' });
  let ui = [
    { id: 'sys', role: 'system', parts: [{ type: 'text', text: SYSTEM }] },
    { id: 'u1', role: 'user', parts: [
      { type: 'text', text: USER_TEXT },
      { type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${PNG_B64}` },
      { type: 'file', mediaType: 'application/pdf', filename: 'tiny.pdf', url: `data:application/pdf;base64,${PDF_B64}` },
    ] },
  ];
  const turn = async () => {
    const result = streamText({ model, ...g, messages: await convertToModelMessages(ui, { tools }) });
    const stream = toUIMessageStream({ stream: result.stream, tools, sendSources: true,
      originalMessages: ui, generateMessageId: msgId, onEnd: ({ messages }) => { ui = messages; } });
    for await (const _ of stream); // drain; onEnd fires at the end
  };
  await turn();
  // what useChat's addToolApprovalResponse does: approval-requested -> approval-responded
  ui = ui.map(m => ({ ...m, parts: m.parts.map(p => p.state === 'approval-requested'
    ? { ...p, state: 'approval-responded', approval: { ...p.approval, approved: false, reason: 'User declined' } }
    : p) }));
  save('ui-messages-approval-responded.json', ui); // the stored state between the two turns
  await turn();
  save('ui-messages.json', ui);
  save('ui-converted.json', await convertToModelMessages(ui, { tools }));
}
console.log(`wrote 4 JSON files to ${OUT}`);
