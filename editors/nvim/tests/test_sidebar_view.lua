-- What the sidebar keeps in view against the real server: the newest change when the
-- sidebar is not focused, the cursor's task when it is; headers and the empty state fit.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local p = H.start()
local plansight = require("plansight")
local sidebar = require("plansight.sidebar")
local client = require("plansight.client")

-- These cases are about what the sidebar keeps in view of the followed session. Their
-- changes come seconds apart, so the plugin's clock is set an hour ahead: every session has
-- been idle long enough for the one changed last to be followed, as when agents take turns
-- minutes apart (a session in use staying followed is test_follow.lua's).
local follow = require("plansight.follow")
local real_now = follow.now_ms
follow.now_ms = function()
  return real_now() + 3600 * 1000
end

local main_win = vim.api.nvim_get_current_win()

---@param name string
---@param items any[]
local function write(name, items)
  H.cli_apply(p.db, { { op = "init", list = { { phase = "Todos", items = items } } } }, name)
end

---@param op string "done"|"start"
---@param task string
---@param session string
local function act(op, task, session)
  H.cli_apply(p.db, { { op = op, task = task } }, session)
end

---The sidebar's window bar as shown (its highlight codes taken out).
local function winbar()
  return (vim.wo[sidebar.state.win].winbar:gsub("%%#[^#]*#", ""))
end

---The first and last buffer lines shown in the sidebar window.
local function shown()
  return vim.fn.line("w0", sidebar.state.win), vim.fn.line("w$", sidebar.state.win)
end

---Fails unless buffer line `lnum` is on screen.
local function in_view(lnum, what)
  local top, bottom = shown()
  H.ok(
    lnum and top <= lnum and lnum <= bottom,
    ("%s (line %s) is not in view: lines %d-%d shown of\n%s"):format(
      what, tostring(lnum), top, bottom, table.concat(H.sidebar_lines(), "\n"))
  )
end

H.test("the empty state fits the default width", function()
  vim.cmd("Plansight")
  H.wait(function()
    return client.get(p.root).loaded and H.find_line("No plan yet")
  end, "empty state")
  local width = vim.api.nvim_win_get_width(sidebar.state.win)
  H.eq(width, 42, "default width")
  local text = {}
  for _, line in ipairs(H.sidebar_lines()) do
    H.ok(vim.fn.strdisplaywidth(line) <= width, ("cut off at %d cells: %q"):format(width, line))
    text[#text + 1] = line
  end
  H.eq(table.concat(text, " "), require("plansight.render").EMPTY, "the whole message, wrapped")
  H.ok(table.concat(text, " "):find("plansight setup AGENT", 1, true), "how to connect an agent")
end)

H.test("unfocused: the session that just changed moves to the top and is in view", function()
  write("older", { "o1", "o2", "o3" })
  write("newer", { "n1", "n2", "n3" })
  H.wait(function()
    return H.find_line("▾ older") and H.find_line("▾ newer")
  end, "both sessions drawn")
  H.eq(H.find_line("▾ newer"), 1, "newest first")
  H.eq(vim.api.nvim_get_current_win(), main_win, "sidebar not focused")

  act("done", "o1", "older")
  H.wait(function()
    return H.find_line("▾ older") == 1
  end, "older moves to the top")
  local top = shown()
  H.eq(top, 1, "the window shows the top of the list, not the old scroll position")
  in_view(H.find_line("▾ older"), "the changed session")
  in_view(H.find_line("○ n3"), "the rest below it")
end)

H.test("unfocused, in a short window: the newest session's current task is in view", function()
  local items = {}
  for i = 1, 20 do
    items[i] = { content = ("long%02d"):format(i), status = i < 15 and "completed" or (i == 15 and "in_progress" or "pending") }
  end
  write("long", items)
  H.wait_line("● long15", "the long plan drawn")
  vim.api.nvim_win_set_height(sidebar.state.win, 6)
  act("start", "long16", "long")
  H.wait_line("● long16", "long16 started")
  H.eq(H.find_line("▾ long"), 1, "the changed session is first")
  in_view(H.find_line("● long16"), "the task in progress")
  H.eq(vim.api.nvim_get_current_win(), main_win, "focus not taken")
  -- Its header is above the window's top: the window bar shows it.
  local top = shown()
  H.ok(top > 1, "the header scrolled out of the text area")
  H.ok(winbar():find("▾ long  ", 1, true), "the header in the window bar: " .. winbar())
end)

H.test("with 4 sessions the followed session's header stays in view, scrolled or not", function()
  vim.api.nvim_win_set_height(sidebar.state.win, 8)
  for i = 1, 4 do
    write(("four%d"):format(i), { "a" .. i, "b" .. i, "c" .. i, "d" .. i })
  end
  H.wait(function()
    return H.find_line("▾ four4") == 1
  end, "the newest of four sessions first")
  H.eq(vim.fn.line("w0", sidebar.state.win), 1, "its header at the top")
  H.eq(winbar(), "", "no window bar while the header is in view")
  -- The person scrolls down, past the header.
  vim.api.nvim_win_call(sidebar.state.win, function()
    vim.cmd("normal! 12\x05")
  end)
  vim.api.nvim_exec_autocmds("WinScrolled", { pattern = tostring(sidebar.state.win) })
  H.ok(vim.fn.line("w0", sidebar.state.win) > 1, "scrolled")
  H.ok(winbar():find("▾ four4", 1, true), "the followed session's header in the window bar: " .. winbar())
  -- Picking another session follows that one.
  vim.cmd("Plansight session four2")
  H.flush()
  local header = H.find_line("▾ four2")
  if header < vim.fn.line("w0", sidebar.state.win) then
    H.ok(winbar():find("▾ four2", 1, true), "the picked session's header: " .. winbar())
  else
    in_view(header, "the picked session's header")
  end
  require("plansight.client").selected_session = nil
end)

H.test("focused: the cursor stays on its task, in view, with no blank rows below", function()
  vim.cmd("resize 40")
  vim.api.nvim_win_set_height(sidebar.state.win, 12)
  vim.api.nvim_set_current_win(sidebar.state.win)
  local lnum = H.find_line("○ n2")
  vim.api.nvim_win_set_cursor(sidebar.state.win, { lnum, 0 })
  act("done", "o2", "older")
  H.wait(function()
    return H.find_line("▾ older") == 1
  end, "older moves to the top")
  local now = H.find_line("○ n2")
  H.eq(vim.api.nvim_win_get_cursor(sidebar.state.win)[1], now, "cursor follows its task")
  in_view(now, "the cursor's task")
  local _, bottom = shown()
  -- The window bar (the followed session's header, when scrolled out) takes a row.
  local height = vim.api.nvim_win_get_height(sidebar.state.win) - (winbar() ~= "" and 1 or 0)
  local total = vim.api.nvim_buf_line_count(sidebar.state.buf)
  local visible_rows = vim.api.nvim_win_text_height(sidebar.state.win, { start_row = vim.fn.line("w0", sidebar.state.win) - 1 }).all
  H.ok(bottom == total and visible_rows >= math.min(height, total) or bottom < total,
    ("blank rows below the list: %d rows of text in a window of %d"):format(visible_rows, height))
  vim.api.nvim_set_current_win(main_win)
end)

H.test("a long session name is cut with … and the bar and count always fit", function()
  -- A hook's session: the agent's label first, then the session's own id.
  local id = "6f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b"
  write("claude-code:" .. id, { { content = "a", status = "completed" }, "b", "c" })
  H.wait_line("1/3", "the long-named session drawn")
  local width = vim.api.nvim_win_get_width(sidebar.state.win)
  local line = H.sidebar_lines()[H.find_line("1/3")]
  H.ok(vim.fn.strdisplaywidth(line) <= width, ("header wider than %d cells: %q"):format(width, line))
  H.ok(line:find("1/3 ███░░░░░░░", 1, true), "the whole bar shows: " .. line)
  H.ok(line:find("…", 1, true), "the name is cut with …: " .. line)
  H.ok(line:find("▾ claude 6f1c2d3e", 1, true), "the agent and the start of the name stay: " .. line)
  -- A wider sidebar shows the whole name again.
  vim.api.nvim_win_set_width(sidebar.state.win, 70)
  -- A UI fires WinResized on its next redraw; headless Neovim has no UI to redraw.
  vim.api.nvim_exec_autocmds("WinResized", {})
  H.wait(function()
    return H.find_line("▾ claude " .. id .. "  1/3")
  end, "the whole name in a wider sidebar")
end)

H.run()
