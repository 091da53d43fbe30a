-- The protocol names and fields the plugin uses, checked against `plansight schema` (the
-- server's models are the source of truth).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local protocol = require("plansight.protocol")

local schema = vim.json.decode(H.cli({ "schema" }))

-- The params fields each request is sent with, somewhere in the plugin.
local USED_PARAMS = {
  [protocol.methods.apply] = { "session", "ops", "origin", "baseVersion" },
  [protocol.methods.write] = { "session", "todos", "origin", "baseVersion" },
  [protocol.methods.get] = { "session" },
  [protocol.methods.sessions] = {},
  [protocol.methods.clear] = { "session", "origin" },
  [protocol.methods.export] = { "session", "format" },
  [protocol.methods.import] = { "session", "markdown", "origin" },
  [protocol.methods.context] = { "session" },
  [protocol.methods.history] = { "session", "limit" },
  [protocol.methods.restore] = { "session", "version", "origin" },
  [protocol.methods.undo] = { "session", "origin" },
}

-- The fields of a didChange the plugin reads.
local USED_NOTIFICATION_FIELDS = {
  "session", "title", "version", "phases", "progress", "current", "updatedAt", "origin", "completedTasks", "removedTasks",
}

H.test("protocol version", function()
  H.eq(schema.protocolVersion, protocol.VERSION, "protocolVersion")
end)

H.test("the fields of a delta answer the plugin reads are the schema's, for every change it sends", function()
  local delta = require("plansight.delta")
  local results = schema.extensions.changeDeltaAnswers.requests
  local fields = { "session", "version", "baseVersion", "phases", "tasks", "removedIds" }
  vim.list_extend(fields, delta.RESULT_MEMBERS)
  for _, method in ipairs({ "apply", "write", "clear", "import", "restore", "undo" }) do
    local props = results[protocol.methods[method]].result.properties
    for _, field in ipairs(fields) do
      H.ok(props[field], method .. " delta answer field " .. field)
    end
  end
  for name in pairs(delta.CAPABILITY.plansight) do
    H.ok(schema.extensions[name], "the opt-in " .. name .. " is an extension of the schema")
  end
end)

H.test("every request method the plugin uses is in the schema", function()
  for key, method in pairs(protocol.methods) do
    H.ok(schema.requests[method], ("protocol.methods.%s = %q is not a request of the schema"):format(key, method))
  end
  for method in pairs(USED_PARAMS) do
    H.ok(schema.requests[method], method .. " in the schema")
  end
end)

H.test("every notification the plugin handles is in the schema", function()
  for key, method in pairs(protocol.notifications) do
    H.ok(schema.notifications[method], ("protocol.notifications.%s = %q is not in the schema"):format(key, method))
  end
  local props = schema.notifications[protocol.notifications.did_change].params.properties
  for _, field in ipairs(USED_NOTIFICATION_FIELDS) do
    H.ok(props[field], "didChange field " .. field)
  end
end)

H.test("every params field the plugin sends is in the schema", function()
  for method, fields in pairs(USED_PARAMS) do
    local props = schema.requests[method].params.properties or {}
    for _, field in ipairs(fields) do
      H.ok(props[field], ("%s has no param %q"):format(method, field))
    end
  end
end)

H.test("the op names the sidebar sends are schema ops", function()
  local text = vim.json.encode(schema.requests[protocol.methods.apply].params)
  for _, op in ipairs({ "start", "done", "drop", "rm", "append", "note", "block", "update" }) do
    H.ok(text:find('"' .. op .. '"', 1, true), "op " .. op)
  end
end)

H.test("the task fields and update fields the plugin reads and sends are in the schema", function()
  local text = vim.json.encode(schema)
  for _, field in ipairs({ "description", "priority", "blockedBy", "waiting", "owner", "files", "reason", "addFiles" }) do
    H.ok(text:find('"' .. field .. '"', 1, true), "field " .. field)
  end
  -- (v3) Edit Note and Delete Note send the task's notes in an update op.
  local update = schema.requests[protocol.methods.apply].params["$defs"].UpdateOp
  H.ok(update and update.properties.notes, "the update op takes notes")
  for _, priority in ipairs(protocol.PRIORITIES) do
    H.ok(text:find('"' .. priority .. '"', 1, true), "priority " .. priority)
  end
end)

H.test("the rules are the server's: finished statuses, the follow idle time (issue 30, item 7)", function()
  H.eq(protocol.rules, schema.rules, "protocol.rules is `plansight schema`'s rules: copy them")
  local result = schema.requests[protocol.methods.get].result
  for _, status in ipairs(result["$defs"].TaskModel.properties.status.enum) do
    H.eq(protocol.finished(status), vim.tbl_contains(schema.rules.finishedStatuses, status), "finished " .. status)
  end
  local progress = result["$defs"].ProgressModel.properties
  for _, status in ipairs(schema.rules.finishedStatuses) do
    H.ok(progress[status], "the progress counts " .. status)
  end
  H.eq(protocol.remaining({ completed = 2, abandoned = 1, blocked = 1, total = 6, percent = 33 }), 3, "remaining")
end)

H.run()
