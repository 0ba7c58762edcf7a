// The game's own texts in the page's language: events, what the match expects, places and card
// names, said from the events' JSON (the engines' English sentences are the fallback for anything
// not listed here). Needs i18n.js (LANG) and, on a game's page, seatName() from session.js.
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

// Event sentences: game/type → language → (event, seat name, card name) → text.
const EVENT_TEXTS = (() => {
  const S = (e, who) => who(e.seat);
  const capture = {en: e => e.capture ? `, taking ${cardName(e.capture)}` : "",
                   ja: e => e.capture ? `、${cardName(e.capture)}を取る` : "",
                   ru: e => e.capture ? `, забирает ${cardName(e.capture)}` : ""};
  return {
    "*/deal": {en: e => e.dealer ? `${seatName(e.dealer)} deals` : "the cards are dealt",
               ja: e => e.dealer ? `${seatName(e.dealer)}が配る` : "札が配られる",
               ru: e => e.dealer ? `${seatName(e.dealer)} сдаёт` : "карты сданы"},
    "poka/deal": {en: e => `${seatName(e.dealer)} deals; table card ${cardName(e.table)}`,
                  ja: e => `${seatName(e.dealer)}が配る。場札は${cardName(e.table)}`,
                  ru: e => `${seatName(e.dealer)} сдаёт; карта на столе — ${cardName(e.table)}`},
    "hachi-hachi/deal": {en: e => `${seatName(e.dealer)} deals; field ${cardList(e.field)}`,
                         ja: e => `${seatName(e.dealer)}が配る。場：${cardList(e.field)}`,
                         ru: e => `${seatName(e.dealer)} сдаёт; на поле: ${cardList(e.field)}`},
    "poka/claim": {en: (e, w) => `${S(e, w)} shows ${e.teyaku || "a starting hand"}: ${cardList(e.cards)}`,
                   ja: (e, w) => `${S(e, w)}が手役${e.teyaku ? `（${e.teyaku}）` : ""}を見せる：${cardList(e.cards)}`,
                   ru: (e, w) => `${S(e, w)} показывает стартовую руку${e.teyaku ? ` (${e.teyaku})` : ""}: ${cardList(e.cards)}`},
    "poka/no-claim": {en: (e, w) => `${S(e, w)} has no starting hand`, ja: (e, w) => `${S(e, w)}は手役なし`,
                      ru: (e, w) => `${S(e, w)}: стартовой руки нет`},
    "poka/play": {en: (e, w) => `${S(e, w)} plays ${cardName(e.card)}`, ja: (e, w) => `${S(e, w)}が${cardName(e.card)}を出す`,
                  ru: (e, w) => `${S(e, w)} играет ${cardName(e.card)}`},
    "poka/pass": {en: (e, w) => `${S(e, w)} passes`, ja: (e, w) => `${S(e, w)}はパス`, ru: (e, w) => `${S(e, w)}: пас`},
    "poka/table-card": {en: e => `new table card ${cardName(e.card)}`, ja: e => `新しい場札：${cardName(e.card)}`,
                        ru: e => `новая карта на столе: ${cardName(e.card)}`},
    "*/reshuffle": {en: () => "the played cards are shuffled into a new stock", ja: () => "出された札を切り直して山札にする",
                    ru: () => "сыгранные карты перетасованы в новую колоду"},
    "hachi-hachi/sit-out": {en: (e, w) => `${S(e, w)} sits out, showing ${cardList(e.cards)}`,
                            ja: (e, w) => `${S(e, w)}が抜ける（${cardList(e.cards)}）`,
                            ru: (e, w) => `${S(e, w)} выходит из раздачи, показав ${cardList(e.cards)}`},
    "hachi-hachi/declare": {en: (e, w) => `${S(e, w)} ${e.play ? "plays" : "retires"}`,
                            ja: (e, w) => `${S(e, w)}は${e.play ? "出る" : "降りる"}`,
                            ru: (e, w) => `${S(e, w)} ${e.play ? "играет" : "выходит из раздачи"}`},
    "hachi-hachi/buyout": {en: (e, w) => `${S(e, w)} is bought out, showing ${cardList(e.cards)}`,
                           ja: (e, w) => `${S(e, w)}が手を見せて買い取られる：${cardList(e.cards)}`,
                           ru: (e, w) => `${S(e, w)} получает выкуп, показав ${cardList(e.cards)}`},
    "hachi-hachi/claim": {en: (e, w) => `${S(e, w)} claims ${e.teyaku}: ${cardList(e.cards)}`,
                          ja: (e, w) => `${S(e, w)}が手役 ${e.teyaku} を宣言：${cardList(e.cards)}`,
                          ru: (e, w) => `${S(e, w)} объявляет тэяку ${e.teyaku}: ${cardList(e.cards)}`},
    "hachi-hachi/play": {en: (e, w) => `${S(e, w)} plays ${cardName(e.card)}${capture.en(e)}`,
                         ja: (e, w) => `${S(e, w)}が${cardName(e.card)}を出す${capture.ja(e)}`,
                         ru: (e, w) => `${S(e, w)} играет ${cardName(e.card)}${capture.ru(e)}`},
    "hachi-hachi/draw": {en: (e, w) => `${S(e, w)} turns ${cardName(e.card)}${capture.en(e)}`,
                         ja: (e, w) => `${S(e, w)}が山札から${cardName(e.card)}をめくる${capture.ja(e)}`,
                         ru: (e, w) => `${S(e, w)} открывает из колоды ${cardName(e.card)}${capture.ru(e)}`},
    "hachi-hachi/sage": {en: (e, w) => `${S(e, w)} calls sage (play on)`, ja: (e, w) => `${S(e, w)}が「さげ」`,
                         ru: (e, w) => `${S(e, w)} объявляет сагэ (игра продолжается)`},
    "hachi-hachi/shobu": {en: (e, w) => `${S(e, w)} calls shōbu (the round ends)`, ja: (e, w) => `${S(e, w)}が「勝負」`,
                          ru: (e, w) => `${S(e, w)} объявляет сёбу (раздача окончена)`},
    "hachi-hachi/cancel": {en: (e, w) => `${S(e, w)} cancels`, ja: (e, w) => `${S(e, w)}がキャンセル`,
                           ru: (e, w) => `${S(e, w)} объявляет отмену`},
    "bagaji/first-player": {en: (e, w) => `${S(e, w)} plays first`, ja: (e, w) => `${S(e, w)}が最初の手番`,
                            ru: (e, w) => `${S(e, w)} ходит первым`},
    "bagaji/draw": {en: (e, w) => `${S(e, w)} draws ${e.card ? cardName(e.card) : "a card"}`,
                    ja: (e, w) => `${S(e, w)}が${e.card ? cardName(e.card) + "を" : "山札から"}引く`,
                    ru: (e, w) => `${S(e, w)} берёт ${e.card ? cardName(e.card) : "карту из прикупа"}`},
    "bagaji/discard": {en: (e, w) => `${S(e, w)} discards ${cardName(e.card)}`, ja: (e, w) => `${S(e, w)}が${cardName(e.card)}を捨てる`,
                       ru: (e, w) => `${S(e, w)} сбрасывает ${cardName(e.card)}`},
    "bagaji/call": {en: (e, w) => `${S(e, w)} calls the discard with ${cardList(e.cards)}${e.win ? " and wins" : ""}`,
                    ja: (e, w) => `${S(e, w)}が捨て札を${cardList(e.cards)}で取る${e.win ? "（上がり）" : ""}`,
                    ru: (e, w) => `${S(e, w)} забирает сброс к ${cardList(e.cards)}${e.win ? " и выигрывает" : ""}`},
    "bagaji/stop": {en: (e, w) => `${S(e, w)} stops`, ja: (e, w) => `${S(e, w)}がストップ`, ru: (e, w) => `${S(e, w)} объявляет стоп`},
    "bagaji/win": {en: (e, w) => `${S(e, w)} wins`, ja: (e, w) => `${S(e, w)}が上がる`, ru: (e, w) => `${S(e, w)} выигрывает`},
    "bagaji/expose": {en: (e, w) => `${S(e, w)} lays down ${cardList(e.cards)}`, ja: (e, w) => `${S(e, w)}が${cardList(e.cards)}をさらす`,
                      ru: (e, w) => `${S(e, w)} выкладывает ${cardList(e.cards)}`},
    "bagaji/ready": {en: (e, w) => `${S(e, w)} is ready`, ja: (e, w) => `${S(e, w)}が上がり待ち（ready）を宣言`,
                     ru: (e, w) => `${S(e, w)} объявляет готовность`},
    "bagaji/show": {en: (e, w) => `${S(e, w)} shows ${cardList(e.cards)}`, ja: (e, w) => `${S(e, w)}の手：${cardList(e.cards)}`,
                    ru: (e, w) => `${S(e, w)} открывает ${cardList(e.cards)}`},
    "bagaji/exhausted": {en: () => "the stock has run out", ja: () => "山札が尽きた", ru: () => "колода кончилась"},
    "bagaji/end-session": {en: () => "the session ends", ja: () => "セッション終了", ru: () => "сессия окончена"},
  };
})();

// An event (its JSON) in words in the page's language; `fallback` (the engine's English) where
// this page has no sentence for it.
function eventText(game, ev, fallback) {
  if (!ev || !ev.type) return fallback;
  const say = EVENT_TEXTS[`${game}/${ev.type}`] || EVENT_TEXTS[`*/${ev.type}`];
  const f = say && (say[LANG] || say.en);
  if (!f) return fallback;
  try { return f(ev, seatName); } catch (err) { return fallback; }
}

// What the match waits for: game/phase → language → seat name → text.
const EXPECT_TEXTS = {
  "*/deal": {en: () => "a deal is due", ja: () => "配札を待っています", ru: () => "ожидается раздача"},
  "*/over": {en: () => "the match is over", ja: () => "試合終了", ru: () => "матч окончен"},
  "poka/claims": {en: s => `${s} is to show a starting hand or say no claim`, ja: s => `${s}が手役を見せるか「なし」と言う番`,
                  ru: s => `${s}: показать стартовую руку или сказать «нет»`},
  "poka/play": {en: s => `${s} is to play a card on the pile or pass`, ja: s => `${s}が札を出すかパスする番`,
                ru: s => `${s}: сыграть карту или пасовать`},
  "poka/table-card": {en: () => "a new table card is to be turned from the stock", ja: () => "山札から新しい場札をめくる",
                      ru: () => "открыть из колоды новую карту на стол"},
  "hachi-hachi/play": {en: s => `${s} is to play a card from hand`, ja: s => `${s}が手札を出す番`, ru: s => `${s}: сыграть карту с руки`},
  "hachi-hachi/draw": {en: s => `${s} is to turn the top stock card`, ja: s => `${s}が山札をめくる番`,
                       ru: s => `${s}: открыть верхнюю карту колоды`},
  "hachi-hachi/call": {en: s => `${s} is to call sage or shōbu`, ja: s => `${s}が「さげ」か「勝負」を言う番`,
                       ru: s => `${s}: объявить сагэ или сёбу`},
  "hachi-hachi/declare": {en: s => `${s} is to declare play or retire`, ja: s => `${s}が出るか降りるかを言う番`,
                          ru: s => `${s}: играть или выйти из раздачи`},
  "hachi-hachi/sit-out": {en: () => "the blank's holder is to sit out", ja: () => "白札を持つ人が抜ける番",
                          ru: () => "держатель чистой карты выходит из раздачи"},
  "bagaji/first": {en: () => "the first player is to be chosen", ja: () => "最初の手番を決める", ru: () => "выбрать первого игрока"},
  "bagaji/turn": {en: s => `${s} is to draw from the stock or stop; the last discard may be called`,
                  ja: s => `${s}が山札から引くかストップする番（直前の捨て札は取れる）`,
                  ru: s => `${s}: взять из колоды или объявить стоп; последний сброс можно забрать`},
  "bagaji/drawn": {en: s => `${s} is to discard or win`, ja: s => `${s}が捨てるか上がる番`, ru: s => `${s}: сбросить или выиграть`},
  "bagaji/must-discard": {en: s => `${s} is to discard`, ja: s => `${s}が捨てる番`, ru: s => `${s}: сбросить карту`},
  "bagaji/showdown": {en: s => `${s} is to show their hand`, ja: s => `${s}が手を見せる番`, ru: s => `${s}: открыть руку`},
};

function expectsText(game, exp) {
  const say = EXPECT_TEXTS[`${game}/${exp.phase}`] || EXPECT_TEXTS[`*/${exp.phase}`];
  const f = say && (say[LANG] || say.en);
  if (!f || (exp.seat == null && f.length)) return exp.text;
  return f(exp.seat != null ? seatName(exp.seat) : "");
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

// An event type's name (the heading of a group of choices) in the page's language.
const TYPE_WORDS = {
  ja: {"deal": "配札", "claim": "手役", "no-claim": "手役なし", "play": "出す", "pass": "パス", "table-card": "場札",
       "reshuffle": "切り直し", "sit-out": "抜け", "declare": "出る／降りる", "buyout": "買い取り", "draw": "引く",
       "sage": "さげ", "shobu": "勝負", "cancel": "キャンセル", "first-player": "最初の手番", "discard": "捨てる",
       "call": "取る", "stop": "ストップ", "win": "上がり", "expose": "さらす", "ready": "上がり待ち", "show": "手を見せる",
       "exhausted": "山札切れ", "end-session": "セッション終了"},
  ru: {"deal": "раздача", "claim": "заявка", "no-claim": "нет заявки", "play": "ход", "pass": "пас", "table-card": "карта на стол",
       "reshuffle": "перетасовка", "sit-out": "выход", "declare": "играть или выйти", "buyout": "выкуп", "draw": "взять",
       "sage": "сагэ", "shobu": "сёбу", "cancel": "отмена", "first-player": "первый игрок", "discard": "сброс",
       "call": "забрать сброс", "stop": "стоп", "win": "выигрыш", "expose": "выложить", "ready": "готовность", "show": "открыть руку",
       "exhausted": "колода кончилась", "end-session": "конец сессии"},
};

function typeWord(type) { return (TYPE_WORDS[LANG] || {})[type] || type; }
