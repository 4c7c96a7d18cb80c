// Real Pi's session operations on one file, timed the way session_bench.py times ours
// (CPU time of the process, the best of the rounds).
// node session_pi.mjs DIST FILE ROUNDS TARGET_ID  →  one JSON line: the best ms of each op.
// DIST is the `dist` folder of an installed @mariozechner/pi-coding-agent. Pi's own functions
// are imported by file (the package's exports do not list the compaction modules).
import { pathToFileURL } from "node:url";

const [dist, file, rounds, target] = process.argv.slice(2);
const load = (part) => import(pathToFileURL(`${dist}/${part}`).href);
const { SessionManager } = await load("core/session-manager.js");
const compaction = await load("core/compaction/compaction.js");
const branch = await load("core/compaction/branch-summarization.js");
const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 };

function timed(best, name, work) {
  const start = process.cpuUsage();
  const result = work();
  const used = process.cpuUsage(start);
  const ms = (used.user + used.system) / 1000;
  best[name] = Math.min(best[name] ?? Infinity, ms);
  return result;
}

const best = {};
for (let round = 0; round < Number(rounds); round++) {
  const session = timed(best, "open", () => SessionManager.open(file));
  timed(best, "context", () => session.buildSessionContext());
  const leaf = session.getLeafId();
  const path = timed(best, "path", () => session.getBranch(leaf));
  timed(best, "walk", () => session.getTree());
  let start = 0;
  for (let i = path.length - 1; i >= 0; i--) if (path[i].type === "compaction") { start = i + 1; break; }
  timed(best, "cut", () => compaction.findCutPoint(path, start, path.length, settings.keepRecentTokens));
  timed(best, "prepare", () => compaction.prepareCompaction(path, settings));
  timed(best, "branch summary", () => {
    const collected = branch.collectEntriesForBranchSummary(session, leaf, target);
    return branch.prepareBranchEntries(collected.entries, 0);
  });
}
console.log(JSON.stringify(best));
