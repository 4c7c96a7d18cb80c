// What RpcClient starts as its "cli" (it runs `node <cliPath> --mode rpc ...`): the course's
// agent, `python -m pi --mode rpc ...` from the checkpoint on PYTHONPATH, stdio passed
// through untouched.
import { spawn } from "node:child_process";

const python = process.env.PI_ORACLE_PYTHON ?? "python3";
const child = spawn(python, ["-m", "pi", ...process.argv.slice(2)], { stdio: "inherit" });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
