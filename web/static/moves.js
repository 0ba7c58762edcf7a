// The move screen of a game's page: what may happen now as a few buttons and a card picker, the
// last thing recorded with its undo, and a camera's question drawn as cards. Needs common.js,
// i18n.js, gametext.js and session.js (STATE, face, seatName, act, showError).
//
// The legal events (snapshot `manual.legal`) are grouped: an event that names no card is a button of
// its own (one tap); events of one type and seat that name cards share a card picker, where each
// tap narrows them (a play by its card, then its capture where two fit; a call by its pair) and the
// event is recorded as soon as one is left. Events nobody can list (a hidden hand shown: a teyaku
// claim, a starting hand, a show) come as `manual.forms`: pick the cards, then record; the server
// says which events the cards can mean (POST /pick). The seat to act comes first; its first card
// group is open.
"use strict";

const MOVE = {key: null, picks: [], choose: null, state: null};

// The deck's cards in the picker's order: hanafuda by month (four to a month, two months a row),
// playing cards by rank with the four suits of a rank side by side.
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
function deckOrder(ids) {
  const rank = id => { const m = /^(10|[2-9AJQK])([SHDC])$/.exec(id); return m ? RANKS.indexOf(m[1]) * 4 + "SHDC".indexOf(m[2]) : 999; };
  return FAMILY === "playing" ? ids.slice().sort((a, b) => rank(a) - rank(b)) : ids.slice();
}

function counts(list) { const c = new Map(); for (const x of list) c.set(x, (c.get(x) || 0) + 1); return c; }
// True when multiset `small` fits in `big`.
function within(small, big) {
  const b = counts(big);
  for (const [k, n] of counts(small)) if ((b.get(k) || 0) < n) return false;
  return true;
}
function sameCards(a, b) { return a.length === b.length && within(a, b); }

// The move groups of manual state `m`, the seat to act's first.
function moveGroups(m, seat) {
  const groups = [], byKey = new Map();
  m.legal.forEach((item, i) => {
    const it = {...item, i};
    if (!item.cards.length) { groups.push({key: `e${i}`, type: item.type, seat: item.seat, direct: it, items: [it]}); return; }
    const key = `${item.type}:${item.seat}`;
    if (!byKey.has(key)) { const g = {key, type: item.type, seat: item.seat, items: []}; byKey.set(key, g); groups.push(g); }
    byKey.get(key).items.push(it);
  });
  for (const f of m.forms || []) groups.push({key: `form:${f.type}:${f.seat}`, type: f.type, seat: f.seat, form: f, items: []});
  // a card group beside a button of its own type and seat (Bagaji: a draw nobody saw, or one seen)
  // is the less likely of the two
  const directs = new Set(groups.filter(g => g.direct).map(g => `${g.type}:${g.seat}`));
  for (const g of groups) g.seen = !g.direct && !g.form && directs.has(`${g.type}:${g.seat}`);
  const rank = g => (g.seat === seat ? 0 : g.seat == null ? 2 : 4) + (g.seen || g.form ? 1 : 0);
  return groups.map((g, n) => ({g, n})).sort((a, b) => rank(a.g) - rank(b.g) || a.n - b.n).map(x => x.g);
}

function groupLabel(g) {
  if (g.direct && t(`do-${g.type}`) !== `do-${g.type}`) return t(`do-${g.type}`);
  if (g.direct) return eventText(STATE.session.game, g.direct.event, g.direct.text);
  const who = g.seat != null ? seatName(g.seat) : "";
  if (g.form) {
    const game = STATE.session.game, key = t(`form-${g.type}-${game}`) !== `form-${g.type}-${game}` ? `form-${g.type}-${game}` : `form-${g.type}`;
    if (t(key) !== key) return t(key, {seat: who});
  }
  if (g.seen && t(`seen-${g.type}`) !== `seen-${g.type}`) return t(`seen-${g.type}`, {seat: who});
  const word = typeWord(g.type, STATE.session.game);
  return who ? `${word} · ${who}` : word;
}

// What a tap on the picker may pick now in group `g` after `picks`: the cards (with how many
// copies may still be picked) and the events still possible.
function pickerStep(g, picks) {
  if (g.form) {
    const left = counts(g.form.cards);
    for (const c of picks) left.set(c, (left.get(c) || 0) - 1);
    return {open: left, remaining: []};
  }
  let remaining = g.items.filter(it => within(picks, it.cards));
  // a move that names its card first (a play, a draw, a discard): that card is picked first
  if (!picks.length && remaining.every(it => typeof it.event.card === "string")) {
    const open = new Map();
    for (const it of remaining) open.set(it.event.card, 1);
    return {open, remaining};
  }
  if (picks.length && remaining.every(it => typeof it.event.card === "string"))
    remaining = remaining.filter(it => it.event.card === picks[0]);
  const open = new Map();
  for (const it of remaining) {
    const left = counts(it.cards);
    for (const c of picks) left.set(c, (left.get(c) || 0) - 1);
    for (const [c, n] of left) if (n > 0) open.set(c, Math.max(open.get(c) || 0, n));
  }
  return {open, remaining};
}

// The deck as a grid of small faces: the cards `open` allows are buttons, the others dimmed.
function deckGrid(ids, open, picked, onTap) {
  const used = counts(picked);
  return el("div", {class: "grid"}, deckOrder(ids).map(c => {
    const n = open.get(c) || 0;
    const taken = used.get(c) || 0;
    return el("button", {class: `pick${taken ? " picked" : ""}`, "data-card": c, disabled: n <= 0,
                         "aria-label": cardName(c), onclick: () => onTap(c)},
      face(c, true), taken > 1 ? el("span", {class: "times"}, `×${taken}`) : null);
  }));
}

// A move screen in `box` for the moves `m` (`legal`, `forms`), the seat to act `seat` first:
// `st` holds what is open and picked (`key`, `picks`, `choose`, `state`: the moment it is of);
// `onEvent(event)` records an event, `onForm(group, picks)` sends a form's picks (may set
// `st.choose`); `moment` says when the game moved on (the likeliest group opens afresh).
function moveScreen(box, m, seat, st, moment, onEvent, onForm) {
  const redraw = () => moveScreen(box, m, seat, st, moment, onEvent, onForm);
  if (m.over || (!m.legal.length && !(m.forms || []).length)) { box.replaceChildren(); st.state = null; return; }
  const groups = moveGroups(m, seat);
  if (st.state !== moment) {                      // the game moved on: open the likeliest group afresh
    st.state = moment; st.picks = []; st.choose = null;
    const first = groups.find(g => !g.direct && !g.seen && !g.form && g.seat === seat) ||
      (groups.some(g => g.direct) ? null : groups.find(g => !g.direct));
    st.key = first ? first.key : null;
  }
  const send = ev => { st.picks = []; st.choose = null; return onEvent(ev); };
  const tap = (g, c) => {
    st.choose = null;
    st.picks.push(c);
    if (g.form) {
      if (g.form.fewest === g.form.most && st.picks.length === g.form.most) { onForm(g, st.picks.slice(), redraw); return; }
      redraw();
      return;
    }
    const {remaining} = pickerStep(g, st.picks);
    const exact = remaining.filter(it => sameCards(it.cards, st.picks));
    if (remaining.length === 1 && exact.length === 1) { send(exact[0].event); return; }
    redraw();
  };
  const open = groups.find(g => g.key === st.key) || null;
  if (!open) st.key = null;
  const chips = el("div", {class: "kinds"}, groups.map(g => g.direct
    ? el("button", {class: "kind direct", "data-i": g.direct.i, "data-type": g.type, onclick: () => send(g.direct.event)}, groupLabel(g))
    : el("button", {class: `kind${g.key === st.key ? " open" : ""}`, "data-key": g.key, "data-type": g.type,
                    "aria-pressed": g.key === st.key ? "true" : "false",
                    onclick: () => { st.key = g.key; st.picks = []; st.choose = null; redraw(); }},
        groupLabel(g), g.form ? " …" : "")));
  const parts = [chips];
  if (open) {
    const {open: allowed, remaining} = pickerStep(open, st.picks);
    const f = open.form;
    const prompt = f
      ? t(f.fewest === f.most ? "pick-n" : "pick-range", {n: f.most, lo: f.fewest, hi: f.most, who: groupLabel(open)})
      : t(st.picks.length ? "pick-next" : "pick-card", {who: groupLabel(open)});
    parts.push(el("p", {class: "prompt"}, prompt));
    if (st.picks.length) parts.push(el("div", {class: "cards picked-row"}, st.picks.map((c, i) =>
      el("button", {class: "pick unpick", "data-card": c, title: t("untap"), onclick: () => { st.picks.splice(i, 1); st.choose = null; redraw(); }}, face(c, true))),
      el("button", {class: "clear", onclick: () => { st.picks = []; st.choose = null; redraw(); }}, t("clear"))));
    const exact = f ? [] : remaining.filter(it => sameCards(it.cards, st.picks));
    if (st.picks.length && exact.length) parts.push(el("div", {class: "choices"}, exact.map(it =>
      el("button", {class: "primary which", "data-i": it.i, onclick: () => send(it.event)}, eventText(STATE.session.game, it.event, it.text)))));
    if (f && st.choose) parts.push(el("div", {class: "choices"}, st.choose.map((c, n) =>
      el("button", {class: "primary which", "data-n": n, onclick: () => send(c.event)}, eventText(STATE.session.game, c.event, c.text)))));
    if (f && f.fewest !== f.most)
      parts.push(el("button", {class: "primary record", disabled: st.picks.length < f.fewest || st.picks.length > f.most,
                               onclick: () => onForm(open, st.picks.slice(), redraw)}, t("record-n", {n: st.picks.length})));
    parts.push(deckGrid(STATE.session.cards, allowed, st.picks, c => tap(open, c)));
  }
  box.replaceChildren(...parts);
}

// The game page's move screen (#moves): events go to /event, forms to /pick.
function renderMoves(m) {
  const box = document.getElementById("moves");
  if (!box) return;
  moveScreen(box, m, STATE.status.expects.seat, MOVE, `${STATE.seq}`, ev => act("POST", "event", {event: ev}),
    async (g, picks, redraw) => {
      showError("");
      try {
        const r = await api("POST", `/api/sessions/${SID}/pick`, {type: g.form.type, seat: g.form.seat, cards: picks});
        if (r.choose) { MOVE.choose = r.choose; redraw(); return; }
        MOVE.picks = []; MOVE.choose = null;
      } catch (e) { showError(e); }
    });
}

// The last line recorded, with its undo: what the last tap did.
function renderRecorded(s) {
  const box = document.getElementById("recorded");
  if (!box) return;
  const last = s.log.length ? s.log[s.log.length - 1] : null;
  if (!last) { box.hidden = true; return; }
  box.hidden = false;
  const seen = box.dataset.seq;
  box.dataset.seq = last.seq;
  box.replaceChildren(el("span", {class: "what"}, "✓ ", logText(s.session.game, last)),
    el("button", {class: "undo", id: "undo", onclick: () => act("POST", "undo")}, t("undo")));
  if (seen && seen !== String(last.seq)) { box.classList.remove("flash"); void box.offsetWidth; box.classList.add("flash"); }
}

// The scores on top: each player's total and the last round's change; the last settlement below.
function renderScorebar(s) {
  const box = document.getElementById("scorebar");
  if (!box) return;
  const last = s.results.length ? s.results[s.results.length - 1] : null;
  const lines = last ? settlementLines(s.session.game, last) : [];
  box.replaceChildren(...[el("div", {class: "totals"}, s.session.players.map(p => el("span", {class: `who${s.status.expects.seat === p.seat ? " to-act" : ""}`, "data-seat": p.seat},
      el("span", {class: "name"}, p.name), " ", el("strong", {class: "sum"}, s.status.totals[p.seat - 1]),
      last ? el("small", {class: "change"}, ` (${last.changes[p.seat - 1] > 0 ? "+" : ""}${last.changes[p.seat - 1]})`) : null))),
    last ? el("details", {class: "settled", open: s.results.length !== Number(box.dataset.closed || -1)},
      el("summary", {}, t("settled-n", {n: last.round})), el("ul", {}, lines.map(l => el("li", {}, ...cited(l))))) : null].filter(Boolean));
  const d = box.querySelector("details");
  if (d) d.addEventListener("toggle", () => { box.dataset.closed = d.open ? "" : s.results.length; });
}

// A camera question's candidates as cards: each step's seat, what it does and the cards it names;
// "something else" hands the move to the picker below.
function questionCards(q) {
  const game = STATE.session.game;
  const choices = q.choices || [];
  return el("div", {class: "choices cards-q"}, choices.map((c, i) => el("button", {class: `answer card-answer${i === 0 ? " primary" : ""}`, "data-choice": i,
      onclick: () => act("POST", "answer", {choice: i})},
      c.retract ? el("small", {class: "retract"}, t("take-back", {n: c.retract})) : null,
      c.steps.length ? c.steps.map((st, k) => el("span", {class: "step"},
        el("span", {class: "who"}, st.seat != null ? seatName(st.seat) : ""),
        el("span", {class: "does"}, st.cards.length ? typeWord(st.kind, game) : eventText(game, c.events[k], typeWord(st.kind, game))),
        st.cards.length ? el("span", {class: "cards"}, st.cards.map(id => face(id, true))) : null))
        : el("span", {class: "step"}, t("nothing-happened")))),
    el("button", {class: "answer something-else", "data-choice": q.candidates.length, onclick: async () => {
      await act("POST", "answer", {choice: q.candidates.length});
      const moves = document.getElementById("moves");
      if (moves) moves.scrollIntoView({block: "start"});
    }}, t("something-else")));
}
