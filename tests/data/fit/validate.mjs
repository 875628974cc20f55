// Reads each fitted AI SDK dead session of FOLDER back with the SDK's own
// schemas: modelMessageSchema for ModelMessage[], validateUIMessages for
// UIMessage[]. Run from the folder `ai` and `zod` are installed in.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const requireFromCwd = createRequire(join(process.cwd(), 'noop.js'));
const load = id => import(pathToFileURL(requireFromCwd.resolve(id)).href);
const { modelMessageSchema, validateUIMessages } = await load('ai');
const { z } = await load('zod');

const folder = process.argv[2];
let checked = 0;
for (const name of readdirSync(folder).sort()) {
  if (!name.startsWith('vercel-ai-')) continue;
  const value = JSON.parse(readFileSync(join(folder, name), 'utf8'));
  if (name.includes('ui-messages')) {
    await validateUIMessages({ messages: value });
    console.log(`${name}: ${value.length} messages (validateUIMessages)`);
  } else {
    z.array(modelMessageSchema).parse(value);
    console.log(`${name}: ${value.length} messages (modelMessageSchema)`);
  }
  checked += 1;
}
if (checked === 0) {
  console.error(`no fitted AI SDK file in ${folder}`);
  process.exit(1);
}
