// The game's own texts in the page's language: events, what the match expects, event types, places
// and card names, said from the events' JSON (the engines' English sentences are the fallback for
// anything not said here). Each game's texts come from its folder (scorer/<game>/texts.json, the
// page embeds them as #game-texts); this file holds only what no one game owns. Needs i18n.js
// (LANG) and, on a game's page, seatName() from session.js.
"use strict";

const CARD_NAMES = (() => {
  const node = document.getElementById("card-names");
  return node ? JSON.parse(node.textContent) : {};
})();

const SUITS = {S: "♠", H: "♥", D: "♦", C: "♣"};
const RU_MONTHS = ["", "Сосна", "Слива", "Вишня", "Глициния", "Ирис", "Пион", "Леспедеца", "Мискант",
  "Хризантема", "Клён", "Ива", "Павловния"];
const RU_KINDS = {bright: "яркая", animal: "животное", ribbon: "лента", plain: "пустая", blank: "чистая карта", back: "рубашка"};
const JOKER = {en: "Joker", ja: "ジョーカー", ru: "Джокер"};

// A card's name in the page's language: playing cards by rank and suit (Q♦), hanafuda by the card
// tables' names (Russian: month and kind); the id where the card is not known.
function cardName(id) {
  if (typeof id !== "string") return "?";
  if (/^JOKER/i.test(id) || /^J[RB]$/.test(id)) return JOKER[LANG] || JOKER.en;
  const playing = /^(10|[2-9AJQK])([SHDC])$/.exec(id);
  if (playing) return `${playing[1]}${SUITS[playing[2]]}`;
  const c = CARD_NAMES[id];
  if (!c) return id;
  const [en, ja, month, kind] = c;
  if (LANG === "ja" && ja) return ja;
  if (LANG === "ru" && month) return `${RU_MONTHS[month]}: ${RU_KINDS[kind] || kind}`;
  return en || id;
}

function cardList(ids) { return (ids || []).map(cardName).join(", "); }

// Each game's texts, embedded by the page by game name (scorer/<game>/texts.json): "events" (type →
// variants {"if": field, en, ja, ru}), "expects" (phase → {en, ja, ru}) and "types" (type → {ja, ru}).
const GAME_TEXTS = (() => {
  const node = document.getElementById("game-texts");
  return node ? JSON.parse(node.textContent) : {};
})();

// The texts no one game owns, in the games' form (written as JSON: tests/test_game_texts.py reads
// it): a deal without its game's sentence, the reshuffle; a deal due, the match over.
const GENERIC_TEXTS = {
  "events": {
    "deal": [{"if": "dealer", "en": "{dealer} deals", "ja": "{dealer}が配る", "ru": "{dealer} сдаёт"},
             {"en": "the cards are dealt", "ja": "札が配られる", "ru": "карты сданы"}],
    "reshuffle": [{"en": "the played cards are shuffled into a new stock", "ja": "出された札を切り直して山札にする",
                   "ru": "сыгранные карты перетасованы в новую колоду"}]
  },
  "expects": {
    "deal": {"en": "a deal is due", "ja": "配札を待っています", "ru": "ожидается раздача"},
    "over": {"en": "the match is over", "ja": "試合終了", "ru": "матч окончен"}
  }
};

// The rules' refusals no one game owns (raised by the scorer's shared parts: a deal entered, cards
// picked for a form, the cards' whereabouts, the match over …), in the games' form: rule id → {en,
// ja, ru}. Written as JSON: tests/test_refusal_texts.py reads it.
const GENERIC_REFUSALS = {
  "card-conservation": {"en": "The cards do not add up to the deck: a card is there more often than the deck holds it, or cards are missing.",
    "ja": "札がデッキと合わない：デッキにある枚数より多く現れる札があるか、札が足りない",
    "ru": "Карты не сходятся с колодой: какая-то карта встречается чаще, чем она есть в колоде, или карт не хватает."},
  "card-whereabouts": {"en": "That card cannot come from there: it is known to be elsewhere, or every copy of it has been seen.",
    "ja": "その札はそこからは出ない：別の場所にあることが分かっているか、すでにすべて見えている",
    "ru": "Эта карта не может быть оттуда: известно, что она в другом месте, или все её экземпляры уже видели."},
  "deal-entry": {"en": "This deal cannot be entered: no deal is due now, or the cards or the dealer given do not fit this game's deal.",
    "ja": "この配札は入力できない：今は配札の番ではないか、入力した札や親がこのゲームの配札に合わない",
    "ru": "Эту сдачу нельзя ввести: сейчас сдача не ожидается, или указанные карты либо сдающий не подходят для сдачи в этой игре."},
  "event-type": {"en": "This game has no such move.",
    "ja": "このゲームにそのような手はない",
    "ru": "В этой игре нет такого хода."},
  "form-closed": {"en": "That player cannot make this move now.",
    "ja": "そのプレイヤーは今この手を打てない",
    "ru": "Этот игрок сейчас не может сделать такой ход."},
  "form-count": {"en": "Pick as many cards as this move asks for.",
    "ja": "この手に必要な枚数だけ札を選んでください",
    "ru": "Выберите столько карт, сколько нужно для этого хода."},
  "form-card": {"en": "A card picked cannot be in that player's hand now.",
    "ja": "選んだ札の中に、今そのプレイヤーの手札にあるはずのない札がある",
    "ru": "Одной из выбранных карт сейчас не может быть в руке этого игрока."},
  "form-none": {"en": "The cards picked make no such move.",
    "ja": "選んだ札ではその手にならない",
    "ru": "Выбранные карты не дают такого хода."},
  "match-over": {"en": "The match is over: no more moves are accepted.",
    "ja": "試合は終了した：これ以上の手は受け付けない",
    "ru": "Матч окончен: ходы больше не принимаются."},
  "nothing-to-undo": {"en": "There is nothing to undo.",
    "ja": "取り消せる手がない",
    "ru": "Отменять нечего."}
};

// A refusal of the rules in the page's language: `err` is an Error from api() (its .rule: the
// engine's rule id, its .message: the server's English) or a text. The game's own sentence (its
// texts' "refusals"), else the shared one; the English message where there is no rule or sentence.
function refusalText(game, err) {
  const message = typeof err === "string" ? err : String((err && err.message) || "");
  const rule = err && typeof err === "object" ? err.rule : null;
  if (typeof rule !== "string" || !rule) return message;
  const own = (GAME_TEXTS[game] || {}).refusals;
  const say = own && Object.hasOwn(own, rule) ? own[rule]
    : Object.hasOwn(GENERIC_REFUSALS, rule) ? GENERIC_REFUSALS[rule] : null;
  return (say && (say[LANG] || say.en)) || message;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

// An event's field as said in a sentence: a seat by the player's name, a list of cards by their
// names, a teyaku as it is, any other string as a card's name.
function fieldText(key, value) {
  if (key === "seat" || key === "dealer") return seatName(value);
  if (Array.isArray(value)) return cardList(value);
  if (key === "teyaku") return String(value);
  if (value == null || typeof value === "string") return cardName(value);
  return String(value);
}

// The sentence for event `ev` of `type` from `table` (a game's events or the generic ones) in the
// page's language: the first variant whose "if" field is set in the event, else the last without.
function eventTemplate(table, type, ev) {
  const variants = table && Object.hasOwn(table, type) ? table[type] : null;
  if (!Array.isArray(variants)) return null;
  const v = variants.find(x => x.if && ev[x.if]) || variants.filter(x => !x.if).pop();
  return v ? (v[LANG] || v.en) : null;
}

// An event (its JSON) in words in the page's language; `fallback` (the engine's English) where
// this page has no sentence for it.
function eventText(game, ev, fallback) {
  if (!ev || !ev.type) return fallback;
  const own = (GAME_TEXTS[game] || {}).events;
  const template = own && Object.hasOwn(own, ev.type) ? eventTemplate(own, ev.type, ev)
    : eventTemplate(GENERIC_TEXTS.events, ev.type, ev);
  if (!template) return fallback;
  try { return template.replace(PLACEHOLDER, (_, key) => fieldText(key, ev[key])); } catch (err) { return fallback; }
}

// What the match waits for, in the page's language ({seat}: the seat to act); the engine's
// sentence where the page has none, or where it names a seat and none is given.
function expectsText(game, exp) {
  const own = (GAME_TEXTS[game] || {}).expects;
  const say = own && Object.hasOwn(own, exp.phase) ? own[exp.phase]
    : Object.hasOwn(GENERIC_TEXTS.expects, exp.phase) ? GENERIC_TEXTS.expects[exp.phase] : null;
  const template = say && (say[LANG] || say.en);
  if (!template || (exp.seat == null && template.includes("{seat}"))) return exp.text;
  return template.replaceAll("{seat}", exp.seat != null ? seatName(exp.seat) : "");
}

// A place on the table ("hand:2", "field" …) in the page's language.
const PLACE_WORDS = {
  en: {hand: "hand", captured: "captured", field: "field", pile: "pile", stock: "stock", out: "out of play",
       discard: "discards", meld: "laid down", shown: "shown", seat: "seat"},
  ja: {hand: "手札", captured: "取り札", field: "場", pile: "出した札", stock: "山札", out: "場外",
       discard: "捨て札", meld: "さらした札", shown: "見せた札", seat: "席"},
  ru: {hand: "рука", captured: "взятки", field: "поле", pile: "стопка", stock: "колода", out: "вне игры",
       discard: "сброс", meld: "выложено", shown: "открыто", seat: "место"},
};

function placeWord(kind) { return (PLACE_WORDS[LANG] || PLACE_WORDS.en)[kind] || PLACE_WORDS.en[kind] || kind; }

// An event type's name (the heading of a group of choices) in the page's language: `game`'s name
// for it, else any game's (the type as it is in English or where none has one).
function typeWord(type, game) {
  const own = GAME_TEXTS[game] && GAME_TEXTS[game].types;
  const names = (own && own[type]) || Object.values(GAME_TEXTS).map(g => (g.types || {})[type]).find(Boolean);
  return (names && names[LANG]) || type;
}

// A round's settlement lines in the page's language. `result` is a RoundResult's JSON: its "notes"
// (one per line: {key, values}) are said by the game's "settlement" texts ("lines": key → {en, ja,
// ru} templates with {value} placeholders; "names": id → {en, ja, ru}); result.lines[i], the
// engine's English, where a note, its template or a value cannot be said. A value is a number, a
// text (as it is), a list (said one by one, joined), a note (its own template), or an object of one
// kind: {seat: n} (the player's name), {seats: [n …]}, {signed: n} (+3, -2), {name: id}.
const LIST_JOINS = {en: ", ", ja: "、", ru: ", "};

function settlementLines(game, result) {
  const lines = (result && result.lines) || [];
  const notes = (result && result.notes) || [];
  const texts = (GAME_TEXTS[game] || {}).settlement || {};
  return lines.map((line, i) => {
    try { return settlementNote(texts, notes[i]); } catch (err) { return line; }
  });
}

// A note in words in the page's language; throws where it cannot be said (the caller falls back).
function settlementNote(texts, note) {
  const say = note && (texts.lines || {})[note.key];
  const template = say && (say[LANG] || say.en);
  if (typeof template !== "string" || !note.values) throw new Error("no template");
  return template.replace(PLACEHOLDER, (_, key) => {
    if (!Object.hasOwn(note.values, key)) throw new Error(`no value ${key}`);
    return settlementValue(texts, note.values[key]);
  });
}

function settlementValue(texts, value) {
  const join = LIST_JOINS[LANG] || LIST_JOINS.en;
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(v => settlementValue(texts, v)).join(join);
  if (!value || typeof value !== "object") throw new Error("no value");
  if (Object.hasOwn(value, "key")) return settlementNote(texts, value);
  if (Object.hasOwn(value, "seat")) return seatName(value.seat);
  if (Object.hasOwn(value, "seats")) return value.seats.map(seatName).join(join);
  if (Object.hasOwn(value, "signed")) return (value.signed >= 0 ? "+" : "") + String(value.signed);
  if (Object.hasOwn(value, "name")) {
    const names = (texts.names || {})[value.name];
    return (names && (names[LANG] || names.en)) || String(value.name);
  }
  throw new Error("unknown value");
}
