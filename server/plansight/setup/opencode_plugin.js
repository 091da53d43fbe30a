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

export const PlansightPlan = async ({ directory }) => {
  let queue = Promise.resolve();
  const told = (event) => (queue = queue.then(() => hook(directory, event)));
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
        const context = await told({
          hook_event_name: "UserPromptSubmit",
          session_id: input.sessionID,
          prompt,
        });
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
