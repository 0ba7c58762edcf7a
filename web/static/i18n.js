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
    // new-game form and how-to
    "options-h": "Game options", "more-options": "More options", "opt-none": "none",
    "options-camera": "A game followed by a camera plays its ruleset's options as they are.", "opt-rounds": "Rounds",
    "opt-kan-size": "Points in a kan", "opt-who-pays": "Who pays", "opt-teyaku-scale": "Teyaku values",
    "opt-standing-triplets": "Standing threes (tatesanbon)", "opt-aka-kan": "Aka is worth (kan)",
    "opt-fields": "Field multiplier", "opt-field-combine": "Several brights on the table",
    "opt-dekiyaku": "Dekiyaku (sage / shōbu)", "opt-inoshikacho": "Boar-deer-butterflies is a dekiyaku",
    "opt-nanatan-extra": "Nanatan: +1 kan per extra ribbon", "opt-special-cases": "Special cases (all eights …)",
    "opt-achievements": "Diving and escape", "opt-forfeit-first": "First retiree's forfeit (half-kan)",
    "opt-forfeit-step": "Each next retiree pays more (half-kan)", "opt-compensation": "Forced-out players",
    "opt-last-three-must-play": "The last players must make up three", "opt-two-players": "When only two play",
    "opt-deck": "Cards", "opt-end-after-minutes": "Session length (minutes; 0: no limit)",
    "opt-end-after-rounds": "Rounds (0: no limit)", "opt-month-order": "Month order (hanafuda)",
    "opt-direction": "Direction of play", "opt-stop-limit": "Stop: most the five cards may sum to",
    "opt-stop-limit-triplet": "Stop with a triplet: most the other two may sum to",
    "opt-stop-tie-fails": "An equal hand makes a stop fail",
    "opt-stop-requires-call": "Only a player with an exposed triplet may stop",
    "opt-failed-stop-penalty": "Failed stop penalty",
    "opt-failed-stop-others-score": "After a failed stop the others score",
    "opt-feeder-penalty": "Penalty for the discard called to win",
    "opt-moon-threshold": "Moon: six cards summing to at least",
    "opt-moon-fixed-score": "Moon's fixed score (0: minus the sum)",
    "opt-moon-counts-melds": "The exposed triplet counts towards a moon",
    "opt-straight-wrap": "Straights go round from 12 to 1", "opt-six-of-a-kind": "Six equal cards are two triplets",
    "opt-four-and-pair-score": "Four and a pair wins, scoring (empty: no win)",
    "opt-zero-four-of-a-kind": "Every card of a value held three times or more counts 0",
    "opt-ready-required": "A winning call needs \"ready\"", "opt-claim-priority": "Several players call one discard",
    "opt-stock-exhausted": "Empty stock", "opt-no-winner-first": "Who starts after a round with no winner",
    "opt-natural-triplet-exposure": "Expose a concealed triplet after drawing", "opt-stones-to-win": "Stones to win",
    "opt-extra-jokers": "Three blank cards are the wilds",
    "opt-jan-feb-table-card-only": "January on January only on the table card",
    "opt-all-out-first-turn-only": "All out (2 stones) only on the first turn",
    "opt-voluntary-stop": "A player may pass while able to play", "opt-pool-size": "Stones in the pool",
    "val-deck-playing-2x": "playing cards, two decks (96)", "val-deck-hanafuda-1x": "hanafuda (48)",
    "val-deck-hanafuda-2x": "hanafuda, two sets (96)", "val-month-order-japanese": "Japanese",
    "val-month-order-korean": "Korean (11 and 12 swapped)", "val-direction-seat-order": "seat order",
    "val-direction-reverse": "reverse", "val-who-pays-each": "each payer in full",
    "val-who-pays-split": "the payers split it", "val-teyaku-scale-standard": "standard",
    "val-teyaku-scale-seed-1910": "1910", "val-field-combine-queue": "the largest; the rest wait",
    "val-field-combine-multiply": "all multiply", "val-compensation-on-claim": "bought out on showing",
    "val-compensation-none": "nothing paid", "val-two-players-play": "they play",
    "val-two-players-split": "they split the pot", "val-failed-stop-others-score-hand": "their hand",
    "val-failed-stop-others-score-nothing": "nothing", "val-claim-priority-winning-first": "a winning call first",
    "val-claim-priority-turn-order": "the nearest first", "val-stock-exhausted-reshuffle": "reshuffle the discards",
    "val-stock-exhausted-no-winner": "the round ends, no winner",
    "val-no-winner-first-lowest-value": "the lowest hand", "val-no-winner-first-most-penalty": "the one penalised",
    "val-no-winner-first-same-first": "the same player",
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
    // new-game form and how-to
    "options-h": "ゲームのオプション", "more-options": "その他のオプション", "opt-none": "なし",
    "options-camera": "カメラで追うゲームは、ルールセットのオプションのままで遊びます。", "opt-rounds": "ラウンド数", "opt-kan-size": "1貫の点数",
    "opt-who-pays": "支払い方", "opt-teyaku-scale": "手役の値", "opt-standing-triplets": "立三本（立つ3枚）", "opt-aka-kan": "赤の貫数",
    "opt-fields": "場の倍率", "opt-field-combine": "場に光が複数あるとき", "opt-dekiyaku": "出来役（下げ・勝負）",
    "opt-inoshikacho": "猪鹿蝶を出来役にする", "opt-nanatan-extra": "七短：超えた短冊1枚ごとに＋1貫", "opt-special-cases": "特殊な場合（総八など）",
    "opt-achievements": "飛び込みと抜け役", "opt-forfeit-first": "最初に降りた人の降り賃（半貫単位）", "opt-forfeit-step": "次に降りる人ごとの増額（半貫単位）",
    "opt-compensation": "締め出された人", "opt-last-three-must-play": "3人を揃えるため最後の人は参加", "opt-two-players": "2人しか参加しないとき",
    "opt-deck": "札", "opt-end-after-minutes": "セッションの長さ（分、0は制限なし）", "opt-end-after-rounds": "ラウンド数（0は制限なし）",
    "opt-month-order": "月の順（花札）", "opt-direction": "プレイの方向", "opt-stop-limit": "ストップ：5枚の合計の上限",
    "opt-stop-limit-triplet": "3枚組ありのストップ：残り2枚の合計の上限", "opt-stop-tie-fails": "同じ値でもストップ失敗",
    "opt-stop-requires-call": "公開3枚組を持つ人だけがストップできる", "opt-failed-stop-penalty": "ストップ失敗のペナルティ",
    "opt-failed-stop-others-score": "ストップ失敗後の他の人の得点", "opt-feeder-penalty": "上がりにコールされた捨て札のペナルティ",
    "opt-moon-threshold": "ムーン：6枚の合計がこれ以上", "opt-moon-fixed-score": "ムーンの固定得点（0は合計のマイナス）",
    "opt-moon-counts-melds": "公開3枚組をムーンに数える", "opt-straight-wrap": "12から1へ回り込むストレート",
    "opt-six-of-a-kind": "同じ値の6枚は3枚組2つ", "opt-four-and-pair-score": "4枚とペアを上がりにする得点（空欄は上がりなし）",
    "opt-zero-four-of-a-kind": "3枚以上ある値の札はすべて0", "opt-ready-required": "上がりコールにはテンパイ宣言が必要",
    "opt-claim-priority": "1枚の捨て札を複数がコール", "opt-stock-exhausted": "山札切れ", "opt-no-winner-first": "勝者なしのラウンドの後に始める人",
    "opt-natural-triplet-exposure": "引いた後に手の内の3枚組を公開できる", "opt-stones-to-win": "勝ちに必要な石",
    "opt-extra-jokers": "白札3枚を化札にする", "opt-jan-feb-table-card-only": "1月の上の1月は台札の上だけ",
    "opt-all-out-first-turn-only": "総出し（石2個）は最初の手番だけ", "opt-voluntary-stop": "出せる札があってもパスできる",
    "opt-pool-size": "プールの石の数", "val-deck-playing-2x": "トランプ2組（96枚）", "val-deck-hanafuda-1x": "花札1組（48枚）",
    "val-deck-hanafuda-2x": "花札2組（96枚）", "val-month-order-japanese": "日本式",
    "val-month-order-korean": "韓国式（11と12を入れ替え）", "val-direction-seat-order": "席順", "val-direction-reverse": "逆回り",
    "val-who-pays-each": "各人が全額", "val-who-pays-split": "支払う人で分担", "val-teyaku-scale-standard": "標準",
    "val-teyaku-scale-seed-1910": "1910年", "val-field-combine-queue": "最大のもの（残りは順番待ち）",
    "val-field-combine-multiply": "すべて掛け合わせる", "val-compensation-on-claim": "見せれば買い取り",
    "val-compensation-none": "支払いなし", "val-two-players-play": "2人で打つ", "val-two-players-split": "ポットを分ける",
    "val-failed-stop-others-score-hand": "手の値", "val-failed-stop-others-score-nothing": "得点なし",
    "val-claim-priority-winning-first": "上がりコールが優先", "val-claim-priority-turn-order": "近い人が優先",
    "val-stock-exhausted-reshuffle": "捨て札を切り直す", "val-stock-exhausted-no-winner": "勝者なしで終了",
    "val-no-winner-first-lowest-value": "手の値が最も低い人", "val-no-winner-first-most-penalty": "ペナルティを払った人",
    "val-no-winner-first-same-first": "同じ人",
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
    // new-game form and how-to
    "options-h": "Настройки игры", "more-options": "Другие настройки", "opt-none": "нет",
    "options-camera": "Игра, за которой следит камера, идёт с настройками набора правил как есть.",
    "opt-rounds": "Раундов", "opt-kan-size": "Очков в кане", "opt-who-pays": "Кто платит",
    "opt-teyaku-scale": "Стоимость тэяку", "opt-standing-triplets": "Стоячие тройки (татэсанбон)",
    "opt-aka-kan": "Ака стоит (кан)", "opt-fields": "Множитель поля", "opt-field-combine": "Несколько ярких на столе",
    "opt-dekiyaku": "Дэкияку (сагэ / сёбу)", "opt-inoshikacho": "Кабан-олень-бабочки — дэкияку",
    "opt-nanatan-extra": "Нанатан: +1 кан за каждую лишнюю ленту",
    "opt-special-cases": "Особые случаи (все восьмёрки …)", "opt-achievements": "Тобикоми и нукэяку",
    "opt-forfeit-first": "Отступное первого вышедшего (полукана)",
    "opt-forfeit-step": "Надбавка каждому следующему вышедшему (полукана)", "opt-compensation": "Вытесненные игроки",
    "opt-last-three-must-play": "Последние обязаны играть, чтобы набралось трое",
    "opt-two-players": "Если играют только двое", "opt-deck": "Карты",
    "opt-end-after-minutes": "Длительность сессии (минут; 0 — без предела)",
    "opt-end-after-rounds": "Раундов (0 — без предела)", "opt-month-order": "Порядок месяцев (ханафуда)",
    "opt-direction": "Направление игры", "opt-stop-limit": "Стоп: наибольшая сумма пяти карт",
    "opt-stop-limit-triplet": "Стоп с тройкой: наибольшая сумма двух других",
    "opt-stop-tie-fails": "Равная рука — стоп неудачен", "opt-stop-requires-call": "Стоп только с открытой тройкой",
    "opt-failed-stop-penalty": "Штраф за неудачный стоп",
    "opt-failed-stop-others-score": "После неудачного стопа остальные получают",
    "opt-feeder-penalty": "Штраф за сброс, взятый для выигрыша",
    "opt-moon-threshold": "Луна: сумма шести карт не меньше",
    "opt-moon-fixed-score": "Фиксированные очки луны (0 — минус сумма)",
    "opt-moon-counts-melds": "Открытая тройка входит в луну", "opt-straight-wrap": "Стрит через 12 к 1",
    "opt-six-of-a-kind": "Шесть одинаковых — две тройки",
    "opt-four-and-pair-score": "Четыре и пара выигрывают с очками (пусто — не выигрывают)",
    "opt-zero-four-of-a-kind": "Все карты значения, что есть трижды и больше, — 0",
    "opt-ready-required": "Для выигрышного взятия нужно «готов»",
    "opt-claim-priority": "Несколько игроков берут один сброс", "opt-stock-exhausted": "Пустой прикуп",
    "opt-no-winner-first": "Кто начинает после раунда без победителя",
    "opt-natural-triplet-exposure": "Открыть закрытую тройку после взятия карты",
    "opt-stones-to-win": "Камней для победы", "opt-extra-jokers": "Джокеры — три чистые карты",
    "opt-jan-feb-table-card-only": "Январская на январскую только на карту стола",
    "opt-all-out-first-turn-only": "Все разом (2 камня) только в первый ход",
    "opt-voluntary-stop": "Можно пасовать, имея ход", "opt-pool-size": "Камней в общем запасе",
    "val-deck-playing-2x": "игральные карты, две колоды (96)", "val-deck-hanafuda-1x": "ханафуда (48)",
    "val-deck-hanafuda-2x": "ханафуда, два набора (96)", "val-month-order-japanese": "японский",
    "val-month-order-korean": "корейский (11 и 12 меняются)", "val-direction-seat-order": "по порядку мест",
    "val-direction-reverse": "в обратную сторону", "val-who-pays-each": "каждый платит полностью",
    "val-who-pays-split": "плательщики делят сумму", "val-teyaku-scale-standard": "стандартная",
    "val-teyaku-scale-seed-1910": "1910 года", "val-field-combine-queue": "наибольший, остальные ждут",
    "val-field-combine-multiply": "все перемножаются", "val-compensation-on-claim": "выкуп по показу",
    "val-compensation-none": "ничего не платится", "val-two-players-play": "играют вдвоём",
    "val-two-players-split": "делят банк", "val-failed-stop-others-score-hand": "стоимость руки",
    "val-failed-stop-others-score-nothing": "ничего", "val-claim-priority-winning-first": "сначала выигрышное",
    "val-claim-priority-turn-order": "сначала ближайший", "val-stock-exhausted-reshuffle": "перемешать сброс",
    "val-stock-exhausted-no-winner": "раунд без победителя", "val-no-winner-first-lowest-value": "с наименьшей рукой",
    "val-no-winner-first-most-penalty": "оштрафованный", "val-no-winner-first-same-first": "тот же игрок",
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
