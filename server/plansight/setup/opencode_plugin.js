// Plansight: keeps OpenCode's plan (its todowrite list) in Plansight and tells its model
// what a person changed there. Written by `plansight setup opencode`;
// `plansight setup opencode --remove` takes it out.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";

const PLANSIGHT = PLANSIGHT_COMMAND; // how to run Plansight, as setup found it
const TOOLS = new Set(PLAN_AND_EDIT_TOOLS); // OpenCode's plan and edit tools
const WAIT_MS = 10000; // the hook answers within 9 s whatever happens

// One `plansight hook opencode` run: the event on stdin; the context its reply carries.
function hook(directory, event) {
  return new Promise((resolve) => {
    let child;
    try {
      const [program, ...args] = PLANSIGHT;
      child = spawn(program, [...args, "hook", "opencode"], {
        cwd: directory,
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch {
      return resolve(undefined);
    }
    const chunks = [];
    const timer = setTimeout(() => {
      child.kill();
      resolve(undefined);
    }, WAIT_MS);
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.on("close", () => {
      clearTimeout(timer);
      try {
        const reply = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const context = reply?.hookSpecificOutput?.additionalContext;
        resolve(typeof context === "string" && context ? context : undefined);
      } catch {
        resolve(undefined);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify({ ...event, cwd: directory }));
  });
}

// A part id as OpenCode makes one (`prt_`, 12 hex digits of the time, 14 random letters):
// later than the prompt's own parts, so the note follows the prompt.
let lastTime = 0;
let counter = 0;
function partID() {
  const now = Date.now();
  counter = now === lastTime ? counter + 1 : 1;
  lastTime = now;
  const stamp = (BigInt(now) * 4096n + BigInt(counter)).toString(16).padStart(12, "0");
  const letters = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const random = [...randomBytes(14)].map((byte) => letters[byte % 62]).join("");
  return `prt_${stamp.slice(-12)}${random}`;
}

// OpenCode 1.18 titles a fork "<title> (fork #N)" (`Session.fork`), and keeps no link to
// the session it was forked from: the fork copies its messages under new ids.
const FORK_TITLE = / \(fork #\d+\)$/;
// How many sessions a fork's copied messages are compared with, its likeliest first.
const CANDIDATES = 20;

// The title of the session a fork was made from, as `Session.fork` titles a fork: "<title>
// (fork #1)" of "<title>", "<title> (fork #N+1)" of "<title> (fork #N)".
function forkedTitle(title) {
  const [, base, number] = title.match(/^(.+) \(fork #(\d+)\)$/) ?? [];
  if (base === undefined) return undefined;
  return number === "1" ? base : `${base} (fork #${Number(number) - 1})`;
}

// Who said each message of a session, and when: a fork's copies keep the time of the
// message they copy (only their ids are new).
async function messageTimes(client, id) {
  const messages = (await client.session.messages({ path: { id } }))?.data ?? [];
  return messages.map(({ info }) => ({ role: info?.role, created: info?.time?.created }));
}

// The session a fork without a command line was made from (the TUI's `/fork`, of the whole
// session or at a message of its timeline: `POST /session/<id>/fork`, as `opencode serve`
// takes it too): the root session made before it whose messages begin with the ones the
// fork copied (those older than the fork), the one titled as the fork's title says first,
// then the one updated last. A fork that copied nothing is known by its title alone.
async function copiedFrom(client, fork) {
  const made = fork.time?.created ?? 0;
  const copied = (await messageTimes(client, fork.id)).filter((m) => m.created < made);
  const title = forkedTitle(fork.title ?? "");
  const likelier = (a, b) =>
    (b.title === title) - (a.title === title) || (b.time?.updated ?? 0) - (a.time?.updated ?? 0);
  const candidates = ((await client.session.list())?.data ?? [])
    .filter((s) => !s.parentID && s.id !== fork.id && (s.time?.created ?? Infinity) <= made)
    .filter((s) => copied.length > 0 || s.title === title)
    .sort(likelier)
    .slice(0, CANDIDATES);
  for (const candidate of candidates) {
    if (copied.length === 0) return candidate.id;
    const theirs = await messageTimes(client, candidate.id);
    const same = (m, at) => theirs[at]?.role === m.role && theirs[at]?.created === m.created;
    if (copied.every(same)) return candidate.id;
  }
  return undefined;
}

// The session this OpenCode was asked to fork on its command line (`run --fork --session
// <id>`, `--fork --continue`; the TUI takes the same flags): {session} or {continued}.
function commandLineFork(argv) {
  if (!argv.includes("--fork")) return undefined;
  for (let at = 0; at < argv.length; at++) {
    const word = argv[at];
    if ((word === "--session" || word === "-s") && argv[at + 1]) return { session: argv[at + 1] };
    if (word.startsWith("--session=")) return { session: word.slice("--session=".length) };
  }
  return argv.includes("--continue") || argv.includes("-c") ? { continued: true } : undefined;
}

// How a session that has its first prompt in this OpenCode began, as the hook's
// SessionStart (`source` and, for a fork, `forked_from`), or undefined: a session made
// before this OpenCode started (resumed: it keeps its plan), a subagent's, or the first
// new one (a conversation of its own).
function sessionStarts(client) {
  const loadedAt = Date.now();
  let asked = commandLineFork(process.argv); // the first fork made here is the one asked
  const heard = new Set();
  const forkedFrom = async (fork) => {
    const named = asked;
    asked = undefined;
    if (named?.session) return named.session;
    if (!named?.continued) return copiedFrom(client, fork); // from the TUI or the API
    // `--continue` forks the root session updated last (OpenCode's `run`), the fork aside.
    const sessions = (await client.session.list())?.data ?? [];
    const root = sessions
      .filter((session) => !session.parentID && session.id !== fork.id)
      .sort((a, b) => (b.time?.updated ?? 0) - (a.time?.updated ?? 0))[0];
    return root?.id;
  };
  return async (sessionID) => {
    if (heard.has(sessionID)) return undefined;
    const info = (await client.session.get({ path: { id: sessionID } }))?.data;
    if (!info || info.parentID) return undefined; // a subagent's session (the task tool)
    const after = heard.size > 0; // another conversation was heard here before it
    heard.add(sessionID);
    if (!(info.time?.created >= loadedAt)) return undefined;
    if (FORK_TITLE.test(info.title ?? "")) {
      const parent = await forkedFrom(info);
      return { source: "fork", ...(parent ? { forked_from: parent } : {}) };
    }
    return after ? { source: "clear" } : undefined;
  };
}

export const PlansightPlan = async ({ client, directory }) => {
  let queue = Promise.resolve();
  const told = (event) => (queue = queue.then(() => hook(directory, event)));
  const started = sessionStarts(client);
  return {
    "tool.execute.after": async (input, output) => {
      try {
        if (!TOOLS.has(input.tool)) return;
        const context = await told({
          hook_event_name: "PostToolUse",
          session_id: input.sessionID,
          tool_name: input.tool,
          tool_input: input.args,
        });
        if (context && typeof output.output === "string") output.output += `\n\n${context}`;
      } catch {}
    },
    "chat.message": async (input, output) => {
      try {
        const prompt = output.parts
          .filter((part) => part.type === "text" && !part.synthetic)
          .map((part) => part.text)
          .join("\n");
        // A fork or a new conversation is told its plan whole with its first prompt.
        let start;
        try {
          start = await started(input.sessionID);
        } catch {}
        const begun = start
          ? await told({ hook_event_name: "SessionStart", session_id: input.sessionID, ...start })
          : undefined;
        const said = await told({
          hook_event_name: "UserPromptSubmit",
          session_id: input.sessionID,
          prompt,
        });
        const context = [begun, said].filter(Boolean).join("\n\n");
        if (!context) return;
        output.parts.push({
          id: partID(),
          sessionID: input.sessionID,
          messageID: output.message.id,
          type: "text",
          synthetic: true,
          text: context,
        });
      } catch {}
    },
    "experimental.session.compacting": async (input) => {
      try {
        await told({ hook_event_name: "PreCompact", session_id: input.sessionID, trigger: "compact" });
      } catch {}
    },
  };
};
