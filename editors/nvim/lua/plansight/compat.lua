---The one place that knows Neovim 0.10 and 0.11 apart: 0.11 made the LSP client's methods
---(`client:request`) and `vim.lsp.start` replaced `vim.lsp.start_client`.
local M = {}

M.has_011 = vim.fn.has("nvim-0.11") == 1

---Calls `client`'s method `name` with the arguments, as a method on 0.11, a field on 0.10.
---@param client vim.lsp.Client
---@param name "request"|"notify"|"stop"|"is_stopped"
---@param ... any the method's arguments
---@return any
function M.call(client, name, ...)
  if M.has_011 then
    return client[name](client, ...)
  end
  return client[name](...)
end

---Starts a language client not attached to any buffer; returns its id.
---@param lsp_config vim.lsp.ClientConfig
---@return integer?
function M.start_client(lsp_config)
  if M.has_011 then
    return vim.lsp.start(lsp_config, {
      attach = false,
      silent = true,
      reuse_client = function()
        return false
      end,
    })
  end
  ---@diagnostic disable-next-line: deprecated
  return vim.lsp.start_client(lsp_config)
end

return M
