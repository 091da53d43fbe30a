-- An action on a closed fold acts on what the cursor shows (the fold's first line), or says
-- why nothing happened; never on a hidden task.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local sidebar = require("plansight.sidebar")

H.cli_apply(p.db, {
  { op = "init", list = { { phase = "Build", items = { "compile", "link" } }, { phase = "Ship", items = { "tag", "push" } } } },
})
vim.cmd("Plansight open")
H.wait_line("link", "the plan drawn")

---Puts the cursor on `inner`, then closes the fold around it (`zc`), as a person would.
---@param inner string
local function close_fold_around(inner)
  H.goto_line(inner)
  vim.cmd("normal! zc")
  H.ok(vim.fn.foldclosed(vim.fn.line(".")) > 0, "the fold is closed")
end

H.test("x on a closed session fold says so and completes nothing", function()
  close_fold_around("link")
  vim.cmd("normal! zc") -- the phase, then the session
  H.eq(vim.fn.foldclosed(vim.fn.line(".")), 1, "the session's fold is closed, the cursor inside it")
  local before = {}
  for _, name in ipairs({ "compile", "link", "tag", "push" }) do
    before[name] = H.cli_task(p.db, name).status
  end
  H.messages = {}
  H.feed("x")
  H.flush()
  local warned = vim.tbl_filter(function(m)
    return m.level == vim.log.levels.WARN and m.msg:find("put the cursor on a task or a phase", 1, true)
  end, H.messages)
  H.eq(#warned, 1, "one warning: " .. vim.inspect(H.messages))
  H.ok(warned[1].msg:find("session's header", 1, true), "it says the cursor is on a session's header")
  -- Nothing changed in the store.
  for name, status in pairs(before) do
    H.eq(H.cli_task(p.db, name).status, status, name .. " untouched")
  end
  vim.cmd("normal! zR")
end)

H.test("x on a closed phase fold completes that phase, as its line shows", function()
  close_fold_around("push")
  local item = sidebar.item_at_cursor()
  H.eq(item and item.kind, "phase", "the item the cursor shows is the phase")
  H.eq(item and item.phase, "Ship", "the phase the fold shows")
  H.feed("x")
  H.wait_status(p.db, "tag", "completed", "the phase completed")
  H.wait_status(p.db, "push", "completed", "the phase completed")
  H.ok(H.cli_task(p.db, "link").status ~= "completed", "the other phase untouched")
end)

H.run()
