// A loopback model provider for driving the real agent CLIs offline (agents.md §4). It speaks
// the Anthropic Messages API (claude) and OpenAI chat completions (opencode), in the exact
// streaming shapes those CLIs accept, and is scripted per test: each model request takes the
// next behaviour, the last one repeating. A route scripts the requests whose prompt names its key
// apart from all others, so tests whose CLI calls run at the same time share one provider. Every
// request is recorded for assertions.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type StubBehaviour =
  | { text: string }
  /** A tool call the CLI must refuse: file and shell tools are off. */
  | { toolCall: { name: string; input: Record<string, unknown> } }
  | { status: 401 | 402 | 429 | 500 | 529; message?: string }
  /** Accept the request and never send a byte. */
  | { hang: true }
  /** Send the first stream event, then nothing. */
  | { stall: true }
  /** Close the socket without a response. */
  | { drop: true };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
  /** The API this request spoke, when it was a model call. */
  api: 'anthropic' | 'openai' | null;
  /** opencode's title-generation side call, answered without using up a behaviour. */
  titleCall: boolean;
}

export interface StubRoute {
  /** The model calls this route answered, in the order they came. */
  modelCalls(): RecordedRequest[];
}

export interface StubProvider {
  url: string;
  requests: RecordedRequest[];
  /** Model calls (no warm-ups, no title calls). */
  modelCalls(): RecordedRequest[];
  /** The behaviours for every model call no route takes. */
  script(behaviours: StubBehaviour[]): void;
  /**
   * Own behaviours for the model calls whose prompt (the last user message with text) contains
   * `key`; when several keys match, the longest wins, so 'turn two again' is not 'turn two'.
   */
  route(key: string, behaviours: StubBehaviour[]): StubRoute;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, { anthropic: string; openai: string; message: string }> = {
  401: { anthropic: 'authentication_error', openai: 'invalid_request_error', message: 'invalid x-api-key' },
  402: {
    anthropic: 'billing_error',
    openai: 'insufficient_quota',
    message: 'Your credit balance is too low to access the API',
  },
  429: { anthropic: 'rate_limit_error', openai: 'rate_limit_error', message: 'Rate limit reached for requests' },
  500: { anthropic: 'api_error', openai: 'server_error', message: 'Internal server error' },
  529: { anthropic: 'overloaded_error', openai: 'server_error', message: 'Overloaded' },
};

interface Script {
  behaviours: StubBehaviour[];
  next: number;
  calls: RecordedRequest[];
}

const take = (script: Script): StubBehaviour =>
  script.behaviours[Math.min(script.next++, script.behaviours.length - 1)]!;

export async function startStubProvider(initial: StubBehaviour[] = [{ text: 'STUB ANSWER' }]): Promise<StubProvider> {
  let unrouted: Script = { behaviours: initial, next: 0, calls: [] };
  const routes = new Map<string, Script>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const scriptFor = (body: Record<string, unknown> | null): Script => {
    const prompt = promptOf(body);
    const keys = [...routes.keys()].filter((key) => prompt.includes(key)).sort((a, b) => b.length - a.length);
    return keys.length > 0 ? routes.get(keys[0]!)! : unrouted;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | null = null;
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
      } catch {
        body = null;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const api = path.endsWith('/messages') ? 'anthropic' : path.endsWith('/chat/completions') ? 'openai' : null;
      const titleCall = api === 'openai' && JSON.stringify(body?.messages ?? '').includes('title generator');
      const request: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, api, titleCall };
      requests.push(request);
      if (api === null || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      if (titleCall) {
        respond(api, { text: 'Patch repair' }, body ?? {}, req, res);
        return;
      }
      const script = scriptFor(body);
      script.calls.push(request);
      respond(api, take(script), body ?? {}, req, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    modelCalls: () => requests.filter((r) => r.api !== null && !r.titleCall),
    script(behaviours) {
      unrouted = { behaviours, next: 0, calls: [] };
    },
    route(key, behaviours) {
      const script: Script = { behaviours, next: 0, calls: [] };
      routes.set(key, script);
      return { modelCalls: () => [...script.calls] };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The text of the last user message that has any: tool results (claude sends them as user messages) have none. */
function promptOf(body: Record<string, unknown> | null): string {
  const messages = Array.isArray(body?.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  for (const message of messages.toReversed()) {
    if (message.role !== 'user') continue;
    const text =
      typeof message.content === 'string'
        ? message.content
        : Array.isArray(message.content)
          ? (message.content as { type?: unknown; text?: unknown }[])
              .filter((part) => part.type === 'text')
              .map((part) => String(part.text))
              .join('\n')
          : '';
    if (text !== '') return text;
  }
  return '';
}

function respond(
  api: 'anthropic' | 'openai',
  behaviour: StubBehaviour,
  body: Record<string, unknown>,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  if ('hang' in behaviour) return;
  if ('drop' in behaviour) {
    req.socket.destroy();
    return;
  }
  if ('status' in behaviour) {
    const kind = ERROR_TYPES[behaviour.status]!;
    const message = behaviour.message ?? kind.message;
    const payload =
      api === 'anthropic'
        ? { type: 'error', error: { type: kind.anthropic, message } }
        : { error: { message, type: kind.openai, code: kind.openai } };
    res
      .writeHead(behaviour.status, { 'content-type': 'application/json', 'retry-after': '0' })
      .end(JSON.stringify(payload));
    return;
  }
  const model = typeof body.model === 'string' ? body.model : 'stub-model';
  const streaming = body.stream === true;
  if (api === 'anthropic') anthropic(behaviour, model, streaming, res);
  else openai(behaviour, model, res);
}

function anthropic(behaviour: StubBehaviour, model: string, streaming: boolean, res: ServerResponse): void {
  const usage = { input_tokens: 10, output_tokens: 5 };
  const block =
    'text' in behaviour
      ? { type: 'text', text: behaviour.text }
      : 'toolCall' in behaviour
        ? { type: 'tool_use', id: 'toolu_stub1', name: behaviour.toolCall.name, input: behaviour.toolCall.input }
        : null;
  const stopReason = block?.type === 'tool_use' ? 'tool_use' : 'end_turn';
  const message = {
    id: 'msg_stub',
    type: 'message',
    role: 'assistant',
    model,
    content: [] as unknown[],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  if (!streaming) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content: block ? [block] : [], stop_reason: stopReason }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: Record<string, unknown>) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', { message });
  if ('stall' in behaviour) return;
  if (block?.type === 'tool_use') {
    send('content_block_start', { index: 0, content_block: { ...block, input: {} } });
    send('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
    });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: (block as { text: string }).text } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', {});
  res.end();
}

function openai(behaviour: StubBehaviour, model: string, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = { id: 'chatcmpl-stub', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const send = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, ...choice }], ...extra })}\n\n`);
  send({ delta: { role: 'assistant', content: '' }, finish_reason: null });
  if ('stall' in behaviour) return;
  let finish = 'stop';
  if ('toolCall' in behaviour) {
    finish = 'tool_calls';
    const call = {
      index: 0,
      id: 'call_stub1',
      type: 'function',
      function: { name: behaviour.toolCall.name, arguments: JSON.stringify(behaviour.toolCall.input) },
    };
    send({ delta: { tool_calls: [call] }, finish_reason: null });
  } else if ('text' in behaviour) {
    send({ delta: { content: behaviour.text }, finish_reason: null });
  }
  // finish_reason is what ends opencode's turn; without it opencode calls the model forever.
  send({ delta: {}, finish_reason: finish }, { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  res.write('data: [DONE]\n\n');
  res.end();
}
