// Pi's AgentSession on generated projects: which system messages does a session record?
//   PI_ORACLE_MODULES=... node session_check.mjs <cases.json> <scratch>  -> [[message, ...], ...]
// Each case runs in <scratch>/case-N: a project folder and an agent folder, files written,
// then its steps: "prompt" (one run; the model's reply is scripted), {write: {path: text}}
// (a file changes, "" removes it) and "reopen" (a new AgentSession on the same session file).
// The answer is every message of the session file, in order.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { agent as pi, eventStream as es, sessionManager as sm } from "./pi.mjs";

const [casesFile, scratch] = process.argv.slice(2);
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const model = { id: "mock-1", name: "mock", provider: "mock", api: "openai-completions",
  baseUrl: "http://127.0.0.1:9", reasoning: false, input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 200000, maxTokens: 1000 };
const reply = () => {
  const s = es.createAssistantMessageEventStream();
  const message = { role: "assistant", content: [{ type: "text", text: "ok" }], api: "openai-completions",
    provider: "mock", model: "mock-1", usage: zero, stopReason: "stop", timestamp: 1 };
  queueMicrotask(() => { s.push({ type: "done", reason: "stop", message }); s.end(message); });
  return s;
};

function write(root, files) {
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, path);
    if (text === "") { rmSync(file, { force: true }); continue; }
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

async function open(folder, file) {
  const cwd = join(folder, "project"), agentDir = join(folder, "agent");
  const sessionManager = file ? sm.SessionManager.open(file, join(folder, "sessions"))
    : sm.SessionManager.create(cwd, join(folder, "sessions"));
  const { session } = await pi.createAgentSession({ cwd, agentDir, model, sessionManager });
  session._modelRuntime.hasConfiguredAuth = () => true;  // the scripted model needs no key
  session.agent.streamFunction = reply;
  return { session, sessionManager };
}

const answer = [];
for (const [number, c] of JSON.parse(readFileSync(casesFile, "utf8")).entries()) {
  const folder = join(scratch, `case-${number}`);
  mkdirSync(join(folder, "project"), { recursive: true });
  mkdirSync(join(folder, "agent"), { recursive: true });
  write(folder, c.files);
  let { session, sessionManager } = await open(folder);
  for (const step of c.steps) {
    if (step === "prompt") await session.prompt(`prompt ${number}`);
    else if (step === "reopen") {
      const file = sessionManager.getSessionFile();
      session.dispose?.();
      ({ session, sessionManager } = await open(folder, file));
    } else write(folder, step.write);
  }
  const file = sessionManager.getSessionFile();
  answer.push(readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "message").map((entry) => entry.message));
  session.dispose?.();
}
process.stdout.write(JSON.stringify(answer));
