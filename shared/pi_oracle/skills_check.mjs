// Pi's skill loader on generated skill folders.
//   PI_ORACLE_MODULES=... node skills_check.mjs <root>...  -> {root: {skills, diagnostics}}
import { skills } from "./pi.mjs";

const answer = {};
for (const root of process.argv.slice(2)) {
  const loaded = skills.loadSkillsFromDir({ dir: root, source: "oracle" });
  answer[root] = {
    skills: loaded.skills.map((s) => ({ name: s.name, description: s.description, filePath: s.filePath,
      baseDir: s.baseDir, disableModelInvocation: s.disableModelInvocation })),
    diagnostics: loaded.diagnostics.map((d) => ({ type: d.type, message: d.message, path: d.path })),
  };
}
process.stdout.write(JSON.stringify(answer));
