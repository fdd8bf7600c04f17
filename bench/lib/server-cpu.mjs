// CPU time the local server spends, read from /proc (Linux): every thread of every `workerd` process started under
// this benchmark (the Worker, its Durable Objects, D1, R2 and the cache all run there). Per request it is a figure a
// busy machine does not move much, unlike requests per second, which the other agents' load shares out.
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";

/** Descendant process ids of this process named `name`. */
function descendants(name) {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,comm="]).toString().trim().split("\n").map((l) => l.trim().split(/\s+/));
  const children = new Map();
  for (const [pid, ppid, comm] of rows) children.set(ppid, [...(children.get(ppid) ?? []), [pid, comm]]);
  const found = [];
  const walk = (pid) => {
    for (const [child, comm] of children.get(pid) ?? []) {
      if (comm === name) found.push(child);
      walk(child);
    }
  };
  walk(String(process.pid));
  return found;
}

/** Milliseconds of CPU (user + system) the server's workerd processes have used so far; NaN off Linux. */
export function serverCpuMs() {
  try {
    let ticks = 0;
    for (const pid of descendants("workerd")) {
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        ticks += Number(fields[11]) + Number(fields[12]);
      }
    }
    return ticks * 10; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}
