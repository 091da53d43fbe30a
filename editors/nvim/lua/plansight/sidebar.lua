---The sidebar: a scratch buffer in a vertical split that shows every session of one root.
---
---Re-rendering keeps the cursor on the same task and keeps the folds the user opened or
---closed, and it never moves focus: window work goes through `nvim_win_call`.
local client = require("plansight.client")
local config = require("plansight.config")
local patch = require("plansight.patch")
local render = require("plansight.render")

local M = {}

---Whether a live update redraws only what changed (`plansight.patch`); false redraws the
---whole view each time (the benchmark times both in one run).
M.patching = true

M.ns = vim.api.nvim_create_namespace("plansight")
M.spinner_ns = vim.api.nvim_create_namespace("plansight_spinner")

---@class plansight.SidebarState
---@field buf integer?
---@field win integer?
---@field root string? the workspace root shown
---@field view plansight.View? the last view written to the buffer
---@field overrides table<string, boolean> fold key -> closed, where the user differs from the default
---@field opened_once boolean
---@field folds_win integer? the window the last render built folds in
---@field width integer? the width the last render fitted its lines to
---@field render_scheduled boolean
---@field timer uv.uv_timer_t?
---@field frame integer
---@field filter plansight.Filter
M.state = {
  -- What the sidebar hides (`H`, `f`): kept while Neovim runs, across closing and opening.
  filter = {},
  overrides = {},
  opened_once = false,
  render_scheduled = false,
  frame = 1,
}

---Links the highlight groups with `default = true`, so colour schemes and users win.
function M.define_highlights()
  for group, link in pairs(render.links) do
    vim.api.nvim_set_hl(0, group, { link = link, default = true })
  end
end

---The sidebar's window, in whichever tab page, if any.
---@return integer?
local function visible_win()
  local st = M.state
  if
    st.win ~= nil
    and vim.api.nvim_win_is_valid(st.win)
    and st.buf ~= nil
    and vim.api.nvim_buf_is_valid(st.buf)
    and vim.api.nvim_win_get_buf(st.win) == st.buf
  then
    return st.win
  end
  return nil
end

---Whether the sidebar is shown in the current tab page.
---@return boolean
function M.is_open()
  local win = visible_win()
  return win ~= nil and vim.api.nvim_win_get_tabpage(win) == vim.api.nvim_get_current_tabpage()
end

---'foldtext' of the sidebar window.
---@return {[1]: string, [2]: string}[]
function M.foldtext()
  local view = M.state.view
  if not view then
    return { { vim.fn.getline(vim.v.foldstart), "Normal" } }
  end
  return render.fold_text(view, vim.v.foldstart, config.options.icons)
end

---@param win integer
local function set_window_options(win)
  local wo = {
    number = false,
    relativenumber = false,
    signcolumn = "no",
    foldcolumn = "0",
    statuscolumn = "",
    wrap = false,
    spell = false,
    list = false,
    cursorline = true,
    winfixwidth = true,
    foldenable = true,
    -- Manual folds, rebuilt from the view on each render: cheaper than 'foldexpr' on
    -- every line, and exact (expr folds are updated only near the changed lines).
    foldmethod = "manual",
    foldtext = "v:lua.require'plansight.sidebar'.foldtext()",
    foldminlines = 0,
    foldlevel = 99,
    fillchars = "fold: ,eob: ",
  }
  if vim.fn.exists("+winfixbuf") == 1 then
    wo.winfixbuf = true
  end
  for name, value in pairs(wo) do
    vim.api.nvim_set_option_value(name, value, { win = win, scope = "local" })
  end
end

---@param root string
---@return integer buf
local function create_buffer(root)
  local buf = vim.api.nvim_create_buf(false, true)
  for name, value in pairs({
    buftype = "nofile",
    bufhidden = "wipe",
    swapfile = false,
    buflisted = false,
    undolevels = -1,
    modifiable = false,
  }) do
    vim.api.nvim_set_option_value(name, value, { buf = buf })
  end
  pcall(vim.api.nvim_buf_set_name, buf, "plansight://sidebar")
  vim.b[buf].plansight_root = root
  vim.api.nvim_set_option_value("filetype", "plansight", { buf = buf })
  require("plansight.actions.keymaps").attach(buf)
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    callback = function()
      if M.state.buf == buf then
        M.state.buf = nil
        M.state.win = nil
        M.state.view = nil
        M.stop_spinner()
      end
    end,
  })
  return buf
end

---A line shown above the plan when the server is not (yet) there.
---@param root string
---@return string?
local function status_message(root)
  local conn = client.get(root)
  if not conn then
    return nil
  end
  if conn.status == "missing" then
    return ("Disconnected: %s. Install it (%s), then :Plansight restart. :checkhealth plansight says more."):format(
      conn.error or "server not found",
      require("plansight.locate").INSTALL
    )
  elseif conn.status == "exited" then
    return "Disconnected: "
      .. client.disconnected_text(conn)
      .. ". :Plansight restart (or r) starts it again; :checkhealth plansight says more."
  elseif not conn.loaded and next(conn.states) == nil then
    return "Connecting to the Plansight server…"
  end
  return require("plansight.doctor_warning").get(root)
end

---The item (task, phase, session, note) the sidebar's cursor line shows. On a closed fold
---that is the fold's first line (the session, phase or task it folds), whichever of its
---lines the cursor is on: an action never acts on a line the person cannot see.
---@return plansight.RenderItem?
function M.item_at_cursor()
  local st = M.state
  if not st.view then
    return nil
  end
  local win = visible_win()
  if not win then
    return nil
  end
  local lnum = vim.api.nvim_win_get_cursor(win)[1]
  local start = vim.api.nvim_win_call(win, function()
    return vim.fn.foldclosed(lnum)
  end)
  return st.view.items[start > 0 and start or lnum]
end

---Remembers which folds the user opened or closed, as differences from the defaults
---(run in the sidebar window).
---@param old plansight.View
local function capture_folds(old)
  local overrides = M.state.overrides
  for _, fold in ipairs(old.folds) do
    local fc = vim.fn.foldclosed(fold.start)
    -- A fold hidden inside a closed parent cannot be read; its remembered state stays.
    if fc == fold.start or fc == -1 then
      local closed = fc == fold.start
      if closed ~= fold.closed then
        overrides[fold.key] = closed
      else
        overrides[fold.key] = nil
      end
    end
  end
end

---Reads the user's folds from the sidebar window before it goes away.
---@param win integer
local function remember_folds(win)
  local st = M.state
  if st.view and st.folds_win == win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_win_call(win, function()
      capture_folds(st.view)
    end)
    st.folds_win = nil
  end
end

---Whether two views fold the same line ranges.
---@param a plansight.View
---@param b plansight.View
---@return boolean
local function same_fold_ranges(a, b)
  local fa, fb = a.folds, b.folds
  if #fa ~= #fb then
    return false
  end
  for i = 1, #fa do
    if fa[i].start ~= fb[i].start or fa[i].finish ~= fb[i].finish then
      return false
    end
  end
  return true
end

---Opens or closes only the folds whose state changed between `old` and `view` (the window
---still has `old`'s folds, over the same ranges): a live update that starts or ends a task
---touches its fold, not the other hundreds. False, having changed nothing, when one of them
---is inside a closed fold: its state cannot be read, so every fold is set again.
---@param view plansight.View
---@param old plansight.View
---@return boolean done
local function set_changed_folds(view, old)
  local overrides = M.state.overrides
  local todo = {}
  -- Children come after their parent: in reverse, the inner ones first.
  for i = #view.folds, 1, -1 do
    local fold, before = view.folds[i], old.folds[i]
    local want, had = overrides[fold.key], overrides[before.key]
    if want == nil then
      want = fold.closed
    end
    if had == nil then
      had = before.closed
    end
    if want ~= had then
      local fc = vim.fn.foldclosed(fold.start)
      if fc ~= -1 and fc ~= fold.start then
        return false
      end
      if (fc == fold.start) ~= want then
        todo[#todo + 1] = { fold.start, want }
      end
    end
  end
  for _, step in ipairs(todo) do
    vim.api.nvim_cmd({ cmd = step[2] and "foldclose" or "foldopen", range = { step[1] } }, {})
  end
  return true
end

---Rebuilds the folds of the current (sidebar) window from `view` (unless they are still
---the same ranges), each open or closed as the user left it, else as its default.
---@param view plansight.View
---@param old plansight.View?
---@param keep boolean whether the window's folds are still those of `old`
local function apply_folds(view, old, keep)
  local overrides = M.state.overrides
  local cmd = vim.api.nvim_cmd
  local same = keep and old and same_fold_ranges(old, view)
  if same and set_changed_folds(view, old --[[@as plansight.View]]) then
    return
  end
  if not same then
    pcall(vim.cmd, "normal! zE")
    -- Children first (they come after their parent): a new fold is closed, and a range
    -- that touches a closed fold grows to cover it, so a parent made first would swallow
    -- its children's ranges. A parent made last nests the children made before it.
    for i = #view.folds, 1, -1 do
      local fold = view.folds[i]
      cmd({ cmd = "fold", range = { fold.start, fold.finish } }, {})
    end
  end
  -- (A live update usually keeps every range: lines rewritten in place keep their folds,
  -- and only which are open changes, which the rest sets for every fold.)
  vim.cmd("normal! zR")
  -- Children come after their parent: closing in reverse closes the inner ones first.
  for i = #view.folds, 1, -1 do
    local fold = view.folds[i]
    local closed = overrides[fold.key]
    if closed == nil then
      closed = fold.closed
    end
    if closed then
      cmd({ cmd = "foldclose", range = { fold.start } }, {})
    end
  end
end

---Whether line `i` of `old` and line `j` of `new` draw the same: same text, same kind,
---same status (icons may be configured alike) and same fold level.
---@param old plansight.View
---@param new plansight.View
---@param i integer
---@param j integer
---@return boolean
local function same_line(old, new, i, j)
  if old.lines[i] ~= new.lines[j] or old.levels[i] ~= new.levels[j] then
    return false
  end
  local a, b = old.items[i], new.items[j]
  local va, vb = old.virt[i], new.virt[j]
  if a.kind ~= b.kind or (va ~= vb and not vim.deep_equal(va, vb)) then
    return false
  end
  return (a.task and a.task.status) == (b.task and b.task.status)
end

---The line ranges that differ between two views, as `{ from, old_to, new_to }` (0-based,
---end exclusive): the unchanged head and tail are kept; when the middle keeps its length,
---only the runs of lines that changed are rewritten. A live update usually touches a few
---lines (a status, the header's progress), so only those are redrawn.
---@param old plansight.View
---@param new plansight.View
---@return {[1]: integer, [2]: integer, [3]: integer}[]
function M.changed_runs(old, new)
  local n_old, n_new = #old.lines, #new.lines
  local head = 0
  while head < n_old and head < n_new and same_line(old, new, head + 1, head + 1) do
    head = head + 1
  end
  local tail = 0
  while
    tail < n_old - head
    and tail < n_new - head
    and same_line(old, new, n_old - tail, n_new - tail)
  do
    tail = tail + 1
  end
  local old_end, new_end = n_old - tail, n_new - tail
  if old_end - head ~= new_end - head then
    return { { head, old_end, new_end } }
  end
  local runs = {}
  local i = head
  while i < old_end do
    if same_line(old, new, i + 1, i + 1) then
      i = i + 1
    else
      local from = i
      while i < old_end and not same_line(old, new, i + 1, i + 1) do
        i = i + 1
      end
      runs[#runs + 1] = { from, i, i }
    end
  end
  return runs
end

---The runs of changed lines of a view patched from `old` (`plansight.patch`): only the
---lines it wrote again are compared, not the whole buffer.
---@param old plansight.View
---@param new plansight.View
---@return {[1]: integer, [2]: integer, [3]: integer}[]
local function patched_runs(old, new)
  local runs = {}
  for _, l in ipairs(new.patched) do
    if not same_line(old, new, l, l) then
      local last = runs[#runs]
      if last and last[2] == l - 1 then
        last[2], last[3] = l, l
      else
        runs[#runs + 1] = { l - 1, l, l }
      end
    end
  end
  return runs
end

---Runs of at most this many lines are rewritten in place, keeping the folds; a longer
---one is cheaper written whole, with the folds built again.
M.IN_PLACE_MAX = 40

---Replaces lines [from, old_to) of the buffer by the view's lines [from, new_to), with
---their highlights.
---@param buf integer
---@param view plansight.View
---@param from integer 0-based
---@param old_to integer end (exclusive) in the buffer, -1 for the end
---@param new_to integer end (exclusive) in the view
---@param all boolean? the whole buffer
local function write_lines(buf, view, from, old_to, new_to, all)
  local ns = M.ns
  if all then
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, view.lines)
    new_to = #view.lines
  elseif old_to == new_to and new_to - from <= M.IN_PLACE_MAX then
    -- A few lines, as many as before: replaced one by one (setbufline), which keeps the
    -- window's folds (nvim_buf_set_lines deletes the folds of the lines it replaces).
    vim.api.nvim_buf_clear_namespace(buf, ns, from, old_to)
    if new_to > from then
      vim.fn.setbufline(buf, from + 1, vim.list_slice(view.lines, from + 1, new_to))
    end
  else
    vim.api.nvim_buf_clear_namespace(buf, ns, from, old_to)
    vim.api.nvim_buf_set_lines(buf, from, old_to, false, vim.list_slice(view.lines, from + 1, new_to))
  end
  if new_to <= from then
    return
  end
  local set_extmark = vim.api.nvim_buf_set_extmark
  local marks = view.marks
  local last = (view.first_mark[new_to + 1] or #marks + 1) - 1
  -- One options table for every mark (a full redraw sets over a thousand).
  local hl = { end_col = 0, hl_group = "" }
  for k = view.first_mark[from + 1], last do
    local m = marks[k]
    if m[3] > m[2] then
      hl.end_col, hl.hl_group = m[3], m[4]
      set_extmark(buf, ns, m[1], m[2], hl)
    end
  end
  local virt = { virt_text = false, virt_text_pos = "eol", hl_mode = "combine" }
  for row = from, new_to - 1 do
    local chunks = view.virt[row + 1]
    if chunks then
      virt.virt_text = chunks
      set_extmark(buf, ns, row, 0, virt)
    end
  end
end

local set_winbar

---The line of the first session's header.
---@param view plansight.View
---@return integer?
local function first_session_line(view)
  for lnum, item in ipairs(view.items) do
    if item.kind == "session" then
      return lnum
    end
  end
  return nil
end

---The header line of the session the sidebar follows (the one commands target: picked
---with `:Plansight session`, else the newest with tasks; else the first shown) and the
---line of its current task (the server's), if any.
---@param view plansight.View
---@param followed string
---@return integer header, integer? current
local function followed_lines(view, followed)
  local header = view.index["s\0" .. followed] or first_session_line(view)
  if not header then
    return 1, nil
  end
  for lnum = header + 1, #view.items do
    local item = view.items[lnum]
    if item.kind == "session" then
      break
    elseif item.current then
      return header, lnum
    end
  end
  return header, nil
end

---The screen rows lines `from`..`to` take in the current window (a closed fold is one),
---counted up to `limit + 1` at most: callers only ask whether they fit in `limit` rows.
---@param from integer
---@param to integer
---@param limit integer
---@return integer
local function rows_between(from, to, limit)
  local n, k = 0, from
  local foldclosedend = vim.fn.foldclosedend
  while k <= to and n <= limit do
    n = n + 1
    local fin = foldclosedend(k)
    k = (fin > 0 and fin or k) + 1
  end
  return n
end

---The first line the current window should show: `want` moved as little as needed so that
---`lnum` is in view and no blank rows are left below the buffer's end.
---@param lnum integer
---@param want integer
---@param height integer
---@return integer
local function topline_for(lnum, want, height)
  local foldclosed = vim.fn.foldclosed
  -- The last topline that still fills the window: walk up from the end, row by row.
  local last, rows, l = vim.fn.line("$"), 0, vim.fn.line("$")
  while l >= 1 do
    local start = foldclosed(l)
    l = start > 0 and start or l
    rows = rows + 1
    if rows > height then
      break
    end
    last = l
    l = l - 1
  end
  local start = foldclosed(lnum)
  lnum = start > 0 and start or lnum
  -- The highest topline that still shows `lnum`: walk up from it, row by row (a walk of
  -- at most `height` rows, where moving the top down one row at a time cost a walk each).
  local lowest, up = lnum, 1
  while up < height and lowest > 1 do
    local prev = lowest - 1
    local pstart = foldclosed(prev)
    lowest = pstart > 0 and pstart or prev
    up = up + 1
  end
  return math.max(math.max(1, math.min(want, last, lnum)), lowest)
end

---The line the cursor goes to in `view` when it was on `item` at line `lnum`: the same
---item; else, when the line at `lnum` is still of the same session, that line (after `D`,
---the next task); else the item's phase, else its session (a cleared session moved to the
---top: the cursor stays in it, so `u` undoes that session's change); else line `lnum`.
---@param view plansight.View
---@param item plansight.RenderItem?
---@param lnum integer
---@return integer
local function kept_line(view, item, lnum)
  lnum = math.max(1, math.min(lnum, #view.lines))
  if not item then
    return lnum
  end
  local found = item.key and view.index[item.key]
  if found then
    return found
  end
  local session = item.session
  if not session then
    return lnum
  end
  local there = view.items[lnum]
  if there and there.session == session and there.kind ~= "session" then
    return lnum
  end
  for _, key in ipairs(item.ancestors or {}) do
    if view.index[key] then
      return view.index[key]
    end
  end
  local phase = item.phase and view.index["p\0" .. session .. "\0" .. item.phase]
  return phase or view.index["s\0" .. session] or lnum
end

---Writes `view` into the sidebar buffer, keeping cursor and folds.
---@param view plansight.View
function M.apply_view(view)
  local st = M.state
  local buf = st.buf
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local win = visible_win()
  local old = st.view
  local saved, cursor_item
  if win then
    vim.api.nvim_win_call(win, function()
      saved = vim.fn.winsaveview()
      if old then
        cursor_item = old.items[saved.lnum]
        -- Only a window that has the last render's folds can tell what the user changed.
        if st.folds_win == win then
          capture_folds(old)
        end
      end
    end)
  end

  st.view = view
  vim.bo[buf].modifiable = true
  -- The window's folds stay valid when every run of lines was rewritten in place.
  local in_place = win ~= nil and st.folds_win == win and old ~= nil
  if old and vim.api.nvim_buf_line_count(buf) == #old.lines then
    local runs = view.base == old and view.patched and patched_runs(old, view) or M.changed_runs(old, view)
    for _, run in ipairs(runs) do
      in_place = in_place and run[2] == run[3] and run[3] - run[1] <= M.IN_PLACE_MAX
      write_lines(buf, view, run[1], run[2], run[3])
    end
  else
    in_place = false
    write_lines(buf, view, 0, -1, 0, true)
  end
  -- Let go of the view it was patched from (each would keep the one before alive).
  view.base = nil
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false

  if win then
    st.folds_win = win
    local focused = vim.api.nvim_get_current_win() == win
    vim.api.nvim_win_call(win, function()
      apply_folds(view, old, in_place)
      if saved then
        local kept = kept_line(view, cursor_item, saved.lnum)
        local header, current = followed_lines(view, client.active_session(st.root))
        ---Where the cursor goes and the first line shown, for a text area `height` rows high.
        ---@param height integer
        ---@return integer lnum, integer topline
        local function place(height)
          if focused then
            -- The user is working in the list: the cursor stays on its item, in view.
            return kept, topline_for(kept, saved.topline + (kept - saved.lnum), height)
          end
          -- Watching from another window: the followed session (the newest unless one
          -- was picked) and its current task show; the cursor keeps its item when that
          -- is in view too, so the user finds it again on coming back.
          local show = current or header
          local top = topline_for(show, first_session_line(view) == header and 1 or header, height)
          if kept < top or rows_between(top, kept, height) > height then
            return show, top
          end
          return kept, top
        end
        local height = vim.api.nvim_win_get_height(0)
        local lnum, topline = place(height)
        if header < topline and height > 1 then
          -- The header goes into the window bar, which takes a row of the window.
          lnum, topline = place(height - 1)
        end
        set_winbar(win, view, header, topline)
        saved.lnum = lnum
        saved.topline = topline
        saved.col = 0
        saved.curswant = 0
        vim.fn.winrestview(saved)
      end
    end)
  end
  M.update_spinner()
end

---The window bar of the sidebar: the followed session's header (line `header`) when it is
---above the first line shown (`top`), with its agent label, count and bar; else empty.
---@param win integer
---@param view plansight.View
---@param header integer
---@param top integer
set_winbar = function(win, view, header, top)
  local bar = ""
  if view.items[header] and view.items[header].kind == "session" and header < top then
    local parts = {}
    for _, chunk in ipairs(render.line_chunks(view, header)) do
      parts[#parts + 1] = "%#" .. chunk[2] .. "#" .. chunk[1]:gsub("%%", "%%%%")
    end
    bar = table.concat(parts)
  end
  if vim.wo[win].winbar ~= bar then
    vim.wo[win].winbar = bar
  end
end

---Keeps the followed session's header in view after the person scrolled the sidebar.
function M.update_sticky_header()
  local st = M.state
  local win = visible_win()
  if not win or not st.view then
    return
  end
  local header = followed_lines(st.view, client.active_session(st.root))
  set_winbar(win, st.view, header, vim.fn.line("w0", win))
end

---Renders the sidebar now from the cache of its root.
function M.render()
  local st = M.state
  if not st.buf or not vim.api.nvim_buf_is_valid(st.buf) or not st.root then
    return
  end
  local opts = config.options
  local win = visible_win()
  local width = win and vim.api.nvim_win_get_width(win) or opts.sidebar.width
  st.width = width
  local states = client.states(st.root)
  ---@type plansight.RenderOpts
  local ropts = {
    icons = opts.icons,
    bar_width = opts.sidebar.bar_width,
    message = status_message(st.root),
    width = width,
    checkouts = client.checkouts(st.root),
    filter = st.filter,
  }
  -- A live update writes again only the lines of what changed (`plansight.patch`); what
  -- moves lines or touches many (a task added or moved, a session moved up, a filter, a
  -- new width) is rendered whole.
  local view = (M.patching and patch.view(st.view, states, ropts)) or render.view(states, ropts)
  view.states, view.opts = states, ropts
  M.apply_view(view)
end

---Renders on the next turn of the event loop; many changes in a row render once.
function M.schedule_render()
  if M.state.render_scheduled then
    return
  end
  M.state.render_scheduled = true
  vim.schedule(function()
    M.state.render_scheduled = false
    M.render()
  end)
end

---Asks the doctor what to say above the plan of `root` (`doctor_warning.lua`); while it
---says something, asks again each time Neovim regains the focus (the person trusted the
---hooks in Codex, elsewhere).
---@param root string
function M.check_doctor(root)
  local warning = require("plansight.doctor_warning")
  if warning.messages[root] == nil and not warning.asked[root] then -- once, until focus
    warning.check(root, M.schedule_render)
  end
  if not M.state.doctor_focus then
    M.state.doctor_focus = vim.api.nvim_create_autocmd("FocusGained", {
      group = vim.api.nvim_create_augroup("PlansightDoctor", { clear = true }),
      callback = function()
        local shown = M.state.root
        if shown and M.is_open() and warning.get(shown) then
          warning.check(shown, M.schedule_render)
        end
      end,
    })
  end
end

---Opens the sidebar for `opts.root` (default: the root of the current buffer).
---`opts.connect = false` draws the cache only, without starting the server (benchmarks).
---@param opts {focus: boolean?, root: string?, connect: boolean?}?
function M.open(opts)
  opts = opts or {}
  local st = M.state
  local root = opts.root or client.resolve_root()
  local focus = opts.focus
  if focus == nil then
    focus = config.options.sidebar.focus
  end
  st.opened_once = true
  M.check_doctor(root)
  if st.root ~= root then
    st.root = root
    if st.buf and vim.api.nvim_buf_is_valid(st.buf) then
      vim.b[st.buf].plansight_root = root
    end
  end
  if not st.buf or not vim.api.nvim_buf_is_valid(st.buf) then
    st.buf = create_buffer(root)
    st.view = nil
  end
  if not M.is_open() then
    -- Shown in another tab page: it moves here (one sidebar window keeps folds exact).
    local elsewhere = visible_win()
    if elsewhere then
      pcall(vim.api.nvim_win_close, elsewhere, true)
      if not st.buf or not vim.api.nvim_buf_is_valid(st.buf) then
        st.buf = create_buffer(root)
        st.view = nil
      end
    end
    local sb = config.options.sidebar
    st.win = vim.api.nvim_open_win(st.buf, focus, {
      split = sb.side,
      win = -1,
      width = sb.width,
    })
    set_window_options(st.win)
    local win = st.win
    vim.api.nvim_create_autocmd("WinClosed", {
      pattern = tostring(win),
      once = true,
      callback = function()
        remember_folds(win)
      end,
    })
    -- The person scrolled the sidebar: the followed session's header may have left the top.
    vim.api.nvim_create_autocmd("WinScrolled", {
      pattern = tostring(win),
      callback = function()
        if not vim.api.nvim_win_is_valid(win) then
          return true
        end
        M.update_sticky_header()
      end,
    })
    -- Headers and messages are fitted to the width: a resized sidebar draws again.
    vim.api.nvim_create_autocmd("WinResized", {
      callback = function()
        if not vim.api.nvim_win_is_valid(win) then
          return true
        end
        if vim.api.nvim_win_get_width(win) ~= M.state.width then
          M.schedule_render()
        end
      end,
    })
  elseif focus then
    vim.api.nvim_set_current_win(st.win)
  end
  if opts.connect ~= false then
    local conn = client.ensure(root)
    if conn.status == "ready" then
      client.refresh(root)
    end
  end
  M.render()
end

---Closes the sidebar window (the buffer goes with it).
function M.close()
  local st = M.state
  if not M.is_open() then
    return
  end
  local win = st.win --[[@as integer]]
  if #vim.api.nvim_tabpage_list_wins(0) == 1 then
    -- The last window cannot close; leave an empty one behind instead.
    vim.cmd("vnew")
  end
  pcall(vim.api.nvim_win_close, win, true)
  st.win = nil
  M.stop_spinner()
end

---@param opts {focus: boolean?, root: string?}?
function M.toggle(opts)
  if M.is_open() then
    M.close()
  else
    M.open(opts)
  end
end

function M.stop_spinner()
  local st = M.state
  if st.timer then
    st.timer:stop()
    st.timer:close()
    st.timer = nil
  end
  if st.buf and vim.api.nvim_buf_is_valid(st.buf) then
    vim.api.nvim_buf_clear_namespace(st.buf, M.spinner_ns, 0, -1)
  end
end

---Draws the current spinner frame over each in_progress icon.
local function draw_spinner()
  local st = M.state
  local frames = config.options.icons.spinner
  if not frames or not st.view or not st.buf or not vim.api.nvim_buf_is_valid(st.buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(st.buf, M.spinner_ns, 0, -1)
  local frame = frames[(st.frame - 1) % #frames + 1]
  for _, a in ipairs(st.view.active) do
    pcall(vim.api.nvim_buf_set_extmark, st.buf, M.spinner_ns, a.row, a.col, {
      virt_text = { { frame, render.hl.in_progress } },
      virt_text_pos = "overlay",
    })
  end
end

---Runs the spinner while the sidebar is visible and a task is in progress.
function M.update_spinner()
  local st = M.state
  local frames = config.options.icons.spinner
  local wanted = frames and M.is_open() and st.view and #st.view.active > 0
  if not wanted then
    M.stop_spinner()
    return
  end
  draw_spinner()
  if not st.timer then
    st.timer = assert(vim.uv.new_timer())
    st.timer:start(100, 100, vim.schedule_wrap(function()
      if not M.is_open() then
        M.stop_spinner()
        return
      end
      st.frame = st.frame + 1
      draw_spinner()
    end))
  end
end

return M
