-- An author's session in Neovim, driven headless through Neovim's own LSP
-- client and user commands (edit, hover, definition, code action, rename),
-- after the configuration from docs/editors.md has been loaded. After each
-- step it records the current buffer, its lines, its diagnostics and the
-- cursor, and writes everything as JSON to $GAMMA_NVIM_RESULTS. The author's
-- choices in prompts (which code action) are made by the functions below.
local results = { steps = {}, notifications = {}, messages = {} }
local published = {}

vim.notify = function(message, level)
  table.insert(results.notifications, { message = message, level = level })
end
-- The author picks the code action whose title starts with vim.g.gamma_choice.
vim.ui.select = function(items, opts, on_choice)
  for _, item in ipairs(items) do
    local title = opts.format_item and opts.format_item(item) or tostring(item)
    if title:sub(1, #vim.g.gamma_choice) == vim.g.gamma_choice then
      return on_choice(item)
    end
  end
  on_choice(nil)
end
local show_diagnostics = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  published[result.uri] = (published[result.uri] or 0) + 1
  return show_diagnostics(err, result, ctx, config)
end

local show_message = vim.lsp.handlers["window/showMessage"]
vim.lsp.handlers["window/showMessage"] = function(err, result, ctx, config)
  table.insert(results.messages, result.message)
  return show_message(err, result, ctx, config)
end

local function finish(failure)
  results.failure = failure
  local file = io.open(os.getenv("GAMMA_NVIM_RESULTS"), "w")
  file:write(vim.json.encode(results))
  file:close()
  vim.cmd("qa!")
end

local function wait(what, condition)
  if not vim.wait(30000, condition, 20) then
    error("timed out waiting for " .. what)
  end
end

local function diagnostics(buffer)
  return vim.tbl_map(function(found)
    return { line = found.lnum, col = found.col, code = found.code, message = found.message }
  end, vim.diagnostic.get(buffer or 0))
end

local function has_code(code)
  return function()
    for _, found in ipairs(vim.diagnostic.get(0)) do
      if found.code == code then
        return true
      end
    end
    return false
  end
end

local function line_of(pattern, buffer)
  for index, text in ipairs(vim.api.nvim_buf_get_lines(buffer or 0, 0, -1, false)) do
    if text:match(pattern) then
      return index
    end
  end
  error("no line matches " .. pattern)
end

local function record(name, extra)
  local entry = extra or {}
  entry.name = name
  entry.buffer = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":.")
  entry.lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  entry.diagnostics = diagnostics(0)
  entry.cursor = vim.api.nvim_win_get_cursor(0)
  table.insert(results.steps, entry)
end

local function publications()
  return published[vim.uri_from_bufnr(0)] or 0
end

local function session()
  -- Open a skill: the server starts, and the clean buffer is told it has no findings.
  vim.cmd("edit skills/import/SKILL.md")
  wait("the first diagnostics", function() return publications() > 0 end)
  record("open")

  -- Break its type (written under metadata, as gamma-type).
  local type_line = line_of("^  gamma%-type: ")
  vim.api.nvim_buf_set_lines(0, type_line - 1, type_line, false, { "  gamma-type: workflw" })
  wait("skill/type-value", has_code("skill/type-value"))
  record("broken type")

  -- Its "Show documentation" action: this Neovim cannot open a URL for the server, so the server says where the page is.
  vim.api.nvim_win_set_cursor(0, { type_line, 16 })
  vim.g.gamma_choice = "Show documentation"
  vim.lsp.buf.code_action()
  wait("the documentation message", function() return #results.messages > 0 end)

  -- Remove the line, then apply the quick fix the server offers for the missing key.
  vim.api.nvim_buf_set_lines(0, type_line - 1, type_line, false, {})
  wait("skill/missing-key", has_code("skill/missing-key"))
  local missing = vim.tbl_filter(function(found) return found.code == "skill/missing-key" end, vim.diagnostic.get(0))[1]
  vim.api.nvim_win_set_cursor(0, { missing.lnum + 1, missing.col })
  vim.g.gamma_choice = "Fix:"
  vim.lsp.buf.code_action()
  wait("the fix", function() return #vim.tbl_filter(function(text) return text:match("^  gamma%-type: ") ~= nil end, vim.api.nvim_buf_get_lines(0, 0, -1, false)) > 0 end)
  wait("a clean buffer", function() return #vim.diagnostic.get(0) == 0 end)
  record("quick fix")

  -- Complete a required skill from what the author typed at the end of the space-separated list.
  local required = line_of("^  gamma%-requires%-skills: ")
  local names = vim.api.nvim_buf_get_lines(0, required - 1, required, false)[1]
  vim.api.nvim_buf_set_lines(0, required - 1, required, false, { names .. " dr" })
  vim.api.nvim_win_set_cursor(0, { required, #names + 3 })
  local responses = vim.lsp.buf_request_sync(0, "textDocument/completion", vim.lsp.util.make_position_params(), 10000)
  local _, response = next(responses)
  local items = vim.lsp.util.text_document_completion_list_to_complete_items(response.result, "dr")
  local words = vim.tbl_map(function(item) return item.word end, items)
  vim.api.nvim_buf_set_lines(0, required - 1, required, false, { names .. " " .. words[1] })
  record("completion", { completions = words })
  vim.api.nvim_buf_set_lines(0, required - 1, required, false, { names })

  -- Hover over a required skill (gml-cli, inside the list): Neovim shows the server's markdown in a floating window.
  vim.api.nvim_win_set_cursor(0, { required, names:find("gml-cli", 1, true) + 1 })
  vim.lsp.buf.hover()
  local float
  wait("the hover window", function()
    for _, window in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(window).relative ~= "" then
        float = window
        return true
      end
    end
    return false
  end)
  record("hover", { hover = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false) })
  vim.api.nvim_win_close(float, true)

  -- Go to the required skill's definition.
  vim.lsp.buf.definition()
  wait("the jump", function() return vim.api.nvim_buf_get_name(0):match("gml%-cli/SKILL%.md$") ~= nil end)
  record("definition")

  -- The compiled prompt of a variant, with the snippet the docs give.
  assert(loadstring(os.getenv("GAMMA_NVIM_COMPILED_PROMPT_SNIPPET")))()
  wait("the compiled prompt", function() return vim.api.nvim_buf_get_lines(0, 0, 1, false)[1]:match("^⟦ cache block tools") ~= nil end)
  record("compiled prompt")

  -- Rename a skill from a reference: its folder must move, which this Neovim cannot do, so the server says what to do.
  vim.cmd("edit skills/deck-generation/SKILL.md")
  local conflict = line_of("^  gamma%-conflicts%-with: import$")
  vim.api.nvim_win_set_cursor(0, { conflict, 26 })
  vim.lsp.buf.rename("importer")
  wait("the refusal", function() return #results.notifications > 0 end)
  record("rename refused")

  -- What the message says: move the folder, show the server the disk again, rename again.
  vim.cmd("bwipeout! skills/import/SKILL.md")
  vim.fn.system({ "mv", "skills/import", "skills/importer" })
  vim.cmd("edit skills/importer/SKILL.md")
  local before_save = publications()
  vim.cmd("write")
  wait("the moved skill's findings", function() return publications() > before_save and has_code("skill/name-mismatch")() end)
  record("folder moved")
  vim.cmd("edit skills/deck-generation/SKILL.md")
  vim.api.nvim_win_set_cursor(0, { conflict, 26 })
  vim.lsp.buf.rename("importer")
  wait("the rename", function() return vim.api.nvim_buf_get_lines(0, conflict - 1, conflict, false)[1] == "  gamma-conflicts-with: importer" end)
  record("renamed")
  vim.cmd("edit skills/importer/SKILL.md")
  wait("the renamed skill's clean findings", function() return not has_code("skill/name-mismatch")() end)
  record("renamed skill")
  vim.cmd("wall")
end

local ok, failure = xpcall(session, debug.traceback)
finish(not ok and failure or nil)
