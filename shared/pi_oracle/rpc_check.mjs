// Pi's own RpcClient drives the course's agent through every command of Pi's RPC docs.
//   PI_ORACLE_MODULES=... node rpc_check.mjs <python> <checkpoint> <work dir>
// The command list comes from the pinned package's docs: the "#### name" headings of 0.x's
// docs/rpc.md, or the "### name" headings of 1.x's docs/rpc-commands.md. Each response is
// checked against the shapes of its rpc-types.d.ts (written out below as small checkers; 1.x's
// additions are marked). Prints {"commands": [...checked], "events": [...seen], "problems": [...]}.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { piFile, rpcClient, version } from "./pi.mjs";

const [python, checkpoint, work] = process.argv.slice(2);
const here = fileURLToPath(new URL(".", import.meta.url));
const pi1 = Number(version.split(".")[0]) >= 1;  // Pi 1.x (@earendil-works): see PI16-FINDINGS.md
const docsName = existsSync(piFile("pi-coding-agent", "docs/rpc-commands.md")) ? "docs/rpc-commands.md" : "docs/rpc.md";
const docs = readFileSync(piFile("pi-coding-agent", docsName), "utf8");
const documented = docsName === "docs/rpc.md"
  ? [...docs.split("### Event Types")[0].matchAll(/^#### ([a-z_]+)$/gm)].map((m) => m[1])
  : [...docs.split("## Model object")[0].matchAll(/^### ([a-z_]+)$/gm)].map((m) => m[1]);

// ---- Pi's types as checkers: each returns a list of problems ("where: what") ----
const str = (v) => (typeof v === "string" ? [] : [`expected a string, got ${JSON.stringify(v)}`]);
const num = (v) => (typeof v === "number" ? [] : [`expected a number, got ${JSON.stringify(v)}`]);
const bool = (v) => (typeof v === "boolean" ? [] : [`expected a boolean, got ${JSON.stringify(v)}`]);
const oneOf = (...values) => (v) => (values.includes(v) ? [] : [`expected one of ${values}, got ${JSON.stringify(v)}`]);
const nullable = (check) => (v) => (v === null ? [] : check(v));
const optional = (check) => Object.assign((v) => (v === undefined ? [] : check(v)), { optional: true });
const array = (check) => (v) => (Array.isArray(v) ? v.flatMap((x, i) => check(x).map((p) => `[${i}]${p}`))
  : [`expected an array, got ${JSON.stringify(v)}`]);
const object = (fields) => (v) => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return [`expected an object, got ${JSON.stringify(v)}`];
  return Object.entries(fields).flatMap(([k, check]) =>
    (!(k in v) && !check.optional ? [`.${k}: missing`] : check(v[k]).map((p) => `.${k}${p.startsWith(".") || p.startsWith("[") ? "" : ": "}${p}`)));
};
const thinkingLevel = pi1 ? oneOf("off", "minimal", "low", "medium", "high", "xhigh", "max")
  : oneOf("off", "minimal", "low", "medium", "high", "xhigh");
const queueMode = oneOf("all", "one-at-a-time");
const model = object({ id: str, name: str, api: str, provider: str, baseUrl: str, reasoning: bool,
  input: array(oneOf("text", "image")),
  cost: object({ input: num, output: num, cacheRead: num, cacheWrite: num }),
  contextWindow: num, maxTokens: num });
const state = object({ model: optional(model), thinkingLevel, isStreaming: bool, isCompacting: bool,
  steeringMode: queueMode, followUpMode: queueMode, sessionFile: optional(str), sessionId: str,
  sessionName: optional(str), autoCompactionEnabled: bool, messageCount: num, pendingMessageCount: num });
const usage = object({ input: num, output: num, cacheRead: num, cacheWrite: num, totalTokens: num,
  cost: object({ input: num, output: num, cacheRead: num, cacheWrite: num, total: num }) });
const agentMessage = (m) => {
  const byRole = {
    user: object({ content: (c) => (typeof c === "string" ? [] : array(object({ type: oneOf("text", "image") }))(c)), timestamp: num }),
    assistant: object({ content: array(object({ type: oneOf("text", "thinking", "toolCall") })), api: str,
      provider: str, model: str, usage, stopReason: oneOf("stop", "length", "toolUse", "error", "aborted"), timestamp: num }),
    toolResult: object({ toolCallId: str, toolName: str, content: array(object({ type: oneOf("text", "image") })), isError: bool, timestamp: num }),
    bashExecution: object({ command: str, output: str, cancelled: bool, truncated: bool, timestamp: num }),
    custom: object({ customType: str, display: bool, timestamp: num }),
    branchSummary: object({ summary: str, fromId: str, timestamp: num }),
    compactionSummary: object({ summary: str, tokensBefore: num, timestamp: num }),
    // 1.x: the prompt and tools a transcript declares (pi-ai's SystemMessage)
    ...(pi1 ? { system: object({ content: (c) => (typeof c === "string" ? [] : array(object({ type: oneOf("text") }))(c)),
      sections: optional((s) => Object.entries(s ?? {}).flatMap(([k, v]) => (v === null ? [] : str(v).map((p) => `.${k}: ${p}`)))),
      toolsAdded: optional(array(object({ name: str, description: str, parameters: object({}) }))),
      toolsRemoved: optional(array(object({ name: str }))), timestamp: num }) } : {}),
  }[m?.role];
  return byRole ? byRole(m) : [`unknown message role ${JSON.stringify(m?.role)}`];
};
const cancelled = object({ cancelled: bool });
const sourceInfo = object({ path: str, source: str, scope: oneOf("user", "project", "temporary"),
  origin: oneOf("package", "top-level"), baseDir: optional(str) });
const none = "no data";
const shapes = {
  prompt: none, steer: none, follow_up: none, abort: none, new_session: cancelled, get_state: state,
  set_model: model,
  cycle_model: nullable(object({ model, thinkingLevel, isScoped: bool })),
  get_available_models: object({ models: array(model) }),
  set_thinking_level: none, cycle_thinking_level: nullable(object({ level: thinkingLevel })),
  set_steering_mode: none, set_follow_up_mode: none,
  compact: object({ summary: str, firstKeptEntryId: str, tokensBefore: num }),
  set_auto_compaction: none, set_auto_retry: none, abort_retry: none,
  bash: object({ output: str, exitCode: optional(num), cancelled: bool, truncated: bool, fullOutputPath: optional(str) }),
  abort_bash: none,
  get_session_stats: object({ sessionFile: optional(str), sessionId: str, userMessages: num,
    assistantMessages: num, toolCalls: num, toolResults: num, totalMessages: num,
    tokens: object({ input: num, output: num, cacheRead: num, cacheWrite: num, total: num }), cost: num,
    contextUsage: optional(object({ tokens: nullable(num), contextWindow: num, percent: nullable(num) })) }),
  export_html: object({ path: str }), switch_session: cancelled,
  fork: object({ text: str, cancelled: bool }), clone: cancelled,
  get_fork_messages: object({ messages: array(object({ entryId: str, text: str })) }),
  get_last_assistant_text: object({ text: nullable(str) }),
  set_session_name: none, get_messages: object({ messages: array(agentMessage) }),
  get_commands: object({ commands: array(object({ name: str, description: optional(str),
    source: oneOf("extension", "prompt", "skill"), sourceInfo })) }),
};
// Pi 1.x's rpc-types.d.ts: dispositions on prompt/steer/follow_up, a richer compact result,
// and four new commands (clear_queue, get_available_thinking_levels, get_entries, get_tree).
const entry = object({ type: str, id: str, parentId: nullable(str), timestamp: str });
const treeNode = (v) => object({ entry, children: array(treeNode), label: optional(str), labelTimestamp: optional(str) })(v);
if (pi1) {
  Object.assign(shapes, {
    prompt: object({ disposition: oneOf("handled", "queued", "started") }),
    steer: object({ disposition: oneOf("handled", "queued") }),
    follow_up: object({ disposition: oneOf("handled", "queued") }),
    compact: object({ summary: str, firstKeptEntryId: str, tokensBefore: num,
      estimatedTokensAfter: optional(num), usage: optional(usage), details: optional(() => []) }),
    clear_queue: object({ steering: array(str), followUp: array(str) }),
    get_available_thinking_levels: object({ levels: array(thinkingLevel) }),
    get_entries: object({ entries: array(entry), leafId: nullable(str) }),
    get_tree: object({ tree: array(treeNode), leafId: nullable(str) }),
  });
}
// Deliberate divergences (docs/divergences.md): what the check tolerates, and only that.
const KNOWN = { abort: "answers with the queued messages it handed back ({messages}); Pi's has no data" };

// ---- the run ----
const workspace = join(work, "rpc-workspace");
const agentDir = join(work, "rpc-agent");
mkdirSync(join(workspace, ".pi", "skills", "greet"), { recursive: true });
mkdirSync(join(agentDir, "prompts"), { recursive: true });
writeFileSync(join(workspace, ".pi", "skills", "greet", "SKILL.md"),
  "---\nname: greet\ndescription: Say hello properly.\n---\nSay hello.\n");
writeFileSync(join(agentDir, "prompts", "review.md"), "---\ndescription: Review the diff\n---\nReview it.\n");
writeFileSync(join(workspace, "notes.txt"), "hello from the workspace\n");

const client = new rpcClient.RpcClient({
  cliPath: join(here, "course_agent.mjs"), cwd: workspace,
  env: { PI_ORACLE_PYTHON: python, PYTHONPATH: checkpoint, PI_COURSE_DETERMINISTIC: "1" },
  args: ["--cwd", workspace, "--agent-dir", agentDir, "--trust-project", "--no-auto-retry"],
});
const responses = [];
const original = client.handleLine.bind(client);
client.handleLine = (line) => {
  try { const data = JSON.parse(line); if (data.type === "response") responses.push(data); } catch { /* not JSON */ }
  original(line);
};
const problems = [];
const checked = new Set();
const lastResponse = (command) => [...responses].reverse().find((r) => r.command === command);

async function call(command, run) {
  try {
    await run();
  } catch (error) {
    problems.push(`rpc ${command}: the client failed: ${error.message.split("\n")[0]}`);
  }
  const response = lastResponse(command);
  if (!response) { problems.push(`rpc ${command}: no response`); return; }
  checked.add(command);
  if (!response.success) { problems.push(`rpc ${command}: error response: ${response.error}`); return; }
  const shape = shapes[command];
  if (shape === none) {
    if ("data" in response && !KNOWN[command]) problems.push(`rpc ${command}: Pi's response has no data, got ${JSON.stringify(response.data).slice(0, 120)}`);
    return;
  }
  for (const problem of shape(response.data)) problems.push(`rpc ${command}: data${problem.startsWith(".") || problem.startsWith("[") ? "" : ": "}${problem}`);
}

// Pi 1.x's RpcClient.promptAndWait waits for `agent_settled` and, when prompt() throws (a response
// without data.disposition), leaves that wait to reject unhandled, which ends the process. Here a
// run ends at agent_settled or agent_end (then a short grace for agent_settled), the missing
// event is reported, and prompt()'s own failure is rethrown for call() to record.
async function promptAndWait(text) {
  if (!pi1) return client.promptAndWait(text, undefined, 20000);
  let settled = false;
  const ended = new Promise((resolve) => {
    let grace;
    const timer = setTimeout(finish, 20000);
    const off = client.onEvent((event) => {
      if (event.type === "agent_settled") { settled = true; finish(); }
      if (event.type === "agent_end" && !grace) grace = setTimeout(finish, 500);
    });
    function finish() { clearTimeout(timer); clearTimeout(grace); off(); resolve(); }
  });
  let failure = null;
  try { await client.prompt(text); } catch (error) { failure = error; }
  await ended;
  if (!settled) problems.push("rpc prompt: the run ended without an agent_settled event (Pi 1.x's RpcClient.waitForIdle and promptAndWait wait for it)");
  if (failure) throw failure;
}

await client.start();
const events = new Set();  // the event types the course sent (reported, not checked)
client.onEvent((event) => events.add(event.type));
let firstFile;
await call("get_state", async () => { firstFile = (await client.getState()).sessionFile; });
await call("get_available_models", () => client.getAvailableModels());
await call("set_model", () => client.setModel("mock", "mock-1"));
await call("cycle_model", () => client.cycleModel());
await call("set_thinking_level", () => client.setThinkingLevel("off"));
await call("cycle_thinking_level", () => client.cycleThinkingLevel());
await call("set_steering_mode", () => client.setSteeringMode("all"));
await call("set_follow_up_mode", () => client.setFollowUpMode("one-at-a-time"));
await call("set_auto_compaction", () => client.setAutoCompaction(false));
await call("set_auto_retry", () => client.setAutoRetry(false));
await call("abort_retry", () => client.abortRetry());
// Pi 1.x compacts only when something falls outside the kept recent 20,000 tokens: two long
// prompts (about 30,000 estimated tokens each) leave the first turn for `compact` to summarise.
const long = " and more words".repeat(8000);
await call("prompt", () => promptAndWait("hello there" + long));
await call("prompt", () => promptAndWait("and a second question" + long));
await call("steer", () => client.steer("steered while idle"));
await call("follow_up", () => client.followUp("a follow-up while idle"));
if (pi1) await call("clear_queue", () => client.clearQueue());
await call("abort", () => client.abort());
await call("get_last_assistant_text", () => client.getLastAssistantText());
await call("get_messages", () => client.getMessages());
if (pi1) {
  await call("get_available_thinking_levels", () => client.getAvailableThinkingLevels());
  let entries = [];
  await call("get_entries", async () => { entries = (await client.getEntries()).entries; });
  await call("get_entries", () => client.getEntries(entries[0]?.id));
  await call("get_tree", () => client.getTree());
}
let forkPoints = [];
await call("get_fork_messages", async () => { forkPoints = await client.getForkMessages(); });
await call("bash", () => client.bash("cat notes.txt"));
await call("abort_bash", () => client.abortBash());
await call("get_session_stats", () => client.getSessionStats());
await call("set_session_name", () => client.setSessionName("Oracle run"));
await call("compact", () => client.compact());
await call("export_html", () => client.exportHtml(join(work, "rpc-export.html")));
await call("get_commands", () => client.getCommands());
await call("fork", () => client.fork(forkPoints[1]?.entryId ?? "missing"));
await call("clone", () => client.clone());
await call("switch_session", () => client.switchSession(firstFile));
await call("new_session", () => client.newSession());
await call("get_state", () => client.getState());
await client.stop();

for (const command of documented) {
  if (!checked.has(command)) problems.push(`rpc ${command}: documented in Pi's ${docsName}, not exercised`);
}
for (const command of Object.keys(shapes)) {
  if (!documented.includes(command)) problems.push(`rpc ${command}: checked here but not in Pi's ${docsName}`);
}
process.stdout.write(JSON.stringify({ commands: [...checked], documented, events: [...events].sort(), problems }));
