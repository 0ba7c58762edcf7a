// The home page: start a session, the history, import a record.
"use strict";
let GAMES = [];
const gameSel = document.getElementById("game"), rulesSel = document.getElementById("ruleset");
const seats = document.getElementById("seats");

function seatCount() { return seats.querySelectorAll("input").length; }
function setSeats(n) {
  const g = GAMES.find(x => x.name === gameSel.value);
  n = Math.max(g.min_players, Math.min(g.max_players, n));
  while (seatCount() < n) {
    const i = seatCount() + 1;
    seats.append(el("label", {}, el("span", {class: "seat-label", "data-n": i}, t("seat-n", {n: i})), " ",
      el("input", {name: "player", value: t("player-n", {n: i}), required: true, maxlength: 40})));
  }
  while (seatCount() > n) seats.lastElementChild.remove();
}
function onGame() {
  const g = GAMES.find(x => x.name === gameSel.value);
  rulesSel.replaceChildren(...g.rulesets.map(r => el("option", {value: r, selected: r === g.default_ruleset}, r)));
  setSeats(seatCount() || g.min_players);
  CHOSEN.clear();
  renderOptions();
}

// The game's options (GET /api/games: kind, allowed values, default per ruleset): the main ones up
// front, the rest under "more options", each showing the ruleset's default until the player sets it.
// A value set by hand stays when the ruleset changes; the form sends only the values that differ
// from the ruleset's defaults (and none for a camera game: it plays its ruleset as it is).
const CHOSEN = new Map();  // option name → the value the player set
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function optionWord(key, fallback) { return WORDS.en[key] !== undefined ? t(key) : fallback; }
function optionValue(o, input) {
  if (o.kind === "choice") return JSON.parse(input.value);
  if (o.kind === "bool") return input.checked;
  const text = input.value.trim();
  if (o.kind !== "int") return text;
  if (text === "" && o.nullable) return null;
  return /^-?\d+$/.test(text) ? Number(text) : text;  // not a whole number: the server says why
}
function optionField(o, value, ruleset) {
  let input;
  if (o.kind === "choice") {
    input = el("select", {}, ...o.values.map(v => el("option", {value: JSON.stringify(v), selected: same(v, value)},
                                                     optionWord(`val-${o.name}-${v}`, String(v)))));
  } else if (o.kind === "bool") {
    input = el("input", {type: "checkbox", checked: value === true});
  } else if (o.kind === "int") {
    input = el("input", {type: "number", step: "any", value: value === null ? "" : value,
                         placeholder: o.nullable ? t("opt-none") : null});
  } else {
    input = el("input", {value: value ?? ""});
  }
  input.id = `opt-${o.name}`;
  input.dataset.option = o.name;
  const label = el("label", {title: o.doc, class: `${o.kind}${same(value, o.defaults[ruleset]) ? "" : " changed"}`},
                   el("span", {}, optionWord(o.label, o.name)), " ", input);
  if (o.kind === "bool") label.prepend(input);  // a box before its words
  input.addEventListener("change", () => {
    const v = optionValue(o, input);
    if (same(v, o.defaults[rulesSel.value])) CHOSEN.delete(o.name); else CHOSEN.set(o.name, v);
    label.classList.toggle("changed", !same(v, o.defaults[rulesSel.value]));
  });
  return label;
}
function renderOptions() {
  const g = GAMES.find(x => x.name === gameSel.value), ruleset = rulesSel.value;
  const field = o => optionField(o, CHOSEN.has(o.name) ? CHOSEN.get(o.name) : o.defaults[ruleset], ruleset);
  document.getElementById("main-options").replaceChildren(...g.options.filter(o => o.main).map(field));
  document.getElementById("other-options").replaceChildren(...g.options.filter(o => !o.main).map(field));
  document.getElementById("game-options").hidden = !g.options.length;
  document.getElementById("more-options").hidden = !g.options.some(o => !o.main);
  onCamera();
}
// Only the values that differ from the ruleset's defaults, as {name: value}.
function chosenOptions() {
  const g = GAMES.find(x => x.name === gameSel.value), ruleset = rulesSel.value, out = {};
  for (const o of g.options) {
    const input = document.getElementById(`opt-${o.name}`);
    const v = optionValue(o, input);
    if (!same(v, o.defaults[ruleset])) out[o.name] = v;
  }
  return out;
}
// A camera game takes its ruleset's options: the fields are shown but cannot be changed.
function onCamera() {
  const camera = document.getElementById("camera").value.trim() !== "";
  document.getElementById("game-options").disabled = camera;
  document.getElementById("options-camera").hidden = !camera;
}
async function loadHistory() {
  const rows = await api("GET", "/api/sessions");
  document.getElementById("history").replaceChildren(...rows.map(s => el("tr", {},
    el("td", {}, s.game), el("td", {}, s.players.join(", ")), el("td", {}, s.updated.replace("T", " ").replace("+00:00", " UTC")),
    el("td", {}, s.lines), el("td", {}, el("a", {href: `/session/${s.id}`}, t(s.finished ? "view" : "resume"))))));
}
async function init() {
  GAMES = await api("GET", "/api/games");
  gameSel.replaceChildren(...GAMES.map(g => el("option", {value: g.name}, g.title)));
  gameSel.addEventListener("change", onGame);
  rulesSel.addEventListener("change", renderOptions);
  document.getElementById("camera").addEventListener("input", onCamera);
  onGame();
  document.getElementById("add-seat").onclick = () => setSeats(seatCount() + 1);
  document.getElementById("drop-seat").onclick = () => setSeats(seatCount() - 1);
  document.getElementById("new-session").addEventListener("submit", async ev => {
    ev.preventDefault();
    const players = [...seats.querySelectorAll("input")].map(i => i.value);
    const camera = document.getElementById("camera").value.trim();
    const profile = document.getElementById("profile").value;
    const options = camera ? {} : chosenOptions();
    if (camera) await quietPreview();
    try {
      const s = await api("POST", "/api/sessions", {game: gameSel.value, ruleset: rulesSel.value, players,
                                                    ...(Object.keys(options).length ? {options} : {}),
                                                    ...(camera ? {camera} : {}), ...(camera && profile ? {profile} : {})});
      location.href = s.url;
    } catch (e) {
      document.getElementById("new-error").textContent = e.message;
      if (camera && !document.getElementById("look-stop").hidden) pollPreview();  // still looking
    }
  });
  document.getElementById("import").addEventListener("submit", async ev => {
    ev.preventDefault();
    try {
      const s = await api("POST", "/api/import", new FormData(ev.target));
      location.href = s.url;
    } catch (e) { document.getElementById("import-error").textContent = e.message; }
  });
  document.getElementById("look").onclick = look;
  document.getElementById("look-stop").onclick = () => stopLooking();
  document.getElementById("enrol-go").onclick = enrolDeck;
  await loadProfiles();
  const mat = document.getElementById("mat-link");
  const matUrl = () => `/api/mat.pdf?game=${encodeURIComponent(gameSel.value)}&players=${seatCount()}&paper=${document.getElementById("paper").value}`;
  mat.addEventListener("click", ev => { ev.preventDefault(); location.href = matUrl(); });
  await loadHistory();
}

// Deck profiles: the select of camera games, and enrolments under way (polled until done).
let ENROL_TIMER = null;
async function loadProfiles() {
  let r;
  try { r = await api("GET", "/api/profiles"); } catch (e) { return; }
  const sel = document.getElementById("profile"), keep = sel.value;
  sel.replaceChildren(el("option", {value: ""}, t("shipped")),
    ...r.profiles.map(p => el("option", {value: p.name, selected: p.name === keep}, `${p.name} (${p.deck})`)));
  document.getElementById("fine-tune-box").hidden = !r.fine_tune;
  const jobs = Object.entries(r.enrolments);
  document.getElementById("enrol-status").textContent = jobs.map(([n, j]) => `${n}: ${j.state} — ${j.message}`).join(" · ");
  const running = jobs.some(([, j]) => j.state === "running");
  clearTimeout(ENROL_TIMER);
  if (running) ENROL_TIMER = setTimeout(loadProfiles, 3000);
}
async function enrolDeck() {
  const file = document.getElementById("enrol-photo").files[0], status = document.getElementById("enrol-status");
  if (!file) { status.textContent = t("enrol-help"); return; }
  const form = new FormData();
  form.append("name", document.getElementById("enrol-name").value.trim());
  form.append("deck", document.getElementById("enrol-deck").value);
  form.append("photo", file);
  if (document.getElementById("fine-tune").checked) {
    form.append("fine_tune", "1");
    form.append("minutes", document.getElementById("fine-tune-minutes").value);
  }
  try { await api("POST", "/api/profiles", form); await loadProfiles(); }
  catch (e) { status.textContent = e.message; }
}

// Look through the camera before the game: its live picture (the mat's markers outlined, then the
// play area top-down with the game's zones and the cards read in each), and the same in words.
let PREVIEW_TIMER = null, PREVIEW_POLL = null;
async function look() {
  const status = document.getElementById("look-status"), pic = document.getElementById("look-picture");
  const source = document.getElementById("camera").value.trim();
  if (!source) { status.textContent = t("camera-ph"); return; }
  status.textContent = t("looking"); status.className = "";
  stopLooking(false);
  try {
    await api("POST", "/api/camera/preview", {source, game: gameSel.value, players: seatCount()});
  } catch (e) { status.textContent = e.message; status.className = "error"; return; }
  pic.src = `/api/camera/preview.mjpeg?t=${Date.now()}`;
  pic.hidden = false;
  document.getElementById("look-stop").hidden = false;
  pollPreview();
}
function pollPreview() { PREVIEW_POLL = pollPreviewOnce(); return PREVIEW_POLL; }
// A new game takes the camera and stops the preview: no poll may be under way or due then (it would
// ask for a preview that is gone).
async function quietPreview() {
  clearTimeout(PREVIEW_TIMER);
  await PREVIEW_POLL;
  clearTimeout(PREVIEW_TIMER);
}
async function pollPreviewOnce() {
  let r;
  try { r = await api("GET", "/api/camera/preview"); } catch (e) { return; }
  const status = document.getElementById("look-status");
  status.textContent = `${t("markers-seen", {n: r.markers.length})} — ${r.message}`;
  status.className = r.calibrated ? "ok" : (r.state === "failed" ? "error" : "");
  const small = document.getElementById("index-small");
  small.hidden = !r.index_small;
  if (r.index_small) small.textContent = t("index-small", {px: Math.round(r.index_px), need: r.index_px_needed});
  const names = [...seats.querySelectorAll("input")].map(i => i.value);
  document.getElementById("zone-check").replaceChildren(...(r.calibrated ? Object.entries(r.zones).map(([zone, z]) => {
    const [kind, seat] = zone.split(":");
    const label = seat ? `${placeWord(kind)} · ${names[seat - 1] || t("seat-n", {n: seat})}` : placeWord(kind);
    const cards = z.up.map(([name, p]) => p < 0.8 ? `${cardName(name)} ?` : cardName(name));
    if (z.down) cards.push(t("face-down-n", {n: z.down}));
    return el("li", {"data-zone": zone, class: cards.length ? "full" : ""}, el("strong", {}, label), ": ",
              cards.length ? cards.join(", ") : t("zone-empty"));
  }) : []));
  if (["running", "looking", "starting"].includes(r.state)) PREVIEW_TIMER = setTimeout(pollPreview, 1000);
  else document.getElementById("look-stop").hidden = true;
}
function stopLooking(tell = true) {
  clearTimeout(PREVIEW_TIMER);
  document.getElementById("look-stop").hidden = true;
  if (tell) api("POST", "/api/camera/preview/stop", {}).catch(() => {});
}
// The host's button (only on the machine fudaba runs on): a new PIN, printed where fudaba was
// started and shown here; every phone let in before must enter it.
const newPinButton = document.getElementById("new-pin");
if (newPinButton) newPinButton.addEventListener("click", async () => {
  const status = document.getElementById("new-pin-status");
  try {
    const r = await api("POST", "/api/pin/new", {});
    status.textContent = t("new-pin-made", {pin: r.pin});
    status.className = "ok";
  } catch (e) {
    status.textContent = e.message;
    status.className = "error";
  }
});
document.addEventListener("fudaba-lang", () => {
  seats.querySelectorAll(".seat-label").forEach(n => { n.textContent = t("seat-n", {n: n.dataset.n}); });
  if (GAMES.length) renderOptions();
  loadHistory();
});
init();
