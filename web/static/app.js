// teamctl serve's page: the view pushed by the server (Server-Sent Events),
// drawn with textContent only (never HTML from data: every name, line and
// screen is an agent's), and the actions, each a POST with the session's
// anti-CSRF token.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const readOnly = document.querySelector('meta[name="read-only"]').content === "true";
  const $ = (id) => document.getElementById(id);
  let view = null, sel = null; // sel: {team, member}
  const seenWaits = new Set();
  let firstView = true, audio = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // Every member by team/member: its row (every text the page shows of it,
  // made by the server), its status, its team, the dialog it waits at.
  function members() {
    const by = new Map();
    if (!view) return by;
    const rows = new Map(view.rows.map((r) => [r.team + "/" + r.member, r]));
    for (const t of view.teams) for (const m of t.status.members) {
      const k = t.status.team + "/" + m.name, r = rows.get(k);
      if (!r) continue;
      const d = m.state === "stalled" && t.dialogs ? t.dialogs[m.name] : undefined;
      by.set(k, { team: t, m: m, r: r, dialog: d });
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

  // A row does not move under a finger: while a pointer is down on the list,
  // and for a second after, the list is not drawn again (what changed is
  // drawn once it is let go); an action goes to the member whose row was
  // under the pointer when the press began, whatever is there at the click.
  let pressed = null, lastPress = null, holdUntil = 0, listDue = false;
  const holdMs = 1000;
  function frozen() { return pressed !== null || Date.now() < holdUntil; }
  $("rows").addEventListener("pointerdown", (ev) => {
    const li = ev.target.closest("li[data-member]");
    pressed = { li: li, team: li ? li.dataset.team : "", member: li ? li.dataset.member : "", button: ev.target.closest("button[data-act]") };
    lastPress = null;
  });
  function letGo() {
    if (!pressed) return;
    lastPress = pressed; lastPress.at = Date.now(); pressed = null;
    holdUntil = Date.now() + holdMs;
    setTimeout(() => { if (listDue && !frozen()) render(); }, holdMs + 20);
  }
  document.addEventListener("pointerup", letGo);
  document.addEventListener("pointercancel", letGo);

  // On a desktop the list and a member's detail are side by side from the
  // start: the first member's, until another is chosen.
  const wide = window.matchMedia("(min-width: 1024px)");
  function render() {
    if (!sel && wide.matches && view.rows.length) {
      sel = { team: view.rows[0].team, member: view.rows[0].member };
      followScreen();
      loadChanges();
    }
    renderHeader();
    if (frozen()) listDue = true;
    else { listDue = false; renderList(); }
    notifyNew(members());
    renderDetail(members());
  }

  // The header: each team shown and what it cost, and every team's together
  // when there are several (the server's texts).
  function renderHeader() {
    const h = $("teams"), frag = document.createDocumentFragment();
    for (const t of view.teams) {
      const s = el("span", "tname");
      s.append(el("b", "", t.status.team));
      if (t.cost !== "-") s.append(document.createTextNode(" " + t.cost));
      frag.append(s);
    }
    if (view.teams.length > 1 && view.cost !== "-") frag.append(el("span", "tname total", "total " + view.cost));
    h.replaceChildren(frag);
  }

  function renderList() {
    const rows = $("rows"), by = members();
    $("empty").hidden = view.rows.length > 0;
    const frag = document.createDocumentFragment();
    const multi = view.teams.length > 1;
    for (const r of view.rows) {
      const x = by.get(r.team + "/" + r.member);
      if (!x) continue;
      const m = x.m, li = el("li");
      li.dataset.team = r.team; li.dataset.member = r.member;
      if (r.waits) li.classList.add("waits");
      if (m.state === "failed") li.classList.add("failed");
      if (sel && sel.team === r.team && sel.member === r.member) li.classList.add("sel");
      const l1 = el("div", "line1");
      l1.append(el("span", "name", m.name));
      if (r.host) l1.append(el("span", "faint host", "@" + r.host));
      if (multi) l1.append(el("span", "team", r.team));
      l1.append(el("span", "state " + r.state_text, r.state_text));
      if (r.for !== "-") l1.append(el("span", "faint ago", r.for));
      if (r.restarts) l1.append(el("span", "faint", "↻" + r.restarts));
      if (r.cost !== "-") l1.append(el("span", "faint cost", r.cost));
      li.append(l1);
      const w = r.waits_on;
      if (x.dialog) li.append(el("p", "wait asks", x.dialog.asks.join("\n")));
      else if (w) li.append(el("p", "wait", w));
      if (r.conflicts && r.conflicts.length) li.append(el("p", "conflict", "! would conflict with " + r.conflicts.join(", ")));
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
  }

  function renderDetail(by) {
    const d = $("detail");
    const x = sel && by.get(sel.team + "/" + sel.member);
    if (!x) { d.hidden = true; return; }
    d.hidden = false;
    const m = x.m, r = x.r;
    $("dname").textContent = m.name + (view.teams.length > 1 ? " · " + sel.team : "");
    const info = [r.state_text + (r.for !== "-" ? " for " + r.for : ""), r.role, "pane " + m.pane];
    if (r.restarts) info.push("restarts " + r.restarts);
    if (r.cost !== "-") info.push("cost " + r.cost);
    $("dinfo").textContent = info.join(" · ");
    let w = r.waits_on;
    if (m.state === "waiting-approval" && m.request && m.request.description && !w.includes(m.request.description)) w += "\n" + m.request.description;
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

  // A screen in its colours: runs of text set as text, styled only by the
  // server's class names (b d i u v fN gN) and colours (#rrggbb), both checked.
  const classRE = /^[bdiuvfg0-9 ]*$/, hexRE = /^#[0-9a-f]{6}$/;
  function drawScreen(pre, v) {
    const frag = document.createDocumentFragment();
    v.spans.forEach((line, i) => {
      if (i) frag.append("\n");
      for (const x of line) {
        if (!x.c && !x.fg && !x.bg) { frag.append(x.t); continue; }
        const e = el("span", classRE.test(x.c || "") ? x.c || "" : "", x.t);
        if (x.fg && hexRE.test(x.fg)) e.style.color = x.fg;
        if (x.bg && hexRE.test(x.bg)) e.style.backgroundColor = x.bg;
        frag.append(e);
      }
    });
    pre.replaceChildren(frag);
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
      drawScreen(s, JSON.parse(ev.data));
      if (atEnd) s.scrollTop = s.scrollHeight;
    });
  }

  // The member's changes (diff --stat) and conflicts, as the server says
  // them, read when it is chosen and after a merge; Merge behind a second tap.
  let changesOf = "";
  function loadChanges() {
    if (!sel) return;
    const key = sel.team + "/" + sel.member;
    changesOf = key;
    $("dchanges").textContent = "reading…"; $("dfiles").replaceChildren(); $("dconflicts").textContent = ""; $("merge").hidden = true;
    $("finish").hidden = true; $("finishplan").hidden = true; $("difffile").hidden = true;
    fetch("/api/changes?team=" + encodeURIComponent(sel.team) + "&member=" + encodeURIComponent(sel.member), { credentials: "same-origin" })
      .then((r) => r.json()).then((j) => {
        if (changesOf !== key) return;
        if (j.error) { $("dchanges").textContent = j.error; return; }
        $("dchanges").textContent = j.summary;
        $("dfiles").replaceChildren(...j.files.map((f, i) => {
          const li = el("li", "open", f);
          li.dataset.path = j.paths[i]; li.tabIndex = 0; li.setAttribute("role", "button");
          li.addEventListener("click", () => showDiff(key, li));
          li.addEventListener("keydown", (e) => { if (e.key === "Enter") showDiff(key, li); });
          return li;
        }));
        $("dconflicts").textContent = j.conflicts.join("\n");
        $("merge").hidden = readOnly || !j.mergeable;
        $("finish").hidden = readOnly || !j.mergeable;
      }).catch((e) => { if (changesOf === key) $("dchanges").textContent = "not read: " + e; });
  }
  $("merge").addEventListener("click", () => {
    const b = $("merge");
    if (!sel) return;
    if (b.dataset.armed !== "1") {
      b.dataset.armed = "1"; b.textContent = "Really merge " + sel.member + "?";
      setTimeout(() => { b.dataset.armed = ""; b.textContent = "Merge into its base"; }, 4000);
      return;
    }
    b.dataset.armed = ""; b.textContent = "Merge into its base";
    act("merge", { team: sel.team, member: sel.member }).then(loadChanges);
  });

  // One changed file's diff, as the server reads and says it: lines and
  // their kinds; the page draws them.
  function showDiff(key, li) {
    if (!sel || changesOf !== key) return;
    for (const x of $("dfiles").children) x.classList.toggle("shown", x === li);
    $("difffile").hidden = false; $("dfile").textContent = li.textContent; $("dcut").hidden = true;
    $("ddiff").textContent = "reading…";
    const q = "team=" + encodeURIComponent(sel.team) + "&member=" + encodeURIComponent(sel.member) + "&file=" + encodeURIComponent(li.dataset.path);
    fetch("/api/diff?" + q, { credentials: "same-origin" }).then((r) => r.json()).then((j) => {
      if (changesOf !== key) return;
      if (j.error) { $("ddiff").textContent = j.error; return; }
      $("ddiff").replaceChildren(...j.lines.map((l) => { const s = el("span", l.kind, l.text + "\n"); return s; }));
      $("dcut").hidden = !j.cut; $("dcut").textContent = j.cut || "";
    }).catch((e) => { if (changesOf === key) $("ddiff").textContent = "not read: " + e; });
  }
  $("diffclose").addEventListener("click", () => {
    $("difffile").hidden = true;
    for (const x of $("dfiles").children) x.classList.remove("shown");
  });

  // Finish behind a confirmation: first what it will do, as the server
  // reads it (nothing done), then Finish or Cancel.
  $("finish").addEventListener("click", () => {
    if (!sel) return;
    const key = sel.team + "/" + sel.member, who = { team: sel.team, member: sel.member };
    $("fname").textContent = sel.member; $("fsteps").replaceChildren(el("li", "", "reading…"));
    $("finishplan").hidden = false; $("finishyes").disabled = true; $("finishyes").dataset.key = key;
    fetch("/api/finish-plan?team=" + encodeURIComponent(who.team) + "&member=" + encodeURIComponent(who.member), { credentials: "same-origin" })
      .then((r) => r.json()).then((j) => {
        if (changesOf !== key) return;
        if (j.error) { $("fsteps").replaceChildren(el("li", "refused", j.error)); return; }
        $("fsteps").replaceChildren(...j.lines.map((l) => el("li", j.refused ? "refused" : "", l)));
        $("finishyes").disabled = j.refused;
      }).catch((e) => { if (changesOf === key) $("fsteps").replaceChildren(el("li", "refused", "not read: " + e)); });
  });
  $("finishno").addEventListener("click", () => { $("finishplan").hidden = true; });
  $("finishyes").addEventListener("click", () => {
    if (!sel || $("finishyes").dataset.key !== sel.team + "/" + sel.member) return;
    $("finishyes").disabled = true;
    act("finish", { team: sel.team, member: sel.member }).then(() => { $("finishplan").hidden = true; loadChanges(); });
  });

  function select(team, member) {
    sel = { team: team, member: member };
    $("screen").textContent = "";
    for (const li of $("rows").children) li.classList.toggle("sel", li.dataset.team === team && li.dataset.member === member);
    render();
    followScreen();
    loadChanges();
    if (!wide.matches) $("detail").scrollIntoView({ block: "start" });
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
    let p = lastPress; lastPress = null;
    if (p && Date.now() - p.at > holdMs) p = null; // not this click's press
    let li = ev.target.closest("li[data-member]"), b = ev.target.closest("button[data-act]");
    if (p) {
      // A pointer's click: the row and the button the press began on, or nothing.
      if (!p.li || li !== p.li || b !== p.button) return;
      li = p.li; b = p.button;
    }
    if (!li) return;
    const who = { team: p ? p.team : li.dataset.team, member: p ? p.member : li.dataset.member };
    if (b) { ev.stopPropagation(); run(b.dataset.act, who.team, who.member, b); return; }
    select(who.team, who.member);
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
      if (!x.r.waits) continue;
      const id = k + "@" + x.r.since;
      now.add(id);
      if (!seenWaits.has(id) && !firstView) fresh.push(x.m.name + ": " + x.r.waits_on);
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
  function retitle() { if (view) { const n = view.rows.filter((r) => r.waits).length; document.title = (n ? "(" + n + ") " : "") + "teamctl"; } }

  function connect() {
    const es = new EventSource("/api/stream");
    es.addEventListener("view", (ev) => {
      const v = JSON.parse(ev.data);
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
