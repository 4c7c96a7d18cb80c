// Regenerates shared/data/pi-reference/expected/newest/<fixture>.prepare.json from the
// pinned real Pi: for every findCutPoint and prepareCompaction case recorded from Pi 0.58.3
// (same paths, same keep values) it runs the pinned findCutPoint, prepareCompaction and compact() (with a capture provider
// answering placeholders) and writes the results in the same shape.
//   PI_ORACLE_MODULES=... node reference.mjs <pi-reference folder>
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agent, ai, aiCompat, compaction, compactionUtils, eventStream, sessionManager, version } from "./pi.mjs";

const folder = process.argv[2];
const sha = (text) => createHash("sha256").update(text, "utf8").digest("hex");
const HISTORY = "<<HISTORY_SUMMARY_FROM_LLM>>";
const PREFIX = "<<TURN_PREFIX_SUMMARY_FROM_LLM>>";
const calls = [];
// Pi 1.x's normalizeContext turns a summary request's systemPrompt into a leading system
// message; these read both shapes, so the recorded structure stays the same.
const turns = (context) => context.messages.filter((m) => m.role !== "system");
const systemText = (context) => context.systemPrompt ?? ai.getCurrentSystemPrompt?.(context.messages) ?? "";

aiCompat.registerApiProvider({
  api: "capture",
  stream: () => { throw new Error("not used"); },
  streamSimple: (model, context, options) => {
    calls.push({ context, options });
    const prompt = turns(context)[0].content[0].text;
    const text = prompt.includes("## Original Request") ? PREFIX : HISTORY;
    const message = {
      role: "assistant", content: [{ type: "text", text }], api: model.api, provider: model.provider,
      model: model.id, stopReason: "stop", timestamp: 0,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    };
    const stream = eventStream.createAssistantMessageEventStream();
    queueMicrotask(() => { stream.push({ type: "done", reason: "stop", message }); stream.end(message); });
    return stream;
  },
}, "pi-course-reference");

const MODEL = { id: "capture-1", name: "capture", api: "capture", provider: "capture", baseUrl: "",
  reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200000, maxTokens: 16384 };

function describePrompt(prompt) {  // the structure the 0.58.3 data records, never the text
  const conversation = /^<conversation>\n([\s\S]*?)\n<\/conversation>/.exec(prompt);
  const previous = /\n\n<previous-summary>\n([\s\S]*)\n<\/previous-summary>/.exec(prompt);
  const restStart = previous ? previous.index + previous[0].length
    : conversation ? conversation.index + conversation[0].length : 0;
  const instructions = prompt.slice(restStart);
  return {
    totalChars: prompt.length, sha256: sha(prompt),
    startsWithConversationTag: prompt.startsWith("<conversation>\n"),
    conversationChars: conversation ? conversation[1].length : null,
    conversationSha256: conversation ? sha(conversation[1]) : null,
    hasPreviousSummaryBlock: !!previous,
    previousSummaryChars: previous ? previous[1].length : null,
    previousSummarySha256: previous ? sha(previous[1]) : null,
    instructionHeadings: instructions.match(/^#{2,3} .*$/gm) ?? [],
    hasAdditionalFocusLine: instructions.includes("\n\nAdditional focus: "),
  };
}

function entryFacts(entries, entry) {
  return { id: entry.id, line: entries.indexOf(entry) + 1, type: entry.type,
    role: entry.type === "message" ? entry.message.role : null };
}

function roleCounts(messages) {
  const counts = {};
  for (const m of messages) counts[m.role] = (counts[m.role] ?? 0) + 1;
  return counts;
}

function digest(messages) {
  const text = compactionUtils.serializeConversation(agent.convertToLlm(messages));
  return { chars: text.length, sha256: sha(text) };
}

function range(entries, path, from, to, count) {
  return { pathIndexFrom: from, pathIndexToExclusive: to,
    firstEntry: from < to ? entryFacts(entries, path[from]) : null,
    lastEntry: from < to ? entryFacts(entries, path[to - 1]) : null,
    messageProducingEntries: count };
}

async function prepareCase(entries, path, keep, dryRun, serializedTo = null) {
  const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: keep };
  const prep = compaction.prepareCompaction(path, settings);
  if (!prep) return { keepRecentTokens: keep, prepareCompaction: null };  // Pi 1.x: nothing to compact
  // Where Pi's prepareCompaction searched (it does not return the ranges): its own rule.
  let prev = -1;
  for (let i = path.length - 1; i >= 0; i--) if (path[i].type === "compaction") { prev = i; break; }
  let start = 0;
  if (prev >= 0) {
    const kept = path.findIndex((e) => e.id === path[prev].firstKeptEntryId);
    start = kept >= 0 ? kept : prev + 1;
  }
  const cut = compaction.findCutPoint(path, start, path.length, keep);
  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  const { readFiles, modifiedFiles } = compactionUtils.computeFileLists(prep.fileOps);
  const result = {
    keepRecentTokens: keep, settings, firstKeptEntryId: prep.firstKeptEntryId,
    firstKeptEntry: entryFacts(entries, path.find((e) => e.id === prep.firstKeptEntryId)),
    isSplitTurn: prep.isSplitTurn, tokensBefore: prep.tokensBefore,
    previousSummary: prep.previousSummary === undefined ? { present: false }
      : { present: true, chars: prep.previousSummary.length, sha256: sha(prep.previousSummary) },
    messagesToSummarize: { count: prep.messagesToSummarize.length,
      roleCounts: roleCounts(prep.messagesToSummarize),
      estimatedTokens: prep.messagesToSummarize.reduce((s, m) => s + compaction.estimateTokens(m), 0),
      entryRange: range(entries, path, start, historyEnd, prep.messagesToSummarize.length) },
    turnPrefixMessages: { count: prep.turnPrefixMessages.length,
      roleCounts: roleCounts(prep.turnPrefixMessages),
      estimatedTokens: prep.turnPrefixMessages.reduce((s, m) => s + compaction.estimateTokens(m), 0),
      entryRange: cut.isSplitTurn ? range(entries, path, cut.turnStartIndex,
        cut.firstKeptEntryIndex, prep.turnPrefixMessages.length) : null },
    fileOps: { read: [...prep.fileOps.read].sort(), written: [...prep.fileOps.written].sort(),
      edited: [...prep.fileOps.edited].sort() },
    fileLists: { readFiles, modifiedFiles },
    fileOperationsBlock: compactionUtils.formatFileOperations(readFiles, modifiedFiles),
    serializedHistory: digest(prep.messagesToSummarize),
    serializedTurnPrefix: digest(prep.turnPrefixMessages),
  };
  if (keep === 20000 && serializedTo) {
    for (const [kind, list] of [["history", prep.messagesToSummarize], ["turn-prefix", prep.turnPrefixMessages]]) {
      writeFileSync(`${serializedTo}.keep20000.${kind}.txt`,
        compactionUtils.serializeConversation(agent.convertToLlm(list)));
    }
  }
  if (dryRun) {
    calls.length = 0;
    const done = await compaction.compact(prep, MODEL, "no-key");
    result.compactDryRun = {
      note: `compact() of Pi ${version} with a capture provider; LLM replies replaced by placeholders`,
      llmCalls: calls.map(({ context, options }) => ({
        maxTokens: options.maxTokens, reasoning: options.reasoning ?? null,
        systemPromptChars: systemText(context).length, systemPromptSha256: sha(systemText(context)),
        messageCount: turns(context).length, messageRole: turns(context)[0].role,
        prompt: describePrompt(turns(context)[0].content[0].text) })),
      result: done,
    };
  }
  return result;
}

const out = join(folder, "expected", "newest");
mkdirSync(join(out, "serialized"), { recursive: true });
for (const name of ["large-session", "before-compaction", "synthetic-tree"]) {
  const old = JSON.parse(readFileSync(join(folder, "expected", `${name}.json`), "utf8"));
  const manager = sessionManager.SessionManager.open(join(folder, "sessions", `${name}.v3.jsonl`),
    "/nonexistent-session-dir");
  const entries = manager.getEntries();
  const pathTo = (leafId) => manager.getBranch(leafId ?? entries[entries.length - 1].id);
  const a5 = old.entryNames?.a5?.id;
  const cases = [];
  for (const c of old.prepareCompaction) {
    const path = pathTo(c.path === "branch1(a5)" ? a5 : null);
    cases.push({ ...(c.path ? { path: c.path } : {}),
      ...(await prepareCase(entries, path, c.keepRecentTokens, "compactDryRun" in c,
        c.path ? null : join(out, "serialized", name))) });
  }
  const cuts = [];  // the same findCutPoint cases, answered by the pinned Pi
  for (const c of old.findCutPoint ?? []) {
    const path = pathTo(c.mode.startsWith("branch1Path(a5)") ? a5 : null);
    const cut = compaction.findCutPoint(path, c.startIndex, c.endIndex, c.keepRecentTokens);
    cuts.push({ mode: c.mode, keepRecentTokens: c.keepRecentTokens, startIndex: c.startIndex,
      endIndex: c.endIndex, ...cut, firstKeptEntry: entryFacts(entries, path[cut.firstKeptEntryIndex]),
      turnStartEntry: cut.turnStartIndex >= 0 ? entryFacts(entries, path[cut.turnStartIndex]) : null });
  }
  const others = [];
  for (const c of old.prepareCompactionAtOtherLeaves ?? []) {
    others.push({ leafLine: c.leafLine, leafId: c.leafId, pathLength: c.pathLength,
      ...(await prepareCase(entries, pathTo(c.leafId), c.keepRecentTokens, false)) });
  }
  const data = { piVersion: version, fixture: `sessions/${name}.v3.jsonl`,
    findCutPoint: cuts, prepareCompaction: cases, prepareCompactionAtOtherLeaves: others };
  writeFileSync(join(out, `${name}.prepare.json`), JSON.stringify(data, null, 1) + "\n");
  console.log(`${name}: ${cases.length + others.length} prepareCompaction cases`);
}
