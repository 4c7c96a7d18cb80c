// Pi's read, edit, write and bash tools on generated cases, each in a scratch folder of its own.
//   PI_ORACLE_MODULES=... node tools_check.mjs <cases.json> <scratch>  -> [{ok, text | error, files}, ...]
// Every scratch folder, and bash's full-output logs (os.tmpdir()), go under <scratch>.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { agent } from "./pi.mjs";

process.env.TMPDIR = process.argv[3];

const make = { read: agent.createReadToolDefinition, edit: agent.createEditToolDefinition,
  write: agent.createWriteToolDefinition,
  bash: (cwd) => agent.createBashToolDefinition(cwd, { exposeSessionEnvironment: false }) };

function filesIn(root, folder = root, found = {}) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) filesIn(root, path, found);
    else found[relative(root, path)] = readFileSync(path, "utf8");
  }
  return found;
}

const answer = [];
for (const c of JSON.parse(readFileSync(process.argv[2], "utf8"))) {
  const cwd = mkdtempSync(join(process.argv[3], "pi-tools-"));
  for (const [name, text] of Object.entries(c.files)) {
    mkdirSync(dirname(join(cwd, name)), { recursive: true });
    writeFileSync(join(cwd, name), text);
  }
  const tool = make[c.tool](cwd);
  let outcome;
  try {
    const args = tool.prepareArguments ? tool.prepareArguments(c.args) : c.args; // as the loop does
    const signal = c.abortAfter ? AbortSignal.timeout(c.abortAfter * 1000) : undefined;
    const result = await tool.execute("call", args, signal, undefined, { cwd });
    const text = result.content.map((b) => b.text ?? "").join("");
    const { content: _kept, ...truncation } = result.details?.truncation ?? {};  // the kept text is `text`
    outcome = result.isError ? { ok: false, error: text }  // bash: a non-zero exit
      : { ok: true, text, firstChangedLine: result.details?.firstChangedLine,
          truncation: result.details?.truncation ? truncation : undefined };
  } catch (error) {
    outcome = { ok: false, error: error.message };
  }
  answer.push({ ...outcome, files: filesIn(cwd) });
  rmSync(cwd, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(answer));
