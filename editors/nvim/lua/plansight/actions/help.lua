---`g?`: a floating window listing the sidebar's keys, then the `:Plansight` subcommands.
local M = {}

---Shows the configured keys and what they do, then the subcommands; any of q, <Esc>, g?
---closes it.
function M.show()
  local keys = require("plansight.actions.keymaps").key_list()
  local width = 0
  for _, k in ipairs(keys) do
    width = math.max(width, vim.fn.strdisplaywidth(k.lhs))
  end
  local lines = {}
  for _, k in ipairs(keys) do
    lines[#lines + 1] = (" %-" .. width .. "s  %s "):format(k.lhs, k.desc)
  end
  -- Then every `:Plansight` subcommand, from the same list of actions.
  lines[#lines + 1] = ""
  for _, action in ipairs(require("plansight.actions").list) do
    if action.command then
      local usage = action.command .. (action.args and (" " .. action.args) or "")
      lines[#lines + 1] = (" :Plansight %-16s %s "):format(usage, action.desc)
    end
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  local w = 0
  for _, l in ipairs(lines) do
    w = math.max(w, vim.fn.strdisplaywidth(l))
  end
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    row = math.max(0, math.floor((vim.o.lines - #lines) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - w) / 2)),
    width = math.max(w, 10),
    height = math.max(#lines, 1),
    style = "minimal",
    border = "rounded",
    title = " Plansight keys ",
    title_pos = "center",
  })
  for _, lhs in ipairs({ "q", "<Esc>", "g?" }) do
    vim.keymap.set("n", lhs, function()
      pcall(vim.api.nvim_win_close, win, true)
    end, { buffer = buf, nowait = true, desc = "Close the help" })
  end
  vim.api.nvim_create_autocmd("BufLeave", {
    buffer = buf,
    once = true,
    callback = function()
      pcall(vim.api.nvim_win_close, win, true)
    end,
  })
end

return M
