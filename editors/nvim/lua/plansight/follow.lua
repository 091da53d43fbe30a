---Which session the plugin follows when none is picked: the server's rule
---(`server/plansight/protocol/follow.py`, which `plansight watch` and the VS Code extension
---apply too), on the same cases (`tests/fixtures/follow/cases.json`). Pure: no editor state.
---
---Among the sessions with tasks (and any kept in sight), else all, the one followed so far
---stays while it is the newest or was updated within the idle time; else the newest
---(updated last, then by name).
local protocol = require("plansight.protocol")

local M = {}

---Days from 1970-01-01 to a civil date (proleptic Gregorian; Howard Hinnant's algorithm),
---so a UTC time needs no time zone of this machine.
local function days_from_civil(y, m, d)
  y = m <= 2 and y - 1 or y
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

---Milliseconds since the epoch of the wire's `updatedAt` (`2026-01-01T12:00:00.000Z`); nil
---when missing or unreadable.
---@param iso string|vim.NIL|nil
---@return integer?
function M.time_ms(iso)
  iso = protocol.value(iso)
  if type(iso) ~= "string" then
    return nil
  end
  local y, mo, d, h, mi, s = iso:match("^(%d%d%d%d)-(%d%d)-(%d%d)T(%d%d):(%d%d):(%d%d)")
  if not y then
    return nil
  end
  local frac = iso:match("^%.(%d+)", 20) or ""
  local ms = tonumber((frac .. "000"):sub(1, 3))
  -- An offset other than Z (the server always writes Z): minutes east of UTC.
  local sign, oh, om = iso:match("([+-])(%d%d):?(%d%d)$")
  local offset = sign and (tonumber(oh) * 60 + tonumber(om)) * (sign == "+" and 1 or -1) or 0
  local days = days_from_civil(tonumber(y), tonumber(mo), tonumber(d))
  local seconds = ((days * 24 + tonumber(h)) * 60 + tonumber(mi)) * 60 + tonumber(s) - offset * 60
  return seconds * 1000 + ms
end

---Whether `a` was updated after `b` (then by name): the order of the sessions, newest first.
---@param a {session: string, updatedAt: string|vim.NIL|nil}
---@param b {session: string, updatedAt: string|vim.NIL|nil}
---@return boolean
function M.newer(a, b)
  local ta, tb = M.time_ms(a.updatedAt) or -math.huge, M.time_ms(b.updatedAt) or -math.huge
  if ta ~= tb then
    return ta > tb
  end
  return a.session < b.session
end

---The session to follow, given the one followed so far; nil without any session.
---@param sessions {session: string, updatedAt: string|vim.NIL|nil, progress: {total: integer}?}[]
---@param previous string?
---@param now_ms integer
---@param kept table<string, boolean>? sessions kept in sight without tasks
---@param idle_ms integer? default: the server's `followIdleSeconds`
---@return string?
function M.followed(sessions, previous, now_ms, kept, idle_ms)
  kept = kept or {}
  idle_ms = idle_ms or protocol.rules.followIdleSeconds * 1000
  local shown = {}
  for _, s in ipairs(sessions) do
    local progress = protocol.value(s.progress)
    if (type(progress) == "table" and (progress.total or 0) > 0) or kept[s.session] then
      shown[#shown + 1] = s
    end
  end
  local pool = vim.list_slice(#shown > 0 and shown or sessions)
  table.sort(pool, M.newer)
  local newest = pool[1]
  for _, s in ipairs(pool) do
    if s.session == previous then
      local when = M.time_ms(s.updatedAt)
      if s == newest or (when and now_ms - when <= idle_ms) then
        return s.session
      end
      break
    end
  end
  return newest and newest.session or nil
end

---Now, in milliseconds since the epoch (the clock `updatedAt` is compared with).
---@return integer
function M.now_ms()
  local seconds, micros = vim.uv.gettimeofday()
  return seconds * 1000 + math.floor(micros / 1000)
end

return M
