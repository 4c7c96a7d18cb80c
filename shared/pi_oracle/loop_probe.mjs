// Real Pi's Agent loop, aborted while a tool runs: which messages does it record?
//   PI_ORACLE_MODULES=... node loop_probe.mjs  -> {calls, messages: [[role, stopReason, isError]]}
// The fake stream answers like Pi's providers: an aborted signal gives an `aborted` reply.
import { eventStream as es, load } from "./pi.mjs";
const core = await load("pi-agent-core", "index.js");
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
let calls = 0;
const streamFn = (model, context, options) => {
  calls++;
  const s = es.createAssistantMessageEventStream();
  const aborted = options?.signal?.aborted;
  const msg = aborted
    ? { role: "assistant", content: [], api: "x", provider: "x", model: "x", usage: zero, stopReason: "aborted", errorMessage: "Request was aborted", timestamp: 1 }
    : { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "wait", arguments: {} }], api: "x", provider: "x", model: "x", usage: zero, stopReason: "toolUse", timestamp: 1 };
  queueMicrotask(() => { if (aborted) { s.push({ type: "error", reason: "aborted", error: msg }); } else { s.push({ type: "done", reason: "toolUse", message: msg }); } s.end(msg); });
  return s;
};
const agent = new core.Agent({ initialState: { systemPrompt: "", model: { id: "x", provider: "x", api: "x" }, tools: [{ name: "wait", label: "wait", description: "w", parameters: { type: "object", properties: {} },
  execute: (id, args, signal) => new Promise((resolve, reject) => { signal.addEventListener("abort", () => reject(new Error("aborted"))); setTimeout(() => agent.abort(), 20); }) }] }, streamFn });
await agent.prompt("go");
console.log(JSON.stringify({ calls, messages: agent.state.messages.map((m) => [m.role, m.stopReason ?? null, m.isError ?? null]) }));
