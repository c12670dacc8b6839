// Drives `iac-code acp` with the official TypeScript ACP SDK (@agentclientprotocol/sdk) and
// reports, as one JSON object on stdout, what happened and every schema problem seen.
//
//   node acp_ts_client.mjs CONFIG.json [--self-check]
//
// CONFIG: {"sdk": "<dir holding node_modules/@agentclientprotocol/sdk>", "command": [...],
//          "env": {...}, "cwd": "<project dir>", "mcpServers": [...]}
//
// Schema problems are of three kinds, all collected in `errors`:
// - what the SDK itself reports: its console.error/console.warn (invalid messages, a
//   notification whose params fail the schema), a request of the agent it answers with an
//   error (e.g. -32602 for session/request_permission params that fail the schema);
// - a response or notification that the SDK's own zod schemas only accept by salvaging a
//   field (they replace an invalid value by a default instead of failing): the raw message is
//   parsed with the SDK's schema for its method and every value sent must come out unchanged
//   (keys the schema does not know are listed in `unknownFields`, not counted as errors);
// - a request of ours that the agent rejects when the flow expects it to succeed.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import path from "node:path";
import { pathToFileURL } from "node:url";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const sdkRoot = path.join(config.sdk, "node_modules", "@agentclientprotocol", "sdk");
// The unstable entrypoint: stable v1 plus the features this agent also serves (session fork,
// resume and close, usage in prompt results, the model selector, env-var auth methods).
const acp = await import(pathToFileURL(path.join(sdkRoot, "dist", "v1", "unstable", "acp.js")).href);
const z = await import(pathToFileURL(path.join(sdkRoot, "dist", "v1", "unstable", "schema", "zod.gen.js")).href);

const errors = [];
const report = {};
for (const level of ["error", "warn"]) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    errors.push(`console.${level}: ${args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ")}`);
    original(...args);
  };
}

// ----- the raw tap: every message the agent writes, checked against the SDK's schemas -----

const RESPONSE_SCHEMAS = {
  initialize: z.zInitializeResponse,
  "session/new": z.zNewSessionResponse,
  "session/load": z.zLoadSessionResponse,
  "session/list": z.zListSessionsResponse,
  "session/prompt": z.zPromptResponse,
  "session/close": z.zCloseSessionResponse,
};
const REQUEST_SCHEMAS = {
  "session/update": z.zSessionNotification,
  "session/request_permission": z.zRequestPermissionRequest,
  "fs/read_text_file": z.zReadTextFileRequest,
  "fs/write_text_file": z.zWriteTextFileRequest,
  "terminal/create": z.zCreateTerminalRequest,
  "terminal/output": z.zTerminalOutputRequest,
  "terminal/wait_for_exit": z.zWaitForTerminalExitRequest,
  "terminal/kill": z.zKillTerminalRequest,
  "terminal/release": z.zReleaseTerminalRequest,
};
const sentMethods = new Map(); // our request id -> method
const seenMethods = {};

function stripUndefined(value) {
  return JSON.parse(JSON.stringify(value));
}

// The object schemas a (wrapped, piped, unioned) zod v4 schema may stand for.
function objectShapes(schema, seen = new Set()) {
  const def = schema?._zod?.def;
  if (!def || seen.has(schema)) return [];
  seen.add(schema);
  switch (def.type) {
    case "object":
      return [def.shape];
    case "optional": case "nullable": case "default": case "catch": case "prefault": case "readonly": case "nonoptional":
      return objectShapes(def.innerType, seen);
    case "pipe":
      return [...objectShapes(def.in, seen), ...objectShapes(def.out, seen)];
    case "union":
      return def.options.flatMap((o) => objectShapes(o, seen));
    case "intersection":
      return [...objectShapes(def.left, seen), ...objectShapes(def.right, seen)];
    case "lazy":
      return objectShapes(def.getter(), seen);
    default:
      return [];
  }
}

function arrayElements(schema, seen = new Set()) {
  const def = schema?._zod?.def;
  if (!def || seen.has(schema)) return [];
  seen.add(schema);
  if (def.type === "array") return [def.element];
  const inner = [def.innerType, def.in, def.out, def.left, def.right, ...(def.options ?? [])].filter(Boolean);
  if (def.type === "lazy") inner.push(def.getter());
  return inner.flatMap((s) => arrayElements(s, seen));
}

// Differences between what was sent and what the SDK's schema made of it. A value that was
// sent and came out different or was dropped although the schema knows its key (salvaged to a
// default, coerced) is a schema error; a key no schema of that place knows is dropped by zod
// and only listed in `unknownFields` (ACP lets receivers ignore what they do not know); keys
// the parse adds are defaults, not differences.
function differences(sent, parsed, schemas, where, out) {
  if (sent === parsed) return;
  if (sent === null || parsed === null || parsed === undefined || typeof sent !== "object" || typeof parsed !== "object" || Array.isArray(sent) !== Array.isArray(parsed)) {
    out.changed.push(`${where}: sent ${JSON.stringify(sent)?.slice(0, 200)}, the schema made it ${JSON.stringify(parsed)?.slice(0, 200)}`);
    return;
  }
  if (Array.isArray(sent)) {
    if (sent.length !== parsed.length) out.changed.push(`${where}: ${sent.length} items sent, ${parsed.length} kept`);
    const elements = schemas.flatMap((s) => arrayElements(s));
    sent.forEach((item, i) => i < parsed.length && differences(item, parsed[i], elements, `${where}[${i}]`, out));
    return;
  }
  const shapes = schemas.flatMap((s) => objectShapes(s));
  for (const key of Object.keys(sent)) {
    const children = shapes.filter((shape) => key in shape).map((shape) => shape[key]);
    if (!(key in parsed)) {
      if (children.length) out.changed.push(`${where}.${key}: sent ${JSON.stringify(sent[key])?.slice(0, 200)}, dropped by the schema`);
      else out.unknown.push(`${where}.${key}`);
    } else {
      differences(sent[key], parsed[key], children, `${where}.${key}`, out);
    }
  }
}

const unknownFields = new Set();

function check(what, schema, value) {
  if (!schema) return;
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) {
    errors.push(`${what}: ${parsed.error.message}`);
    return;
  }
  const out = { changed: [], unknown: [] };
  differences(stripUndefined(value ?? {}), stripUndefined(parsed.data), [schema], what, out);
  errors.push(...out.changed);
  out.unknown.forEach((field) => unknownFields.add(field));
}

function inspect(message) {
  if (message.method) {
    seenMethods[message.method] = (seenMethods[message.method] ?? 0) + 1;
    check(`${message.method} params`, REQUEST_SCHEMAS[message.method], message.params);
  } else if ("id" in message) {
    const method = sentMethods.get(message.id);
    if (message.error) return; // checked where the flow expects success
    check(`${method} result`, RESPONSE_SCHEMAS[method], message.result);
  }
}

const outgoingTap = (line) => {
  try {
    const message = JSON.parse(line);
    if (message.method && "id" in message) sentMethods.set(message.id, message.method);
  } catch {}
};

// `node acp_ts_client.mjs CONFIG --self-check`: the checker on known-bad messages, no agent.
if (process.argv[3] === "--self-check") {
  const cases = {
    salvaged: { sessionId: "s", modes: 5 },
    skipped: { sessionId: "s", configOptions: [{ bogus: 1 }] },
    unknown: { sessionId: "s", extra: 1 },
    fine: { sessionId: "s", configOptions: [] },
  };
  const verdicts = {};
  for (const [name, value] of Object.entries(cases)) {
    errors.length = 0;
    unknownFields.clear();
    check("session/new result", z.zNewSessionResponse, value);
    verdicts[name] = { errors: [...errors], unknown: [...unknownFields] };
  }
  check("session/prompt result", z.zPromptResponse, { stopReason: "bogus" });
  verdicts.invalid = { errors: [...errors].slice(-1) };
  process.stdout.write(JSON.stringify(verdicts) + "\n");
  process.exit(0);
}

// ----- the agent process -----

const child = spawn(config.command[0], config.command.slice(1), {
  cwd: config.cwd,
  env: config.env,
  stdio: ["pipe", "pipe", "inherit"],
});
let pending = "";
child.stdout.on("data", (chunk) => {
  pending += chunk.toString("utf8");
  let cut;
  while ((cut = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, cut);
    pending = pending.slice(cut + 1);
    if (line.trim()) {
      try {
        inspect(JSON.parse(line));
      } catch (e) {
        errors.push(`not JSON on stdout: ${line.slice(0, 200)}`);
      }
    }
  }
});
const toAgent = new WritableStream({
  write(chunk) {
    const text = Buffer.from(chunk).toString("utf8");
    for (const line of text.split("\n")) if (line.trim()) outgoingTap(line);
    return new Promise((resolve, reject) => child.stdin.write(chunk, (e) => (e ? reject(e) : resolve())));
  },
  close() {
    child.stdin.end();
  },
});
const stream = acp.ndJsonStream(toAgent, Readable.toWeb(child.stdout));

// ----- the client -----

const updates = {}; // sessionId -> [update]
const permissionAnswers = [];
const permissions = [];
const files = config.files ?? {};
const written = {};
const terminals = [];

const app = acp
  .client({ name: "iac-code-conformance" })
  .onNotification("session/update", ({ params }) => {
    (updates[params.sessionId] ??= []).push(params.update);
  })
  .onRequest("session/request_permission", ({ params }) => {
    permissions.push({ title: params.toolCall.title, kind: params.toolCall.kind, options: params.options.map((o) => o.kind) });
    const wanted = permissionAnswers.shift() ?? "reject_once";
    const option = params.options.find((o) => o.kind === wanted);
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  })
  .onRequest("fs/read_text_file", ({ params }) => {
    return { content: files[params.path] ?? readFileSync(params.path, "utf8") };
  })
  .onRequest("fs/write_text_file", ({ params }) => {
    written[params.path] = params.content;
    return {};
  })
  .onRequest("terminal/create", ({ params }) => {
    const id = `term-${terminals.length + 1}`;
    const env = { ...process.env, ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])) };
    const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? config.cwd, env, shell: false });
    const t = { id, proc, output: "", exit: null, command: params.command, args: params.args, released: false, killed: false };
    proc.stdout.on("data", (d) => (t.output += d));
    proc.stderr.on("data", (d) => (t.output += d));
    t.done = new Promise((resolve) =>
      proc.on("close", (code, signal) => {
        t.exit = { exitCode: code, signal: signal ?? null };
        resolve(t.exit);
      }),
    );
    terminals.push(t);
    return { terminalId: id };
  })
  .onRequest("terminal/output", ({ params }) => {
    const t = terminals.find((x) => x.id === params.terminalId);
    return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
  })
  .onRequest("terminal/wait_for_exit", async ({ params }) => {
    const t = terminals.find((x) => x.id === params.terminalId);
    return await t.done;
  })
  .onRequest("terminal/kill", ({ params }) => {
    const t = terminals.find((x) => x.id === params.terminalId);
    t.killed = true;
    t.proc.kill("SIGKILL");
    return {};
  })
  .onRequest("terminal/release", ({ params }) => {
    const t = terminals.find((x) => x.id === params.terminalId);
    t.released = true;
    if (t.exit === null) t.proc.kill("SIGKILL");
    return {};
  });

function texts(sessionId) {
  return (updates[sessionId] ?? [])
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text);
}

function toolStatuses(sessionId) {
  const out = {};
  for (const u of updates[sessionId] ?? []) {
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    const entry = (out[u.toolCallId] ??= { title: null, status: null, contentTypes: [], text: "" });
    if (u.status) entry.status = u.status;
    if (u.title) entry.title = u.title;
    for (const c of u.content ?? []) {
      if (!entry.contentTypes.includes(c.type)) entry.contentTypes.push(c.type);
      if (c.type === "content" && c.content?.type === "text") entry.text += c.content.text;
    }
  }
  return Object.values(out);
}

async function expectOk(what, promise) {
  try {
    return await promise;
  } catch (e) {
    errors.push(`${what} failed: ${e?.code ?? ""} ${e?.message ?? e} ${JSON.stringify(e?.data ?? null)}`);
    return null;
  }
}

const caps = config.clientCapabilities ?? { fs: { readTextFile: false, writeTextFile: false }, terminal: false };

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await expectOk("initialize", ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: caps, clientInfo: { name: "conformance", version: "1" } }));
    report.agentCapabilities = init?.agentCapabilities;
    report.authMethods = init?.authMethods;
    if (config.initializeOnly) return;
    const created = await expectOk("session/new", ctx.request("session/new", { cwd: config.cwd, mcpServers: config.mcpServers ?? [] }));
    const sid = created.sessionId;
    report.sessionId = sid;
    report.prompts = {};
    for (const [name, answers, cancelOn] of config.prompts) {
      permissionAnswers.push(...answers);
      const before = (updates[sid] ?? []).length;
      const termsBefore = terminals.length;
      if (cancelOn) {
        // cancel once the turn shows its first text ("message") or a terminal it started has
        // printed ("terminal"; a sandbox killed while it is still setting up, before the command
        // runs, can leave the command running: bwrap's --die-with-parent is not yet armed)
        const turn = ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: name }] });
        const started = () =>
          cancelOn === "terminal"
            ? terminals.slice(termsBefore).some((t) => t.output !== "")
            : (updates[sid] ?? []).slice(before).some((u) => u.sessionUpdate === "agent_message_chunk");
        while (!started()) {
          await new Promise((r) => setTimeout(r, 20));
        }
        await ctx.notify("session/cancel", { sessionId: sid });
        const result = await expectOk("cancelled prompt", turn);
        report.prompts[name] = { stopReason: result?.stopReason, chunks: (updates[sid] ?? []).length - before };
        continue;
      }
      const result = await expectOk(`prompt ${name}`, ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: name }] }));
      const fresh = (updates[sid] ?? []).slice(before);
      report.prompts[name] = {
        stopReason: result?.stopReason,
        chunks: fresh.filter((u) => u.sessionUpdate === "agent_message_chunk").length,
        kinds: [...new Set(fresh.map((u) => u.sessionUpdate))],
      };
    }
    if (config.promptsOnly) {
      report.text = texts(sid).join("");
      report.tools = toolStatuses(sid);
      report.permissions = permissions;
      return;
    }
    report.text = texts(sid).join("");
    report.tools = toolStatuses(sid);
    report.permissions = permissions;
    const listed = await expectOk("session/list", ctx.request("session/list", { cwd: config.cwd }));
    report.listed = (listed?.sessions ?? []).map((s) => s.sessionId);
    const replayedBefore = (updates[sid] ?? []).length;
    await expectOk("session/load", ctx.request("session/load", { sessionId: sid, cwd: config.cwd, mcpServers: [] }));
    const replay = (updates[sid] ?? []).slice(replayedBefore);
    report.replay = {
      kinds: [...new Set(replay.map((u) => u.sessionUpdate))],
      userText: replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text),
    };
    await expectOk("session/close", ctx.request("session/close", { sessionId: sid }));
  });
} catch (e) {
  errors.push(`connection: ${e?.message ?? e}`);
}
child.stdin.end();
await new Promise((resolve) => {
  if (child.exitCode !== null) return resolve();
  // the timer must not outlive the agent: a pending timer keeps Node running until it fires
  const timer = setTimeout(() => {
    child.kill("SIGKILL");
    resolve();
  }, 10000);
  child.on("exit", () => {
    clearTimeout(timer);
    resolve();
  });
});
report.errors = errors;
report.unknownFields = [...unknownFields].sort();
report.seenMethods = seenMethods;
report.written = written;
report.terminals = terminals.map((t) => ({ command: t.command, args: t.args, released: t.released, killed: t.killed, exit: t.exit }));
report.agentExit = child.exitCode;
process.stdout.write(JSON.stringify(report) + "\n");
