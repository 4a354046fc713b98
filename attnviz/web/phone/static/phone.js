// attnviz's light phone page: follows a room through /api/rooms/{code}/... (attnviz/web/phone).
// Every text from the server (tokens, questions, sentences) goes in with textContent, never as
// markup; charts are the server's finished Plotly figures, drawn once Plotly.js has loaded.
"use strict";
(() => {
  const screen = document.getElementById("screen");
  const title = document.getElementById("title");
  const note = document.getElementById("note");
  const params = new URLSearchParams(location.search);
  let code = params.get("room");
  let joined = params.get("joined") === "1";
  let generation = 0; // a new room starts a new loop; the old one stops
  let shown = ""; // what is on screen (the state's version and own part)
  let levels = null; // the sketch being made: [question number, [level per key]]
  let plotly = null; // the promise of Plotly.js

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name === "on") node.addEventListener("click", value);
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }
  const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
  const say = (text) => { note.textContent = text || ""; };
  const api = (path) => `/api/rooms/${encodeURIComponent(code)}/${path}`;

  async function post(path, body) {
    let response;
    try {
      response = await fetch(api(path), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
    } catch (err) {
      throw new Error("The server cannot be reached: check the network, then tap again.");
    }
    let data = {};
    try { data = await response.json(); } catch (err) { data = {}; }
    if (!response.ok) throw new Error(data.error || "The server refused this: reload the page.");
    return data;
  }

  async function state(seen) {
    const query = seen === undefined || seen === null ? "" : `?seen=${encodeURIComponent(seen)}`;
    const response = await fetch(api("state") + query, { credentials: "same-origin" });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || "The room cannot be read now.");
    return data;
  }

  // -- charts ----------------------------------------------------------------------------------
  function loadPlotly() {
    if (!plotly) {
      plotly = new Promise((done, failed) => {
        const script = el("script", { src: document.documentElement.dataset.plotly });
        script.onload = () => done(window.Plotly);
        script.onerror = failed;
        document.head.append(script);
      });
    }
    return plotly;
  }

  let template = null; // the Plotly template the room's charts share, sent once a state

  function chart(made) {
    const plot = el("div", { class: "plot", role: "img", "aria-label": made.alt });
    const words = el("details", {},
      el("summary", { text: `${made.title}: as text` }), el("pre", { text: made.words }));
    loadPlotly().then((Plotly) => {
      if (plot.isConnected) {
        const layout = made.template ? { ...made.spec.layout, template } : made.spec.layout;
        Plotly.newPlot(plot, made.spec.data, layout,
          { displayModeBar: false, responsive: true, scrollZoom: false });
      }
    }).catch(() => { plot.textContent = "The chart could not be drawn: its numbers are below."; });
    return el("figure", {}, plot, words);
  }

  // -- taps ------------------------------------------------------------------------------------
  async function act(path, body) {
    try {
      const data = await post(path, body);
      say(data.note || "");
    } catch (err) {
      say(err.message);
    }
    await refresh();
  }

  async function refresh() {
    try { show(await state()); } catch (err) { say(err.message); }
  }

  // -- the screens -----------------------------------------------------------------------------
  function joinForm(heading) {
    const input = el("input", { id: "code", name: "code", maxlength: "12", required: true,
      autocomplete: "off", autocapitalize: "characters", spellcheck: "false", placeholder: "K7QX4M" });
    const form = el("form", {}, el("label", { for: "code", text: "Room code (on the projector)" }),
      input, el("button", { type: "submit", class: "primary wide", text: "Join" }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = input.value.replace(/[^A-Za-z0-9]/g, "");
      if (typed) join(typed, false);
    });
    return el("section", {}, heading ? el("p", { class: "muted", text: heading }) : null, form);
  }

  function question(shared, mine) {
    const q = shared.question;
    const parts = [];
    if (q.round_title) parts.push(el("h2", { text: q.round_title }));
    parts.push(el("p", {}, el("strong", { text: `Question ${q.number}. ` }), q.text));
    if (mine.round_note) parts.push(el("p", { class: "muted", text: mine.round_note }));
    if (q.answering) {
      const options = el("div", { class: "options", role: "group", "aria-label": "Your answer" });
      q.options.forEach((text, k) => options.append(el("button", {
        type: "button", text, "aria-pressed": String(mine.answer === k),
        on: () => act("answer", { option: k }),
      })));
      parts.push(options);
    }
    if (shared.discussion) parts.push(discussion(shared.discussion, shared.now));
    if (shared.waiting) parts.push(el("p", { class: "box", text: shared.waiting }));
    for (const line of mine.lines || []) parts.push(el("p", { class: "box", text: line }));
    if (q.answering && mine.answer !== null && mine.answer !== undefined) {
      parts.push(el("p", { class: "muted", text: "How sure are you? (optional)" }));
      const row = el("div", { class: "row", role: "group", "aria-label": "How sure are you?" });
      q.confidence.forEach((name, level) => row.append(el("button", {
        type: "button", text: name, "aria-pressed": String(mine.confidence === level),
        on: () => act("confidence", { level }),
      })));
      parts.push(row);
    }
    for (const sentence of shared.sentences || []) parts.push(el("p", { text: sentence }));
    for (const made of shared.charts || []) parts.push(chart(made));
    if (shared.proof) parts.push(proof(shared.proof));
    return parts;
  }

  function discussion(banner, now) {
    const parts = [el("h2", { text: `🗣️ ${banner.text}` }), el("p", { class: "muted", text: banner.caption })];
    if (banner.seconds) {
      const bar = el("div");
      const elapsed = Math.max(0, banner.seconds - Math.max(0, banner.until - now));
      bar.style.animationDuration = `${banner.seconds}s`;
      bar.style.animationDelay = `-${elapsed}s`;
      parts.push(el("div", { class: "countdown", role: "img",
        "aria-label": "The time left to discuss, as a shrinking bar" }, bar));
    }
    return el("section", {}, ...parts);
  }

  function proof(p) {
    const parts = [el("p", { text: p.answer }), el("p", { text: p.why })];
    for (const made of p.charts) parts.push(chart(made));
    if (p.table) {
      const head = el("tr", {}, el("th", { scope: "col", text: p.table.index_name }),
        ...p.table.columns.map((c) => el("th", { scope: "col", text: c })));
      const rows = p.table.rows.map((cells) => el("tr", {},
        el("th", { scope: "row", text: cells[0] }), ...cells.slice(1).map((c) => el("td", { text: c }))));
      parts.push(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
    }
    return el("section", {}, ...parts);
  }

  function weights(levelsNow, allowed) {
    const total = levelsNow.reduce((sum, v, j) => sum + (allowed[j] ? v : 0), 0);
    return total > 0 ? levelsNow.map((v, j) => (allowed[j] ? v / total : 0)) : null;
  }

  function sketchInput(s, mine) {
    if (!levels || levels[0] !== s.number || levels[1].length !== s.labels.length) {
      levels = [s.number, s.allowed.map((ok) => (ok ? 1 : 0))]; // "same for all"
    }
    const now = mine.sketch || levels[1];
    const locked = Boolean(mine.sketch);
    const w = weights(now, s.allowed);
    const grid = el("div", { class: "sketch", role: "group", "aria-label": "Your sketch: a level per key" });
    s.labels.forEach((label, j) => {
      grid.append(el("span", { class: s.allowed[j] ? "key" : "key masked", text: label }));
      for (let level = 0; level <= s.levels; level += 1) {
        grid.append(el("button", {
          type: "button", text: String(level), "aria-pressed": String(now[j] === level),
          "aria-label": `key ${label}: bar ${level} of ${s.levels}`,
          disabled: locked || !s.allowed[j],
          on: () => { levels[1][j] = level; show(last, true); },
        }));
      }
      const bar = el("div");
      bar.style.width = `${w ? Math.round(100 * w[j]) : 0}%`;
      grid.append(el("div", { class: "bar", "aria-hidden": "true" }, bar));
    });
    const parts = [grid];
    if (w) {
      const said = s.labels.map((label, j) => `${label} ${w[j].toFixed(2)}`).join(" · ");
      parts.push(el("p", { text: `The bars are renormalised to sum to 1, as a row of A does: ${said}` }));
    } else {
      parts.push(el("p", { class: "error", text: "Every bar is at 0: raise at least one bar (a row of A sums to 1)." }));
    }
    if (s.masked_note) parts.push(el("p", { class: "muted", text: s.masked_note }));
    if (!locked) {
      parts.push(el("div", { class: "row" },
        el("button", { type: "button", text: "Same for all",
          on: () => { levels[1] = s.allowed.map((ok) => (ok ? 1 : 0)); show(last, true); } }),
        el("button", { type: "button", class: "primary", text: "Submit", disabled: !w,
          on: () => act("sketch", { levels: levels[1] }) })));
    }
    return parts;
  }

  // Plotly draws a subset of HTML in its labels: a token is written with its markup escaped
  const plotlyText = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

  function ownSketch(s, mine) {
    const n = s.labels.length;
    const y = s.labels.map((_, j) => j);
    const spec = {
      data: [
        { type: "bar", orientation: "h", x: mine.weights, y, name: "your sketch", marker: { color: "#0072b2" }, hoverinfo: "skip" },
        { type: "scatter", mode: "markers", x: s.truth, y, name: "the true row", hoverinfo: "skip",
          marker: { symbol: "diamond", size: 16, color: "#111111", line: { color: "#fff", width: 1 } } },
      ],
      layout: {
        title: { text: "Your sketch and the true row", y: 0.98, yanchor: "top" },
        height: 40 * n + 170, margin: { l: 90, r: 16, t: 80, b: 56 }, showlegend: true,
        legend: { orientation: "h", x: 0, y: 1, yanchor: "bottom" },
        xaxis: { range: [0, 1], fixedrange: true, title: { text: "weight (the row sums to 1)" } },
        yaxis: { tickvals: y, ticktext: s.labels.map(plotlyText), autorange: "reversed", fixedrange: true },
      },
    };
    return chart({ spec, title: "Your sketch", alt: "Your sketch and the true row: bars and diamonds", words: mine.words });
  }

  function sketchScreen(shared, mine) {
    const s = shared.sketch;
    if (s.problem) return [el("p", { class: "box", text: s.problem })];
    const parts = [el("p", {}, el("strong", { text: `Question ${s.number}. ` }), s.text), el("p", { text: s.clue })];
    if (shared.phase === "answering") parts.push(...sketchInput(s, mine));
    else if (mine.weights) parts.push(ownSketch(s, mine));
    for (const line of mine.lines || []) parts.push(el("p", { class: "box", text: line }));
    if (s.sentence) parts.push(el("p", { text: s.sentence }));
    return parts;
  }

  let last = null;
  function show(data, force) {
    const key = JSON.stringify([data.version, data.mine, data.shared.screen]);
    if (!force && key === shown) return;
    shown = key;
    last = data;
    const shared = data.shared;
    const mine = data.mine || {};
    shared.now = data.now;
    template = shared.template || null;
    if (shared.code) title.textContent = `Room ${shared.code}`;
    const parts = [];
    if (shared.screen === "ended" || shared.screen === "closed") {
      parts.push(el("p", { class: shared.screen === "ended" ? "error" : "box", text: shared.notice }));
      if (shared.screen === "closed") parts.push(joinForm("Join another room with the code on the projector:"));
      else parts.push(joinForm(shared.caption));
    } else if (shared.screen === "look_up") {
      parts.push(el("h2", { text: `👀 ${shared.notice}` }), el("p", { class: "muted", text: shared.caption }));
    } else if (shared.screen === "sketch") {
      parts.push(...sketchScreen(shared, mine));
    } else if (shared.screen === "question") {
      parts.push(...question(shared, mine));
    } else if (shared.notice) {
      parts.push(el("p", { class: "box", text: shared.notice }));
    }
    if (shared.example) parts.push(chart(shared.example));
    if (["wait", "question", "sketch", "look_up"].includes(shared.screen)) {
      parts.push(el("button", { type: "button", class: "wide", text: "😵 I'm lost", on: () => act("lost") }));
    }
    const focused = document.activeElement; // a tapped button keeps the focus when redrawn
    const label = focused && focused.tagName === "BUTTON"
      ? focused.getAttribute("aria-label") || focused.textContent : null;
    screen.replaceChildren(...parts);
    if (label) {
      const again = [...screen.querySelectorAll("button")].find(
        (b) => (b.getAttribute("aria-label") || b.textContent) === label);
      if (again) again.focus({ preventScroll: true });
    }
  }

  // -- following the room ----------------------------------------------------------------------
  async function follow(mine) {
    let seen = null;
    while (mine === generation) {
      try {
        const data = await state(seen);
        if (mine !== generation) return;
        if (data.same) continue; // nothing changed while it waited
        if (data.shared.screen === "next") { join(data.shared.code, true); return; }
        show(data);
        if (note.dataset.offline) { say(""); delete note.dataset.offline; }
        seen = data.version;
        if (seen === null) await sleep(3000); // an ended room: ask now and then for its successor
      } catch (err) {
        note.dataset.offline = "1"; // the server's sentence (the store away), or the network's
        const lost = err instanceof TypeError || err instanceof SyntaxError;
        say(lost ? "Reconnecting to the room…" : err.message);
        seen = null;
        await sleep(2000);
      }
    }
  }

  async function join(typed, rejoin) {
    const previous = code;
    code = typed;
    try {
      const data = await post("join");
      code = data.code;
      joined = true;
      say("");
    } catch (err) {
      if (!rejoin) {
        code = previous;
        say(err.message);
        if (!previous) screen.replaceChildren(joinForm());
        return;
      }
    }
    history.replaceState(null, "", `?room=${encodeURIComponent(code)}&joined=1`);
    generation += 1;
    follow(generation);
  }

  if (code) join(code, joined);
  else screen.replaceChildren(joinForm());
})();
