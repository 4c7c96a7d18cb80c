// Pi's own verdicts on failed replies: is it a context overflow, and is it worth a retry?
//   PI_ORACLE_MODULES=... node errors_check.mjs <file.json>  -> [{overflow, retry}, ...]
// Each case is {stopReason, errorMessage, provider, input, cacheRead, output, contextWindow}.
// The retry verdict is AgentSession's: never for an overflow, else isRetryableAssistantError.
import { readFileSync } from "node:fs";
import { ai } from "./pi.mjs";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const verdicts = cases.map((c) => {
  const message = {
    role: "assistant", content: [], api: "x", provider: c.provider, model: "m",
    usage: { input: c.input, output: c.output, cacheRead: c.cacheRead, cacheWrite: 0, totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: c.stopReason, errorMessage: c.errorMessage ?? undefined, timestamp: 0,
  };
  const overflow = ai.isContextOverflow(message, c.contextWindow);
  return { overflow, retry: !overflow && ai.isRetryableAssistantError(message) };
});
process.stdout.write(JSON.stringify(verdicts));
