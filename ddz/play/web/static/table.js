// The web table of `ddz serve`: draws the views the server sends and sends back the player's
// choices. It holds no rules and keeps nothing the server didn't send: every word, card and
// judgement on the page comes from the last `view`, `selection` or `hint` message.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const LANGUAGES = [
    ["en", "English"], ["pt", "Português"], ["it", "Italiano"],
    ["es", "Español"], ["id", "Bahasa Indonesia"], ["zh", "中文"],
  ];
  const DOUBLE_TAP_MS = 400;

  let ws = null;
  let view = null;            // the last view
  let views = 0;              // how many views were drawn
  let raised = new Set();     // the ids of the raised cards (the page's only state of its own)
  let pendingSelect = 0;      // select messages not answered yet (only the last answer counts)
  let selection = null;       // the last selection reply {ok, text, readings}
  let hintText = "";          // the last hint's text, shown until the cards change
  let lastTap = { id: null, time: 0 };
  let closedByServer = false;
  let resultClosed = false;   // the result card put aside to look at the table

  // ------------------------------------------------------------------ the connection
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${scheme}://${location.host}/ws`);
    ws.addEventListener("open", () => {
      send({ type: "hello", lang: navigator.language || "en" });
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      receive(message);
    });
    ws.addEventListener("close", () => {
      if (!closedByServer) notice(T("disconnected", "The connection to the server was lost."), true);
      $("table").classList.add("offline");
      // the server keeps no table for a closed socket: reconnecting sits at a new one
      $("reconnect").textContent = T("reconnect", "Reconnect");
      $("reconnect-note").textContent = T("reconnect_note",
        "Reconnecting opens a new table: the server keeps no table for a closed connection.");
      $("reconnect-line").hidden = false;
      updateButtons();
    });
  }

  function reconnect() {
    if (ws && ws.readyState !== WebSocket.CLOSED) return;
    closedByServer = false;
    raised = new Set();
    pendingSelect = 0;
    selection = null;
    hintText = "";
    resultClosed = false;
    $("reconnect-line").hidden = true;
    notice("", false);
    $("table").classList.remove("offline");
    $("table").setAttribute("aria-busy", "true");
    connect();
  }

  function send(message) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(message));
  }

  function receive(message) {
    switch (message.type) {
      case "view":
        showView(message);
        break;
      case "selection":
        pendingSelect = Math.max(0, pendingSelect - 1);
        if (pendingSelect === 0) {
          selection = { ok: !!message.ok, text: message.text || "", readings: message.readings || [] };
          updateLive();
          updateButtons();
        }
        break;
      case "hint":
        raised = new Set((message.cards || []).filter(inHand));
        hintText = message.text || "";
        drawHand();
        select(true);
        break;
      case "error":
        notice(message.text || "", false);
        break;
      case "full":
      case "bye":
        closedByServer = true;
        notice(message.text || "", true);
        break;
      default:
        break;
    }
  }

  // ------------------------------------------------------------------ texts
  function T(key, fallback) {
    const texts = (view && view.texts) || {};
    return texts[key] !== undefined ? texts[key] : fallback;
  }

  // a label that ends in a colon, before its value (no space after a full-width colon)
  function afterLabel(label, value) {
    return `${label}${label.endsWith("：") ? "" : " "}${value}`;
  }

  // a label without its colon, as a caption
  function bareLabel(label) {
    return label.replace(/[:：]\s*$/, "");
  }

  let noticeTimer = null;
  function notice(text, sticky) {
    const box = $("notice");
    $("notice-text").textContent = text;
    if (!$("reconnect-line").hidden) sticky = true; // offline: the Reconnect line stays
    box.hidden = !text;
    box.classList.toggle("sticky", !!sticky);
    clearTimeout(noticeTimer);
    if (!sticky && text) noticeTimer = setTimeout(() => { box.hidden = true; }, 4000);
  }

  // ------------------------------------------------------------------ cards
  function isJoker(card) {
    return !card.suit;
  }

  function cardElement(card, { small = false, interactive = false } = {}) {
    const el = document.createElement("div");
    el.className = `card ${card.color === "red" ? "red" : "black"}`;
    if (small) el.classList.add("small");
    if (card.wild) el.classList.add("wild");
    if (card.kitty) el.classList.add("from-kitty");
    el.dataset.id = card.id;
    el.dataset.rank = card.rank;
    el.setAttribute("aria-label", card.name || card.label || card.rank);
    if (interactive) {
      el.setAttribute("role", "button");
      el.tabIndex = 0;
      el.setAttribute("aria-pressed", "false");
    } else {
      el.setAttribute("role", "img");
    }
    const corner = document.createElement("span");
    corner.className = "corner";
    corner.setAttribute("aria-hidden", "true");
    const face = document.createElement("span");
    face.className = "face";
    face.setAttribute("aria-hidden", "true");
    if (isJoker(card)) {
      el.classList.add("joker");
      corner.classList.add("vertical");
      corner.textContent = "JOKER";
      face.textContent = "✦";
    } else {
      const rank = document.createElement("b");
      rank.textContent = card.rank;
      const suit = document.createElement("i");
      suit.textContent = card.suit || "";
      corner.append(rank, suit);
      face.textContent = card.suit || card.rank;
    }
    el.append(corner, face);
    if (card.wild) {
      const star = document.createElement("span");
      star.className = "star";
      star.setAttribute("aria-hidden", "true");
      star.textContent = "★";
      el.append(star);
    }
    return el;
  }

  function cardRow(cards, className, label) {
    const row = document.createElement("div");
    row.className = `cards ${className || ""}`;
    row.setAttribute("role", "group");
    if (label) row.setAttribute("aria-label", label);
    for (const card of cards) row.append(cardElement(card, { small: true }));
    return row;
  }

  function backs(count, label) {
    const row = document.createElement("div");
    row.className = "cards backs";
    row.setAttribute("role", "img");
    row.setAttribute("aria-label", label);
    for (let i = 0; i < count; i++) {
      const back = document.createElement("div");
      back.className = "card small back";
      back.setAttribute("aria-hidden", "true");
      row.append(back);
    }
    return row;
  }

  // ------------------------------------------------------------------ the view
  function showView(v) {
    const firstView = view === null;
    // another language: the last hint's line, written in the old one, is dropped
    if (view && v.lang !== view.lang) hintText = "";
    view = v;
    views += 1;
    $("table").dataset.views = views; // how many views were drawn (the browser tests wait on it)
    $("table").setAttribute("aria-busy", "false");
    if (v.title) {
      document.title = v.title;
      $("title").textContent = v.title;
    }
    if (v.lang) document.documentElement.lang = v.lang;
    // keep the raised cards that are still in the hand and still yours to play
    const playing = v.asked && v.asked.kind === "play";
    raised = new Set([...raised].filter((id) => playing && inHand(id)));
    drawLabels();
    drawLanguages();
    $("round-line").textContent = v.round_line || "";
    drawCounter();
    drawSeats();
    drawKitty();
    drawToBeat();
    drawPrompt();
    drawHand();
    drawLog();
    drawResult();
    if (playing) {
      select(false);
    } else {
      pendingSelect = 0;
      selection = null;
      hintText = "";
      updateLive();
      updateButtons();
    }
    if (Array.isArray(v.notices) && v.notices.length) notice(v.notices.join("\n"), false);
    if (firstView) fitHand();
  }

  function inHand(id) {
    return !!(view && view.hand && view.hand.some((c) => c.id === id));
  }

  function drawLabels() {
    $("play").textContent = T("play", "Play");
    $("pass").textContent = T("pass", "Pass");
    $("hint").textContent = T("hint", "Hint");
    $("undo").textContent = T("undo", "Undo");
    $("copy-code").textContent = T("copy_code", "Copy code");
    $("open-input").setAttribute("aria-label", T("open_code", "Open by code"));
    $("open-button").textContent = T("open_code", "Open by code");
    $("log-title").textContent = T("log", "Log");
    $("lang-caption").textContent = T("language", "Language");
    $("lang").setAttribute("aria-label", T("language", "Language"));
    // the keys, named by the buttons' own (translated) labels
    $("help").textContent = T("keys", [
      `Enter ${T("play", "Play")}`, `Space/P ${T("pass", "Pass")}`, `H ${T("hint", "Hint")}`,
      `U ${T("undo", "Undo")}`, "Esc ↓",
    ].join(" · "));
    $("me").setAttribute("aria-label", T("your_hand", "Your hand"));
    $("hand").setAttribute("aria-label", T("your_hand", "Your hand"));
    $("counter").setAttribute("aria-label", T("counter", "Counter"));
    $("result-close").setAttribute("aria-label", T("close", "Close"));
    $("result-close").title = T("close", "Close");
    $("show-result").textContent = T("result", "Result");
    $("kitty").setAttribute("aria-label", T("kitty", "Kitty"));
    $("to-beat").setAttribute("aria-label", T("table", "To beat"));
    $("log-box").setAttribute("aria-label", T("log", "Log"));
  }

  function drawLanguages() {
    const menu = $("lang");
    const langs = (view && view.languages) || LANGUAGES;
    if (menu.options.length !== langs.length) {
      menu.replaceChildren();
      for (const entry of langs) {
        const [code, name] = Array.isArray(entry) ? entry : [entry.code, entry.name];
        const option = document.createElement("option");
        option.value = code;
        option.textContent = name;
        menu.append(option);
      }
    }
    if (view && view.lang) menu.value = view.lang;
  }

  function drawCounter() {
    const box = $("counter");
    const counter = view.counter;
    box.replaceChildren();
    if (!counter) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const rows = document.createElement("pre");
    rows.textContent = Array.isArray(counter) ? counter.join("\n") : String(counter);
    box.append(rows);
  }

  function position(seat, me, players) {
    const k = (seat - me + players) % players;
    if (players === 2) return "across";
    if (k === 1) return "right";
    if (k === players - 1) return "left";
    return "across";
  }

  function seatPanel(s) {
    const panel = document.createElement("section");
    panel.className = "seat";
    panel.setAttribute("aria-label", s.name);
    if (s.thinking) panel.classList.add("thinking");
    if (s.role) panel.dataset.role = s.role;
    const head = document.createElement("div");
    head.className = "seat-head";
    const avatar = document.createElement("span");
    avatar.className = "avatar";
    avatar.setAttribute("aria-hidden", "true");
    avatar.textContent = (s.name || "?").trim().charAt(0);
    const who = document.createElement("div");
    who.className = "who";
    const name = document.createElement("strong");
    name.textContent = s.name;
    who.append(name);
    if (s.role) {
      const role = document.createElement("span");
      role.className = `role ${s.role}`;
      role.textContent = T(s.role, s.role);
      who.append(role);
    }
    head.append(avatar, who);
    if (!s.you && s.cards_left !== null && s.cards_left !== undefined) {
      const left = document.createElement("span");
      left.className = "count";
      if (s.warning) left.classList.add("warn");
      left.textContent = s.cards_left;
      const words = afterLabel(T("cards_left", "Cards left:"), s.cards_left);
      left.setAttribute("aria-label", words);
      left.title = words;
      head.append(left);
    }
    panel.append(head);
    if (s.warning) panel.append(paragraph(s.warning, "status warn"));
    if (s.thinking) {
      const words = T("thinking", "{seat} is thinking…").replace("{seat}", s.name);
      panel.append(paragraph(words, "status thinking-dots"));
    }
    if (Array.isArray(s.open) && s.open.length) {
      panel.append(cardRow(s.open, "open", s.name));
    }
    const move = document.createElement("div");
    move.className = "move";
    if (s.move && s.move.pass) {
      const p = document.createElement("span");
      p.className = "pass-word";
      p.textContent = s.move.text || T("pass", "Pass");
      move.append(p);
    } else if (s.move && s.move.cards) {
      // the move on the table is drawn in the middle; the others in front of their seat
      const onTable = view.table && view.table.seat === s.seat;
      if (!onTable) move.append(cardRow(s.move.cards, "played", s.move.text));
      if (s.move.text) {
        const t = document.createElement("span");
        t.className = "move-text";
        t.textContent = s.move.text;
        move.append(t);
      }
    } else if (s.move && s.move.text) {
      const t = document.createElement("span");
      t.className = "move-text";
      t.textContent = s.move.text;
      move.append(t);
    }
    panel.append(move);
    return panel;
  }

  function drawSeats() {
    const box = $("seats");
    box.replaceChildren();
    const seats = view.seats || [];
    const me = seats.find((s) => s.you);
    const players = seats.length;
    box.dataset.players = players;
    for (const s of seats) {
      if (s.you) continue;
      const panel = seatPanel(s);
      panel.classList.add(position(s.seat, me ? me.seat : 0, players));
      box.append(panel);
    }
    const mine = $("my-seat");
    mine.replaceChildren();
    if (me) {
      const panel = seatPanel(me);
      panel.classList.add("mine");
      mine.append(panel);
    }
  }

  function drawKitty() {
    const box = $("kitty");
    box.replaceChildren();
    const caption = document.createElement("span");
    caption.className = "caption";
    caption.textContent = T("kitty", "Kitty");
    box.append(caption);
    if (Array.isArray(view.kitty)) {
      box.append(cardRow(view.kitty, "kitty-cards", T("kitty", "Kitty")));
    } else {
      box.append(backs(view.kitty_size || 0, T("kitty", "Kitty")));
    }
  }

  function drawToBeat() {
    const box = $("to-beat");
    box.replaceChildren();
    const table = view.table;
    if (!table || !table.cards) return;
    const seat = (view.seats || []).find((s) => s.seat === table.seat);
    const caption = document.createElement("span");
    caption.className = "caption";
    caption.textContent = [T("table", "To beat"), seat ? seat.name : ""].filter(Boolean).join(" · ");
    box.append(caption, cardRow(table.cards, "big", table.text));
    if (table.text) {
      const t = document.createElement("span");
      t.className = "move-text";
      t.textContent = table.text;
      box.append(t);
    }
  }

  function drawPrompt() {
    const asked = view.asked;
    const box = $("options");
    box.replaceChildren();
    $("prompt-text").textContent = asked ? asked.prompt || "" : "";
    $("table").dataset.asked = asked ? asked.kind : "";
    if (!asked || asked.kind === "play" || asked.kind === "end") return;
    for (const option of asked.options || []) {
      box.append(optionButton(option));
    }
  }

  function optionButton(option) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "option";
    button.dataset.key = option.key;
    button.textContent = option.label;
    onTap(button, () => send({ type: "choose", key: option.key }));
    return button;
  }

  function drawLog() {
    const list = $("log");
    list.replaceChildren();
    for (const line of view.log || []) {
      const item = document.createElement("li");
      item.textContent = line;
      list.append(item);
    }
    list.scrollTop = list.scrollHeight;
  }

  // ------------------------------------------------------------------ the hand
  function drawHand() {
    const box = $("hand");
    const hand = (view && view.hand) || [];
    // the same cards with the same names: keep the elements (a drag in progress stays on them)
    const key = hand.map((c) => `${c.id}:${c.name}:${c.wild}:${c.kitty}`).join(",");
    if (box.dataset.key !== key) {
      box.dataset.key = key;
      box.replaceChildren();
      for (const card of hand) box.append(cardElement(card, { interactive: true }));
    }
    for (const el of box.querySelectorAll(".card")) {
      const up = raised.has(Number(el.dataset.id));
      el.classList.toggle("raised", up);
      el.setAttribute("aria-pressed", up ? "true" : "false");
    }
    fitHand();
  }

  // lay the hand out to fit the width: overlapping cards, two rows when one is too tight
  function fitHand() {
    const box = $("hand");
    const cards = [...box.querySelectorAll(".card")];
    const n = cards.length;
    box.classList.remove("two-rows");
    if (!n) return;
    const width = box.clientWidth;
    const cardWidth = cards[0].offsetWidth || 64;
    const step = (count) => (count > 1 ? Math.min(cardWidth * 0.62, (width - cardWidth - 4) / (count - 1)) : cardWidth);
    let s = step(n);
    let rows = 1;
    if (s < cardWidth * 0.3 && n > 10) {
      rows = 2;
      s = step(Math.ceil(n / 2));
    }
    box.classList.toggle("two-rows", rows === 2);
    for (const old of box.querySelectorAll(".row-break")) old.remove();
    if (rows === 2) {
      const gap = document.createElement("span");
      gap.className = "row-break";
      gap.setAttribute("aria-hidden", "true");
      box.insertBefore(gap, cards[Math.ceil(n / 2)]);
    }
    box.style.setProperty("--step", `${Math.max(6, Math.floor(s))}px`);
    box.style.setProperty("--first-row", `${rows === 2 ? Math.ceil(n / 2) : n}`);
    cards.forEach((el, i) => {
      const row = rows === 2 && i >= Math.ceil(n / 2) ? 1 : 0;
      el.dataset.row = row;
      el.classList.toggle("row-start", i === 0 || (rows === 2 && i === Math.ceil(n / 2)));
    });
  }

  function setRaised(id, up) {
    if (up) raised.add(id);
    else raised.delete(id);
    const el = $("hand").querySelector(`.card[data-id="${id}"]`);
    if (el) {
      el.classList.toggle("raised", up);
      el.setAttribute("aria-pressed", up ? "true" : "false");
    }
  }

  function changed() {
    hintText = "";
    select(true);
  }

  // tell the server what is raised; its answer drives the live bar and the Play button
  function select(force) {
    if (!view || !view.asked || view.asked.kind !== "play") return;
    if (!force && pendingSelect > 0) return;
    pendingSelect += 1;
    send({ type: "select", cards: [...raised] });
  }

  function cardAt(x, y) {
    const el = document.elementFromPoint(x, y);
    const card = el && el.closest("#hand .card");
    return card || null;
  }

  let drag = null; // {up, seen:Set, startId, moved}
  function pointerDown(event) {
    const el = event.target.closest("#hand .card");
    if (!el || (event.pointerType === "mouse" && event.button !== 0)) return;
    event.preventDefault();
    const id = Number(el.dataset.id);
    const up = !raised.has(id);
    drag = { up, seen: new Set([id]), startId: id, moved: false, pointer: event.pointerId };
    try {
      $("hand").setPointerCapture(event.pointerId);
    } catch {
      /* the pointer is gone already */
    }
    setRaised(id, up);
  }

  function pointerMove(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const el = cardAt(event.clientX, event.clientY);
    if (!el) return;
    const id = Number(el.dataset.id);
    if (drag.seen.has(id)) return;
    drag.seen.add(id);
    drag.moved = true;
    setRaised(id, drag.up);
  }

  function pointerUp(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const d = drag;
    drag = null;
    const now = performance.now();
    if (!d.moved) {
      if (lastTap.id === d.startId && now - lastTap.time < DOUBLE_TAP_MS) {
        // a double tap: the whole rank follows the state the first tap gave the card
        // (the second tap gave the card back its first state; the first tap's state wins)
        const target = !d.up;
        const rank = $("hand").querySelector(`.card[data-id="${d.startId}"]`).dataset.rank;
        for (const el of $("hand").querySelectorAll(".card")) {
          if (el.dataset.rank === rank) setRaised(Number(el.dataset.id), target);
        }
        lastTap = { id: null, time: 0 };
      } else {
        lastTap = { id: d.startId, time: now };
      }
    } else {
      lastTap = { id: null, time: 0 };
    }
    changed();
  }

  // ------------------------------------------------------------------ buttons and live bar
  function updateLive() {
    const live = $("live");
    const asked = view && view.asked;
    let text = (view && view.status) || "";
    let ok = null;
    if (asked && asked.kind === "play") {
      if (hintText && raised.size === 0) text = hintText;
      else if (selection && raised.size > 0) {
        text = selection.text;
        ok = selection.ok;
      }
    }
    if (live.textContent !== text) live.textContent = text;
    live.classList.toggle("ok", ok === true);
    live.classList.toggle("bad", ok === false);
    drawReadings();
  }

  // the wildcard game: raised cards that read as several plays; each reading is a button
  function drawReadings() {
    const box = $("readings");
    const readings = (raised.size && selection && selection.ok && selection.readings) || [];
    box.replaceChildren();
    box.hidden = !readings.length;
    for (const reading of readings) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "reading";
      button.textContent = reading.label;
      onTap(button, () => play(reading.key));
      box.append(button);
    }
  }

  function updateButtons() {
    const asked = view && view.asked;
    const online = ws && ws.readyState === WebSocket.OPEN;
    const playing = !!(online && asked && asked.kind === "play");
    const canPlay = playing && raised.size > 0 && pendingSelect === 0 && !!selection && selection.ok;
    setButton("play", canPlay, playing);
    setButton("pass", playing && !!asked.can_pass, playing);
    setButton("hint", playing, playing);
    setButton("undo", !!(online && asked && asked.can_undo), !!(asked && asked.can_undo));
    $("play").classList.toggle("lit", canPlay);
  }

  function setButton(id, enabled, shown) {
    const button = $(id);
    button.disabled = !enabled;
    button.hidden = !shown;
  }

  function play(reading) {
    if ($("play").disabled) return;
    const readings = (selection && selection.readings) || [];
    const message = { type: "play", cards: [...raised] };
    if (reading !== undefined) message.reading = reading;
    else if (readings.length) {
      // several readings: the player picks one of the buttons under the live bar
      const first = $("readings").querySelector("button");
      if (first) first.focus();
      return;
    }
    send(message);
    raised = new Set();
    selection = null;
    drawHand();
    updateButtons();
  }

  function pass() {
    if ($("pass").disabled) return;
    raised = new Set();
    send({ type: "pass" });
  }

  function hint() {
    if ($("hint").disabled) return;
    send({ type: "hint" });
  }

  function undo() {
    if ($("undo").disabled) return;
    raised = new Set();
    send({ type: "undo" });
  }

  function lowerAll() {
    if (!raised.size) return;
    for (const id of [...raised]) setRaised(id, false);
    changed();
  }

  // ------------------------------------------------------------------ the result card
  function drawResult() {
    const back = $("result-back");
    const result = view.result;
    const asked = view.asked;
    if (!result) {
      back.hidden = true;
      resultClosed = false;
      $("show-result").hidden = true;
      $("table").classList.remove("over");
      return;
    }
    back.hidden = resultClosed;
    $("show-result").hidden = !resultClosed;
    $("table").classList.add("over");
    $("result-title").textContent = result.headline || T("result", "");
    const body = $("result-body");
    body.replaceChildren();
    const seats = view.seats || [];
    for (const hand of result.hands || []) {
      const seat = seats.find((x) => x.seat === hand.seat);
      const points = Array.isArray(result.points) ? result.points[hand.seat] : undefined;
      body.append(resultRow(
        [hand.name, hand.role ? T(hand.role, hand.role) : ""].filter(Boolean).join(" · "),
        hand.cards || [],
        points,
        seat && seat.you,
        T("empty", "—"),
      ));
    }
    if (Array.isArray(result.kitty) && result.kitty.length) {
      body.append(resultRow(T("kitty", "Kitty"), result.kitty));
    }
    if (Array.isArray(result.aside) && result.aside.length) {
      body.append(resultRow(bareLabel(T("aside", "Set aside:")), result.aside));
    }
    if (Array.isArray(result.lines) && result.lines.length) {
      const pre = document.createElement("pre");
      pre.className = "result-lines";
      pre.textContent = result.lines.join("\n");
      body.append(pre);
    }
    const options = $("result-options");
    options.replaceChildren();
    if (asked && asked.kind === "end") {
      for (const option of asked.options || []) options.append(optionButton(option));
    }
    $("code").textContent = result.code || "";
    $("result-code").hidden = !result.code;
  }

  function resultRow(label, cards, points, you, empty) {
    const row = document.createElement("div");
    row.className = "result-hand" + (you ? " you" : "");
    const name = document.createElement("span");
    name.className = "result-name";
    name.textContent = label;
    row.append(name);
    if (cards.length) row.append(cardRow(cards, "result-cards", label));
    else row.append(paragraph(empty || "", "result-empty"));
    if (points !== undefined && points !== null) {
      const p = document.createElement("span");
      p.className = "points " + (points > 0 ? "won" : points < 0 ? "lost" : "");
      p.textContent = points > 0 ? `+${points}` : `${points}`;
      row.append(p);
    }
    return row;
  }

  function paragraph(text, className) {
    const p = document.createElement("p");
    p.className = className;
    p.textContent = text;
    return p;
  }

  function showResult(shown) {
    resultClosed = !shown;
    $("result-back").hidden = !shown;
    $("show-result").hidden = shown;
    if (shown) $("result-close").focus();
    else $("show-result").focus();
  }

  async function copyCode() {
    const code = view && view.result && view.result.code;
    if (!code) return;
    let done = false;
    try {
      await navigator.clipboard.writeText(code);
      done = true;
    } catch {
      const area = document.createElement("textarea");
      area.value = code;
      document.body.append(area);
      area.select();
      try {
        done = document.execCommand("copy");
      } catch {
        done = false;
      }
      area.remove();
    }
    notice(done ? T("copied", "Deal code {code} copied").replace("{code}", code) : code, false);
  }

  // ------------------------------------------------------------------ wiring
  // A button acts on its click; a finger's tap acts on lifting the finger, since a browser may
  // swallow the click of a tap that follows a drag closely (the click that may follow is then
  // ignored).
  let tapped = { button: null, time: 0 };
  function onTap(button, action) {
    let down = null;
    button.addEventListener("pointerdown", (event) => {
      down = event.pointerType === "touch" ? event.pointerId : null;
    });
    button.addEventListener("pointerup", (event) => {
      if (down === null || event.pointerId !== down) return;
      down = null;
      const r = button.getBoundingClientRect();
      const inside = event.clientX >= r.left && event.clientX <= r.right &&
        event.clientY >= r.top && event.clientY <= r.bottom;
      if (!inside || button.disabled) return;
      tapped = { button, time: performance.now() };
      action();
    });
    button.addEventListener("click", () => {
      if (tapped.button === button && performance.now() - tapped.time < 800) return;
      action();
    });
  }

  function wire() {
    const hand = $("hand");
    hand.addEventListener("pointerdown", pointerDown);
    hand.addEventListener("pointermove", pointerMove);
    hand.addEventListener("pointerup", pointerUp);
    hand.addEventListener("pointercancel", pointerUp);
    hand.addEventListener("contextmenu", (e) => e.preventDefault());
    onTap($("play"), () => play());
    onTap($("pass"), pass);
    onTap($("hint"), hint);
    onTap($("undo"), undo);
    onTap($("copy-code"), copyCode);
    onTap($("result-close"), () => showResult(false));
    onTap($("show-result"), () => showResult(true));
    onTap($("reconnect"), reconnect);
    $("open-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const code = $("open-input").value.trim();
      if (code) send({ type: "open_code", code });
    });
    $("lang").addEventListener("change", () => send({ type: "lang", lang: $("lang").value }));
    document.addEventListener("keydown", keyDown);
    window.addEventListener("resize", fitHand);
  }

  function keyDown(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing = target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA");
    const onCard = target && target.closest && target.closest("#hand .card");
    if (event.key === "Enter") {
      if (typing) return;
      if (view && view.asked && view.asked.kind === "play") {
        event.preventDefault();
        // after a hint to pass (its line says so), Enter passes, as at the terminal
        if (hintText && raised.size === 0) pass();
        else play();
      }
      return;
    }
    if (typing) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === " " && onCard) {
      // Space on a card that has the focus raises or lowers it (the keyboard's way to pick)
      event.preventDefault();
      const id = Number(onCard.dataset.id);
      setRaised(id, !raised.has(id));
      changed();
      return;
    }
    if (key === "Escape" && !$("result-back").hidden) {
      showResult(false);
      return;
    }
    const action = { " ": pass, p: pass, h: hint, u: undo, Escape: lowerAll }[key];
    if (action) {
      event.preventDefault();
      action();
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    drawLanguages();
    drawLabels();
    wire();
    updateButtons();
    connect();
  });
})();
