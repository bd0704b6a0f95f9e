-- The request wrk sends, from the environment: method, body file and Content-Type.
-- The body is read once; wrk sends the same bytes on every request.
wrk.method = os.getenv("BENCH_METHOD") or "GET"
local path = os.getenv("BENCH_BODY_FILE")
if path ~= nil and path ~= "" then
  local file = assert(io.open(path, "rb"))
  wrk.body = file:read("*a")
  file:close()
end
local contentType = os.getenv("BENCH_CONTENT_TYPE")
if contentType ~= nil and contentType ~= "" then
  wrk.headers["Content-Type"] = contentType
end
