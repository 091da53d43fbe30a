-- (v4) The worktrees of one repository share one store: the sidebar shows each session's
-- checkout beside its header, and a task's file opens in the checkout it was changed in,
-- whichever worktree Neovim is open on. Real git repositories, the real server and CLI.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
H.load_plugin()
local checkout = require("plansight.checkout")

---@param cwd string
---@param args string[]
local function git(cwd, args)
  local cmd = { "git", "-c", "init.defaultBranch=main", "-c", "user.name=t", "-c", "user.email=t@example.com" }
  vim.list_extend(cmd, args)
  local res = vim.system(cmd, { cwd = cwd, text = true }):wait(20000)
  assert(res.code == 0, table.concat(cmd, " ") .. ": " .. (res.stderr or ""))
end

local base = H.tmpdir()
local main = base .. "/repo"
vim.fn.mkdir(main, "p")
git(main, { "init", "-q" })
vim.fn.writefile({ "hello" }, main .. "/README")
git(main, { "add", "README" })
git(main, { "commit", "-q", "-m", "first" })
local feature = main .. "/trees/feature"
local other = main .. "/trees/other"
git(main, { "worktree", "add", "-q", "-b", "feature", feature })
git(main, { "worktree", "add", "-q", "-b", "other", other })
vim.fn.writefile({ "print('feature')" }, feature .. "/app.py")
vim.fn.writefile({ "print('main')" }, main .. "/app.py")
local db = base .. "/plans.sqlite3"

---Runs the CLI in `cwd` (an agent's folder): its checkout is recorded with the change.
---@param cwd string
---@param session string
---@param ops table[]
local function agent_apply(cwd, session, ops)
  local cmd = { H.plansight_bin, "apply", "--db", db, "--session", session, "--ops", vim.json.encode(ops) }
  local res = vim.system(cmd, { cwd = cwd, text = true }):wait(20000)
  assert(res.code == 0, (res.stderr or "") .. (res.stdout or ""))
end

---The virtual text at the end of sidebar line `lnum`.
local function virt_text(lnum)
  local sidebar = require("plansight.sidebar")
  local marks = vim.api.nvim_buf_get_extmarks(sidebar.state.buf, -1, { lnum - 1, 0 }, { lnum - 1, -1 }, { details = true })
  local out = {}
  for _, m in ipairs(marks) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      out[#out + 1] = chunk[1]
    end
  end
  return table.concat(out)
end

H.test("the folder a session's files are relative to, from any worktree", function()
  for _, root in ipairs({ main, feature, other }) do
    H.eq(checkout.folder(root, { worktree = "trees/feature", branch = "feature" }), feature, "from " .. root)
    H.eq(checkout.folder(root, { worktree = vim.NIL, branch = "main" }), main, "main from " .. root)
  end
  H.eq(checkout.folder(other, { worktree = "/elsewhere/wt", branch = vim.NIL }), "/elsewhere/wt", "absolute")
  H.eq(checkout.folder(other, vim.NIL), main, "no checkout known: the main working tree")
  local odd = base .. "/odd"
  vim.fn.mkdir(odd, "p")
  vim.fn.writefile({ "gitdir: /nowhere/.git/worktrees/x" }, odd .. "/.git")
  H.eq(checkout.folder(odd, vim.NIL), odd, "a broken .git file: the folder itself")
  H.eq(checkout.label({ worktree = "trees/feature", branch = "feature" }), "⎇ feature (trees/feature)", "label")
  H.eq(checkout.label({ worktree = vim.NIL, branch = vim.NIL }), "⎇ detached", "detached label")
  H.eq(checkout.label(vim.NIL), nil, "no label")
end)

H.test("the sidebar shows each session's checkout, a new session's too", function()
  agent_apply(feature, "on-feature", {
    { op = "init", list = { { phase = "Todos", items = { "Fix the feature" } } } },
    { op = "start", task = "Fix the feature" },
    { op = "update", id = "t1", addFiles = { "app.py" } },
  })
  vim.cmd.cd(other) -- Neovim open on a third worktree of the repository
  require("plansight").setup({ cmd = { H.plansight_bin, "serve", "--db", db }, auto_open = false, sidebar = { width = 80 } })
  vim.cmd("Plansight open")
  H.wait(function()
    local lnum = H.find_line("Fix the feature")
    return lnum and virt_text(1):find("⎇ feature (trees/feature)", 1, true)
  end, "the checkout beside the header:\n" .. table.concat(H.sidebar_lines(), "\n"))
  agent_apply(main, "on-main", { { op = "init", list = { { phase = "Todos", items = { "Work on main" } } } } })
  H.wait(function()
    local lnum = H.find_line("on-main")
    return lnum and virt_text(lnum):find("⎇ main", 1, true)
  end, "the new session's checkout:\n" .. table.concat(H.sidebar_lines(), "\n"))
end)

H.test("a task's file opens in the worktree it was changed in", function()
  H.goto_line("◦ app.py")
  require("plansight.actions.files").open_at_cursor()
  H.eq(vim.api.nvim_buf_get_name(0), feature .. "/app.py", "the feature worktree's file")
  H.eq(vim.api.nvim_buf_get_lines(0, 0, -1, false)[1], "print('feature')", "its text")
end)

H.run()
