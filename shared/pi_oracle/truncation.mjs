// Pi's truncateHead and truncateTail on given inputs, the content summarised.
//   PI_ORACLE_MODULES=... node truncation.mjs <cases.json>  -> [{input, generator, inputChars, head, tail}]
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { load } from "./pi.mjs";
const t = await load("pi-coding-agent", "core/tools/truncate.js");
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const summary = (r) => {
  const { content, ...rest } = r;
  return { ...rest, contentChars: content.length,
    contentSha256: createHash("sha256").update(content, "utf8").digest("hex"),
    contentFirst40: content.slice(0, 40), contentLast40: content.slice(-40) };
};
process.stdout.write(JSON.stringify(cases.map((c) => ({ input: c.input, generator: c.generator,
  inputChars: c.text.length, head: summary(t.truncateHead(c.text, c.options)),
  tail: summary(t.truncateTail(c.text, c.options)) }))));
