// The dashboard's words in English, Japanese and Russian. The language is chosen per browser
// (kept in localStorage; first visit: the browser's language when it is one of these). Elements
// with data-i18n="key" get their text from here (data-i18n-placeholder: their placeholder); the
// scripts call t(key, values). The game's own texts (events, what is expected, places, card names)
// are said in gametext.js (each game's sentences from its scorer/<game>/texts.json); settlement lines
// and the camera's questions stay in the engines' English.
"use strict";
const WORDS = {
  en: {
    "nothing-happened": "nothing happened", "retract-then": "take back the last {n} events, then: {text}",
    "fine-tune": "Also fine-tune the recogniser on this deck (the training extra; resumable)", "minutes": "min",
    "look-stop": "Stop looking", "face-down-n": "{n} face down", "zone-empty": "empty",
    "log-undo": "undo ({n})", "log-confirm": "confirmed", "log-replaced": "replaced by: {text}",
    "lang": "Language", "rules-link": "Rules", "new-game": "New game", "game": "Game", "rules": "Rules", "players": "Players, in seat order",
    "seat-n": "Seat {n}", "player-n": "Player {n}", "add-seat": "+ seat", "drop-seat": "− seat", "start": "Start",
    "history": "History", "players-h": "Players", "last-change": "Last change", "lines": "Lines",
    "resume": "resume", "view": "view", "import-label": "Import a record (.jsonl)", "import": "Import",
    "join": "Join from a phone", "join-help": "Scan it on the same network; the phone asks for the PIN shown where fudaba was started.",
    "play": "Play", "tap": "(tap what happened)", "by-hand": "Correct by hand (the camera follows the game)",
    "undo": "Undo last", "confirm": "Confirm last", "download": "Download record",
    "filter": "filter: a card, a seat, a word", "table": "Table", "rounds": "Rounds", "so-far": "The game so far",
    "record": "Record", "change": "change", "seat": "Seat", "player": "Player", "total": "Total ({unit})",
    "over": "The match is over", "camera": "Camera: ", "markers": "looking for the mat's four corner markers",
    "frames": "{state} · {frames} frames · {t} s", "which": "Which happened?", "confirm-q": "Confirm",
    "desync": "Out of sync", "desync-help": "Put the cards back as they were, undo, or tap a legal event below. If the table is right:",
    "table-right": "The table is like this", "camera-view": "Show the table as the camera sees it",
    "live": "live", "reconnecting": "reconnecting…", "connecting": "connecting…",
    "deal-tap": "Tap the {n} card(s) laid face up ({fields})", "deal": "Deal", "a-deal": "A deal", "dealer": "Dealer ",
    "deal-instead": "Put this deal instead", "change-n": "Change event {n}: {text}",
    "change-help": "Tap what happened instead; every later event is applied again (refused if one no longer fits).",
    "cancel": "Cancel", "not-listed": "What may happen next cannot be listed here.",
    "stuck": "Nothing the rules allow can follow this: a claim or a card above is wrong. Undo it.",
    "more": "{n} more: filter by a card to see them", "round-n": "Round {n}: ", "face-down": " ({n} face down)",
    "clock": " · session {m} min", "clock-limit": " · session {m} min of {limit} (the match ends with the round that passes it)",
    "profile": "Your deck", "shipped": "as shipped (no profile)", "enrol-h": "Teach fudaba your own deck",
    "enrol-help": "Lay the deck out on the grid sheet (the mat's last page), take one photo from above, and send it.",
    "enrol-name": "Name", "enrol-deck": "Cards", "enrol-go": "Enrol",
    "corners": "Set the play area's corners by hand", "corners-use": "Use these corners", "corners-again": "Start over",
    "corners-help": "Tap the play area's four corners in turn, clockwise from the top-left (where the mat's marker 0 is).",
    "camera-h": "Camera (leave empty to play by tapping)", "camera-ph": "0 for the first webcam, a phone's stream URL, or a video file",
    "look": "Look through it", "looking": "looking…", "markers-seen": "{n} of 4 markers",
    "mat": "Printable mat (PDF) for this game and seats",
    "to-counter": "Show on the stone counter", "counter-h": "Connect a stone counter",
    "counter-connect": "Connect and show this game", "counter-auto": "find it (USB)", "counter-emulated": "an emulated one (on this page)", "counter": "Stone counter: ", "counter-on": "connected ({port})", "counter-off": "not connected",
    "emulated": " · emulated", "pressed": "Button {button}{kind}: {did}", "refused": " — refused: {why}",
    "pin-h": "Enter the table's PIN", "pin-help": "It is shown where fudaba was started.", "join-btn": "Join",
  },
  ja: {
    "nothing-happened": "何も起きていない", "retract-then": "最後の{n}手を取り消して：{text}",
    "fine-tune": "この札で認識器も追加学習する（学習用の追加パッケージが必要・中断しても再開可）", "minutes": "分",
    "look-stop": "映すのをやめる", "face-down-n": "裏向き{n}枚", "zone-empty": "なし",
    "log-undo": "取り消し（{n}）", "log-confirm": "確認済み", "log-replaced": "置き換え：{text}",
    "lang": "言語", "rules-link": "ルール", "new-game": "新しいゲーム", "game": "ゲーム", "rules": "ルール", "players": "プレイヤー（席順）",
    "seat-n": "{n}番席", "player-n": "プレイヤー{n}", "add-seat": "＋ 席", "drop-seat": "− 席", "start": "開始",
    "history": "履歴", "players-h": "プレイヤー", "last-change": "最終更新", "lines": "行数",
    "resume": "再開", "view": "表示", "import-label": "記録を読み込む (.jsonl)", "import": "読み込む",
    "join": "スマホから参加", "join-help": "同じネットワークで読み取ってください。fudaba を起動した画面の PIN を入力します。",
    "play": "プレイ", "tap": "（起きたことをタップ）", "by-hand": "手で修正する（カメラがゲームを追っています）",
    "undo": "最後を取り消す", "confirm": "最後を確認", "download": "記録をダウンロード",
    "filter": "絞り込み：札・席・言葉", "table": "場", "rounds": "回戦", "so-far": "これまでの進行",
    "record": "記録", "change": "変更", "seat": "席", "player": "プレイヤー", "total": "合計（{unit}）",
    "over": "試合終了", "camera": "カメラ：", "markers": "マットの四隅のマーカーを探しています",
    "frames": "{state} · {frames} フレーム · {t} 秒", "which": "どれが起きましたか？", "confirm-q": "確認",
    "desync": "同期がずれています", "desync-help": "札を元に戻すか、取り消すか、下の合法手をタップしてください。場が正しいなら：",
    "table-right": "場はこの通り", "camera-view": "カメラから見た場を表示",
    "live": "接続中", "reconnecting": "再接続中…", "connecting": "接続しています…",
    "deal-tap": "表向きに置かれた{n}枚をタップ（{fields}）", "deal": "配る", "a-deal": "配札", "dealer": "親 ",
    "deal-instead": "この配札に置き換える", "change-n": "{n}番目を変更：{text}",
    "change-help": "代わりに起きたことをタップ。以降の手はすべて再適用されます（合わなくなる手があれば拒否）。",
    "cancel": "キャンセル", "not-listed": "次に起こり得ることをここでは列挙できません。",
    "stuck": "ルール上この後に続く手がありません。上の宣言か札が誤りです。取り消してください。",
    "more": "ほか{n}件：札で絞り込んでください", "round-n": "第{n}回戦：", "face-down": "（裏向き{n}枚）",
    "clock": " · 経過 {m} 分", "clock-limit": " · 経過 {m} 分／{limit} 分（超えた回戦で終了）",
    "profile": "自分の札", "shipped": "標準のまま（プロファイルなし）", "enrol-h": "自分の札を fudaba に覚えさせる",
    "enrol-help": "グリッドシート（マットの最後のページ）に札を並べ、真上から一枚撮って送ってください。",
    "enrol-name": "名前", "enrol-deck": "札の種類", "enrol-go": "登録",
    "corners": "プレイ範囲の四隅を手で指定", "corners-use": "この四隅を使う", "corners-again": "やり直す",
    "corners-help": "プレイ範囲の四隅を左上（マットのマーカー 0）から時計回りに順にタップしてください。",
    "camera-h": "カメラ（タップで遊ぶなら空欄）", "camera-ph": "最初のウェブカメラは 0、スマホの配信 URL、または動画ファイル",
    "look": "映してみる", "looking": "確認中…", "markers-seen": "マーカー 4 個中 {n} 個",
    "mat": "このゲームと人数の印刷用マット（PDF）",
    "to-counter": "石カウンターに表示", "counter-h": "石カウンターを接続",
    "counter-connect": "接続してこのゲームを表示", "counter-auto": "自動で探す（USB）", "counter-emulated": "エミュレーター（この画面に表示）", "counter": "石カウンター：", "counter-on": "接続中（{port}）", "counter-off": "未接続",
    "emulated": " · エミュレーター", "pressed": "ボタン {button}{kind}：{did}", "refused": " — 拒否：{why}",
    "pin-h": "卓の PIN を入力", "pin-help": "fudaba を起動した画面に表示されています。", "join-btn": "参加",
  },
  ru: {
    "nothing-happened": "ничего не произошло", "retract-then": "отменить последние ходы ({n}), затем: {text}",
    "fine-tune": "Также дообучить распознаватель на этой колоде (нужен пакет train; можно продолжить)", "minutes": "мин",
    "look-stop": "Перестать смотреть", "face-down-n": "рубашкой вверх: {n}", "zone-empty": "пусто",
    "log-undo": "отмена ({n})", "log-confirm": "подтверждено", "log-replaced": "заменено на: {text}",
    "lang": "Язык", "rules-link": "Правила", "new-game": "Новая игра", "game": "Игра", "rules": "Правила", "players": "Игроки по порядку мест",
    "seat-n": "Место {n}", "player-n": "Игрок {n}", "add-seat": "+ место", "drop-seat": "− место", "start": "Начать",
    "history": "История", "players-h": "Игроки", "last-change": "Последнее изменение", "lines": "Строк",
    "resume": "продолжить", "view": "открыть", "import-label": "Загрузить запись (.jsonl)", "import": "Загрузить",
    "join": "Подключиться с телефона", "join-help": "Отсканируйте в той же сети; телефон спросит PIN, показанный там, где запущен fudaba.",
    "play": "Игра", "tap": "(нажмите, что произошло)", "by-hand": "Исправить вручную (камера следит за игрой)",
    "undo": "Отменить последнее", "confirm": "Подтвердить последнее", "download": "Скачать запись",
    "filter": "фильтр: карта, место, слово", "table": "Стол", "rounds": "Раунды", "so-far": "Ход игры",
    "record": "Запись", "change": "изменить", "seat": "Место", "player": "Игрок", "total": "Итог ({unit})",
    "over": "Матч окончен", "camera": "Камера: ", "markers": "ищу четыре угловых маркера коврика",
    "frames": "{state} · {frames} кадров · {t} с", "which": "Что произошло?", "confirm-q": "Подтвердите",
    "desync": "Рассинхронизация", "desync-help": "Верните карты как было, отмените или нажмите допустимый ход ниже. Если стол верен:",
    "table-right": "Стол именно такой", "camera-view": "Показать стол глазами камеры",
    "live": "на связи", "reconnecting": "переподключение…", "connecting": "подключение…",
    "deal-tap": "Нажмите {n} открытые карты ({fields})", "deal": "Раздать", "a-deal": "Раздача", "dealer": "Сдающий ",
    "deal-instead": "Заменить раздачу", "change-n": "Изменить ход {n}: {text}",
    "change-help": "Нажмите, что произошло вместо этого; все следующие ходы применяются заново (отказ, если какой-то больше не подходит).",
    "cancel": "Отмена", "not-listed": "Возможные следующие ходы здесь не перечислить.",
    "stuck": "По правилам дальше ходов нет: заявка или карта выше неверна. Отмените её.",
    "more": "ещё {n}: отфильтруйте по карте", "round-n": "Раунд {n}: ", "face-down": " ({n} рубашкой вверх)",
    "clock": " · сессия {m} мин", "clock-limit": " · сессия {m} мин из {limit} (матч кончится раундом, что перейдёт предел)",
    "profile": "Ваша колода", "shipped": "как поставляется (без профиля)", "enrol-h": "Научить fudaba вашей колоде",
    "enrol-help": "Разложите колоду на листе с сеткой (последняя страница коврика), сфотографируйте сверху и отправьте.",
    "enrol-name": "Название", "enrol-deck": "Карты", "enrol-go": "Обучить",
    "corners": "Задать углы игровой зоны вручную", "corners-use": "Использовать эти углы", "corners-again": "Заново",
    "corners-help": "Нажмите по очереди четыре угла игровой зоны по часовой стрелке, начиная с левого верхнего (где маркер 0).",
    "camera-h": "Камера (пусто — игра нажатиями)", "camera-ph": "0 — первая веб-камера, адрес потока телефона или видеофайл",
    "look": "Посмотреть", "looking": "смотрю…", "markers-seen": "маркеров: {n} из 4",
    "mat": "Коврик для печати (PDF) для этой игры и числа игроков",
    "to-counter": "Показать на счётчике камней", "counter-h": "Подключить счётчик камней",
    "counter-connect": "Подключить и показать эту игру", "counter-auto": "найти (USB)", "counter-emulated": "эмулятор (на этой странице)", "counter": "Счётчик камней: ", "counter-on": "подключён ({port})", "counter-off": "не подключён",
    "emulated": " · эмулятор", "pressed": "Кнопка {button}{kind}: {did}", "refused": " — отказ: {why}",
    "pin-h": "Введите PIN стола", "pin-help": "Он показан там, где запущен fudaba.", "join-btn": "Войти",
  },
};
const LANGS = {en: "English", ja: "日本語", ru: "Русский"};

function chosenLang() {
  const kept = localStorage.getItem("fudaba-lang");
  if (kept && WORDS[kept]) return kept;
  const nav = (navigator.language || "en").slice(0, 2);
  return WORDS[nav] ? nav : "en";
}
let LANG = chosenLang();

function t(key, values) {
  let text = (WORDS[LANG] && WORDS[LANG][key]) || WORDS.en[key] || key;
  for (const [k, v] of Object.entries(values || {})) text = text.split(`{${k}}`).join(String(v));
  return text;
}

function translatePage() {
  document.documentElement.lang = LANG;
  document.querySelectorAll("[data-i18n]").forEach(n => { n.textContent = t(n.dataset.i18n); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach(n => { n.placeholder = t(n.dataset.i18nPlaceholder); });
  document.querySelectorAll("a.rules-link").forEach(a => { a.href = rulesHref(); });
}

// The rules page in the chosen language, at section `id` when given.
function rulesHref(id) { return `/rules?lang=${LANG}${id ? `#${id}` : ""}`; }

function languagePicker() {
  const sel = document.getElementById("lang");
  if (!sel) return;
  sel.replaceChildren(...Object.entries(LANGS).map(([k, name]) => {
    const o = document.createElement("option");
    o.value = k; o.textContent = name; o.selected = k === LANG;
    return o;
  }));
  sel.addEventListener("change", () => {
    LANG = sel.value;
    localStorage.setItem("fudaba-lang", LANG);
    translatePage();
    document.dispatchEvent(new Event("fudaba-lang"));
  });
}

languagePicker();
translatePage();
