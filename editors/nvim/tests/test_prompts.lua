-- Issue 33 item 19, on a real screen (a second Neovim in a terminal, tests/tui.lua): undoing
-- a clear and a killed server never stop Neovim at "Press ENTER"; a server killed while it
-- served is started again once (as VS Code does), killed again it stays disconnected and
-- says so; a key pressed while disconnected is not applied, and says so.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local T = dofile(H.tests_dir .. "/tui.lua")(H)
H.load_plugin()
local p = H.project()

local items = {}
for i = 1, 12 do
  items[#items + 1] = ("Task number %d"):format(i)
end
H.cli_apply(p.db, { { op = "init", list = { { phase = "Work", items = items } } } })
local tui = T.start(p)

---Puts the second Neovim's cursor in its sidebar, on the line holding `text`.
local function goto_line(text)
  tui.lua(
    [[
    local text = ...
    local sidebar = require("plansight.sidebar")
    vim.api.nvim_set_current_win(sidebar.state.win)
    for i, line in ipairs(vim.api.nvim_buf_get_lines(sidebar.state.buf, 0, -1, false)) do
      if line:find(text, 1, true) then
        vim.api.nvim_win_set_cursor(sidebar.state.win, { i, 0 })
        return
      end
    end
    error("no line holds " .. text)
  ]],
    text
  )
end

local function status()
  return tui.lua("local c = require('plansight.client').get(...) return c and c.status", p.root)
end

H.test("undoing a clear says what it brought back in one line: no Press ENTER", function()
  tui.lua("vim.cmd('Plansight open')")
  tui.wait_screen("○ Task number 12", "the plan")
  goto_line("○ Task number 3")
  tui.input(":Plansight clear<CR>")
  tui.wait_screen("Clear", "the question")
  tui.input("1<CR>")
  H.wait(function()
    return H.cli_state(p.db).progress.total == 0
  end, "cleared", T.WAIT_MS)
  tui.wait_screen("(no tasks)", "the cleared list")
  tui.input("u")
  H.wait(function()
    return H.cli_state(p.db).progress.total == 12
  end, "u undoes the clear", T.WAIT_MS)
  tui.wait_screen("undo: added", "what the undo did")
  tui.no_prompt("after undoing a clear")
  H.ok(tui.screen():find("more", 1, true), "the rest counted:\n" .. tui.screen())
end)

H.test("a killed server is started again once, with no Press ENTER", function()
  tui.lua("vim.cmd('Plansight open')")
  local first = tui.lua("return require('plansight.client').get(...).client_id", p.root)
  tui.lua("require('plansight.client').lsp_client(require('plansight.client').get(...)).rpc.terminate()", p.root)
  tui.wait_screen("started it again", "the restart said")
  tui.no_prompt("after the server was killed")
  H.wait(function()
    return status() == "ready" and tui.lua("return require('plansight.client').get(...).client_id", p.root) ~= first
  end, "a new server serves", T.WAIT_MS)
  H.cli_apply(p.db, { { op = "append", phase = "Work", items = { "After the restart" } } })
  tui.wait_screen("○ After the restart", "live updates again")
end)

H.test("killed again it stays disconnected; a key pressed then is not applied, and says so", function()
  tui.lua("require('plansight.client').lsp_client(require('plansight.client').get(...)).rpc.terminate()", p.root)
  tui.wait_screen("Disconnected", "the sidebar says so")
  tui.wait_screen("not restarted", "the message says so")
  tui.no_prompt("after the second kill")
  goto_line("○ Task number 5")
  tui.input("x")
  tui.wait_screen("not done", "the key's refusal said")
  tui.no_prompt("after a key while disconnected")
  H.eq(status(), "exited", "the key started no server")
  H.eq(H.cli_task(p.db, "Task number 5").status, "pending", "the key was not applied")
  -- r starts it again.
  tui.input("r")
  H.wait(function()
    return status() == "ready"
  end, "r starts the server", T.WAIT_MS)
  tui.input("x")
  H.wait_status(p.db, "Task number 5", "completed", "x applied once connected")
  tui.no_prompt("after the restart")
  tui.stop()
end)

H.run()
