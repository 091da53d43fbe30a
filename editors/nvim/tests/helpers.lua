-- Shared by every test file. A test file is a plain script run by
--   nvim --headless --clean -l tests/test_x.lua
-- (tests/run.sh runs them all with isolated XDG folders). It registers cases with
-- H.test(name, fn) and ends with H.run(), which exits non-zero when a case fails.
local H = {}

local this = debug.getinfo(1, "S").source:sub(2)
H.tests_dir = vim.fn.fnamemodify(this, ":p:h")
H.plugin_root = vim.fn.fnamemodify(H.tests_dir, ":h")
H.repo_root = vim.fn.fnamemodify(H.plugin_root, ":h:h")
H.plansight_bin = (vim.env.PLANSIGHT_BIN and vim.env.PLANSIGHT_BIN ~= "") and vim.env.PLANSIGHT_BIN
  or (H.repo_root .. "/.venv/bin/plansight")

vim.opt.rtp:prepend(H.plugin_root)
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "IF"

---Loads the plugin as Neovim would at startup.
function H.load_plugin()
  vim.cmd("runtime plugin/plansight.lua")
end

-- Messages go to a list the tests can read, and to stderr for the log.
H.messages = {}
vim.notify = function(msg, level)
  H.messages[#H.messages + 1] = { msg = msg, level = level or vim.log.levels.INFO }
  io.stderr:write(("[notify %s] %s\n"):format(tostring(level), tostring(msg)))
end

---@return string a fresh temporary folder
function H.tmpdir()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  return vim.uv.fs_realpath(dir) or dir
end

---A fresh project (a folder with `.git`) as the current directory, and a store file in it.
---@return {root: string, db: string}
function H.project()
  local root = H.tmpdir()
  vim.fn.mkdir(root .. "/.git", "p")
  vim.cmd.cd(root)
  return { root = root, db = root .. "/plansight.sqlite3" }
end

---Loads the plugin in a fresh project (`H.project()`) and sets it up on the project's store,
---without opening the sidebar on its own.
---@return {root: string, db: string}
function H.start()
  H.load_plugin()
  local p = H.project()
  require("plansight").setup({ cmd = { H.plansight_bin, "serve", "--db", p.db }, auto_open = false })
  return p
end

---Runs the plansight CLI; fails the test unless it exits 0.
---@param args string[]
---@param stdin string?
---@return string stdout
function H.cli(args, stdin)
  local cmd = { H.plansight_bin }
  vim.list_extend(cmd, args)
  local res = vim.system(cmd, { text = true, stdin = stdin }):wait(20000)
  if res.code ~= 0 then
    error(("`%s` exited %s: %s%s"):format(table.concat(cmd, " "), tostring(res.code), res.stderr or "", res.stdout or ""), 2)
  end
  return res.stdout
end

---`plansight show --format json` of a session: the TodoState the CLI reads from the store.
---@param db string
---@param session string?
---@return table
function H.cli_state(db, session)
  return vim.json.decode(H.cli({ "show", "--db", db, "--session", session or "default", "--format", "json" }))
end

---Runs ops through the CLI (another process writing to the same store).
---@param db string
---@param ops table[]
---@param session string?
function H.cli_apply(db, ops, session)
  return H.cli({ "apply", "--db", db, "--session", session or "default", "--ops", vim.json.encode(ops) })
end

---Runs ops through the CLI as an agent that looked at the plan first (`plansight context`):
---its whole list (an `init`) then starts from what the person changed, instead of being
---merged with it as a stale copy would be (protocol 3, steering).
---@param db string
---@param ops table[]
---@param session string?
function H.cli_replan(db, ops, session)
  H.cli({ "context", "--db", db, "--session", session or "default" })
  return H.cli_apply(db, ops, session)
end

---The task with this content in the store, as the CLI reads it, and its phase's name.
---@param db string
---@param content string
---@param session string?
---@return table? task, string? phase
function H.cli_task(db, content, session)
  for _, phase in ipairs(H.cli_state(db, session).phases) do
    for _, task in ipairs(phase.tasks) do
      if task.content == content then
        return task, phase.name
      end
    end
  end
  return nil
end

---Waits until the CLI reads the task with this content at `status`.
---@param db string
---@param content string
---@param status string
---@param what string what is awaited, for the failure message
---@param session string?
function H.wait_status(db, content, status, what, session)
  H.wait(function()
    local task = H.cli_task(db, content, session)
    return task and task.status == status
  end, what)
end

function H.eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(("%s\n  want: %s\n  got:  %s"):format(what or "not equal", vim.inspect(want), vim.inspect(got)), 2)
  end
end

function H.ok(cond, what)
  if not cond then
    error(what or "assertion failed", 2)
  end
end

---Waits for `cond()` to be truthy, processing events meanwhile; fails after `ms`.
---@param cond fun(): any
---@param what string
---@param ms integer?
function H.wait(cond, what, ms)
  local last_err
  local ok = vim.wait(ms or 8000, function()
    local pok, res = pcall(cond)
    if not pok then
      last_err = res
      return false
    end
    return res
  end, 10)
  if not ok then
    error(("timed out waiting for: %s%s"):format(what, last_err and ("\n  last error: " .. tostring(last_err)) or ""), 2)
  end
end

---Runs every callback scheduled so far (they run in order), without sleeping.
function H.flush()
  local done = false
  vim.schedule(function()
    done = true
  end)
  H.wait(function()
    return done
  end, "scheduled callbacks")
end

---The sidebar buffer's lines.
---@return string[]
function H.sidebar_lines()
  local st = require("plansight.sidebar").state
  if not st.buf or not vim.api.nvim_buf_is_valid(st.buf) then
    return {}
  end
  return vim.api.nvim_buf_get_lines(st.buf, 0, -1, false)
end

---The first sidebar line containing `text` (plain), or nil.
---@param text string
---@return integer? lnum
function H.find_line(text)
  for i, line in ipairs(H.sidebar_lines()) do
    if line:find(text, 1, true) then
      return i
    end
  end
  return nil
end

---Waits until a sidebar line contains `text` (plain); returns that line.
---@param text string
---@param what string what is awaited, for the failure message
---@param ms integer?
---@return integer lnum
function H.wait_line(text, what, ms)
  H.wait(function()
    return H.find_line(text)
  end, what, ms)
  return H.find_line(text) --[[@as integer]]
end

---Puts the sidebar's cursor on the line holding `text` and focuses the sidebar.
---@param text string
---@return integer lnum
function H.goto_line(text)
  local sidebar = require("plansight.sidebar")
  local lnum = H.find_line(text)
  H.ok(lnum, "no sidebar line holds " .. text .. ":\n" .. table.concat(H.sidebar_lines(), "\n"))
  vim.api.nvim_set_current_win(sidebar.state.win)
  vim.api.nvim_win_set_cursor(sidebar.state.win, { lnum, 0 })
  return lnum --[[@as integer]]
end

---Types keys as a user would (mappings apply) and runs them to completion.
---@param keys string
function H.feed(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "mx", false)
end

---The highlight groups of the plugin's extmarks on a sidebar line.
---@param lnum integer
---@return string[]
function H.line_groups(lnum)
  local sidebar = require("plansight.sidebar")
  local marks = vim.api.nvim_buf_get_extmarks(sidebar.state.buf, sidebar.ns, { lnum - 1, 0 }, { lnum - 1, -1 }, { details = true })
  local groups = {}
  for _, m in ipairs(marks) do
    groups[#groups + 1] = m[4].hl_group
  end
  return groups
end

local cases = {}

---@param name string
---@param fn fun()
function H.test(name, fn)
  cases[#cases + 1] = { name = name, fn = fn }
end

---Runs the cases in order and exits: 0 when all passed, 1 otherwise.
function H.run()
  local failed = 0
  local file = vim.fn.fnamemodify(debug.getinfo(2, "S").source:sub(2), ":t")
  for _, case in ipairs(cases) do
    local t0 = vim.uv.hrtime()
    local ok, err = xpcall(case.fn, debug.traceback)
    local ms = (vim.uv.hrtime() - t0) / 1e6
    if ok then
      io.stdout:write(("  ok    %s: %s (%.0f ms)\n"):format(file, case.name, ms))
    else
      failed = failed + 1
      io.stdout:write(("  FAIL  %s: %s\n%s\n"):format(file, case.name, err))
    end
  end
  -- run.sh looks for this line: a file that quits before it (a prompt reading the end of
  -- stdin, an `:qa` run by mistake) fails instead of passing with half its cases unrun.
  io.stdout:write(("  ran   %s: %d cases\n"):format(file, #cases))
  io.stdout:flush()
  -- Stop servers so their processes do not outlive the test, and the warm process the
  -- CLI calls (H.cli) start for this environment.
  for _, c in ipairs(vim.lsp.get_clients({ name = "plansight" })) do
    c:stop(true)
  end
  pcall(function()
    vim.system({ H.plansight_bin, "hook-daemon", "--stop" }):wait(20000)
  end)
  if failed > 0 then
    vim.cmd("cquit 1")
  else
    vim.cmd("qall!")
  end
end

return H
