-- POST /predict for real customer ids, read from the file given after `--` (one per line),
-- each request formatted once at start-up so the client does no Lua work per request beyond
-- picking the next one.
local requests, count, next_one = {}, 0, 0

function init(args)
  for line in io.lines(args[1]) do
    local body = '{"customer_id": ' .. line .. '}'
    count = count + 1
    requests[count] = wrk.format("POST", "/predict",
      {["Content-Type"] = "application/json"}, body)
  end
end

function request()
  next_one = next_one % count + 1
  return requests[next_one]
end
