-- A second Neovim with a real screen, for what only a screen shows ("Press ENTER", what a
-- narrow window cuts): it runs in a terminal buffer of the test's Neovim (the headless
-- grid's 80x24), with the plugin set up on the test's store, and is driven through its
-- socket. Its screen is the terminal buffer's lines. Waits are on what the screen or the
-- store shows, never on time.
--
--   local T = dofile(H.tests_dir .. "/tui.lua")(H)
--   local tui = T.start(p)
local function make(H)
  local T = {}

  ---How long a wait on the second Neovim may take before it fails.
  T.WAIT_MS = 30000

  ---@param buf integer
  ---@return string
  local function tui_screen(buf)
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  end

  ---@param p {root: string, db: string}
  ---@param setup_opts table? merged into the plugin's setup options
  function T.start(p, setup_opts)
    local dir = H.tmpdir()
    -- A socket's path is at most 107 bytes: the test's own temporary folders are longer.
    local sock = ("/tmp/plansight-tui-%d-%d.sock"):format(vim.fn.getpid(), vim.uv.hrtime() % 1000000)
    local init = dir .. "/init.lua"
    local opts = vim.tbl_deep_extend("force", { cmd = { H.plansight_bin, "serve", "--db", p.db }, auto_open = false }, setup_opts or {})
    vim.fn.writefile({
      "vim.opt.rtp:prepend(" .. vim.inspect(H.plugin_root) .. ")",
      "vim.o.swapfile = false",
      "vim.o.shortmess = vim.o.shortmess .. 'I'",
      "vim.cmd('runtime plugin/plansight.lua')",
      "require('plansight').setup(" .. vim.inspect(opts, { newline = " ", indent = "" }) .. ")",
      "vim.g.tui_ready = true",
    }, init)
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_set_current_buf(buf)
    local job = vim.fn.jobstart({ vim.v.progpath, "--clean", "--listen", sock, "-c", "luafile " .. init }, {
      term = true,
      cwd = p.root,
    })
    H.ok(job > 0, "the second Neovim started")
    local chan
    H.wait(function()
      -- The file is there once bound, before it listens: connect until it answers.
      local ok, id = pcall(vim.fn.sockconnect, "pipe", sock, { rpc = true })
      chan = ok and id > 0 and id or nil
      return chan
    end, "its socket", 20000)
    local tui = { buf = buf, job = job, chan = chan }
    -- Started: its init ran (it sets the variable last) and its screen is drawn.
    H.wait(function()
      local mode = vim.rpcrequest(chan, "nvim_get_mode")
      H.ok(not mode.blocking, "the second Neovim waits for a key at start:\n" .. tui_screen(buf))
      return vim.rpcrequest(chan, "nvim_get_var", "tui_ready") and tui_screen(buf):find("~", 1, true)
    end, "the second Neovim's screen", 20000)

    ---The mode, read without waiting on it (a prompt blocks every other request).
    function tui.mode()
      return vim.rpcrequest(chan, "nvim_get_mode")
    end

    ---Fails when the screen waits for Enter; else runs `code` in it.
    function tui.lua(code, ...)
      local mode = tui.mode()
      H.ok(not mode.blocking, "the screen waits for a key (" .. mode.mode .. "):\n" .. tui.screen())
      return vim.rpcrequest(chan, "nvim_exec_lua", code, { ... })
    end

    ---Types keys, as a person at that screen.
    function tui.input(keys)
      vim.rpcrequest(chan, "nvim_input", keys)
    end

    ---The screen's text.
    ---@return string
    function tui.screen()
      return tui_screen(buf)
    end

    ---Waits until the screen shows `text` (plain). A second Neovim and its server start
    ---slowly on a loaded machine: the wait is long, and ends as soon as the text shows.
    function tui.wait_screen(text, what)
      H.wait(function()
        return tui.screen():find(text, 1, true)
      end, what .. " (" .. text .. ") on the screen", T.WAIT_MS)
    end

    ---Fails when Neovim stopped at a "Press ENTER" (or any prompt waiting for a key).
    function tui.no_prompt(what)
      local mode = tui.mode()
      local screen = tui.screen()
      H.ok(not mode.blocking and not screen:find("Press ENTER", 1, true), what .. ": the screen waits for Enter (mode " .. mode.mode .. "):\n" .. screen)
    end

    function tui.stop()
      pcall(vim.rpcrequest, chan, "nvim_exec_lua", "for _, c in ipairs(vim.lsp.get_clients({ name = 'plansight' })) do c:stop(true) end", {})
      pcall(vim.fn.chanclose, chan)
      vim.fn.jobstop(job)
      vim.fn.jobwait({ job }, 5000)
      os.remove(sock)
    end
    return tui
  end

  return T
end

return make
