// A local stand-in for the Anthropic Messages API (the one edge of the
// client tests that cannot run here): it answers POST .../v1/messages with
// the API's event stream, playing the responses of a script file in the
// `script` provider's format ({"responses": [{text, toolUses, usage, stop}]})
// as Anthropic sends them: message_start, a text block in word-sized
// text_delta events, tool_use blocks whose input arrives in input_json_delta
// pieces, message_delta with the stop reason and the output tokens,
// message_stop. The n-th request of a conversation (counted by the assistant
// messages it carries) plays the n-th response, as the script provider does.
//
//   node anthropic-server.js RESPONSES.json PORT_FILE
//
// It writes the port it listens on (127.0.0.1, a free one) to PORT_FILE.
// What the conversation's text asks for changes the answer:
//   [slow]        one word every 250 ms, 400 words: long enough to cancel
//   [overloaded]  the first two attempts of each turn get 529 overloaded_error
//   [401]         401 authentication_error, as for a wrong key
const fs = require('node:fs');
const http = require('node:http');

const [file, portFile] = process.argv.slice(2);
const script = JSON.parse(fs.readFileSync(file, 'utf8'));
const attempts = new Map(); // turn key -> attempts seen (for [overloaded])

function sse(res, type, data) {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function errorBody(res, status, type, message) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_local' });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

async function answer(req, res, body) {
  const raw = JSON.stringify(body.messages || []);
  const turn = (body.messages || []).filter((m) => m.role === 'assistant').length;
  if (raw.includes('[401]')) return errorBody(res, 401, 'authentication_error', 'invalid x-api-key');
  if (raw.includes('[overloaded]')) {
    const n = (attempts.get(turn) || 0) + 1;
    attempts.set(turn, n);
    if (n <= 2) return errorBody(res, 529, 'overloaded_error', 'Overloaded');
  }
  const slow = raw.includes('[slow]');
  const r = script.responses[Math.min(turn, script.responses.length - 1)];
  const usage = r.usage || {};
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'message_start', {
    message: {
      id: `msg_local_${turn}`, type: 'message', role: 'assistant', model: body.model, content: [],
      stop_reason: null, stop_sequence: null,
      usage: {
        input_tokens: usage.inputTokens || 0, cache_read_input_tokens: usage.cacheReadTokens || 0,
        cache_creation_input_tokens: usage.cacheWriteTokens || 0, output_tokens: 1,
      },
    },
  });
  let index = 0;
  let text = r.text || '';
  if (slow) text = Array.from({ length: 400 }, (_, i) => `word${i + 1}`).join(' ');
  if (text) {
    sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of text.split(/(?<= )/)) {
      if (res.destroyed) return;
      sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      if (slow) await sleep(250);
    }
    sse(res, 'content_block_stop', { index });
    index++;
  }
  for (const u of r.toolUses || []) {
    sse(res, 'content_block_start', { index, content_block: { type: 'tool_use', id: u.id, name: u.name, input: {} } });
    const json = JSON.stringify(u.input);
    sse(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (let i = 0; i < json.length; i += 7) {
      sse(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 7) } });
    }
    sse(res, 'content_block_stop', { index });
    index++;
  }
  const stop = r.stop || ((r.toolUses || []).length ? 'tool_use' : 'end_turn');
  sse(res, 'message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.outputTokens || 0 } });
  sse(res, 'message_stop', {});
  res.end();
}

const server = http.createServer((req, res) => {
  let data = '';
  req.on('data', (c) => (data += c));
  req.on('end', () => {
    if (req.method !== 'POST' || !req.url.endsWith('/v1/messages')) {
      return errorBody(res, 404, 'not_found_error', `no ${req.method} ${req.url} here`);
    }
    let body;
    try {
      body = JSON.parse(data);
    } catch {
      return errorBody(res, 400, 'invalid_request_error', 'the body is not JSON');
    }
    answer(req, res, body).catch(() => res.destroy());
  });
});
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(portFile, String(server.address().port));
});
