// Toolbelt dashboard. Plain JavaScript, no dependencies. Every string that
// came from a model or a tool is put in the page with textContent, never as
// markup, and control characters are shown escaped (visible), so what a
// person reads is what will run.
"use strict";

// ---- the token ----
//
// The dashboard's token comes in the link's fragment (#token=...), which
// browsers never send to a server. The page keeps it in sessionStorage,
// which is this tab's and this origin's (scheme, host and port), and sends
// it as Authorization: Bearer to this origin alone. It is no cookie: a
// cookie is bound to a host name, not a port, and every other server on
// the host (a dev server on 127.0.0.1:8000, one a model started) got it
// with each request the browser made there.
const tokenKey = "toolbelt-dashboard-token " + location.pathname;
function takeToken() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.has("token")) {
    const t = params.get("token");
    params.delete("token");
    const rest = params.toString();
    // Out of the address bar (and what is copied or shared from it).
    history.replaceState(history.state, "", location.pathname + location.search + (rest ? "#" + rest : ""));
    try { if (t) sessionStorage.setItem(tokenKey, t); } catch (_) { /* storage off: this load only */ }
    return t;
  }
  try { return sessionStorage.getItem(tokenKey) || ""; } catch (_) { return ""; }
}
let token = takeToken();
// Over plain HTTP to a network address the token would cross the network
// in the clear: the page does not send it there.
const tokenTransportOK = location.protocol === "https:" ||
  /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i.test(location.hostname);
let csrf = "";

// authHeaders are the headers that carry the token; none without one (a
// program's own sign-in, WithAuth, lets the page in by its cookie).
function authHeaders() {
  return token && tokenTransportOK ? { Authorization: "Bearer " + token } : {};
}

// signedOut shows why the page cannot show anything (no token, a wrong or
// old one, plain HTTP on the network) and hides the rest.
function signedOut(why) {
  if (why) document.getElementById("signin-why").textContent = visible(why);
  document.getElementById("signin").hidden = false;
  document.getElementById("main").hidden = true;
  const conn = document.getElementById("conn");
  conn.textContent = "signed out"; conn.className = "conn off";
}

// unauthorized handles a 401: the token is wrong or from an earlier run
// of the program; it is forgotten, and the person is asked for the link.
function unauthorized() {
  if (!token) { signedOut(""); return; } // the notice as written: open the link
  token = "";
  try { sessionStorage.removeItem(tokenKey); } catch (_) { /* nothing kept */ }
  signedOut("This dashboard did not take the token this tab had (a wrong one, or one from before the program restarted). " +
    "Open the dashboard with the link that carries its token: it ends in #token=….");
}

const calls = new Map(); // call id -> live call
const maxLive = 200;
const maxOutput = 16384;

// visible shows control, bidi and invisible characters as escapes: C0 and C1
// controls, bidi marks and overrides, zero-width and filler characters,
// variation selectors, and the Unicode tag characters (U+E0000..E007F, which
// draw nothing but carry text); every other format character (\p{Cf}) and
// default-ignorable code point (drawn as nothing, reserved ones included);
// and spaces other than U+0020, which look like the space that separates a
// shell's words and are not one. Each is written as \uXXXX (a UTF-16 pair for
// characters above U+FFFF), so escaped JSON still parses to what was sent.
// keepNewlines keeps "\n" (for indented JSON); elsewhere it is shown as "\n" too.
const hidden = /[\p{Cf}\p{Default_Ignorable_Code_Point}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}\p{Cs}]/gu;
function escapeUnits(c) {
  let out = "";
  for (let i = 0; i < c.length; i++) out += "\\u" + c.charCodeAt(i).toString(16).padStart(4, "0");
  return out;
}
function visible(s, keepNewlines) {
  if (s === undefined || s === null) return "";
  s = String(s);
  let out = s.replace(hidden, escapeUnits);
  if (!keepNewlines) out = out.replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  return out;
}

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

async function api(path, opts) {
  const o = Object.assign({ credentials: "same-origin" }, opts || {});
  o.headers = Object.assign({}, o.headers, authHeaders());
  if (o.method && o.method !== "GET") o.headers["X-Toolbelt-CSRF"] = csrf;
  const res = await fetch(path, o);
  if (res.status === 401) unauthorized();
  // A refusal before the API (the origin, CSRF or Host check, a proxy)
  // is text, not JSON: its text says what to fix.
  const raw = await res.text().catch(() => "");
  let body = null;
  try { body = JSON.parse(raw); } catch (_) { body = null; }
  if (!res.ok) throw new Error((body && body.error) || raw.trim().slice(0, 500) || res.status + " " + res.statusText);
  return body;
}

// coalesced returns a function that runs load once at a time: asked while
// a run is under way, it runs load once more after it, however often it
// was asked meanwhile. The page asks for the history at every call's end
// and for the approvals at every approval event: a model that ends calls
// by the hundred a second had each open page fetch them as often.
function coalesced(load) {
  let running = false, again = false;
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    try { await load(); } finally { running = false; }
    if (again) { again = false; run(); }
  };
  return run;
}

// ---- approvals ----

const approvalsBox = document.getElementById("approvals");

// A click meant for one card must not land on another that moved into its
// place (a card above was decided, timed out or withdrawn; the second
// click of a double click): a card's buttons do nothing for a second after
// it moved or appeared. keepingPlaces runs a change to the list and marks
// the cards it moved on the screen, or added.
const settleMS = 1000;
function keepingPlaces(change) {
  if (!approvalsBox) { change(); return; }
  const before = new Map();
  for (const c of approvalsBox.children) before.set(c, c.getBoundingClientRect().top);
  change();
  const now = String(performance.now());
  for (const c of approvalsBox.children) {
    const was = before.get(c);
    if (was === undefined || Math.abs(c.getBoundingClientRect().top - was) >= 1) {
      c.dataset.moved = now;
      hold(c);
    }
  }
}

// hold disables a card's deciding buttons for settleMS.
function hold(card) {
  const buttons = card.querySelectorAll("button.approve, button.approve-session, button.deny, button.submit-modify");
  for (const b of buttons) b.disabled = true;
  clearTimeout(card.holdTimer);
  card.holdTimer = setTimeout(() => { for (const b of buttons) b.disabled = false; }, settleMS);
}

let approvalsOn = false; // the dashboard has a queue (WithQueue): api/session says
const loadApprovals = coalesced(fetchApprovals);
async function fetchApprovals() {
  if (!approvalsOn) return;
  let list;
  const empty = document.getElementById("approvals-empty");
  try { list = await api("api/approvals"); } catch (err) {
    // The store cannot be read: say so (the cards stay, with what a person
    // typed in them; deciding fails until the store is back).
    document.getElementById("approvals-count").textContent = "?";
    keepingPlaces(() => {
      empty.textContent = visible(err.message);
      empty.hidden = false;
    });
    return;
  }
  document.getElementById("approvals-count").textContent = String(list.length);
  keepingPlaces(() => {
    empty.textContent = "Nothing is waiting.";
    empty.hidden = list.length > 0;
    // A card goes when its approval is no longer pending, or when the
    // arguments under its id are not the ones it shows (the id hashes the
    // canonical arguments; the digest, the very bytes), or when the request
    // under its id arrived after it (the same call asked again: an approval
    // approves one run, so it is a new question).
    const seen = new Set(list.map((a) => a.id + " " + a.args_digest + " " + a.since));
    for (const card of [...approvalsBox.children]) {
      if (!seen.has(card.dataset.id + " " + card.dataset.digest + " " + card.dataset.since)) card.remove();
    }
    for (const a of list) {
      if (!approvalsBox.querySelector('[data-id="' + CSS.escape(a.id) + '"]')) approvalsBox.append(approvalCard(a));
    }
  });
}

// identity says whom a call acts for: each name in an element of its own,
// and every field there, "(none)" when empty. Names come from callers (a
// tenant names its users): in one line of text, the principal "alice of
// tenant acme" of no tenant read as alice of acme.
function identity(a) {
  const line = el("div", { class: "meta identity" });
  const fields = [["agent", a.agent, "agent"], ["for", a.principal, "who"], ["tenant", a.tenant, "tenant"], ["session", a.session, "session"]];
  fields.forEach(([label, value, cls], i) => {
    line.append((i > 0 ? " · " : "") + label + " ",
      value ? el("span", { class: "name " + cls, text: visible(value) }) : el("span", { class: "name none " + cls, text: "(none)" }));
  });
  return line;
}

function approvalCard(a) {
  const level = String(a.level || "").toLowerCase();
  const error = el("div", { class: "error", role: "alert" });
  const card = el("div", { class: "card " + level, "data-id": a.id, "data-digest": a.args_digest, "data-since": a.since });
  // body is sent as it is when it is text (the editor's: parsing it here
  // would turn its numbers into doubles, 9007199254740993 into ...992).
  // Every decision names the arguments this card shows (args_digest) and
  // the request (since): the server decides nothing if the call waiting
  // under this id has others, or is the same call asked again.
  const decide = async (body) => {
    error.textContent = "";
    if (performance.now() - Number(card.dataset.moved || 0) < settleMS) {
      error.textContent = "This card just moved or appeared under the pointer: read it, then click again.";
      return;
    }
    try {
      await api("api/approvals/" + encodeURIComponent(a.id), {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify({ ...body, since: a.since }),
      });
      keepingPlaces(() => card.remove());
      loadApprovals();
    } catch (err) {
      error.textContent = visible(err.message, true);
    }
  };
  const editor = el("textarea", { class: "editor", spellcheck: "false" });
  // The editor shows the arguments as the page does (invisible characters
  // escaped); inside JSON strings the escapes parse back to the characters.
  editor.value = visible(a.args, true);
  const editBox = el("div", { class: "edit", hidden: "" }, editor,
    el("button", { class: "submit-modify", text: "Run with these arguments", onclick: () => {
      // Checked here for the message; sent as typed, numbers exact.
      try { JSON.parse(editor.value); } catch (err) { error.textContent = "not JSON: " + err.message; return; }
      decide('{"action":"modify","args_digest":' + JSON.stringify(a.args_digest) + ',"since":' + JSON.stringify(a.since) + ',"args":' + editor.value + "}");
    } }));
  const reason = el("input", { class: "deny-reason", placeholder: "why (told to the model)", size: "30" });
  card.append(...[
    el("div", {},
      el("strong", { class: "tool", text: visible(a.tool) }), " ",
      el("span", { class: "level " + level, text: visible(a.level) })),
    identity(a),
    el("div", { class: "meta", text: visible(a.description) }),
    a.why ? el("div", { class: "why", text: visible(a.why) }) : null,
    a.required ? el("div", { class: "why", text: "required: " + visible(a.required) }) : null,
    a.reasons && a.reasons.length ? el("div", { class: "meta reasons", text: "why this level: " + visible(a.reasons.join("; ")) }) : null,
    a.subject ? el("pre", { class: "subject", text: visible(a.subject) }) : null,
    el("pre", { class: "args", text: visible(a.args, true) }),
    el("div", { class: "actions" },
      el("button", { class: "approve", text: "Approve", onclick: () => decide({ action: "approve", args_digest: a.args_digest }) }),
      // Every later call of this tool in the session, whatever its
      // arguments: the label says so. Without a session, or when the call
      // is asked about every time (once_only), it would be this call only.
      a.session && !a.once_only ? el("button", { class: "approve-session", text: "Approve every " + visible(a.tool) + " call this session (any arguments)",
        onclick: () => decide({ action: "approve_session", args_digest: a.args_digest }) }) : null,
      el("button", { class: "modify", text: "Modify…", onclick: () => { editBox.hidden = !editBox.hidden; } }),
      reason,
      el("button", { class: "deny", text: "Deny", onclick: () => decide({ action: "deny", message: reason.value, args_digest: a.args_digest }) })),
    editBox,
    error].filter((c) => c !== null));
  return card;
}

// ---- live calls ----

const liveBox = document.getElementById("live");

function onEvent(ev) {
  if (ev.missed) {
    const m = document.getElementById("missed");
    m.hidden = false;
    const total = Number(m.dataset.total || 0) + ev.missed;
    m.dataset.total = String(total);
    m.textContent = "this page missed " + total + " event(s): it read too slowly";
  }
  // Call ids come from models and repeat ("call_1" in every conversation):
  // a call is its id for its principal, session, agent and job.
  const key = JSON.stringify([ev.tenant || "", ev.principal || "", ev.session || "", ev.agent || "", ev.job_id || "", ev.call_id]);
  let c = calls.get(key);
  if (!c) {
    c = { id: ev.call_id, tool: ev.tool, agent: ev.agent || "(no agent)", provider: ev.provider || "(no provider)", status: "waiting", output: "", started: ev.time,
      who: ev.principal || "", tenant: ev.tenant || "" };
    calls.set(key, c);
    if (calls.size > maxLive) calls.delete(calls.keys().next().value);
  }
  switch (ev.kind) {
    case "started": c.status = "running"; break;
    case "queued": c.status = "waiting"; c.note = ev.reason; break;
    case "approval_requested": c.status = "waiting"; c.note = "waiting for approval"; loadApprovals(); break;
    case "approval_decided": c.note = "approval: " + ev.decision; loadApprovals(); break;
    case "retried": c.note = "retry " + ev.attempt; break;
    case "output":
      c.output = (c.output + ev.data).slice(-maxOutput);
      break;
    case "completed": case "failed": case "cancelled":
      c.status = ev.status || ev.kind;
      c.ms = ev.duration_ms;
      c.note = ev.code ? ev.code + ": " + ev.message : "";
      loadHistory();
      break;
  }
  renderLive();
}

let renderQueued = false;
function renderLive() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    document.getElementById("live-empty").hidden = calls.size > 0;
    // Grouped by agent and provider: "agent: ops-bot · provider: anthropic".
    const byGroup = new Map();
    for (const c of [...calls.values()].reverse()) {
      const key = "agent: " + c.agent + " · provider: " + c.provider;
      if (!byGroup.has(key)) byGroup.set(key, []);
      byGroup.get(key).push(c);
    }
    const groups = [];
    for (const [group, list] of byGroup) {
      const tbody = el("tbody");
      for (const c of list) {
        tbody.append(el("tr", { class: "call", "data-call": c.id },
          el("td", { text: visible(c.tool) }),
          el("td", { class: "who", text: visible(c.who) }),
          el("td", { class: "tenant", text: visible(c.tenant) }),
          el("td", { class: "status status-" + c.status, text: c.status }),
          el("td", { text: c.ms !== undefined ? c.ms.toFixed(1) + " ms" : "" }),
          el("td", { class: "msg" },
            c.note ? el("div", { text: visible(c.note) }) : null,
            c.output ? el("pre", { class: "output", text: visible(c.output, true) }) : null)));
      }
      groups.push(el("div", { class: "agent" }, el("h3", { text: visible(group) }),
        el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "tool" }), el("th", { text: "for" }), el("th", { text: "tenant" }), el("th", { text: "status" }), el("th", { text: "time" }), el("th", { text: "detail" }))), tbody)));
    }
    liveBox.replaceChildren(...groups);
  });
}

// connect reads the event stream (Server-Sent Events) with fetch, which
// sends the token in a header (EventSource cannot), and reads it again
// after it ends: in the time the server's retry: field names, or 5 s
// after a refusal (503: too many pages open).
let retryMS = 2000;
async function connect() {
  const conn = document.getElementById("conn");
  let wait = retryMS;
  try {
    const res = await fetch("api/events", { credentials: "same-origin", cache: "no-store", headers: authHeaders() });
    if (res.status === 401) { unauthorized(); return; }
    if (!res.ok || !res.body) {
      wait = 5000;
      throw new Error(res.status + " " + res.statusText);
    }
    conn.textContent = "live"; conn.className = "conn on";
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        streamed(buf.slice(0, end));
        buf = buf.slice(end + 2);
      }
    }
    wait = retryMS;
  } catch (_) { /* the stream broke: read it again */ }
  conn.textContent = "reconnecting…"; conn.className = "conn off";
  setTimeout(connect, wait);
}

// streamed takes one event of the stream: its lines "event: call" and
// "data: {...}"; "retry: ms" sets how soon to read it again; a line that
// starts with ":" is a comment (the server's heartbeat).
function streamed(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? "" : line.slice(i + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
    else if (field === "retry" && /^\d+$/.test(value)) retryMS = Number(value);
  }
  if (name !== "call" || data.length === 0) return;
  try { onEvent(JSON.parse(data.join("\n"))); } catch (_) { /* a malformed event is skipped */ }
}

// ---- history and charts ----

const historyForm = document.getElementById("history-filter");

const loadHistory = coalesced(fetchHistory);
async function fetchHistory() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(historyForm)) if (v) q.set(k, String(v));
  let rows, stats;
  try {
    [rows, stats] = await Promise.all([api("api/history?" + q.toString()), api("api/stats")]);
  } catch (_) { return; }
  const tbody = document.querySelector("#history tbody");
  tbody.replaceChildren(...rows.map((r) => el("tr", { class: "record" },
    el("td", { text: r.seq ? String(r.seq) : "" }), // none on a page of one tenant
    el("td", { text: new Date(r.started_at).toLocaleTimeString() }),
    el("td", { text: visible(r.tool) }),
    el("td", { text: visible(r.agent || "") }),
    el("td", { class: "who", text: visible(r.principal || "") }),
    el("td", { class: "tenant", text: visible(r.tenant || "") }),
    el("td", { class: "status status-" + r.status, text: r.status }),
    el("td", { text: r.duration_ms.toFixed(1) }),
    el("td", { class: "msg", text: visible(r.code ? r.code + ": " + r.message : "") }))));
  renderStats(stats);
}

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function renderStats(stats) {
  const box = document.getElementById("stats");
  const maxCalls = Math.max(1, ...stats.map((s) => s.calls));
  const maxMS = Math.max(1, ...stats.map((s) => s.p95_ms || s.mean_ms));
  box.replaceChildren(...stats.map((s) => {
    const w = 160;
    const chart = svg("svg", { width: w, height: 34, role: "img", "aria-label": "calls and latency" });
    const ok = (s.calls - s.failed) / maxCalls * w;
    const bad = s.failed / maxCalls * w;
    chart.append(svg("rect", { x: 0, y: 2, width: ok, height: 12, class: "bar-ok" }));
    chart.append(svg("rect", { x: ok, y: 2, width: bad, height: 12, class: "bar-bad" }));
    chart.append(svg("rect", { x: 0, y: 20, width: (s.p95_ms || s.mean_ms) / maxMS * w, height: 12, class: "bar-lat" }));
    return el("div", { class: "stat", "data-tool": s.tool },
      el("div", { class: "name", text: visible(s.tool) }),
      el("div", { class: "meta", text: s.calls + " calls · " + (s.error_rate * 100).toFixed(0) + "% errors · mean " +
        s.mean_ms.toFixed(1) + " ms · p95 " + s.p95_ms.toFixed(1) + " ms" + (s.in_flight ? " · " + s.in_flight + " running" : "") }),
      chart);
  }));
}

historyForm.addEventListener("submit", (e) => { e.preventDefault(); loadHistory(); });

// start asks the dashboard who this page is (with the token, or the
// program's own sign-in), then shows it.
async function start() {
  if (token && !tokenTransportOK) {
    signedOut("This page reached the dashboard over plain HTTP on the network, where the token would travel in the clear: " +
      "it does not send it. Serve the dashboard over HTTPS (or open it at a loopback address).");
    return;
  }
  let session;
  try { session = await api("api/session"); } catch (err) {
    if (document.getElementById("signin").hidden) { // not a 401: say what it was
      document.getElementById("signin-title").textContent = "The dashboard cannot be shown";
      signedOut(err.message);
    }
    return;
  }
  csrf = session.csrf;
  approvalsOn = session.approvals;
  document.getElementById("approvals-panel").hidden = !approvalsOn;
  document.getElementById("main").hidden = false;
  connect();
  loadApprovals();
  loadHistory();
  setInterval(loadApprovals, 2000);
}

start();
