-- The milter under a second, independent milter client: miltertest(8)
-- (libmilter's test driver, Debian package miltertest). Run by
-- tools/miltertest.sh, once over TCP and once over a Unix socket; the
-- socket is in MILTER_SOCK. Each case is one message; every check that
-- fails raises an error (miltertest then exits non-zero).

local sock = os.getenv("MILTER_SOCK")
-- One connection per message: miltertest clears what it recorded at end of
-- message only at the next MAIL, a step the milter leaves out over a Unix
-- socket.
local conn = nil

-- Steps the milter asked to leave out are not sent (over a Unix socket
-- it leaves out everything but the header, the body and the end).
local function step(option, f)
  if not mt.test_option(conn, option) then
    local err = f()
    if err ~= nil then error(err) end
  end
end

local function message(qid, headers, body)
  if conn ~= nil then mt.disconnect(conn) end
  conn = mt.connect(sock, 40, 0.05)
  if conn == nil then error("cannot connect to " .. sock) end
  mt.macro(conn, SMFIC_MAIL, "i", qid)
  step(SMFIP_NOMAIL, function() return mt.mailfrom(conn, "sender@example.org") end)
  step(SMFIP_NORCPT, function() return mt.rcptto(conn, "box@example.test") end)
  for _, h in ipairs(headers) do
    local err = mt.header(conn, h[1], h[2])
    if err ~= nil then error(err) end
  end
  step(SMFIP_NOEOH, function() return mt.eoh(conn) end)
  if body ~= "" then
    local err = mt.bodystring(conn, body)
    if err ~= nil then error(err) end
  end
  local err = mt.eom(conn)
  if err ~= nil then error(err) end
  if mt.getreply(conn) ~= SMFIR_ACCEPT then error(qid .. ": end of message not answered accept") end
end

local function expect(qid, what, ok)
  if not ok then error(qid .. ": " .. what) end
  mt.echo("ok " .. qid .. ": " .. what)
end

-- Values come back with their leading space when the MTA offers
-- SMFIP_HDR_LEADSPC (miltertest does), as the milter received them.
-- (Set after the first connection; the same on every connection.)
local lead = ""
conn = mt.connect(sock, 40, 0.05)
if conn == nil then error("cannot connect to " .. sock) end
if mt.test_option(conn, SMFIP_HDR_LEADSPC) then lead = " " end

-- 1. An encoded-word in ISO-8859-1: the field is changed to UTF-8, the
--    body is kept.
message("MTQ1", {{"Subject", lead .. "=?iso-8859-1?Q?Voil=E0?="}}, "plain ASCII\r\n")
expect("MTQ1", "Subject changed to UTF-8",
  mt.eom_check(conn, MT_HDRCHANGE, "Subject", lead .. "=?UTF-8?B?Vm9pbMOg?="))
expect("MTQ1", "body kept", not mt.eom_check(conn, MT_BODYCHANGE))

-- 2. A Latin-1 body: Content-Type changed, Content-Transfer-Encoding
--    added, the body replaced by its UTF-8 (base64: "Voilà" CRLF).
message("MTQ2", {
  {"Subject", lead .. "x"},
  {"MIME-Version", lead .. "1.0"},
  {"Content-Type", lead .. "text/plain; charset=iso-8859-1"},
}, "Voil\224\r\n")
-- The Content-Type keeps everything but its charset, the white space
-- after the colon as it came included (doc/normalize.md): miltertest puts
-- one more space before a value it sends under SMFIP_HDR_LEADSPC.
expect("MTQ2", "Content-Type changed",
  mt.eom_check(conn, MT_HDRCHANGE, "Content-Type", lead .. "text/plain; charset=utf-8")
  or mt.eom_check(conn, MT_HDRCHANGE, "Content-Type", lead .. lead .. "text/plain; charset=utf-8"))
expect("MTQ2", "Content-Transfer-Encoding added",
  mt.eom_check(conn, MT_HDRADD, "Content-Transfer-Encoding", lead .. "base64"))
expect("MTQ2", "body replaced", mt.eom_check(conn, MT_BODYCHANGE, "Vm9pbMOgDQo=\r\n"))
expect("MTQ2", "Subject untouched", not mt.eom_check(conn, MT_HDRCHANGE, "Subject"))

-- 3. Clean UTF-8: nothing changes.
message("MTQ3", {
  {"Subject", lead .. "=?utf-8?B?R3LDvMOfZQ==?="},
  {"MIME-Version", lead .. "1.0"},
  {"Content-Type", lead .. "text/plain; charset=utf-8"},
  {"Content-Transfer-Encoding", lead .. "8bit"},
}, "Gr\195\188\195\159e\r\n")
expect("MTQ3", "no field changed", not mt.eom_check(conn, MT_HDRCHANGE))
expect("MTQ3", "no field added", not mt.eom_check(conn, MT_HDRADD))
expect("MTQ3", "body kept", not mt.eom_check(conn, MT_BODYCHANGE))

-- 4. Over --max-message-size (the script gives 1K): let through unchanged.
message("MTQ4", {
  {"MIME-Version", lead .. "1.0"},
  {"Content-Type", lead .. "text/plain; charset=iso-8859-1"},
}, string.rep("Voil\224 ", 400) .. "\r\n")
expect("MTQ4", "over the limit: no change",
  not mt.eom_check(conn, MT_HDRCHANGE) and not mt.eom_check(conn, MT_BODYCHANGE))

mt.disconnect(conn)
