// The live game page: one EventSource for the session, the scoreboard, the table, the log, manual play.
"use strict";
const APP = document.getElementById("app");
const SID = APP.dataset.session, FAMILY = APP.dataset.family;
let STATE = null, SOURCE = null, PICKED = [];

function face(id, small) {
  return el("img", {class: small ? "card small" : "card", src: `/cards/${FAMILY}/${encodeURIComponent(id)}.png`, alt: id, title: `${cardName(id)} (${id})`, loading: "lazy"});
}
function seatName(s) { const p = STATE && STATE.session.players.find(x => x.seat === s); return p ? p.name : t("seat-n", {n: s}); }
// The play line's error: a text as it is, or an Error from api(): a refusal of the rules said in the
// page's language (refusalText), the server's English words kept as its title.
function showError(err) {
  const line = document.getElementById("play-error");
  const refused = err !== null && typeof err === "object";
  const text = refused ? refusalText(STATE ? STATE.session.game : "", err) : String(err || "");
  line.textContent = text;
  if (refused && err.message && err.message !== text) line.title = err.message;
  else line.removeAttribute("title");
}

async function act(method, path, body) {
  showError("");
  try { await api(method, `/api/sessions/${SID}/${path}`, body); }
  catch (e) { showError(e); }
}

function render(s) {
  if (STATE && s.seq < STATE.seq) return;          // an older snapshot than the one shown
  STATE = s;
  const st = s.status, exp = st.expects;
  document.getElementById("expects").replaceChildren(...[
    el("strong", {}, st.over ? t("over") : expectsText(s.session.game, exp)),
    s.clock ? el("span", {class: "clock", id: "clock"}) : null].filter(Boolean));
  tickClock();
  // scoreboard
  const lead = new Set(s.leaders);
  document.getElementById("scores").replaceChildren(
    el("tr", {}, el("th", {}, t("seat")), el("th", {}, t("player")), el("th", {}, t("total", {unit: s.session.unit}))),
    ...s.session.players.map(p => el("tr", {class: (exp.seat === p.seat ? "to-act " : "") + (lead.has(p.seat) && s.results.length ? "leader" : "")},
      el("td", {}, p.seat), el("td", {}, p.name), el("td", {class: "total", "data-seat": p.seat}, st.totals[p.seat - 1]))));
  // rounds: the running totals as a chart, then each settlement
  document.getElementById("chart").replaceChildren(...totalsChart(s));
  document.getElementById("rounds").replaceChildren(...s.results.slice().reverse().map(r => el("details", {},
    el("summary", {}, `${t("round-n", {n: r.round})}${r.changes.map((c, i) => `${seatName(i + 1)} ${c > 0 ? "+" : ""}${c}`).join(", ")}`),
    el("ul", {}, settlementLines(s.session.game, r).map(l => el("li", {}, ...cited(l)))))));
  // places
  document.getElementById("places").replaceChildren(...Object.entries(s.places)
    .filter(([name, p]) => p.known.length || p.hidden)
    .map(([name, p]) => el("div", {class: "place"}, el("h3", {}, placeName(name), p.hidden ? el("small", {}, t("face-down", {n: p.hidden})) : null),
      el("div", {class: "cards"}, p.known.map(c => face(c, true))))));
  // log
  const last = s.log.length ? s.log[s.log.length - 1].seq : null;
  document.getElementById("log").replaceChildren(...s.log.slice().reverse().map(l =>
    el("li", {class: l.seq === last ? "last" : "", value: l.seq}, logText(s.session.game, l), l.source ? el("small", {}, ` · ${l.source}`) : null)));
  renderLive(s.live);
  renderCounter(s.counter);
  const toCounter = document.getElementById("to-counter");
  if (toCounter) toCounter.hidden = !!s.counter;
  renderManual(s.manual);
  renderEvents(s.events);
  renderScorebar(s);
  renderRecorded(s);
}

// The camera's state (capture's running, reconnecting, ended, failed; starting) in the page's language.
function camState(state) { return t(`cam-${state}`) === `cam-${state}` ? state : t(`cam-${state}`); }

function renderLive(v) {
  const section = document.getElementById("live"), box = document.getElementById("live-status");
  section.hidden = !v;
  if (!v) return;
  const cam = el("p", {class: `camera ${v.camera}`}, el("strong", {}, t("camera")),
    v.calibrated ? t("frames", {state: camState(v.camera), frames: v.frames, t: v.t})
      : v.camera === "running" ? t("markers") : `${camState(v.camera)}${v.message ? ` — ${v.message}` : ""}`,
    v.error ? ` — ${v.error}` : null);
  const parts = [cam];
  if (v.question) {
    parts.push(el("div", {class: "question"}, el("h2", {}, t(`q-${v.question.kind}`) === `q-${v.question.kind}` ? t("which") : t(`q-${v.question.kind}`)),
      questionCards(v.question)));
  }
  if (v.desync) {
    const zones = v.desync.zones || [];
    parts.push(el("div", {class: "desync"}, el("h2", {}, t("desync")),
      el("p", {}, zones.length ? expectsText(STATE.session.game, STATE.status.expects) : v.desync.text),
      zones.length ? el("ul", {class: "zone-diff"}, zones.map(z => el("li", {}, el("strong", {}, placeName(z.zone)),
        z.missing.length ? el("span", {class: "missing"}, " ", t("desync-missing"), " ", sightCards(z.missing)) : null,
        z.extra.length ? el("span", {class: "extra"}, " ", t("desync-extra"), " ", sightCards(z.extra)) : null,
        z.down[0] !== z.down[1] ? el("span", {}, " ", t("desync-down", {a: z.down[0], b: z.down[1]})) : null)))
      : v.desync.differences.length ? el("ul", {}, v.desync.differences.map(d => el("li", {}, d))) : null,
      el("p", {}, t("desync-help")),
      el("button", {class: "primary", onclick: () => act("POST", "table")}, t("table-right"))));
  }
  box.replaceChildren(...parts);
  section.className = `panel live ${v.state}`;
  document.getElementById("manual").classList.toggle("entry", v.state === "entry");
}

// Cards the camera names by sight (a card's id, or a name several cards share, such as a month's
// plain): small faces, a shared name by its first card's face.
function sightCards(names) {
  return el("span", {class: "cards"}, names.map(n => {
    const id = STATE.session.cards.includes(n) ? n : STATE.session.cards.find(c => c.startsWith(`${n}-`));
    return id ? face(id, true) : el("span", {class: "sight"}, cardName(n));
  }));
}

const SEAT_COLOURS = ["#b3261e", "#1d5fa8", "#2e7d32", "#8a4fbf", "#c77700", "#00838f", "#6d4c41", "#ad1457"];

// Each seat's running total after each round, as an SVG line chart (nothing before the first round).
function totalsChart(s) {
  if (!s.results.length) return [];
  const NS = "http://www.w3.org/2000/svg", W = 600, H = 220, P = 32;
  const series = s.session.players.map(p => [0, ...s.results.map(r => r.totals[p.seat - 1])]);
  const all = series.flat(), lo = Math.min(...all), hi = Math.max(...all), span = hi - lo || 1;
  const x = i => P + (W - 2 * P) * i / s.results.length, y = v => H - P - (H - 2 * P) * (v - lo) / span;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `running totals after ${s.results.length} rounds`);
  const add = (tag, attrs, text) => {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
  };
  add("line", {x1: P, x2: W - P, y1: y(0), y2: y(0), stroke: "#0004"});
  add("text", {x: 2, y: y(hi) + 4, "font-size": 11}, hi);
  add("text", {x: 2, y: y(lo) + 4, "font-size": 11}, lo);
  series.forEach((vals, k) => {
    add("polyline", {fill: "none", stroke: SEAT_COLOURS[k % 8], "stroke-width": 3,
                     points: vals.map((v, i) => `${x(i)},${y(v)}`).join(" ")});
    add("text", {x: W - P + 4, y: y(vals[vals.length - 1]) + 4, "font-size": 12, fill: SEAT_COLOURS[k % 8]},
        s.session.players[k].name);
  });
  return [svg];
}

// The LED stone counter's link, its last button press, and an emulated strip's LEDs.
function renderCounter(c) {
  const box = document.getElementById("counter");
  box.hidden = !c;
  if (!c) return;
  const p = c.last_press;
  box.replaceChildren(...[
    el("p", {class: "counter-link"}, el("strong", {}, t("counter")),
      c.connected ? t("counter-on", {port: c.port}) : t("counter-off") + (c.error ? ` — ${c.error}` : ""),
      c.emulated ? t("emulated") : null),
    c.leds ? el("div", {class: "strip", "aria-hidden": "true"}, c.leds.map(col => el("span", {class: "led", style: `background:${col}`}))) : null,
    p ? el("p", {class: "press"}, t("pressed", {button: p.button, kind: p.kind, did: p.did}),
      p.refused ? t("refused", {why: p.refused}) : null) : null].filter(Boolean));
}

// Bagaji's session clock: minutes since the match started, against its limit.
function tickClock() {
  const box = document.getElementById("clock");
  if (!box || !STATE || !STATE.clock) return;
  const c = STATE.clock, mins = Math.floor((Date.now() - Date.parse(c.start)) / 60000);
  box.textContent = c.limit_s ? t("clock-limit", {m: mins, limit: c.limit_s / 60}) : t("clock", {m: mins});
}
setInterval(tickClock, 15000);

// A settlement line with its rule citations ("rules H8.6", "rules P4.2, P4.3") linked to the rules page.
function cited(line) {
  const out = [];
  let last = 0;
  for (const m of line.matchAll(/\b([GCHBP]\d+(?:\.\d+)*)\b/g)) {
    if (!/rules[^()]*$/.test(line.slice(Math.max(0, line.lastIndexOf("(", m.index)), m.index))) continue;
    out.push(line.slice(last, m.index), el("a", {href: rulesHref(m[1]), target: "_blank"}, m[1]));
    last = m.index + m[1].length;
  }
  out.push(line.slice(last));
  return out;
}

function placeName(name) {
  const [kind, seat] = name.split(":");
  return seat ? `${placeWord(kind)} · ${seatName(Number(seat))}` : placeWord(kind);
}

// A question's candidate `i` in the page's language: its events, after taking some back.
function candidateText(q, i) {
  const o = q.options && q.options[i];
  if (!o) return q.candidates[i];
  const game = STATE.session.game;
  const events = o.events.map(e => eventText(game, e, null));
  if (events.includes(null)) return q.candidates[i];
  const text = events.length ? events.join("; ") : t("nothing-happened");
  return o.retract ? t("retract-then", {n: o.retract, text}) : text;
}

// A record line in the log, in the page's language.
function logText(game, l) {
  if (l.type === "undo") return t("log-undo", {n: l.count || 1});
  if (l.type === "confirm") return t("log-confirm");
  const text = eventText(game, l.event, l.text);
  return l.type === "replace" ? t("log-replaced", {text}) : text;
}

function renderManual(m) {
  const section = document.getElementById("manual");
  section.classList.toggle("camera", !!STATE.live);
  const deal = document.getElementById("deal"), legal = document.getElementById("legal");
  deal.replaceChildren(); legal.replaceChildren(); delete deal.dataset.need;
  renderMoves(m);
  if (m.over) return;
  if (m.deal) {
    dealPicker(deal, m.deal, PICKED, t("deal"), body => act("POST", "deal", body), "dealer");
    return;
  }
  PICKED.length = 0;
  choiceButtons(legal, m, document.getElementById("filter").value, ev => act("POST", "event", {event: ev}));
}

// The legal events of `m` as buttons grouped by type and seat, filtered by `query`; `onEvent(event)`.
function choiceButtons(box, m, query, onEvent) {
  const q = query.trim().toLowerCase();
  const groups = new Map();
  m.legal.forEach((item, i) => {
    item = {...item, text: eventText(STATE.session.game, item.event, item.text)};
    if (q && !(item.text.toLowerCase().includes(q) || item.cards.some(c => cardName(c).toLowerCase().includes(q)) || item.cards.some(c => c.toLowerCase().includes(q)) ||
               (item.seat && seatName(item.seat).toLowerCase().includes(q)))) return;
    const key = `${typeWord(item.type, STATE.session.game)}${item.seat ? " · " + seatName(item.seat) : ""}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push({...item, i});
  });
  for (const [key, items] of groups) {
    box.append(el("div", {class: "group"}, el("h3", {}, key),
      el("div", {class: "choices"}, items.map(item => el("button", {class: "event", title: item.text, "data-i": item.i,
        onclick: () => onEvent(item.event)}, item.cards.length ? item.cards.map(c => face(c, true)) : item.text,
        item.cards.length ? el("span", {class: "label"}, item.text) : null)))));
  }
  if (!m.legal.length) box.append(el("p", {class: "stuck"}, m.not_listed ? t("not-listed") : t("stuck")));
  if (m.cut) box.append(el("p", {}, t("more", {n: m.cut})));
}

// A deal's form in `box`: the dealer (where asked) and the face-up cards, tapped into `picked`;
// `onDeal({face_up, dealer})` when complete.
function dealPicker(box, d, picked, label, onDeal, dealerId) {
  const fields = Object.entries(d.face_up);
  const need = fields.reduce((a, [, n]) => a + n, 0);
  box.dataset.need = need;
  const dealerSel = d.dealers.length > 1 ? el("select", {id: dealerId}, d.dealers.map(s => el("option", {value: s}, seatName(s)))) : null;
  const shown = el("div", {class: "cards picked"});
  const send = () => {
    const face_up = {}; let i = 0;
    for (const [f, n] of fields) { face_up[f] = picked.slice(i, i + n); i += n; }
    const body = {face_up};
    if (d.dealers.length) body.dealer = dealerSel ? Number(dealerSel.value) : d.dealers[0];
    onDeal(body);
  };
  const go = el("button", {class: "primary", disabled: picked.length !== need, onclick: send}, label);
  const grid = el("div", {class: "deck"});
  // the deck as a grid (moves.js); a tapped card again takes it back; with the dealer known, the
  // last card needed enters the deal
  const refresh = () => {
    shown.replaceChildren(...picked.map(c => face(c, true)));
    go.disabled = picked.length !== need;
    const open = new Map(d.cards.map(c => [c, picked.includes(c) || picked.length < need ? 1 : 0]));
    grid.replaceChildren(deckGrid(d.cards, open, picked, c => {
      const at = picked.indexOf(c);
      if (at >= 0) picked.splice(at, 1); else if (picked.length < need) picked.push(c);
      refresh();
      if (at < 0 && picked.length === need && !dealerSel) send();
    }));
  };
  refresh();
  box.append(...[el("h3", {}, need ? t("deal-tap", {n: need, fields: fields.map(([f, n]) => `${f} ${n}`).join(", ")}) : t("a-deal")),
    dealerSel ? el("label", {}, t("dealer"), dealerSel) : null, shown, go, need ? grid : null].filter(x => x !== null));
}

// The game's events, newest first, each with "change": what could have happened instead.
function renderEvents(events) {
  document.getElementById("events").replaceChildren(...events.slice().reverse().map(e =>
    el("li", {value: e.i + 1}, eventText(STATE.session.game, e.event, e.text), " ", el("button", {class: "edit", "data-index": e.i, title: t("change"),
      onclick: () => openEditor(e.i)}, t("change")))));
}

async function openEditor(index) {
  const box = document.getElementById("editor");
  let alt;
  try { alt = await api("GET", `/api/sessions/${SID}/events/${index}/alternatives`); }
  catch (e) { showError(e); return; }
  const body = el("div", {class: "alternatives"});
  const close = () => { box.hidden = true; box.replaceChildren(); };
  const send = async payload => {
    try { await api("POST", `/api/sessions/${SID}/edit`, {index, ...payload}); close(); }
    catch (e) { const line = box.querySelector(".error"); line.textContent = refusalText(STATE.session.game, e); line.title = e.message; }
  };
  if (alt.deal) dealPicker(body, alt.deal, [], t("deal-instead"), deal => send({deal}), "edit-dealer");
  else moveScreen(body, {legal: alt.legal, forms: []}, alt.event && alt.event.seat, {}, `edit-${index}`,
                  event => send({event}), () => {});
  box.replaceChildren(el("h2", {}, t("change-n", {n: index + 1, text: eventText(STATE.session.game, alt.event, alt.text)})),
    el("p", {}, t("change-help")),
    el("p", {class: "error", role: "alert"}), body, el("button", {class: "cancel", onclick: close}, t("cancel")));
  box.hidden = false;
  box.scrollIntoView({block: "start"});
}

function connect() {
  if (SOURCE) SOURCE.close();
  SOURCE = new EventSource(`/api/sessions/${SID}/stream`);
  const link = document.getElementById("link");
  SOURCE.addEventListener("open", () => { link.dataset.i18n = "live"; link.textContent = t("live"); link.className = "link on"; });
  SOURCE.addEventListener("error", () => {
    link.dataset.i18n = "reconnecting"; link.textContent = t("reconnecting"); link.className = "link off";
    // refused (a full server's 503, a lost grant): the browser gives up; try again in a while
    if (SOURCE.readyState === EventSource.CLOSED) setTimeout(connect, 5000);
  });
  SOURCE.addEventListener("state", ev => render(JSON.parse(ev.data)));
  SOURCE.addEventListener("resync", () => { SOURCE.close(); setTimeout(connect, 200); reload(); });
}
async function reload() { try { const s = await api("GET", `/api/sessions/${SID}/state`); STATE = null; render(s); } catch (e) { showError(e); } }

document.getElementById("camera-view").addEventListener("toggle", ev => {
  const img = document.getElementById("table-video");
  if (ev.target.open) img.src = `/api/sessions/${SID}/video.mjpeg`; else img.removeAttribute("src");
});
// Manual corners: the camera's picture, four taps, then the corners in the frame's own pixels.
let CORNERS = [], FRAME_SIZE = null;
async function loadFrame() {
  const err = document.getElementById("corners-error");
  err.textContent = "";
  try {
    const res = await fetch(`/api/sessions/${SID}/frame.jpg`, {credentials: "same-origin"});
    if (!res.ok) throw new Error((await res.json()).error);
    FRAME_SIZE = res.headers.get("X-Frame-Size").split("x").map(Number);
    document.getElementById("frame-pic").src = URL.createObjectURL(await res.blob());
  } catch (e) { err.textContent = e.message; }
  CORNERS = []; drawCorners();
}
function drawCorners() {
  const img = document.getElementById("frame-pic");
  document.getElementById("corner-dots").replaceChildren(...CORNERS.map((p, i) => el("span", {class: "corner",
    style: `left:${100 * p[0] / FRAME_SIZE[0]}%;top:${100 * p[1] / FRAME_SIZE[1]}%`}, String(i + 1))));
  document.getElementById("corners-use").disabled = CORNERS.length !== 4 || !img.naturalWidth;
}
document.getElementById("frame-pic").addEventListener("click", ev => {
  if (!FRAME_SIZE || CORNERS.length >= 4) return;
  const box = ev.target.getBoundingClientRect();
  CORNERS.push([(ev.clientX - box.left) / box.width * FRAME_SIZE[0], (ev.clientY - box.top) / box.height * FRAME_SIZE[1]]);
  drawCorners();
});
document.getElementById("corners-setup").addEventListener("toggle", ev => { if (ev.target.open) loadFrame(); });
document.getElementById("corners-again").onclick = loadFrame;
document.getElementById("corners-use").onclick = async () => {
  try {
    await api("POST", `/api/sessions/${SID}/corners`, {corners: CORNERS});
    document.getElementById("corners-setup").open = false;
  } catch (e) { document.getElementById("corners-error").textContent = e.message; }
};
document.getElementById("by-hand").addEventListener("toggle", ev =>
  document.getElementById("manual").classList.toggle("open", ev.target.open));
document.addEventListener("fudaba-lang", () => { if (STATE) { const s = STATE; STATE = null; render(s); } });
if (document.getElementById("to-counter")) document.getElementById("to-counter").onclick = () => act("POST", "counter");
if (document.getElementById("counter-setup")) {
  document.getElementById("counter-setup").addEventListener("toggle", async ev => {
    if (!ev.target.open) return;
    try {
      const r = await api("GET", "/api/counter");
      document.getElementById("counter-port").replaceChildren(
        el("option", {value: "auto"}, t("counter-auto")),
        ...r.ports.map(p => el("option", {value: p.device, selected: p.counter}, `${p.device} — ${p.description}`)),
        el("option", {value: "emulated"}, t("counter-emulated")));
    } catch (e) { showError(e); }
  });
  document.getElementById("counter-connect").onclick = async () => {
    showError("");
    try {
      await api("POST", "/api/counter", {port: document.getElementById("counter-port").value, session: Number(SID)});
      document.getElementById("counter-setup").open = false;
    } catch (e) { showError(e); }
  };
}
document.getElementById("confirm").onclick = () => act("POST", "confirm");
document.getElementById("filter").addEventListener("input", () => STATE && renderManual(STATE.manual));
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") reload(); });
connect();
