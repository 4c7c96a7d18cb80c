// Real Pi's Agent (npm @earendil-works/pi-agent-core) on a fake stream function: the same
// script as loop_bench.py's "agent" path (N-1 turns each calling one `echo` tool, then a text
// reply), so the two per-turn costs can be compared side by side. Run by loop_bench.py:
//     node pi_loop_bench.mjs <node_modules folder> <turns>
// prints {"turns": N, "cpu_ms": ..., "wall_ms": ..., "messages": M} on one line.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, turnsText] = process.argv.slice(2);
const turns = Number(turnsText);
const load = async (name) => {  // an ESM package's "." export, from that node_modules folder
  const folder = path.join(modules, name);
  const manifest = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
  const entry = manifest.exports?.["."]?.import ?? manifest.exports?.["."]?.default ?? manifest.main;
  return import(pathToFileURL(path.join(folder, typeof entry === "string" ? entry : entry.default)).href);
};
const { Agent } = await load("@earendil-works/pi-agent-core");
const { createAssistantMessageEventStream } = await load("@earendil-works/pi-ai");
const { Type } = await load("typebox");

const usage = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 110,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const model = { id: "fake", name: "fake", api: "fake", provider: "fake", baseUrl: "",
  reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1e9, maxTokens: 1000 };

let request = 0;
function streamFn() {
  const i = request++;
  const stream = createAssistantMessageEventStream();
  const empty = { role: "assistant", content: [], api: "fake", provider: "fake", model: "fake",
    usage, stopReason: "stop", timestamp: 0 };
  queueMicrotask(() => {
    if (i < turns - 1) {
      const call = { type: "toolCall", id: `c${i}`, name: "echo", arguments: { n: i } };
      const full = { ...empty, content: [call], stopReason: "toolUse" };
      stream.push({ type: "start", partial: empty });
      stream.push({ type: "toolcall_start", contentIndex: 0, partial: full });
      stream.push({ type: "toolcall_end", contentIndex: 0, toolCall: call, partial: full });
      stream.push({ type: "done", reason: "toolUse", message: full });
    } else {
      const full = { ...empty, content: [{ type: "text", text: "done" }] };
      stream.push({ type: "start", partial: empty });
      stream.push({ type: "done", reason: "stop", message: full });
    }
  });
  return stream;
}

const echo = {
  name: "echo", label: "echo", description: "echo",
  parameters: Type.Object({ n: Type.Number() }),
  execute: async (id, params) => ({ content: [{ type: "text", text: `ok ${params.n}` }], details: {} }),
};

const agent = new Agent({ initialState: { model, tools: [echo], systemPrompt: "bench" }, streamFn });
const cpu = process.cpuUsage();
const wall = performance.now();
await agent.prompt("go");
const used = process.cpuUsage(cpu);
const wallMs = performance.now() - wall;
console.log(JSON.stringify({ turns, cpu_ms: (used.user + used.system) / 1000, wall_ms: wallMs,
  messages: agent.state.messages.length }));
