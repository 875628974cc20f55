// Hand-written fixtures for shapes the recording (record.mjs) does not produce.
// Type-checked against ai@7.0.173 types:  tsc -p tsconfig.json  (noEmit check + emit to build/)
// Run:  node build/by-hand.js OUTDIR  -> model-messages-by-hand.json, ui-messages-by-hand.json
// URL objects are used where the types demand `URL`; JSON.stringify turns them into href strings.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelMessage, UIMessage } from 'ai';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export const modelMessages: ModelMessage[] = [
  // message-level providerOptions
  { role: 'system', content: 'Be brief.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
  // string content shorthand
  { role: 'user', content: 'plain string user content' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'all user file/image data shapes', providerOptions: { openai: { foo: 'bar' } } },
      { type: 'image', image: new URL('https://example.com/a.png') },                          // bare URL
      { type: 'image', image: `data:image/png;base64,${PNG}` },                                // data-URL string
      { type: 'image', image: { openai: 'file-img123' }, mediaType: 'image/png' },             // ProviderReference
      { type: 'file', mediaType: 'image/png', data: PNG },                                      // bare base64 string
      { type: 'file', mediaType: 'image', data: new URL('https://example.com/b.png') },        // top-level media type
      { type: 'file', mediaType: 'application/pdf', data: { anthropic: 'file_01', openai: 'file-abc' } }, // bare reference
      { type: 'file', mediaType: 'application/pdf', filename: 'r.pdf',
        data: { type: 'url', url: new URL('s3://bucket/r.pdf'), originalUrl: 's3://bucket/r.pdf' } },
      { type: 'file', mediaType: 'application/pdf', data: { type: 'reference', reference: { google: 'files/xyz' } } },
      { type: 'file', mediaType: 'text/plain', filename: 'notes.txt', data: { type: 'text', text: 'inline text doc' } },
    ],
  },
  { role: 'assistant', content: 'plain string assistant content' },
  {
    role: 'assistant',
    providerOptions: { openai: { responseId: 'resp_1' } },
    content: [
      // anthropic redacted thinking: empty text + redactedData
      { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'EmwKAhgBEgy...' } } },
      // openai responses reasoning: itemId + encrypted content (null when not requested)
      { type: 'reasoning', text: 'summary part',
        providerOptions: { openai: { itemId: 'rs_123', reasoningEncryptedContent: 'gAAAAAB...' } } },
      // google: thought parts are reasoning; signature under google (vertex: googleVertex + vertex)
      { type: 'reasoning', text: 'gemini thought', providerOptions: { google: { thoughtSignature: 'CiQB...' } } },
      { type: 'text', text: 'openai text item', providerOptions: { openai: { itemId: 'msg_123' } } },
      { type: 'custom', kind: 'anthropic.container_upload', providerOptions: { anthropic: { fileId: 'file_9' } } },
      { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: PNG } },
      { type: 'reasoning-file', mediaType: 'image/png', data: new URL('https://example.com/thought.png') },
      { type: 'file', mediaType: 'image/png', data: { type: 'url', url: new URL('https://example.com/gen.png') } },
      { type: 'tool-call', toolCallId: 'fc_1', toolName: 'lookup', input: { q: 'x' },
        providerOptions: { google: { thoughtSignature: 'CiQB-call...' } } },
      { type: 'tool-call', toolCallId: 'srvtoolu_1', toolName: 'web_search', input: { query: 'rust' }, providerExecuted: true },
      { type: 'tool-result', toolCallId: 'srvtoolu_1', toolName: 'web_search',
        output: { type: 'json', value: [{ url: 'https://www.rust-lang.org', title: 'Rust' }] } },
      { type: 'tool-call', toolCallId: 'fc_2', toolName: 'rm', input: { path: '/' } },
      { type: 'tool-approval-request', approvalId: 'ap_1', toolCallId: 'fc_2', reason: 'destructive',
        isAutomatic: false, signature: 'hmac-sha256-hex', inputSchemaInput: { path: '/', extra: true } },
    ],
  },
  {
    role: 'tool',
    providerOptions: { anthropic: { note: 'message-level' } },
    content: [
      { type: 'tool-approval-response', approvalId: 'ap_1', approved: false, reason: 'no', providerExecuted: false },
      { type: 'tool-result', toolCallId: 'fc_2', toolName: 'rm', output: { type: 'execution-denied' } },
      { type: 'tool-result', toolCallId: 'fc_1', toolName: 'lookup', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        output: { type: 'content', value: [
          { type: 'text', text: 'every content item type' },
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } },
          { type: 'file', mediaType: 'image', data: { type: 'url', url: new URL('https://example.com/c.png') } },
          { type: 'file', mediaType: 'application/pdf', data: { type: 'reference', reference: { openai: 'file-1' } } },
          { type: 'file', mediaType: 'text/plain', filename: 'a.txt', data: { type: 'text', text: 'hello' } },
          { type: 'file-data', data: PNG, mediaType: 'image/png', filename: 'legacy.png' },
          { type: 'file-url', url: 'https://example.com/legacy.pdf', mediaType: 'application/pdf' },
          { type: 'file-id', fileId: 'file-legacy' },
          { type: 'file-id', fileId: { openai: 'file-a', anthropic: 'file_b' } },
          { type: 'file-reference', providerReference: { openai: 'file-c' } },
          { type: 'image-data', data: PNG, mediaType: 'image/png' },
          { type: 'image-url', url: 'https://example.com/legacy.png' },
          { type: 'image-file-id', fileId: 'file-img' },
          { type: 'image-file-reference', providerReference: { anthropic: 'file_img' } },
          { type: 'custom', providerOptions: { anthropic: { type: 'search_result', source: 'x' } } },
        ] } },
      { type: 'tool-result', toolCallId: 'x1', toolName: 'a', output: { type: 'text', value: 't', providerOptions: { openai: { k: 1 } } } },
      { type: 'tool-result', toolCallId: 'x2', toolName: 'b', output: { type: 'json', value: null } },
      { type: 'tool-result', toolCallId: 'x3', toolName: 'c', output: { type: 'error-text', value: 'boom' } },
      { type: 'tool-result', toolCallId: 'x4', toolName: 'd', output: { type: 'error-json', value: { code: 500 } } },
      { type: 'tool-result', toolCallId: 'x5', toolName: 'e', output: { type: 'execution-denied', reason: 'policy' } },
    ],
  },
];

type Meta = { createdAt: string };
type Data = { weather: { city: string; tempC: number } };
type Tools = { lookup: { input: { q: string }; output: string } };

export const uiMessages: UIMessage<Meta, Data, Tools>[] = [
  {
    id: 'u1', role: 'user', metadata: { createdAt: '2025-01-01T00:00:00Z' },
    parts: [
      { type: 'text', text: 'hi', providerMetadata: { openai: { x: 1 } } },
      { type: 'file', mediaType: 'application/pdf', filename: 'r.pdf', url: 'https://example.com/r.pdf',
        providerReference: { openai: 'file-abc' } },
      { type: 'data-weather', id: 'd1', data: { city: 'Berlin', tempC: 21 } },
    ],
  },
  {
    id: 'a1', role: 'assistant',
    parts: [
      { type: 'step-start' },
      { type: 'reasoning', text: 'thinking', state: 'done', providerMetadata: { anthropic: { signature: 'sig' } } },
      { type: 'reasoning-file', mediaType: 'image/png', url: `data:image/png;base64,${PNG}` },
      { type: 'custom', kind: 'openai.compaction', providerMetadata: { openai: { itemId: 'cmp_1' } } },
      { type: 'text', text: 'see [1]', state: 'streaming', citations: [
        { source: { type: 'source', sourceType: 'url', id: 's1', url: 'https://a.b' }, startIndex: 4, endIndex: 7, citedText: 'x' },
      ] },
      { type: 'source-document', sourceId: 's2', mediaType: 'application/pdf', title: 'Doc', filename: 'd.pdf' },
      { type: 'tool-lookup', toolCallId: 't1', state: 'input-streaming', input: { q: 'pa' }, rawInput: '{"q":"pa' },
      { type: 'tool-lookup', toolCallId: 't2', state: 'input-available', input: { q: 'x' }, callProviderMetadata: { google: { thoughtSignature: 's' } } },
      { type: 'tool-lookup', toolCallId: 't3', state: 'approval-requested', input: { q: 'x' },
        approval: { id: 'ap1', requestReason: 'needs ok', isAutomatic: false, signature: 'hmac' } },
      { type: 'tool-lookup', toolCallId: 't4', state: 'approval-responded', input: { q: 'x' }, approval: { id: 'ap2', approved: true, reason: 'ok' } },
      { type: 'tool-lookup', toolCallId: 't5', state: 'output-available', input: { q: 'x' }, output: 'res', preliminary: false,
        title: 'Lookup', toolMetadata: { source: 'mcp' }, resultProviderMetadata: { openai: { itemId: 'fco_1' } },
        approval: { id: 'ap3', approved: true } },
      { type: 'dynamic-tool', toolName: 'mcp_tool', toolCallId: 't6', state: 'output-available', input: {}, output: { any: 'thing' } },
      { type: 'dynamic-tool', dynamic: false, toolName: 'gone', toolCallId: 't7', state: 'output-denied', input: {},
        approval: { id: 'ap4', approved: false, reason: 'no' } },
      { type: 'step-start' },
      { type: 'steering-message', id: 'st1', parts: [{ type: 'text', text: 'also do X' }] },
    ],
  },
];

const out = process.argv[2] ?? '.';
writeFileSync(join(out, 'model-messages-by-hand.json'), JSON.stringify(modelMessages, null, 2) + '\n');
writeFileSync(join(out, 'ui-messages-by-hand.json'), JSON.stringify(uiMessages, null, 2) + '\n');
