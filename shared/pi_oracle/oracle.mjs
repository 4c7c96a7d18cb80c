// One node process for a whole differential run over session trees.
//   PI_ORACLE_MODULES=... node oracle.mjs request.json > answer.json
// request: { write: [{seed, ops, dir}], read: [path], keeps: [n] }
// It plays each `ops` list with real Pi's SessionManager (files land in `dir`), then reads every
// file (those listed in `read` and those it just wrote) with Pi's own functions and reports the
// same facts trees.py computes with the course: contexts per leaf, LLM messages, estimates,
// cut points, prepareCompaction, the file's session stats, and a fork at every leaf.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agent, compaction, compactionUtils, messages, sessionManager } from "./pi.mjs";

const request = JSON.parse(readFileSync(process.argv[2], "utf8"));
const { SessionManager, buildSessionContext } = sessionManager;
const forkDir = mkdtempSync(join(tmpdir(), "pi-oracle-fork-"));  // Pi writes each fork here

function writePiTree({ ops, dir }) {
  const sm = SessionManager.create("/work/tree", dir);
  const ids = [];
  for (const op of ops) {
    switch (op.op) {
      case "branch": sm.branch(ids[op.to]); continue;
      case "reset_leaf": sm.resetLeaf(); continue;
      case "message": ids.push(sm.appendMessage(op.message)); break;
      case "compaction":
        ids.push(sm.appendCompaction(op.summary, op.firstKept === null ? null : ids[op.firstKept],
          op.tokensBefore, op.details ?? undefined, op.fromHook ? true : undefined,
          op.usage ?? undefined));
        break;
      case "branch_summary":
        ids.push(sm.branchWithSummary(op.from === null ? null : ids[op.from], op.summary,
          op.details ?? undefined, op.fromHook ? true : undefined, op.usage ?? undefined));
        break;
      case "label": ids.push(sm.appendLabelChange(ids[op.target], op.label ?? undefined)); break;
      case "custom": ids.push(sm.appendCustomEntry(op.customType, op.data)); break;
      case "custom_message":
        ids.push(sm.appendCustomMessageEntry(op.customType, op.content, op.display,
          op.details ?? undefined));
        break;
      case "model_change": ids.push(sm.appendModelChange(op.provider, op.modelId)); break;
      case "thinking_level_change": ids.push(sm.appendThinkingLevelChange(op.level)); break;
      case "session_info": ids.push(sm.appendSessionInfo(op.name)); break;
      // Pi 1.x's entries
      case "usage":
        ids.push(sm.appendUsage(op.kind, op.provider, op.model, op.usage, op.note ?? undefined).id);
        break;
      case "context_edit": ids.push(sm.appendContextEdit(ids[op.target], op.replacement)); break;
      case "unknown": {  // what a newer Pi might write: SessionManager carries it along
        const entry = { ...op.entry, id: `u${ids.length}x${Math.random().toString(16).slice(2, 6)}`,
          parentId: sm.getLeafId(), timestamp: new Date().toISOString() };
        sm._appendEntry(entry);
        ids.push(entry.id);
        break;
      }
      default: throw new Error(`unknown op ${op.op}`);
    }
  }
  return sm.getSessionFile();
}

const drop = (value) => JSON.parse(JSON.stringify(value));  // undefined fields go, as on disk

// The sentence before a summary is the course's own wording (docs/divergences.md): both
// sides replace their lead with the same marker, so everything around it is still compared.
const LEADS = [[messages.COMPACTION_SUMMARY_PREFIX.split("\n")[0], "<compaction lead>"],
  [messages.BRANCH_SUMMARY_PREFIX.split("\n")[0], "<branch lead>"]];
const unlead = (text) => LEADS.reduce((t, [lead, mark]) => t.split(lead).join(mark), text);
const unleadAll = (value) => JSON.parse(JSON.stringify(value), (_, v) => (typeof v === "string" ? unlead(v) : v));

function leavesOf(sm) {
  const entries = sm.getEntries();
  const parents = new Set(entries.map((e) => e.parentId));
  const found = entries.filter((e) => !parents.has(e.id)).map((e) => e.id);
  const onLoad = sm.getLeafId();
  if (onLoad !== null && !found.includes(onLoad)) found.push(onLoad);
  return found;
}

function part(messages) {
  return { roles: messages.map((m) => m.role),
    tokens: messages.reduce((sum, m) => sum + compaction.estimateTokens(m), 0),
    serialized: unlead(compactionUtils.serializeConversation(agent.convertToLlm(messages))) };
}

function prepareJson(prep) {
  if (!prep) return null;
  return { firstKeptEntryId: prep.firstKeptEntryId, isSplitTurn: prep.isSplitTurn,
    tokensBefore: prep.tokensBefore, previousSummary: prep.previousSummary ?? null,
    messagesToSummarize: part(prep.messagesToSummarize),
    turnPrefixMessages: part(prep.turnPrefixMessages),
    fileOps: { read: [...prep.fileOps.read].sort(), written: [...prep.fileOps.written].sort(),
      edited: [...prep.fileOps.edited].sort() } };
}

// AgentSession.getSessionStats reads only the session manager (and the context usage, which
// needs a model and is left out here): its counts and usage over the whole file.
function sessionStats(sm) {
  const { sessionFile, sessionId, contextUsage, ...stats } = agent.AgentSession.prototype.getSessionStats
    .call({ sessionManager: sm, getContextUsage: () => undefined });
  return stats;
}

function forkFacts(file, leaf) {
  // Pi's createBranchedSession at `leaf`, on a fresh manager whose new file lands in forkDir.
  const sm = SessionManager.open(file, forkDir);
  sm.createBranchedSession(leaf);
  const entries = sm.getEntries();
  return {
    chain: entries.filter((e) => e.type !== "label").map((e) =>
      [e.id, e.parentId ?? null, e.type, e.firstKeptEntryId ?? null]),
    labels: entries.filter((e) => e.type === "label").map((e) => [e.targetId, e.label ?? null]),
    messages: buildSessionContext(entries, leaf).messages,
  };
}

function piFacts(file) {
  const sm = SessionManager.open(file, "/nonexistent-pi-oracle");
  const entries = sm.getEntries();
  const labels = {};
  for (const e of entries) {
    const label = sm.getLabel(e.id);
    if (label !== undefined) labels[e.id] = label;
  }
  const facts = { entries: entries.length, leafOnLoad: sm.getLeafId(),
    sessionName: sm.getSessionName() ?? null,
    labels: Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    stats: sessionStats(sm), leaves: {} };
  for (const leaf of leavesOf(sm)) {
    const context = buildSessionContext(entries, leaf);
    const estimate = compaction.estimateContextTokens(context.messages);
    const path = sm.getBranch(leaf);
    let latest = -1;
    for (let i = path.length - 1; i >= 0; i--) if (path[i].type === "compaction") { latest = i; break; }
    const cuts = {}, prepare = {};
    for (const keep of request.keeps) {
      cuts[keep] = { afterCompaction: compaction.findCutPoint(path, latest + 1, path.length, keep),
        wholePath: compaction.findCutPoint(path, 0, path.length, keep) };
      prepare[keep] = prepareJson(compaction.prepareCompaction(path,
        { enabled: true, reserveTokens: 16384, keepRecentTokens: keep }));
    }
    facts.leaves[leaf] = drop({ thinkingLevel: context.thinkingLevel, model: context.model ?? null,
      messages: context.messages, llm: unleadAll(agent.convertToLlm(context.messages)),
      estimates: context.messages.map((m) => compaction.estimateTokens(m)),
      context: { tokens: estimate.tokens, usageTokens: estimate.usageTokens,
        trailingTokens: estimate.trailingTokens, lastUsageIndex: estimate.lastUsageIndex },
      cuts, prepare, fork: forkFacts(file, leaf) });
  }
  return facts;
}

const answer = { written: [], read: {} };
for (const tree of request.write) answer.written.push({ seed: tree.seed, file: writePiTree(tree) });
for (const file of [...request.read, ...answer.written.map((w) => w.file)]) {
  try {
    answer.read[file] = piFacts(file);
  } catch (error) {
    answer.read[file] = { error: String(error?.stack ?? error) };
  }
}
rmSync(forkDir, { recursive: true, force: true });
process.stdout.write(JSON.stringify(answer));
