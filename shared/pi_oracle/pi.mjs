// Imports of the pinned real Pi's own modules, from the node_modules folder install.sh made
// (its path in PI_ORACLE_MODULES). Nothing of Pi is copied or re-implemented here.
// Pi moved scope at 1.0: `@mariozechner/*` (0.x) became `@earendil-works/*` (1.x, the course's
// pin); the dist paths below are the same in both, so the scope is taken from what is installed.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.env.PI_ORACLE_MODULES;
if (!root) throw new Error("PI_ORACLE_MODULES is not set (run shared/pi_oracle/install.sh)");

export const scope = ["@earendil-works", "@mariozechner"].find((s) => existsSync(join(root, s, "pi-coding-agent")));
if (!scope) throw new Error(`no pi-coding-agent under ${root}`);
/** The path of a file of one of Pi's packages ("pi-ai", "pi-agent-core", "pi-coding-agent"). */
export const piFile = (pkg, file) => join(root, scope, pkg, file);
export const load = (pkg, file) => import(pathToFileURL(piFile(pkg, join("dist", file))).href);

export const agent = await load("pi-coding-agent", "index.js");
export const compaction = await load("pi-coding-agent", "core/compaction/compaction.js");
export const compactionUtils = await load("pi-coding-agent", "core/compaction/utils.js");
export const sessionManager = await load("pi-coding-agent", "core/session-manager.js");
export const messages = await load("pi-coding-agent", "core/messages.js");
export const skills = await load("pi-coding-agent", "core/skills.js");
export const rpcClient = await load("pi-coding-agent", "modes/rpc/rpc-client.js");
export const ai = await load("pi-ai", "index.js");
export const eventStream = await load("pi-ai", "utils/event-stream.js");
// 1.x moved the global api registry (registerApiProvider, completeSimple) to pi-ai's "./compat".
export const aiCompat = existsSync(piFile("pi-ai", "dist/compat.js")) ? await load("pi-ai", "compat.js") : ai;
export const version = JSON.parse(readFileSync(piFile("pi-coding-agent", "package.json"), "utf8")).version;
