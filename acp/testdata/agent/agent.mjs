// A scripted ACP agent on the official TypeScript SDK, for chatls's acp
// tests. The prompt's first word names the scenario; ACP_TEST_* variables
// shape the start (see the Go tests in acp/*_test.go).
import * as acp from "@agentclientprotocol/sdk/unstable";
import { Readable, Writable } from "node:stream";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const env = process.env;
const stateDir = env.ACP_TEST_STATE || ""; // where sessions live across processes
// ACP_TEST_LOG: a file each session request is appended to, one line
// "METHOD SESSION_ID PID", so a test sees which session a chatls process
// opened (new or loaded) and which one its prompts went to.
const record = (method, sessionId) => {
  if (env.ACP_TEST_LOG) fs.appendFileSync(env.ACP_TEST_LOG, `${method} ${sessionId} ${process.pid}\n`);
};

if (env.ACP_TEST_PIDFILE) {
  // A grandchild in the agent's group: Close must end it too.
  const child = spawn("sleep", ["300"], { stdio: "ignore" });
  fs.writeFileSync(env.ACP_TEST_PIDFILE, `${process.pid} ${child.pid}\n`);
}
if (env.ACP_TEST_INIT === "exit") {
  process.stderr.write("fatal: no credentials found; run `agent login`\n");
  process.exit(3);
}

const sessions = new Map(); // id → {history: [text]}
const cancels = new Map(); // session id → resolve of the turn's cancel
let counter = 0;
let clientCapabilities = null; // as initialize got them

function saveSession(id) {
  if (stateDir) fs.writeFileSync(path.join(stateDir, id + ".json"), JSON.stringify(sessions.get(id)));
}
function loadSession(id) {
  const file = stateDir && path.join(stateDir, id + ".json");
  if (!file || !fs.existsSync(file)) return null;
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

const update = (client, sessionId, u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
const say = (client, sessionId, text) =>
  update(client, sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
const think = (client, sessionId, text) =>
  update(client, sessionId, { sessionUpdate: "agent_thought_chunk", content: { type: "text", text } });
const never = () => new Promise(() => {});

const scenarios = {
  async stream({ client, sessionId }) {
    await think(client, sessionId, "The user wants ");
    await think(client, sessionId, "a greeting.");
    await say(client, sessionId, "Hello, ");
    await say(client, sessionId, "world.\n@You: not a role\n");
    return "end_turn";
  },

  // Claude Code's shape: the same tool_call twice (empty input, then the
  // real one), a permission, then the file read through the client.
  async read({ client, sessionId, args }) {
    const file = args[0];
    const toolCallId = "toolu_read_1";
    await update(client, sessionId, { sessionUpdate: "tool_call", toolCallId, title: "Read", kind: "read", status: "pending", rawInput: {} });
    await update(client, sessionId, {
      sessionUpdate: "tool_call", toolCallId, title: `Read ${file}`, kind: "read", status: "pending",
      rawInput: { path: file, limit: 2 }, locations: [{ path: file, line: 1 }],
    });
    const answer = await client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId, title: `Read ${file}`, kind: "read", rawInput: { path: file, limit: 2 } },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "always", name: "Allow always", kind: "allow_always" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    if (answer.outcome.outcome === "cancelled") {
      return "cancelled";
    }
    if (answer.outcome.optionId === "reject") {
      await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "failed",
        content: [{ type: "content", content: { type: "text", text: "The user rejected reading the file." } }] });
      await say(client, sessionId, "I will not read it.");
      return "end_turn";
    }
    await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress" });
    const { content } = await client.request(acp.methods.client.fs.readTextFile, { sessionId, path: file, line: 1, limit: 2 });
    await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed",
      content: [{ type: "content", content: { type: "text", text: content } }] });
    await say(client, sessionId, `The file starts with ${JSON.stringify(content.split("\n")[0])} (${answer.outcome.optionId}).`);
    return "end_turn";
  },

  async write({ client, sessionId, args }) {
    const file = args[0];
    const toolCallId = "toolu_edit_1";
    const oldText = fs.readFileSync(file, "utf8");
    const newText = oldText.replace("world", "ACP");
    await update(client, sessionId, { sessionUpdate: "tool_call", toolCallId, title: `Edit ${path.basename(file)}`, kind: "edit", status: "in_progress",
      rawInput: { file_path: file, old_string: "world", new_string: "ACP" } });
    await client.request(acp.methods.client.fs.writeTextFile, { sessionId, path: file, content: newText });
    await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed",
      content: [{ type: "diff", path: file, oldText, newText }] });
    await say(client, sessionId, "Edited.");
    return "end_turn";
  },

  // `writeopen FILE OLD NEW`: a write of a file as the client has it
  // (the editor's buffer when it is open there), read through the
  // client, OLD replaced by NEW, written through it.
  async writeopen({ client, sessionId, args }) {
    const [file, from, to] = args;
    const toolCallId = "toolu_edit_open";
    await update(client, sessionId, { sessionUpdate: "tool_call", toolCallId, title: `Edit ${path.basename(file)}`, kind: "edit", status: "in_progress",
      rawInput: { file_path: file, old_string: from, new_string: to } });
    const { content: oldText } = await client.request(acp.methods.client.fs.readTextFile, { sessionId, path: file });
    const newText = oldText.replace(from, to);
    try {
      await client.request(acp.methods.client.fs.writeTextFile, { sessionId, path: file, content: newText });
    } catch (e) {
      await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "failed",
        content: [{ type: "content", content: { type: "text", text: String(e.message) } }] });
      await say(client, sessionId, `Write failed: ${e.message}`);
      return "end_turn";
    }
    await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed",
      content: [{ type: "diff", path: file, oldText, newText }] });
    await say(client, sessionId, "Edited.");
    return "end_turn";
  },

  async terminal({ client, sessionId }) {
    const toolCallId = "toolu_bash_1";
    await update(client, sessionId, { sessionUpdate: "tool_call", toolCallId, title: "`echo hi; echo there`", kind: "execute", status: "pending",
      rawInput: { command: "echo hi; echo there" } });
    // Claude Code's shape: the whole shell line in command, no args.
    const { terminalId } = await client.request(acp.methods.client.terminal.create, { sessionId, command: "echo hi; echo there", outputByteLimit: 1000 });
    await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress", content: [{ type: "terminal", terminalId }] });
    const exit = await client.request(acp.methods.client.terminal.waitForExit, { sessionId, terminalId });
    const out = await client.request(acp.methods.client.terminal.output, { sessionId, terminalId });
    await client.request(acp.methods.client.terminal.release, { sessionId, terminalId });
    await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed", rawOutput: { exitCode: exit.exitCode } });
    await say(client, sessionId, `Exit ${exit.exitCode}, output ${JSON.stringify(out.output)}.`);
    return "end_turn";
  },

  // A command that runs until the agent creates STOP: the agent follows
  // its output with terminal/output while it runs (as Claude Code's
  // BashOutput does), then ends it and reads the rest.
  async liveterminal({ client, sessionId, args }) {
    const stop = args[0];
    const toolCallId = "toolu_bash_live";
    const command = `echo first; while [ ! -e '${stop}' ]; do sleep 0.05; done; echo second`;
    await update(client, sessionId, { sessionUpdate: "tool_call", toolCallId, title: "follow", kind: "execute", status: "pending", rawInput: { command } });
    const { terminalId } = await client.request(acp.methods.client.terminal.create, { sessionId, command, outputByteLimit: 1000 });
    let live = "";
    const deadline = Date.now() + 30000;
    for (;;) {
      const out = await client.request(acp.methods.client.terminal.output, { sessionId, terminalId });
      if (out.exitStatus) { live = "(ended before its output was seen: " + JSON.stringify(out.output) + ")"; break; }
      if (out.output.includes("first")) { live = out.output; break; }
      if (Date.now() > deadline) { live = "(nothing within 30 s)"; break; }
      await new Promise((r) => setTimeout(r, 50)); // terminal/output has no push: agents poll it
    }
    fs.writeFileSync(stop, "");
    const exit = await client.request(acp.methods.client.terminal.waitForExit, { sessionId, terminalId });
    const out = await client.request(acp.methods.client.terminal.output, { sessionId, terminalId });
    await client.request(acp.methods.client.terminal.release, { sessionId, terminalId });
    await update(client, sessionId, { sessionUpdate: "tool_call_update", toolCallId, status: "completed", rawOutput: { exitCode: exit.exitCode } });
    await say(client, sessionId, `While running: ${JSON.stringify(live)}. At the end: ${JSON.stringify(out.output.split("\n").slice(0, 2).join("\n"))}.`);
    return "end_turn";
  },

  async plan({ client, sessionId }) {
    const entries = (s1, s2) => [
      { content: "Read the code", priority: "high", status: s1 },
      { content: "Fix the bug", priority: "medium", status: s2 },
    ];
    await update(client, sessionId, { sessionUpdate: "plan", entries: entries("in_progress", "pending") });
    await say(client, sessionId, "Working on it.");
    await update(client, sessionId, { sessionUpdate: "plan", entries: entries("completed", "pending") });
    return "end_turn";
  },

  async usage({ client, sessionId }) {
    await say(client, sessionId, "Counting.");
    await update(client, sessionId, { sessionUpdate: "usage_update", used: 1200, size: 200000, cost: { amount: 0.25, currency: "USD" } });
    return { stopReason: "end_turn", usage: { inputTokens: 100, outputTokens: 20, totalTokens: 130, cachedReadTokens: 10 } };
  },

  async other({ client, sessionId }) {
    await update(client, sessionId, { sessionUpdate: "available_commands_update", availableCommands: [] });
    await say(client, sessionId, "After.");
    return "end_turn";
  },

  async remember({ client, sessionId, args }) {
    await say(client, sessionId, "Noted.");
    return "end_turn";
  },

  async recall({ client, sessionId }) {
    const s = sessions.get(sessionId);
    await say(client, sessionId, `You said: ${s.history.filter((h) => h.startsWith("remember")).join("; ")}`);
    return "end_turn";
  },

  async cancel({ client, sessionId, cancelled }) {
    await say(client, sessionId, "Thinking hard");
    await cancelled;
    await say(client, sessionId, "… stopped.");
    return "cancelled";
  },

  // A permission pending when the turn is cancelled: ACP says the client
  // answers it "cancelled".
  async cancelpermission({ client, sessionId }) {
    await update(client, sessionId, { sessionUpdate: "tool_call", toolCallId: "toolu_p", title: "Bash", kind: "execute", status: "pending", rawInput: { command: "rm -rf /tmp/x" } });
    const answer = await client.request(acp.methods.client.session.requestPermission, {
      sessionId, toolCall: { toolCallId: "toolu_p" },
      options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }, { optionId: "reject", name: "Reject", kind: "reject_once" }],
    });
    await say(client, sessionId, `permission: ${answer.outcome.outcome}`);
    return "cancelled";
  },

  async ignorecancel({ client, sessionId }) {
    await say(client, sessionId, "I never stop.");
    return never();
  },

  async exit({ client, sessionId }) {
    await say(client, sessionId, "Starting…");
    process.stderr.write("debug: loading\nError: the model is overloaded\n");
    process.exit(1);
  },

  async garbage({ client, sessionId }) {
    await say(client, sessionId, "Starting…");
    process.stdout.write("Loading model weights...\n");
    return never();
  },

  async silent() {
    return never();
  },
};

const app = acp.agent({ name: "chatls-test-agent" })
  .onRequest(acp.methods.agent.initialize, async ({ params }) => {
    if (env.ACP_TEST_INIT === "silent") return never();
    clientCapabilities = params.clientCapabilities;
    return {
      protocolVersion: env.ACP_TEST_VERSION ? Number(env.ACP_TEST_VERSION) : 1,
      agentCapabilities: { loadSession: env.ACP_TEST_NO_LOAD ? false : true },
      agentInfo: { name: "chatls-test-agent", version: "1.0.0" },
      authMethods: [],
    };
  })
  .onRequest(acp.methods.agent.session.new, async ({ params }) => {
    const sessionId = `sess-${process.pid}-${++counter}`;
    sessions.set(sessionId, { cwd: params.cwd, history: [] });
    saveSession(sessionId);
    record("session/new", sessionId);
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    record("session/load", params.sessionId);
    const s = loadSession(params.sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    sessions.set(params.sessionId, s);
    for (const h of s.history) {
      await update(client, params.sessionId, { sessionUpdate: "user_message_chunk", content: { type: "text", text: h } });
    }
    return {};
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    record("session/prompt", sessionId);
    const s = sessions.get(sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(sessionId);
    const text = params.prompt.filter((b) => b.type === "text").map((b) => b.text).join(" ");
    s.history.push(text);
    saveSession(sessionId);
    const links = params.prompt.filter((b) => b.type === "resource_link");
    const [name, ...args] = text.trim().split(/\s+/);
    let onCancel;
    const cancelled = new Promise((resolve) => (onCancel = resolve));
    cancels.set(sessionId, onCancel);
    try {
      if (name === "caps") {
        await say(client, sessionId, JSON.stringify(clientCapabilities));
        return { stopReason: "end_turn" };
      }
      if (name === "echo") {
        await say(client, sessionId, JSON.stringify(params.prompt));
        return { stopReason: "end_turn" };
      }
      const run = scenarios[name];
      if (!run) {
        await say(client, sessionId, `unknown scenario ${name}; links: ${links.map((l) => l.uri).join(",")}`);
        return { stopReason: "end_turn" };
      }
      const r = await run({ client, sessionId, args, cancelled });
      return typeof r === "string" ? { stopReason: r } : r;
    } finally {
      cancels.delete(sessionId);
    }
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    cancels.get(params.sessionId)?.();
  });

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const conn = app.connect(stream);
await conn.closed;
process.exit(0);
