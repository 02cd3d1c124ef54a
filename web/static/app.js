// teamctl serve's page: the view pushed by the server (Server-Sent Events),
// drawn with textContent only (never HTML from data: every name, line and
// screen is an agent's), and the actions, each a POST with the session's
// anti-CSRF token.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const readOnly = document.querySelector('meta[name="read-only"]').content === "true";
  const $ = (id) => document.getElementById(id);
  let view = null, skew = 0, sel = null; // sel: {team, member}
  const seenWaits = new Set();
  let firstView = true, audio = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function ago(t) {
    if (!t || t.startsWith("0001-")) return "";
    let s = Math.max(0, Math.floor((Date.now() - skew - Date.parse(t)) / 1000));
    if (s < 60) return s + "s";
    let m = Math.floor(s / 60); if (m < 60) return m + "m" + String(s % 60).padStart(2, "0") + "s";
    let h = Math.floor(m / 60); if (h < 48) return h + "h" + String(m % 60).padStart(2, "0") + "m";
    return Math.floor(h / 24) + "d";
  }

  function stateWord(m) {
    return m.state === "running" && m.role !== "process" ? "working" : m.state;
  }
  function waits(m) { return m.state === "stalled" || m.state === "waiting-approval"; }
  function since(m) {
    if (m.stall) return m.stall.since;
    if (m.request) return m.request.since;
    return m.since || m.started_at;
  }

  // What a permission request is about: its command, file, url…, as top reads it.
  function target(q) {
    const keys = ["command", "file_path", "notebook_path", "path", "url", "pattern", "query"];
    try {
      const o = JSON.parse(q.input || "");
      for (const k of keys) if (typeof o[k] === "string" && o[k]) return o[k];
    } catch (e) {
      for (const k of keys) {
        const i = (q.input || "").indexOf('"' + k + '":"');
        if (i >= 0) return q.input.slice(i + k.length + 4).replace(/"?…?$/, "") + "…";
      }
    }
    return q.description || q.input || "";
  }

  function waitsOn(m) {
    switch (m.state) {
      case "stalled": return m.stall ? JSON.stringify(m.stall.line) : "";
      case "waiting-approval": return m.request ? m.request.tool + ": " + target(m.request) : "";
      case "failed": return m.reason || "";
      case "exited": return m.exit_code != null ? "exit " + m.exit_code : "";
      case "idle": return m.result ? "said: " + m.result : "";
    }
    return "";
  }

  // What a member spent, as status and top show it (state.MemberUsage's
  // CostText): "$1.23", "1.20M tok, no price", "$1.23 + no price"; nothing
  // before its first response.
  function tokenCount(n) {
    if (n < 1000) return String(n);
    if (n < 1e6) return (n / 1e3).toFixed(1) + "k";
    return (n / 1e6).toFixed(2) + "M";
  }
  function cost(m) {
    const u = m.usage;
    if (!u || !u.turns) return "";
    const np = u.no_price || [], models = u.models || [];
    if (np.length && np.length === models.length) {
      return tokenCount(u.input + u.output + u.cache_write + u.cache_read) + " tok, no price";
    }
    if (np.length) return "$" + u.cost.toFixed(2) + " + no price";
    return "$" + u.cost.toFixed(2);
  }

  function members() {
    const by = new Map();
    if (!view) return by;
    for (const t of view.teams) for (const m of t.status.members) {
      const d = m.state === "stalled" && t.dialogs ? t.dialogs[m.name] : undefined;
      by.set(t.status.team + "/" + m.name, { team: t, m: m, dialog: d });
    }
    return by;
  }

  // A dialog's options as buttons by their own labels (the server read them,
  // as teamctl answer does); its No, which runs nothing, styled as the safe one.
  function optionButtons(d) {
    const q = el("div", "quick options");
    for (const o of d.options) {
      const b = el("button", o.safe ? "safe" : "", o.label); b.type = "button";
      b.dataset.act = "option"; b.dataset.label = o.label; q.append(b);
    }
    if (!d.options.length) q.append(el("p", "faint", "its options cannot be read here: send keys from its detail, or attach"));
    return q;
  }

  function render() {
    const rows = $("rows"), by = members();
    $("empty").hidden = view.rows.length > 0;
    const frag = document.createDocumentFragment();
    const multi = view.teams.length > 1;
    for (const r of view.rows) {
      const x = by.get(r.team + "/" + r.member);
      if (!x) continue;
      const m = x.m, li = el("li");
      li.dataset.team = r.team; li.dataset.member = r.member;
      if (waits(m)) li.classList.add("waits");
      if (m.state === "failed") li.classList.add("failed");
      if (sel && sel.team === r.team && sel.member === r.member) li.classList.add("sel");
      const l1 = el("div", "line1");
      l1.append(el("span", "name", m.name));
      if (multi) l1.append(el("span", "team", r.team));
      l1.append(el("span", "state " + stateWord(m), stateWord(m)));
      const t = el("span", "faint ago"); t.dataset.since = since(m) || ""; t.textContent = ago(since(m));
      l1.append(t);
      if (m.restarts) l1.append(el("span", "faint", "↻" + m.restarts));
      const c = cost(m); if (c) l1.append(el("span", "faint cost", c));
      li.append(l1);
      const w = waitsOn(m);
      if (x.dialog) li.append(el("p", "wait asks", x.dialog.asks.join("\n")));
      else if (w) li.append(el("p", "wait", w));
      if (!readOnly && x.dialog) li.append(optionButtons(x.dialog));
      else if (!readOnly && m.state === "stalled") {
        const q = el("div", "quick");
        for (const [a, label] of [["y", "y"], ["n", "n"], ["enter", "Enter"], ["esc", "Esc"]]) {
          const b = el("button", "", label); b.type = "button"; b.dataset.act = a; q.append(b);
        }
        li.append(q);
      }
      if (!readOnly && m.state === "waiting-approval" && m.request) {
        const q = el("div", "quick");
        const ok = el("button", "go", "Approve"); ok.type = "button"; ok.dataset.act = "approve";
        const no = el("button", "stop", "Deny"); no.type = "button"; no.dataset.act = "deny";
        q.append(ok, no); li.append(q);
      }
      frag.append(li);
    }
    rows.replaceChildren(frag);
    notifyNew(by);
    renderDetail(by);
  }

  function renderDetail(by) {
    const d = $("detail");
    const x = sel && by.get(sel.team + "/" + sel.member);
    if (!x) { d.hidden = true; return; }
    d.hidden = false;
    const m = x.m;
    $("dname").textContent = m.name + (view.teams.length > 1 ? " · " + sel.team : "");
    const info = [stateWord(m) + " for " + ago(since(m)), "pane " + m.pane];
    if (m.restarts) info.push("restarts " + m.restarts);
    const c = cost(m); if (c) info.push("cost " + c);
    $("dinfo").textContent = info.join(" · ");
    let w = waitsOn(m);
    if (m.state === "waiting-approval" && m.request && m.request.description) w += "\n" + m.request.description;
    if (x.dialog) w = x.dialog.asks.join("\n");
    $("dwait").textContent = w;
    $("acts").hidden = readOnly;
    $("answer").hidden = m.state !== "stalled";
    $("plainkeys").hidden = !!x.dialog;
    $("dopts").replaceChildren(...(x.dialog ? [optionButtons(x.dialog)] : []));
    $("perm").hidden = m.state !== "waiting-approval";
    $("restart").hidden = m.origin === "lead";
    const evs = x.team.events.filter((e) => e.member === m.name).slice(-8).reverse();
    const ol = $("devents"), frag = document.createDocumentFragment();
    for (const e of evs) {
      const li = el("li");
      li.append(el("span", "when", new Date(e.time).toLocaleTimeString()));
      const parts = [e.kind];
      if (e.line) parts.push(JSON.stringify(e.line));
      if (e.tool) parts.push(e.tool);
      if (e.option) parts.push(e.option);
      else if (e.keys) parts.push(e.keys.join(" "));
      if (e.detail) parts.push(e.detail);
      li.append(document.createTextNode(parts.join(" · ")));
      frag.append(li);
    }
    ol.replaceChildren(frag);
  }

  // The member's screen as its pane prints, pushed (a stream of its own).
  let screenES = null;
  function followScreen() {
    if (screenES) { screenES.close(); screenES = null; }
    if (!sel) return;
    const key = sel.team + "/" + sel.member;
    screenES = new EventSource("/api/screen/stream?team=" + encodeURIComponent(sel.team) + "&member=" + encodeURIComponent(sel.member));
    screenES.addEventListener("screen", (ev) => {
      if (!sel || key !== sel.team + "/" + sel.member) return;
      const s = $("screen"), atEnd = s.scrollTop + s.clientHeight >= s.scrollHeight - 4;
      s.textContent = JSON.parse(ev.data).lines.join("\n");
      if (atEnd) s.scrollTop = s.scrollHeight;
    });
  }

  function select(team, member) {
    sel = { team: team, member: member };
    $("screen").textContent = "";
    render();
    followScreen();
    if (window.matchMedia("(max-width: 899px)").matches) $("detail").scrollIntoView({ block: "start" });
  }

  function toast(text, bad) {
    const t = $("toast");
    t.textContent = text;
    t.className = "show" + (bad ? " bad" : "");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.className = ""; }, bad ? 8000 : 4000);
  }

  function act(name, body) {
    return fetch("/api/" + name, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
    }).then((r) => r.json().catch(() => ({ error: "HTTP " + r.status })))
      .then((j) => {
        if (j.ok) toast(j.text + (j.warning ? " (" + j.warning + ")" : ""), !!j.warning);
        else toast(j.error || "failed", true);
        return j;
      }).catch((e) => { toast("not sent: " + e, true); return {}; });
  }

  function run(a, team, member, b) {
    const who = { team: team, member: member };
    switch (a) {
      case "option": {
        const x = members().get(team + "/" + member);
        if (!x || !x.dialog) return;
        return act("answer", Object.assign({ option: b.dataset.label, asks: x.dialog.asks.join("\n") }, who));
      }
      case "y": case "n": return act("answer", Object.assign({ reply: a }, who));
      case "enter": return act("answer", Object.assign({ keys: "Enter" }, who));
      case "esc": return act("answer", Object.assign({ keys: "Escape" }, who));
      case "approve": return act("approve", who);
      case "deny": return act("deny", Object.assign({ reason: sel && sel.team === team && sel.member === member ? $("reason").value : "" }, who));
      case "restart": {
        const b = $("restart");
        if (b.dataset.armed !== "1") {
          b.dataset.armed = "1"; b.textContent = "Really restart?";
          setTimeout(() => { b.dataset.armed = ""; b.textContent = "Restart"; }, 4000);
          return;
        }
        b.dataset.armed = ""; b.textContent = "Restart";
        return act("restart", who);
      }
    }
  }

  $("rows").addEventListener("click", (ev) => {
    const li = ev.target.closest("li[data-member]");
    if (!li) return;
    const b = ev.target.closest("button[data-act]");
    if (b) { ev.stopPropagation(); run(b.dataset.act, li.dataset.team, li.dataset.member, b); return; }
    select(li.dataset.team, li.dataset.member);
  });
  $("acts").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-act]");
    if (b && sel) run(b.dataset.act, sel.team, sel.member, b);
  });
  $("keysform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!sel || !$("keys").value.trim()) return;
    act("answer", { team: sel.team, member: sel.member, keys: $("keys").value }).then((j) => { if (j.ok) $("keys").value = ""; });
  });
  $("sendform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (!sel || !$("message").value.trim()) return;
    act("send", { team: sel.team, member: sel.member, text: $("message").value }).then((j) => { if (j.ok) $("message").value = ""; });
  });
  $("dclose").addEventListener("click", () => { sel = null; followScreen(); render(); });

  // Notifications and a sound when someone starts waiting, while the page is open.
  $("notify").addEventListener("click", () => {
    try { audio = audio || new (window.AudioContext || window.webkitAudioContext)(); } catch (e) { audio = null; }
    if ("Notification" in window && Notification.permission !== "granted") {
      Notification.requestPermission().then((p) => toast(p === "granted" ? "notifications on" : "notifications refused: the sound alone", p !== "granted"));
    } else toast("notifications on");
    $("notify").textContent = "Notifying";
  });
  function beep() {
    if (!audio) return;
    const o = audio.createOscillator(), g = audio.createGain();
    o.frequency.value = 880; g.gain.value = 0.1;
    o.connect(g); g.connect(audio.destination);
    o.start(); o.stop(audio.currentTime + 0.2);
  }
  function notifyNew(by) {
    const now = new Set();
    const fresh = [];
    for (const [k, x] of by) {
      if (!waits(x.m)) continue;
      const id = k + "@" + since(x.m);
      now.add(id);
      if (!seenWaits.has(id) && !firstView) fresh.push(x.m.name + ": " + waitsOn(x.m));
    }
    seenWaits.clear(); for (const id of now) seenWaits.add(id);
    firstView = false;
    if (!fresh.length) return;
    document.title = "(" + now.size + ") teamctl";
    beep();
    if ("Notification" in window && Notification.permission === "granted") {
      try { new Notification("teamctl: waiting for you", { body: fresh.join("\n"), tag: "teamctl" }); } catch (e) { /* a phone wants a service worker */ }
    }
  }
  function retitle() { if (view) { const n = view.rows.filter((r) => { const x = members().get(r.team + "/" + r.member); return x && waits(x.m); }).length; document.title = (n ? "(" + n + ") " : "") + "teamctl"; } }

  // Durations tick on the page's own clock; nothing is asked of the server.
  setInterval(() => {
    for (const t of document.querySelectorAll(".ago")) t.textContent = ago(t.dataset.since);
  }, 1000);

  function connect() {
    const es = new EventSource("/api/stream");
    es.addEventListener("view", (ev) => {
      const v = JSON.parse(ev.data);
      skew = Date.now() - Date.parse(v.now);
      view = v;
      $("conn").textContent = "live"; $("conn").className = "conn on";
      render();
      retitle();
      document.body.dataset.seq = String((Number(document.body.dataset.seq) || 0) + 1);
    });
    es.onerror = () => { $("conn").textContent = "reconnecting…"; $("conn").className = "conn off"; };
  }
  connect();
})();
