// Pi's system prompt sections for generated configurations.
//   PI_ORACLE_MODULES=... node prompt_check.mjs <cases.json>  -> [{name: text, ...}, ...]
// Each built-in tool brings the snippet and guidelines of Pi's own definition; bash is made
// without the PI_* session variables (the course's bash sets none: docs/divergences.md).
import { readFileSync } from "node:fs";
import { agent, load } from "./pi.mjs";

const prompt = await load("pi-coding-agent", "core/system-prompt.js");
const builtins = {
  read: (cwd) => agent.createReadToolDefinition(cwd),
  bash: (cwd) => agent.createBashToolDefinition(cwd, { exposeSessionEnvironment: false }),
  edit: (cwd) => agent.createEditToolDefinition(cwd),
  write: (cwd) => agent.createWriteToolDefinition(cwd),
};

const answer = JSON.parse(readFileSync(process.argv[2], "utf8")).map((c) => {
  const definitions = c.tools.map((t) => (builtins[t.name] && !t.custom ? builtins[t.name](c.cwd)
    : { name: t.name, promptSnippet: t.snippet, promptGuidelines: t.guidelines }));
  const toolSnippets = {}, toolGuidelines = {};
  for (const d of definitions) {
    const snippet = (d.promptSnippet ?? "").replace(/\s+/g, " ").trim(); // as AgentSession does
    if (snippet) toolSnippets[d.name] = snippet;
    const guidelines = (d.promptGuidelines ?? []).map((g) => g.trim()).filter((g) => g);
    if (guidelines.length) toolGuidelines[d.name] = guidelines;
  }
  return prompt.buildSystemPromptSections({
    cwd: c.cwd, selectedTools: c.tools.map((t) => t.name), toolSnippets, toolGuidelines,
    customPrompt: c.customPrompt, appendSystemPrompt: c.append, contextFiles: c.contextFiles,
    skills: c.skills,
  });
});
process.stdout.write(JSON.stringify(answer));
