// Imports of the pinned real Pi's own modules, from the node_modules folder install.sh made
// (its path in PI_ORACLE_MODULES). Nothing of Pi is copied or re-implemented here.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.env.PI_ORACLE_MODULES;
if (!root) throw new Error("PI_ORACLE_MODULES is not set (run shared/pi_oracle/install.sh)");

const load = (pkg, file) => import(pathToFileURL(join(root, "@mariozechner", pkg, "dist", file)).href);

export const agent = await load("pi-coding-agent", "index.js");
export const compaction = await load("pi-coding-agent", "core/compaction/compaction.js");
export const compactionUtils = await load("pi-coding-agent", "core/compaction/utils.js");
export const sessionManager = await load("pi-coding-agent", "core/session-manager.js");
export const messages = await load("pi-coding-agent", "core/messages.js");
export const skills = await load("pi-coding-agent", "core/skills.js");
export const rpcClient = await load("pi-coding-agent", "modes/rpc/rpc-client.js");
export const ai = await load("pi-ai", "index.js");
export const eventStream = await load("pi-ai", "utils/event-stream.js");
export const version = JSON.parse(
  (await import("node:fs")).readFileSync(join(root, "@mariozechner/pi-coding-agent/package.json"), "utf8"),
).version;
